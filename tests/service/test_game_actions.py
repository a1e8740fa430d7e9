"""Issue 13: resign, abort and claims, shared by every game, as replayable table events.

Decided here (docs/api.md, "Game-level actions"): a resignation ends the game when at most one
seat is left playing, and that seat wins; otherwise the game goes on, the worker plays the seat's
default moves and the seat ranks below every seat that stayed. An abort is allowed before
``ABORT_MOVES`` seat moves and ends the game with no result. A claim needs the game to have
waited ``INACTIVITY_S`` on an unclocked human seat that is to act.
"""
from __future__ import annotations

import importlib
from datetime import timedelta
from typing import Any

import pytest
from conftest import auth, run_worker

from core.games import GameService, utc_now
from core.table import COMMAND_TYPES, EVENT_TYPES
from domain.games import game_names, get_game
from replays.verify import verify_bundle
from workers.jobs import run_advance

API = "/api/v1/games"


def tokens(game: dict[str, Any]) -> list[str]:
    return [s.get("token", "") for s in game["seats"]]


def bid(client: Any, gid: str, token: str, amount: int = 2) -> Any:
    return client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": amount}, headers=auth(token))


def verified(client: Any, gid: str) -> Any:
    bundle = client.get(f"{API}/{gid}/replay")
    assert bundle.status_code == 200, bundle.get_data(as_text=True)
    report = verify_bundle(bundle.data)
    assert report.ok, report.describe()
    return report


def test_table_event_names_clash_with_no_game() -> None:
    for name in game_names():
        if name == "toy":  # the test game's events: GameStarted, PrizeDrawn, BidPlaced, BidsRevealed, GameEnded
            continue
        model = importlib.import_module(f"domain.{name}.model")
        assert not {e.__name__ for e in model.EVENTS} & EVENT_TYPES, name
        assert not {c.__name__ for c in model.COMMANDS} & COMMAND_TYPES, name
        assert get_game(name)


def test_two_seat_resignation_ends_the_game_and_the_other_seat_wins(client: Any, new_game: Any) -> None:
    game = new_game(options={"rounds": 3})
    gid, (ann, bob) = game["id"], tokens(game)
    assert bid(client, gid, ann).status_code == 200
    resigned = client.post(f"{API}/{gid}/resign", headers=auth(bob))
    assert resigned.status_code == 200, resigned.json
    assert [e["type"] for e in resigned.json["events"]] == ["SeatResigned", "GameDecided"]
    assert resigned.json["events"][0]["data"] == {"type": "SeatResigned", "seat": 1, "reason": "resigned"}
    summary = client.get(f"{API}/{gid}").json
    assert summary["status"] == "finished" and summary["to_act"] == []
    assert summary["result"] == {"reason": "resignation", "winners": [0], "departed": [{"seat": 1, "reason": "resigned"}],
                                 "ranking": [{"seat": 0, "rank": 1}, {"seat": 1, "rank": 2}]}
    assert [s["status"] for s in summary["seats"]] == ["playing", "resigned"]
    assert summary["seed"] == b"test-seed".hex()
    assert bid(client, gid, ann).json["kind"] == "GAME_OVER"
    assert client.post(f"{API}/{gid}/resign", headers=auth(ann)).json["kind"] == "GAME_OVER"
    assert verified(client, gid).result == summary["result"]


def test_a_resigned_seat_plays_default_moves_and_ranks_last(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(seats=[{"name": n} for n in ("Ann", "Bob", "Cy")], options={"rounds": 2})
    gid, (ann, bob, cy) = game["id"], tokens(game)
    assert client.post(f"{API}/{gid}/resign", headers=auth(ann)).json["events"][0]["type"] == "SeatResigned"
    assert client.get(f"{API}/{gid}").json["status"] == "active"
    assert bid(client, gid, ann).json["kind"] == "NOT_YOUR_TURN"  # a seat that left plays no more
    again = client.post(f"{API}/{gid}/resign", headers=auth(ann)).json  # resigning twice: said as it is
    assert again["kind"] == "ILLEGAL_MOVE" and "you already left this game (resigned)" in again["detail"]
    assert client.get(f"{API}/{gid}/moves", headers=auth(ann)).json["moves"] == []
    for _ in range(2):
        assert bid(client, gid, bob, 1).status_code == 200 and bid(client, gid, cy, 1).status_code == 200
        run_advance(svc, gid)  # the worker: Ann's default move, then SYSTEM's reveal
    summary = client.get(f"{API}/{gid}").json
    assert summary["status"] == "finished"
    result = summary["result"]
    assert result["departed"] == [{"seat": 0, "reason": "resigned"}] and 0 not in result["winners"]
    assert [r["seat"] for r in result["ranking"]][-1] == 0 and result["ranking"][-1]["rank"] == 3
    entries = svc.entries(gid)
    assert any(e.actor == 0 and e.entry["meta"] == {"departed": "resigned", "default": True} for e in entries)
    verified(client, gid)


def test_abort_before_the_limit_ends_with_no_result_and_a_verifiable_bundle(client: Any, new_game: Any) -> None:
    game = new_game()
    gid, (ann, bob) = game["id"], tokens(game)
    assert bid(client, gid, ann).status_code == 200
    aborted = client.post(f"{API}/{gid}/abort", headers=auth(bob))
    assert aborted.status_code == 200 and aborted.json["events"][0]["data"] == {"type": "GameAborted", "seat": 1}
    summary = client.get(f"{API}/{gid}").json
    assert (summary["status"], summary["result"], summary["to_act"]) == ("aborted", None, [])
    assert summary["seed"] is not None
    assert client.get(f"{API}/{gid}/state").json["status"] == "aborted"
    assert bid(client, gid, bob).json["kind"] == "GAME_OVER"
    report = verified(client, gid)
    assert report.result is None


def test_abort_is_refused_once_the_seats_have_made_enough_moves(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 5})
    gid, (ann, bob) = game["id"], tokens(game)
    for _ in range(2):  # four seat moves: the default ABORT_MOVES
        bid(client, gid, ann), bid(client, gid, bob)
        run_worker(svc, gid)
    late = client.post(f"{API}/{gid}/abort", headers=auth(ann))
    assert late.status_code == 422 and late.json["kind"] == "ILLEGAL_MOVE" and "resign instead" in late.json["detail"]
    assert client.post(f"{API}/{gid}/abort").status_code == 401


