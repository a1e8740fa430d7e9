"""Accountable bots in tournaments, in-process (runner ticks and advance jobs called directly):
each seat's calls recorded in GameFinished and re-derived by the package verifier, a push bot
that never answers ending below every bot that played, a pull seat's turns timed from the log,
a cancelled tournament calling off its running game, and a forfeit (the table's, after N failed
calls in a row) withdrawing the bot as absent."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from core import table
from core.bots import BotRegistry
from core.games import GameService
from core.leaderboard import Leaderboard
from core.scoring import entrant_places, standings
from core.store import StoredEntry
from core.tournament_store import TournamentStore
from core.tournaments import evolve
from domain.canonical import GENESIS_HASH, entry_hash
from domain.core import SYSTEM
from replays.bundle import build_bundle
from replays.seatstats import seat_stats
from replays.source import load_game
from replays.tournament import STREAM, build_package, package_from_store, verify_package
from tests.platform.conftest import auth, unique
from tests.platform.tourney_helpers import bot_server, push_bot, run_to_end, run_until

pytestmark = pytest.mark.usefixtures("made")


def create(client: Any, owner: dict[str, Any], made: dict[str, list[str]], **spec: Any) -> str:
    body = {"game": "artificium", "players_per_game": 2, "format": "round_robin", "parallel": 2, "deadline_s": 0.5,
            **spec}
    response = client.post("/api/v1/tournaments", json=body, headers=auth(owner["key"]))
    assert response.status_code == 201, response.get_data(as_text=True)
    made["tournaments"].append(response.json["id"])
    return str(response.json["id"])


def test_a_push_bot_that_never_answers_shows_its_timeouts_and_ends_below_every_bot_that_played(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with bot_server(monkeypatch, slow_s=2.0) as server:
        silent = push_bot(client, owner, made, unique("silent"), server.url + "/slow")
        good = push_bot(client, owner, made, unique("good"), server.url + "/good")
        tid = create(client, owner, made, deadline_s=0.1,
                     entrants=[{"bot_id": silent["id"]}, {"bot_id": good["id"]}, {"builtin": "random"}])
        t = run_to_end(conn, tid)
    table_ = t.final_standings or ()
    assert table_[-1]["key"] == f"bot:{silent['id']}" and table_[-1]["absent"]
    dead = table_[-1]
    assert dead["calls"] > 0 and dead["ok"] == 0 and dead["timeout"] == dead["calls"] and dead["error"] == 0
    assert dead["latency_ms"]["p50"] is not None and dead["latency_ms"]["p50"] >= 100  # it used its whole deadline
    assert dead["unplayed"] == dead["games"] and dead["points"] == 0
    assert all(row["ok"] == row["calls"] for row in table_[:-1])
    for game in t.games:
        if game.finished and 0 in game.seats:  # the silent bot never wins, whatever the game's own tie-breaks say
            seat = game.seats.index(0)
            assert entrant_places(game, accountable=True)[seat][1] == len(game.seats)
            assert game.records is not None and game.records[seat]["moves"] == 0
    record = client.get(f"/api/v1/bots/{silent['id']}/record").json
    (figures,) = record["tournaments"]
    assert figures["place"] == figures["of"] == 3 and figures["absent"] and figures["points"] == 0
    assert record["overall"]["timeout"] == record["overall"]["calls"] == dead["calls"] and record["overall"]["ok"] == 0
    assert all(g["ok"] == 0 and g["timeout"] == g["calls"] > 0 and g["rank"] == g["of"] for g in record["games"])
    report = verify_package(package_from_store(conn, tid))
    assert report.ok, report.describe()


def test_the_verifier_re_derives_each_seats_record_from_the_bundles(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with bot_server(monkeypatch) as server:
        liar = push_bot(client, owner, made, unique("liar"), server.url + "/illegal")
        tid = create(client, owner, made, entrants=[{"bot_id": liar["id"]}, {"builtin": "random"}])
        t = run_to_end(conn, tid)
    assert t.games[0].records is not None
    assert {r["error"] for r in t.games[0].records if r["calls"]} == {r["calls"] for r in t.games[0].records if r["calls"]}
    loaded = TournamentStore(conn).load(tid)
    bundles = {g.index: GameService(conn).store.stored_bundle(g.game_id or "") or "" for g in t.games}
    forged = _forged(list(loaded.entries))
    report = verify_package(build_package(forged, bundles))
    assert not report.ok and report.where == f"games/0000-{t.games[0].game_id}.jsonl", report.describe()
    assert "records" in (report.problem or "")


def _forged(entries: list[StoredEntry]) -> list[StoredEntry]:
    """The stream as a thorough forger rewrites it: the first game's record kinder to seat 0 (one
    error fewer, one ok more), the final standings recomputed to match, every hash re-chained."""
    out: list[StoredEntry] = []
    state = None
    previous = GENESIS_HASH
    changed = False
    for stored in entries:
        entry = json.loads(json.dumps(stored.entry))
        data = entry["data"]
        if data["type"] == "GameFinished" and not changed:
            data["records"][0]["error"] -= 1
            data["records"][0]["ok"] += 1
            changed = True
        if data["type"] == "TournamentFinished" and state is not None:
            data["standings"] = standings(state)
        state = evolve(state, data)
        previous = entry_hash(previous, entry)
        out.append(StoredEntry(stored.seq, entry, previous))
    return out


def test_a_pull_seats_turns_are_timed_from_the_log_and_its_clock_timeouts_count(
        conn: redis.Redis, made: dict[str, list[str]]) -> None:
    registry = BotRegistry(conn)
    puller = registry.register(unique("puller"), "pull")
    made["bots"].append(puller["id"])
    now = [datetime(2026, 3, 1, 12, 0, tzinfo=UTC)]
    svc = GameService(conn, clock=lambda: now[0])
    created = svc.create({"game": "artificium", "seats": [{"bot_id": puller["id"], "deadline_s": 30},
                                                          {"name": "Human"}]}, "test", seed=b"p" * 32)
    game_id = created["id"]
    made["games"].append(game_id)
    waited: list[float] = []
    began: int | None = None
    timed_out = False
    for step in range(60):
        game = svc.load(game_id)
        if game.finished:
            break
        if SYSTEM in game.to_act:
            svc.apply(game_id, SYSTEM, game.rules.legal_moves(game.state, SYSTEM)[0])
        elif 0 in game.to_act:
            if began is None:
                began = step
            if not timed_out and step > 6:  # one turn the bot misses: its clock's timeout ends it
                now[0] += timedelta(seconds=30)
                svc.apply(game_id, SYSTEM, game.rules.command_from_json({"type": "ApplyTimeout", "target": 0}, SYSTEM))
                timed_out, began = True, None
                continue
            think = 100 + 10 * step
            now[0] += timedelta(milliseconds=think)
            svc.apply(game_id, 0, game.rules.legal_moves(game.state, 0)[0])
            waited.append(float(think))
            began = None
        else:
            now[0] += timedelta(milliseconds=7)
            svc.apply(game_id, 1, game.rules.legal_moves(game.state, 1)[0])
        if step == 40:
            svc.apply(game_id, 1, table.Resign(1))
    assert svc.load(game_id).finished and timed_out
    meta, entries = load_game(svc.store, game_id)
    pull, human = seat_stats(build_bundle(game_id, meta, entries))
    assert pull["calls"] == len(waited) + 1 and pull["ok"] == len(waited) and pull["timeout"] == 1
    assert pull["moves"] == len(waited) and pull["error"] == 0
    ordered = sorted(waited)
    assert pull["latency_ms"] == {"p50": ordered[(len(ordered) + 1) // 2 - 1],
                                  "p95": ordered[-(-len(ordered) * 95 // 100) - 1]}
    assert human["calls"] == 0 and human["moves"] > 0  # a human seat's turns are not a bot's calls


def test_a_cancelled_tournament_calls_off_its_running_game_and_its_package_verifies(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]], register: Any) -> None:
    puller = register(unique("idle"), "pull")  # never moves: its game runs until called off
    tid = create(client, owner, made, parallel=1,
                 entrants=[{"builtin": "random"}, {"builtin": "greedy"}, {"bot_id": puller["id"]}])
    t = run_until(conn, tid, lambda t: any(g.started and puller["id"] in _bots(t, g) for g in t.games)
                  and any(g.finished for g in t.games))
    running = next(g for g in t.games if g.started and not g.done)
    response = client.post(f"/api/v1/tournaments/{tid}/cancel", json={"reason": "the venue closed"},
                           headers=auth(owner["key"]))
    assert response.status_code == 200 and response.json["status"] == "cancelled"
    assert response.json["cancelled"] == {"by": owner["id"], "reason": "the venue closed"}
    t = run_until(conn, tid, lambda t: t.finished, play=False)
    assert t.status == "cancelled" and t.games[running.index].status == "called_off"
    game = GameService(conn).load(running.game_id or "")
    assert game.status() == "aborted"
    aborted = [e for e in GameService(conn).entries(game.game_id) if e.type == "GameAborted"]
    assert aborted[0].actor == SYSTEM and aborted[0].entry["meta"]["tournament"] == {"id": tid, "cancelled": True}
    assert all(not g.started for g in t.games if not g.done)
    assert BotRegistry(conn).conn.smembers(f"hg:bot:{{{puller['id']}}}:tournaments") == set()
    package = package_from_store(conn, tid)
    report = verify_package(package)
    assert report.ok, report.describe()
    assert report.games == len(t.bundled()) and t.merkle_root == report.merkle_root
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        stream = archive.read(STREAM).decode()
    assert '"type":"TournamentCancelled"' in stream and '"type":"GameCalledOff"' in stream
    assert summary_status(client, tid) == "cancelled"
    assert Leaderboard(conn).apply(t) is False  # its finished games were applied once, at the end


def summary_status(client: Any, tid: str) -> str:
    return str(client.get(f"/api/v1/tournaments/{tid}").json["status"])


def _bots(t: Any, game: Any) -> set[str]:
    return {t.entrants[n].bot_id for n in game.seats if t.entrants[n].bot_id}


def test_an_owner_withdraws_its_bot_between_games_and_the_package_re_derives_the_skips(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with bot_server(monkeypatch) as server:
        leaving = push_bot(client, owner, made, unique("leaving"), server.url + "/good")
        tid = create(client, owner, made, parallel=1,
                     entrants=[{"bot_id": leaving["id"]}, {"builtin": "random"}, {"builtin": "greedy"}])
        t = run_until(conn, tid, lambda t: any(g.finished for g in t.games))
        response = client.post(f"/api/v1/tournaments/{tid}/entrants/0/withdraw", headers=auth(owner["key"]))
        assert response.status_code == 200, response.get_data(as_text=True)
        entrant = response.json["entrants"][0]
        assert entrant["withdrawn"] == {"by": owner["id"], "reason": "owner", "game": None}
        t = run_to_end(conn, tid)
    skipped = [g for g in t.games if g.status == "skipped"]
    assert skipped and all(0 in g.seats for g in skipped)
    assert all(g.finished for g in t.games if g.status != "skipped")
    row = next(r for r in standings(t) if r["entrant"] == 0)
    assert row["withdrawn"] == "owner" and row["games"] == sum(1 for g in t.games if g.finished and 0 in g.seats)
    assert conn.smembers(f"hg:bot:{{{leaving['id']}}}:tournaments") == set()  # it may be deleted again
    assert client.delete(f"/api/v1/bots/{leaving['id']}", headers=auth(owner["key"])).status_code == 204
    made["bots"].remove(leaving["id"])
    report = verify_package(package_from_store(conn, tid))
    assert report.ok, report.describe()


def test_a_bot_that_forfeits_is_withdrawn_as_absent_and_its_other_games_are_skipped(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOURGLASS_FORFEIT_AFTER", "3")
    with bot_server(monkeypatch) as server:
        dead = push_bot(client, owner, made, unique("dead"), server.url + "/error")
        good = push_bot(client, owner, made, unique("good"), server.url + "/good")
        tid = create(client, owner, made, parallel=1,
                     entrants=[{"bot_id": dead["id"]}, {"bot_id": good["id"]}, {"builtin": "random"}])
        t = run_to_end(conn, tid)
    gone = t.withdrawn[0]
    assert gone.reason == "absent" and gone.by == "system" and gone.game is not None
    forfeited = t.games[gone.game]
    assert {"seat": forfeited.seats.index(0), "reason": "forfeited"} in forfeited.departed
    assert [g.status for g in t.games if 0 in g.seats and g.index != gone.game] == ["skipped"] * 3
    final = t.final_standings or ()
    assert final[-1]["entrant"] == 0 and final[-1]["absent"] and final[-1]["forfeits"] == 1
    assert final[-1]["error"] == final[-1]["calls"] >= 3
    record = client.get(f"/api/v1/bots/{dead['id']}/record").json
    assert record["overall"]["forfeits"] == 1 and record["tournaments"][0]["withdrawn"] == "absent"
    assert record["games"][0]["forfeited"] is True
    report = verify_package(package_from_store(conn, tid))
    assert report.ok, report.describe()
