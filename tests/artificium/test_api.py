"""Artificium over HTTP with the Flask test client on the real Redis: whole games for 2–6 seats.

Human seats play what ``GET .../moves`` lists, posted verbatim; SYSTEM steps and the bot seats
(``greedy`` and ``random``) are played by the worker's own code (``workers.jobs.run_advance``).
At the end: the summary and result, every seat's event feed redacted for that seat, the replay
bundle exported and verified (and a flipped byte caught), and time travel per seat.
"""
from __future__ import annotations

import json
import random
from typing import Any

import pytest

from core.games import GameService
from domain.artificium.model import CardsDrawn, CardsRevealed
from tests.artificium.conftest import API, auth
from workers import jobs

BOTS = ("greedy", "random")


def seat_list(players: int) -> list[dict[str, Any]]:
    """Two human seats, then bots alternating greedy and random."""
    seats: list[dict[str, Any]] = [{"name": "Ann"}, {"name": "Bob"}]
    for i in range(2, players):
        seats.append({"name": f"Bot{i}", "kind": "bot", "bot": BOTS[i % 2]})
    return seats


def create(client: Any, created: list[str], seats: list[dict[str, Any]], seed: str) -> tuple[str, dict[int, str]]:
    """POST the game exactly as the issue writes it: no edition, the standard one is the default."""
    r = client.post(API, json={"game": "artificium", "seats": seats, "seed": seed})
    assert r.status_code == 201, r.json
    created.append(r.json["id"])
    assert r.json["edition"] == "standard" and r.json["game"] == "artificium"
    return r.json["id"], {s["seat"]: s["token"] for s in r.json["seats"] if "token" in s}


def play_over_http(client: Any, svc: GameService, gid: str, tokens: dict[int, str], chooser: random.Random,
                   checkpoint: Any = None) -> int:
    """Post listed moves for the human seats until the game ends; returns the number posted."""
    posted = 0
    while True:
        jobs.run_advance(svc, gid)
        summary = client.get(f"{API}/{gid}").json
        if summary["status"] == "finished":
            return posted
        humans = [a for a in summary["to_act"] if a in tokens]
        assert humans, summary["to_act"]
        seat = chooser.choice(humans)
        listed = client.get(f"{API}/{gid}/moves", headers=auth(tokens[seat])).json
        assert listed["seat"] == seat and listed["version"] == summary["version"] and listed["moves"]
        assert all("seat" not in m for m in listed["moves"]), "the token decides the seat"
        move = chooser.choice(listed["moves"])
        r = client.post(f"{API}/{gid}/moves", json=move,
                        headers={**auth(tokens[seat]), "If-Match": str(listed["version"])})
        assert r.status_code == 200, (move, r.json)
        assert r.json["version"] > listed["version"] and r.json["events"]
        posted += 1
        if checkpoint is not None and posted == 25:
            checkpoint(r.json["version"])
        assert posted < 3000


def assert_feed_redacted_per_seat(client: Any, svc: GameService, gid: str, tokens: dict[int, str]) -> None:
    game = svc.load(gid)
    rules, entries = game.rules, svc.entries(gid)
    hidden_draws = 0
    for viewer in [None, *tokens]:
        feed = client.get(f"{API}/{gid}/events", headers=auth(tokens.get(viewer) if viewer is not None else None))
        events = feed.json["events"]
        assert [e["seq"] for e in events] == [e.seq for e in entries]
        for shown, entry in zip(events, entries):
            event = rules.event_from_json(entry.data)
            assert shown["data"] == json.loads(json.dumps(rules.event_view(event, viewer)))
            if isinstance(event, CardsDrawn) and event.seat != viewer:
                assert "cards" not in shown["data"] and shown["data"]["count"] == len(event.cards)
                hidden_draws += 1
    assert hidden_draws > 0


def assert_replay_verifies_and_catches_tampering(client: Any, gid: str) -> None:
    bundle = client.get(f"{API}/{gid}/replay")
    assert bundle.status_code == 200
    data = bundle.get_data()
    report = client.post("/api/v1/replays/verify", data=data, content_type="application/x-ndjson").json
    assert report["ok"] is True, report
    chooser = random.Random(gid)
    for _ in range(5):
        at = chooser.randrange(len(data))
        if data[at] in b"\n":
            continue
        forged = data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]
        report = client.post("/api/v1/replays/verify", data=forged, content_type="application/x-ndjson").json
        assert report["ok"] is False, at


