"""A table of bad requests: each gets a 4xx problem+json with a kind, and appends nothing."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import auth

API = "/api/v1/games"
GOOD = {"type": "Bid", "bid": 2}
SEAT0 = object()  # placeholders replaced by the game's real values
SEAT1 = object()


def j(value: Any) -> dict[str, Any]:
    return {"data": json.dumps(value), "content_type": "application/json"}


# (name, method, path suffix, request kwargs, headers, status, kind)
CASES = [
    ("not json", "POST", "/moves", {"data": "{nope", "content_type": "application/json"}, SEAT0, 400, "MALFORMED"),
    ("empty body", "POST", "/moves", {"data": "", "content_type": "application/json"}, SEAT0, 400, "MALFORMED"),
    ("json array", "POST", "/moves", j([GOOD]), SEAT0, 400, "MALFORMED"),
    ("json string", "POST", "/moves", j("Bid"), SEAT0, 400, "MALFORMED"),
    ("json null", "POST", "/moves", j(None), SEAT0, 400, "MALFORMED"),
    ("missing type", "POST", "/moves", j({"bid": 2}), SEAT0, 400, "MALFORMED"),
    ("type not a string", "POST", "/moves", j({"type": 7, "bid": 2}), SEAT0, 400, "MALFORMED"),
    ("unknown move type", "POST", "/moves", j({"type": "Cheat"}), SEAT0, 422, "UNKNOWN_MOVE"),
    ("unknown field", "POST", "/moves", j({**GOOD, "extra": 1}), SEAT0, 400, "MALFORMED"),
    ("wrong type of field", "POST", "/moves", j({"type": "Bid", "bid": "two"}), SEAT0, 400, "MALFORMED"),
    ("bool for int", "POST", "/moves", j({"type": "Bid", "bid": True}), SEAT0, 400, "MALFORMED"),
    ("seat in body", "POST", "/moves", j({**GOOD, "seat": 1}), SEAT0, 400, "MALFORMED"),
    ("illegal value", "POST", "/moves", j({"type": "Bid", "bid": 9}), SEAT0, 422, "ILLEGAL_MOVE"),
    ("system move by a seat", "POST", "/moves", j({"type": "Reveal"}), SEAT0, 422, "NOT_YOUR_TURN"),
    ("form encoded", "POST", "/moves", {"data": "type=Bid&bid=2",
                                        "content_type": "application/x-www-form-urlencoded"}, SEAT0, 400, "MALFORMED"),
    ("huge body", "POST", "/moves", j({"type": "Bid", "bid": 2, "pad": "x" * 200_000}), SEAT0, 413, "TOO_LARGE"),
    ("no token", "POST", "/moves", j(GOOD), {}, 401, "UNAUTHORIZED"),
    ("bad token", "POST", "/moves", j(GOOD), {"Authorization": "Bearer nope"}, 401, "UNAUTHORIZED"),
    ("basic auth", "POST", "/moves", j(GOOD), {"Authorization": "Basic YTpi"}, 401, "UNAUTHORIZED"),
    ("empty bearer", "POST", "/moves", j(GOOD), {"Authorization": "Bearer "}, 401, "UNAUTHORIZED"),
    ("bad If-Match", "POST", "/moves", j(GOOD), "if-match:abc", 400, "MALFORMED"),
    ("stale If-Match", "POST", "/moves", j(GOOD), "if-match:1", 412, "STALE_VERSION"),
    ("future If-Match", "POST", "/moves", j(GOOD), "if-match:99", 412, "STALE_VERSION"),
    ("long Idempotency-Key", "POST", "/moves", j(GOOD), "idem:" + "k" * 200, 400, "MALFORMED"),
    ("unknown game move", "POST", "!/nosuchgame/moves", j(GOOD), SEAT0, 404, "NOT_FOUND"),
    ("unknown game state", "GET", "!/nosuchgame/state", {}, {}, 404, "NOT_FOUND"),
    ("bad token on state", "GET", "/state", {}, {"Authorization": "Bearer x"}, 401, "UNAUTHORIZED"),
    ("negative after", "GET", "/events?after=-1", {}, {}, 400, "MALFORMED"),
    ("text after", "GET", "/events?after=x", {}, {}, 400, "MALFORMED"),
    ("after past the game", "GET", "/events?after=500", {}, {}, 400, "MALFORMED"),  # as the stream: not 200 []
    ("bad Last-Event-ID", "GET", "/events/stream", {}, {"Last-Event-ID": "abc"}, 400, "MALFORMED"),
    ("wrong method", "DELETE", "/moves", {}, {}, 405, "METHOD_NOT_ALLOWED"),
    ("unknown route", "GET", "/nothing-here", {}, {}, 404, "NOT_FOUND"),
    ("create: not json", "POST", "!", {"data": "[", "content_type": "application/json"}, {}, 400, "MALFORMED"),
    ("create: no seats", "POST", "!", j({"game": "toy", "edition": "classic", "seats": []}), {}, 400, "MALFORMED"),
    ("create: unknown field", "POST", "!", j({"game": "toy", "edition": "classic", "seats": [{"name": "a"}] * 2,
                                             "color": "red"}), {}, 400, "MALFORMED"),
    ("create: unknown game", "POST", "!", j({"game": "chess", "edition": "classic", "seats": [{"name": "a"}] * 2}),
     {}, 422, "INVALID_CONFIG"),
    ("create: bad edition", "POST", "!", j({"game": "toy", "edition": "1850", "seats": [{"name": "a"}] * 2}),
     {}, 422, "INVALID_CONFIG"),
    ("create: too few players", "POST", "!", j({"game": "toy", "edition": "classic", "seats": [{"name": "a"}]}),
     {}, 422, "INVALID_CONFIG"),
    ("create: bad kind", "POST", "!", j({"game": "toy", "edition": "classic",
                                        "seats": [{"name": "a", "kind": "alien"}] * 2}), {}, 400, "MALFORMED"),
    ("create: bot without name", "POST", "!", j({"game": "toy", "edition": "classic",
                                                "seats": [{"name": "a", "kind": "bot"}] * 2}), {}, 422, "INVALID_CONFIG"),
    ("create: bad option", "POST", "!", j({"game": "toy", "edition": "classic", "seats": [{"name": "a"}] * 2,
                                          "options": {"rounds": "many"}}), {}, 422, "INVALID_CONFIG"),
]


def _request(client: Any, game: dict[str, Any], case: tuple) -> Any:
    name, method, suffix, kwargs, headers, status, kind = case
    t0, t1 = (s["token"] for s in game["seats"])
    if headers is SEAT0:
        headers = auth(t0)
    elif isinstance(headers, str):
        header, _, value = headers.partition(":")
        headers = {**auth(t0), {"if-match": "If-Match", "idem": "Idempotency-Key"}[header]: value}
    path = API + suffix[1:] if suffix.startswith("!") else f"{API}/{game['id']}{suffix}"
    return client.open(path, method=method, headers=headers, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_request_is_a_problem_and_appends_nothing(client: Any, svc: Any, new_game: Any, case: tuple) -> None:
    game = new_game()
    before = svc.store.version(game["id"])
    response = _request(client, game, case)
    assert response.status_code == case[5], response.get_data(as_text=True)
    assert response.content_type == "application/problem+json"
    body = response.json
    assert body["kind"] == case[6] and body["status"] == case[5]
    assert set(body) >= {"type", "title", "status", "detail", "kind"}
    assert "Traceback" not in response.get_data(as_text=True)
    assert svc.store.version(game["id"]) == before


def test_table_is_big_enough() -> None:
    assert len(CASES) >= 25


def _fuzz(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(8 if depth < 3 else 5)
    if pick == 0:
        return rng.choice([None, True, False])
    if pick == 1:
        return rng.choice([0, -1, 2**63, 1.5, float("1e308")])
    if pick == 2:
        return rng.choice(["", "Bid", "Reveal", "\u0000", "\ud7ff" * 3, "x" * 300])
    if pick in (3, 4):
        return rng.choice(["Bid", "Reveal", "Cheat"])
    if pick == 5:
        return [_fuzz(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["type", "bid", "seat", "x", ""]
    return {rng.choice(keys): _fuzz(rng, depth + 1) for _ in range(rng.randrange(4))}


def test_fuzzed_bodies_never_500_and_append_only_legal_moves(client: Any, svc: Any, new_game: Any) -> None:
    game = new_game()
    token = game["seats"][0]["token"]
    rng = random.Random(1234)
    seen = set()
    for _ in range(300):
        body = _fuzz(rng)
        before = svc.store.version(game["id"])
        r = client.post(f"{API}/{game['id']}/moves", data=json.dumps(body), content_type="application/json",
                        headers=auth(token))
        seen.add(r.status_code)
        assert r.status_code < 500, (body, r.get_data(as_text=True))
        if r.status_code != 200:
            assert r.content_type == "application/problem+json"
            assert svc.store.version(game["id"]) == before
    assert {400, 422} <= seen


# -- issue 15, finding 9: odd input that used to answer 500 ---------------------------------------


@pytest.mark.parametrize("depth", [33, 20_000])
def test_deeply_nested_json_is_a_400_not_a_500(client: Any, new_game: Any, depth: int) -> None:
    game = new_game()
    token = game["seats"][0]["token"]
    body = "[" * depth + "]" * depth
    r = client.post(f"/api/v1/games/{game['id']}/moves", data=body, headers={**auth(token),
                    "Content-Type": "application/json"})
    assert r.status_code == 400 and r.mimetype == "application/problem+json"


@pytest.mark.parametrize("path, body", [
    ("/api/v1/games", {"game": "toy", "edition": "classic", "seats": [{"bot_id": "\ud800"}, {"name": "B"}]}),
    ("/api/v1/games", {"game": "toy", "edition": "classic", "seats": [{"name": "A"},
                                                                      {"kind": "open", "invite_account": "ab\udfff"}]}),
    ("/api/v1/games", {"game": "toy", "edition": "classic", "seats": [{"name": "\udc80"}, {"name": "B"}]}),
    ("/api/v1/accounts", {"name": "ab\ud83d"}),
    ("/api/v1/tournaments", {"game": "toy", "players_per_game": 2, "entrants": [{"bot_id": "\ud800"}]}),
])
def test_a_lone_surrogate_in_a_json_string_is_a_400_not_a_500(client: Any, path: str, body: dict[str, Any]) -> None:
    """Such a string parses but no UTF-8 store keeps it: it reached Redis as a 500 (a bot id)."""
    r = client.post(path, data=json.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json["kind"] == "MALFORMED" and "surrogate" in r.json["detail"]


def test_a_surrogate_pair_is_a_character_like_any_other(new_game: Any) -> None:
    game = new_game(seats=[{"name": "Ann \ud83c\udfb2"}, {"name": "B"}])
    assert game["seats"][0]["name"] == "Ann \U0001f3b2"


def test_nesting_inside_strings_does_not_count(new_game: Any) -> None:
    game = new_game(seats=[{"name": "[{" * 30}, {"name": '\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['}])
    assert game["seats"][0]["name"] == "[{" * 30


@pytest.mark.parametrize("value", ["²", "١٢", "1e3", "99999999999999999999", "-1"])
def test_non_ascii_or_huge_if_match_is_a_400(client: Any, new_game: Any, value: str) -> None:
    game = new_game()
    token = game["seats"][0]["token"]
    r = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "Pass"},
                    headers={**auth(token), "If-Match": value})
    assert r.status_code == 400 and r.json["kind"] == "MALFORMED" and "If-Match" in r.json["detail"]


@pytest.mark.parametrize("value", ["²", "١", "10000000000000"])
def test_non_ascii_or_huge_last_event_id_is_a_400(client: Any, new_game: Any, value: str) -> None:
    game = new_game()
    r = client.get(f"/api/v1/games/{game['id']}/events/stream", headers={"Last-Event-ID": value})
    assert r.status_code == 400 and r.mimetype == "application/problem+json"


def test_resuming_beyond_the_game_is_a_400_not_a_silent_skip(client: Any, new_game: Any) -> None:
    game = new_game()
    r = client.get(f"/api/v1/games/{game['id']}/events/stream", headers={"Last-Event-ID": "5000"})
    assert r.status_code == 400 and "version" in r.json["detail"]


@pytest.mark.parametrize("path", ["events?after=18446744073709551616", "events/stream?after=18446744073709551616"])
def test_after_beyond_the_stream_id_range_is_a_400(client: Any, new_game: Any, path: str) -> None:
    game = new_game()
    r = client.get(f"/api/v1/games/{game['id']}/{path}")
    assert r.status_code == 400 and r.mimetype == "application/problem+json"