def _idle(svc: GameService, days: float = 2) -> None:
    svc.clock = lambda: utc_now() + timedelta(days=days)


def test_claims_need_the_inactivity_limit(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game()
    gid, (ann, _bob) = game["id"], tokens(game)
    bid(client, gid, ann)
    early = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "victory"}, headers=auth(ann))
    assert early.status_code == 422 and "86400 s without a move" in early.json["detail"]
    _idle(svc)
    mine = client.post(f"{API}/{gid}/claim", json={"absent": 0, "remedy": "victory"}, headers=auth(ann))
    assert mine.status_code == 422 and "itself" in mine.json["detail"]
    bad = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "win"}, headers=auth(ann))
    assert bad.status_code == 400 and "remedy" in bad.json["errors"]


def test_a_forced_default_move_for_an_absent_seat(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game()
    gid, (ann, _bob) = game["id"], tokens(game)
    bid(client, gid, ann)
    _idle(svc)
    forced = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "default_move"}, headers=auth(ann))
    assert forced.status_code == 200, forced.json
    events = forced.json["events"]
    assert events[0]["data"] == {"type": "MoveForced", "seat": 0, "absent": 1, "move": "Bid"}
    assert events[1]["type"] == "BidPlaced" and events[1]["data"]["seat"] == 1
    assert client.get(f"{API}/{gid}").json["to_act"] == ["system"]
    again = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "default_move"}, headers=auth(ann))
    assert again.status_code == 422 and "not to act" in again.json["detail"]


def test_claiming_victory_against_an_absent_seat(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 1})
    gid, (ann, bob) = game["id"], tokens(game)
    bid(client, gid, ann)
    _idle(svc)
    won = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "victory"}, headers=auth(ann))
    assert [e["data"] for e in won.json["events"]] == [
        {"type": "SeatResigned", "seat": 1, "reason": "abandoned"},
        {"type": "GameDecided", "winners": [0], "reason": "abandonment"}]
    summary = client.get(f"{API}/{gid}").json
    assert summary["result"]["reason"] == "abandonment" and summary["seats"][1]["status"] == "abandoned"
    assert bid(client, gid, bob).json["kind"] == "NOT_YOUR_TURN"
    verified(client, gid)


def test_no_claim_against_a_clocked_seat(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(seats=[{"name": "Ann"}, {"name": "Bob", "clock": {"initial_s": 60}}])
    gid, (ann, _bob) = game["id"], tokens(game)
    bid(client, gid, ann)
    _idle(svc)
    refused = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "victory"}, headers=auth(ann))
    assert refused.status_code == 422 and "clock" in refused.json["detail"]


def test_resign_is_idempotent_with_a_key(client: Any, new_game: Any) -> None:
    game = new_game(seats=[{"name": n} for n in ("Ann", "Bob", "Cy")])
    gid, (ann, *_rest) = game["id"], tokens(game)
    headers = {**auth(ann), "Idempotency-Key": "leaving"}
    first = client.post(f"{API}/{gid}/resign", headers=headers)
    second = client.post(f"{API}/{gid}/resign", headers=headers)
    assert first.status_code == second.status_code == 200 and first.json == second.json
    assert second.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers


def test_table_commands_are_not_moves(client: Any, new_game: Any) -> None:
    game = new_game()
    posted = client.post(f"{API}/{game['id']}/moves", json={"type": "Resign"}, headers=auth(tokens(game)[0]))
    assert posted.status_code == 422 and posted.json["kind"] == "UNKNOWN_MOVE" and "/resign" in posted.json["detail"]


@pytest.mark.parametrize("players", [2, 3])
def test_orleans_resignation_replays_and_verifies(client: Any, svc: GameService, created: list[str],
                                                  players: int) -> None:
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": f"P{i}"} for i in range(players)]}
    game = client.post(API, json=body).json
    gid = game["id"]
    created.append(gid)
    run_advance(svc, gid)
    toks = tokens(game)
    assert client.post(f"{API}/{gid}/resign", headers=auth(toks[0])).status_code == 200
    if players == 3:
        assert client.post(f"{API}/{gid}/resign", headers=auth(toks[2])).status_code == 200
    summary = client.get(f"{API}/{gid}").json
    assert summary["status"] == "finished" and summary["result"]["winners"] == [1]
    verified(client, gid)


def test_no_seat_aborts_a_tournaments_game(client: Any, svc: GameService, created: list[str]) -> None:
    """A tournament's games are called off by the organiser's cancellation only: a seat (a pull bot
    with its token, say) could otherwise dodge its pairing before ``ABORT_MOVES`` (found by H5)."""
    game = svc.create({"game": "toy", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]},
                      tournament="tdodge")
    created.append(game["id"])
    refused = client.post(f"{API}/{game['id']}/abort", headers=auth(tokens(game)[0]))
    assert refused.status_code == 422 and "cancellation" in refused.json["detail"]
    assert client.get(f"{API}/{game['id']}").json["status"] == "active"
    assert client.post(f"{API}/{game['id']}/resign", headers=auth(tokens(game)[0])).status_code == 200
