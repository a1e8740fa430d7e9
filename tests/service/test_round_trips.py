"""How many times a POST move talks to Redis (issue 14: one round trip in the common case).

Counts what the app's connection sends: every command or pipeline written to a socket is one
round trip. Nothing here measures time.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from domain.core import SYSTEM
from service.app import create_app


@pytest.fixture
def limited_app(conn: redis.Redis) -> Any:
    """The app as served: every rate limit on, no worker behind it."""
    pool = redis.ConnectionPool.from_url(conn.connection_pool.connection_kwargs and _url(conn))
    return create_app({"REDIS": redis.Redis(connection_pool=pool), "TESTING": True, "CLIENT_SEEDS": "any",
                       "RATE_LIMIT": 600, "ADVANCE": lambda game_id, version: None})


def _url(conn: redis.Redis) -> str:
    kw = conn.connection_pool.connection_kwargs
    return f"redis://{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"


def _human_turn(client: Any, svc: Any, game_id: str, tokens: dict[int, str]) -> tuple[dict[str, str], dict[str, Any]]:
    game = svc.load(game_id)
    while SYSTEM in game.to_act:  # what a worker would do, through the same append path
        svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM), expected_version=game.version)
        game = svc.load(game_id)
    seat = min(a for a in game.to_act if isinstance(a, int))
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    moves = client.get(f"/api/v1/games/{game_id}/moves", headers=auth).get_json()
    return auth, moves


def test_a_move_is_one_round_trip(limited_app: Any, created: list[str], trips: list[str]) -> None:
    client = limited_app.test_client()
    svc = limited_app.extensions["hourglass"]
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": f"P{i}"} for i in range(2)]}
    made = client.post("/api/v1/games", json=body).get_json()
    created.append(made["id"])
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    counts = []
    for n in range(6):
        auth, moves = _human_turn(client, svc, made["id"], tokens)
        trips.clear()
        answer = client.post(f"/api/v1/games/{made['id']}/moves", json=moves["moves"][0],
                             headers={**auth, "If-Match": str(moves["version"]), "Idempotency-Key": f"k{n}"})
        assert answer.status_code == 200, answer.get_json()
        assert answer.headers["RateLimit-Limit"] == "600"
        counts.append(list(trips))
    print(counts)
    assert all(len(c) == 1 for c in counts), counts


def _app(conn: redis.Redis, limit: int = 600) -> Any:
    return create_app({"REDIS": redis.Redis(connection_pool=redis.ConnectionPool.from_url(_url(conn))),
                       "TESTING": True, "CLIENT_SEEDS": "any", "RATE_LIMIT": limit,
                       "ADVANCE": lambda game_id, version: None})


def _planning_game(client: Any, svc: Any, created: list[str]) -> tuple[str, dict[int, str]]:
    """An Orléans game of two humans in a phase where both seats may act."""
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]}
    made = client.post("/api/v1/games", json=body).get_json()
    created.append(made["id"])
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    _human_turn(client, svc, made["id"], tokens)  # past the SYSTEM steps of the opening
    assert svc.load(made["id"]).to_act == {0, 1}
    return made["id"], tokens


def test_a_process_behind_the_stream_gets_412_with_if_match_and_a_retried_apply_without(
        conn: redis.Redis, created: list[str], trips: list[str]) -> None:
    a, b = _app(conn).test_client(), _app(conn).test_client()
    svc = a.application.extensions["hourglass"]
    game_id, tokens = _planning_game(a, svc, created)
    url = f"/api/v1/games/{game_id}/moves"
    listed = a.get(url, headers={"Authorization": f"Bearer {tokens[1]}"}).get_json()  # a caches this version
    theirs = b.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}).get_json()
    assert b.post(url, json=theirs["moves"][0], headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
    now = svc.store.version(game_id)
    trips.clear()
    stale = a.post(url, json=listed["moves"][0],
                   headers={"Authorization": f"Bearer {tokens[1]}", "If-Match": str(listed["version"])})
    assert stale.status_code == 412 and stale.get_json()["current_version"] == now
    assert len(trips) == 1  # the script's stale answer, nothing else
    applied = a.post(url, json=listed["moves"][0], headers={"Authorization": f"Bearer {tokens[1]}"})
    assert applied.status_code == 200, applied.get_json()
    assert applied.get_json()["version"] == svc.store.version(game_id) > now


def test_an_idempotent_retry_on_the_one_trip_path_returns_the_stored_result(
        conn: redis.Redis, created: list[str]) -> None:
    a = _app(conn).test_client()
    svc = a.application.extensions["hourglass"]
    game_id, tokens = _planning_game(a, svc, created)
    url, auth = f"/api/v1/games/{game_id}/moves", {"Authorization": f"Bearer {tokens[0]}"}
    move = a.get(url, headers=auth).get_json()["moves"][0]
    other = {**move, "count": move.get("count", 0) + 1}
    first = a.post(url, json=move, headers={**auth, "Idempotency-Key": "once"})
    version = svc.store.version(game_id)
    again = a.post(url, json=move, headers={**auth, "Idempotency-Key": "once"})
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == first.get_json()
    assert svc.store.version(game_id) == version
    assert a.post(url, json=other, headers={**auth, "Idempotency-Key": "once"}).status_code == 409


def test_the_token_window_counts_each_request_once_on_either_path(conn: redis.Redis, created: list[str]) -> None:
    a = _app(conn, limit=5).test_client()
    a.environ_base["REMOTE_ADDR"] = f"10.77.{random.randrange(256)}.{random.randrange(1, 255)}"  # a window of its own
    svc = a.application.extensions["hourglass"]
    game_id, tokens = _planning_game(a, svc, created)
    url, auth = f"/api/v1/games/{game_id}/moves", {"Authorization": f"Bearer {tokens[0]}"}
    remaining = []
    listed = a.get(url, headers=auth)  # the ordinary path counts: 2
    remaining.append(listed.headers["RateLimit-Remaining"])
    bad = a.post(url, json={"type": "DrawFollowers", "count": 99}, headers=auth)  # refused locally, counted by the old path: 3
    assert bad.status_code == 422, bad.get_json()
    remaining.append(bad.headers["RateLimit-Remaining"])
    ok = a.post(url, json=listed.get_json()["moves"][0], headers=auth)  # counted in the script: 4
    assert ok.status_code == 200
    remaining.append(ok.headers["RateLimit-Remaining"])
    assert remaining == ["3", "2", "1"]  # the opening GET of _planning_game counted 1
    version = svc.store.version(game_id)
    a.get(url, headers=auth)
    a.get(url, headers=auth)
    move = a.get(url, headers=auth).get_json()  # 7: over the limit already
    limited = a.post(url, json={"type": "Pass"}, headers=auth)
    assert limited.status_code == 429 and limited.headers["RateLimit-Remaining"] == "0"
    assert int(limited.headers["Retry-After"]) >= 1 and move.get("status") == 429
    assert svc.store.version(game_id) == version


def test_an_unknown_token_is_a_401(conn: redis.Redis, created: list[str]) -> None:
    a = _app(conn).test_client()
    svc = a.application.extensions["hourglass"]
    game_id, tokens = _planning_game(a, svc, created)
    answer = a.post(f"/api/v1/games/{game_id}/moves", json={"type": "Pass"}, headers={"Authorization": "Bearer nope"})
    assert answer.status_code == 401


def test_a_seat_holders_get_costs_the_load_the_token_and_its_window(
        limited_app: Any, created: list[str], trips: list[str]) -> None:
    """GET .../moves and .../state with a known seat token: the window (counted before the view)
    and the tail of the stream; the token is checked against this process's copy of the meta."""
    client = limited_app.test_client()
    svc = limited_app.extensions["hourglass"]
    game_id, tokens = _planning_game(client, svc, created)
    for path in ("moves", "state"):
        trips.clear()
        assert client.get(f"/api/v1/games/{game_id}/{path}", headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
        assert len(trips) == 2, (path, trips)  # the requester's window, the tail of the stream


def test_a_process_one_batch_behind_catches_up_from_the_stale_answer(
        conn: redis.Redis, created: list[str], trips: list[str]) -> None:
    """Without If-Match, a POST decided on this process's copy of the game one batch behind costs
    two round trips: the append script's stale answer carries the missing entries, and the move
    decided again on the caught-up game is appended (issue 27; 3 before, the tail read apart)."""
    a, b = _app(conn).test_client(), _app(conn).test_client()
    svc = a.application.extensions["hourglass"]
    game_id, tokens = _planning_game(a, svc, created)
    url = f"/api/v1/games/{game_id}/moves"
    first = a.get(url, headers={"Authorization": f"Bearer {tokens[1]}"})  # a caches this version
    listed = first.get_json()
    theirs = b.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}).get_json()
    assert b.post(url, json=theirs["moves"][0], headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
    moved = svc.store.version(game_id)
    assert svc.cached(game_id) is not None and svc.cached(game_id).version < moved
    trips.clear()
    applied = a.post(url, json=listed["moves"][0], headers={"Authorization": f"Bearer {tokens[1]}"})
    assert applied.status_code == 200, applied.get_json()
    assert trips == ["EVALSHA", "EVALSHA"], trips  # the stale answer with the tail, the retried append
    # the address's seat-token window counted b's GET and POST and this POST once (by the first
    # script), unless a new window began in between (its reset then lies further ahead)
    if int(applied.headers["RateLimit-Reset"]) <= int(first.headers["RateLimit-Reset"]):
        assert int(applied.headers["RateLimit-Remaining"]) == int(first.headers["RateLimit-Remaining"]) - 3
    body = applied.get_json()
    assert body["version"] == svc.store.version(game_id) > moved
    assert [e["seq"] for e in body["events"]] == list(range(moved + 1, body["version"] + 1))
    fresh = _app(conn).extensions["hourglass"].load(game_id)  # a process that folds the stream afresh
    assert svc.cached(game_id).last_hash == fresh.last_hash and svc.cached(game_id).state == fresh.state


def test_a_process_behind_an_if_match_it_cannot_know_reads_the_tail_once(
        conn: redis.Redis, created: list[str], trips: list[str]) -> None:
    """With If-Match naming a version newer than this process's copy, the copy is known to be
    behind before anything is sent: one read of the missing entries, then the append (2 round trips)."""
    a, b = _app(conn).test_client(), _app(conn).test_client()
    svc = a.application.extensions["hourglass"]
    game_id, tokens = _planning_game(a, svc, created)
    url = f"/api/v1/games/{game_id}/moves"
    listed = a.get(url, headers={"Authorization": f"Bearer {tokens[1]}"}).get_json()
    theirs = b.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}).get_json()
    assert b.post(url, json=theirs["moves"][0], headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
    moved = svc.store.version(game_id)
    trips.clear()
    applied = a.post(url, json=listed["moves"][0],
                     headers={"Authorization": f"Bearer {tokens[1]}", "If-Match": str(moved)})
    assert applied.status_code == 200, applied.get_json()
    assert trips == ["XRANGE", "EVALSHA"], trips