def assert_time_travel(client: Any, svc: GameService, gid: str, tokens: dict[int, str], version: int,
                       finished: bool) -> None:
    """``/states/{version}``: each caller's own view of the past; the full state only after the end."""
    rules = svc.load(gid).rules
    past = svc.state_at(gid, version)
    for viewer in [None, *tokens]:
        r = client.get(f"{API}/{gid}/states/{version}", headers=auth(tokens.get(viewer) if viewer is not None else None))
        assert r.status_code == 200 and r.json["version"] == version and r.json["seat"] == viewer
        assert r.json["view"] == json.loads(json.dumps(rules.view(past.state, viewer)))
        seats = r.json["view"]["seats"]
        assert [("hand" in s) for s in seats] == [s["seat"] == viewer for s in seats]
        assert ("full" in r.json) is finished


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_whole_game_over_http(client: Any, svc: GameService, created: list[str], players: int) -> None:
    seed = f"artificium-http-{players}"
    gid, tokens = create(client, created, seat_list(players), seed)
    assert client.get(f"{API}/{gid}/replay").status_code == 409, "no bundle (and no seed) while it runs"
    live_checked: list[int] = []

    def live_time_travel(version: int) -> None:
        live = client.get(f"{API}/{gid}").json
        assert live["status"] == "active" and live["seed"] is None and live["result"] is None, "the seed stays secret"
        ends = svc.batch_ends(gid)
        past = ends[len(ends) // 2]  # a version that ends a batch, well before now
        assert past < version
        assert_time_travel(client, svc, gid, tokens, past, finished=False)
        live_checked.append(past)

    posted = play_over_http(client, svc, gid, tokens, random.Random(players), live_time_travel)
    assert posted > 20 and live_checked

    summary = client.get(f"{API}/{gid}").json
    game = svc.load(gid)
    assert summary["phase"] == "finished" and summary["round"] == 4 and summary["seed"] == seed.encode().hex()
    assert summary["result"] == json.loads(json.dumps(game.rules.result(game.state)))
    assert len(summary["result"]["scores"]) == players and summary["result"]["winners"]
    assert [s["kind"] for s in summary["seats"]] == [s.get("kind", "human") for s in seat_list(players)]
    kinds = {e.type for e in svc.entries(gid)}
    assert {CardsRevealed.__name__, "TurnStarted", "GameEnded"} <= kinds

    assert_feed_redacted_per_seat(client, svc, gid, tokens)
    assert_replay_verifies_and_catches_tampering(client, gid)
    assert_time_travel(client, svc, gid, tokens, live_checked[0], finished=True)

    late = client.post(f"{API}/{gid}/moves", json={"type": "PassMarket"}, headers=auth(tokens[0]))
    assert late.status_code == 422 and late.json["kind"] == "GAME_OVER"
    assert late.content_type == "application/problem+json"


def test_bad_moves_are_problems_not_errors(client: Any, svc: GameService, created: list[str]) -> None:
    """Every malformed or illegal Artificium move is a problem+json 4xx naming what is wrong."""
    gid, tokens = create(client, created, [{"name": "A"}, {"name": "B"}, {"name": "C"}], "artificium-bad-moves")
    jobs.run_advance(svc, gid)
    first = client.get(f"{API}/{gid}").json["to_act"][0]
    other = (first + 1) % 3
    cases = [
        (first, {"type": "CommitCard", "card": "castle"}, 422, "WRONG_PHASE"),
        (first, {"type": "ExchangeCard", "give": "joker", "take": "farm"}, 400, "MALFORMED"),
        (first, {"type": "ExchangeCard", "give": "farm"}, 400, "MALFORMED"),
        (first, {"type": "Nope"}, 422, "UNKNOWN_MOVE"),
        (first, {"type": "StartTurn"}, 422, "NOT_YOUR_TURN"),
        (first, {"type": "PassMarket", "seat": other}, 400, "MALFORMED"),
        (other, {"type": "PassMarket"}, 422, "NOT_YOUR_TURN"),
        (first, {"type": "ResolveCard", "target": "1"}, 400, "MALFORMED"),
        (first, {"type": "ResolveCard", "target": 1}, 422, "WRONG_PHASE"),
    ]
    for seat, move, status, kind in cases:
        r = client.post(f"{API}/{gid}/moves", json=move, headers=auth(tokens[seat]))
        assert (r.status_code, r.json["kind"]) == (status, kind), (move, r.json)
        assert r.content_type == "application/problem+json" and r.json["detail"]
    for bad in ({"game": "artificium", "edition": "classic", "seats": [{"name": "a"}] * 3},
                {"game": "artificium", "seats": [{"name": "a"}]},
                {"game": "artificium", "seats": [{"name": "a"}] * 7}):
        r = client.post(API, json=bad)
        assert r.status_code == 422 and r.json["kind"] == "INVALID_CONFIG", r.json
