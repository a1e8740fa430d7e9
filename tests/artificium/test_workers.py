"""Artificium through the real workers: bot seats under RQ, HTTP seats, and clocks.

- A game of ``random`` and ``greedy`` seats advanced by an RQ worker equals in-process self-play.
- HTTP seats: a good bot's answers are played; a bot answering garbage gets the default move.
- Clocks: human seats that never move are played to the end of the game by their timeouts, each
  applying the documented default (``domain.artificium`` docstring, README "Running a worker").
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from freezegun import freeze_time
from rq import Worker
from rq.serializers import JSONSerializer

from core import clocks, seats
from core.games import GameService
from core.store import EventStore
from domain.artificium import RULES
from domain.artificium.model import (
    CommitCard,
    DiscardFromHand,
    FinishTurn,
    PassMarket,
    Phase,
    TakeCardBack,
    TurnStarted,
)
from replays.bundle import build_bundle
from replays.source import load_game
from replays.verify import verify_bundle
from tests.workers.hg_botserver import BotServer
from workers import forfeits, jobs
from workers.enqueue import enqueue_advance, lane_queues
from workers.selfplay import play

CONFIG = {"edition": "standard", "players": 4}
BOT_SEATS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "G1", "kind": "bot", "bot": "greedy"},
             {"name": "R2", "kind": "bot", "bot": "random"}, {"name": "G2", "kind": "bot", "bot": "greedy"}]
DEFAULTS = {Phase.MARKET: PassMarket, Phase.COMMIT: CommitCard, Phase.RESOLVE: TakeCardBack,
            Phase.TURN_END: FinishTurn}
T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def svc(conn: redis.Redis) -> GameService:
    """The workers' own service (no app): client seeds allowed, so games are reproducible."""
    return GameService(conn, client_seeds="any")


def create(svc: GameService, created: list[str], seat_specs: list[dict[str, Any]], seed: str) -> dict[str, Any]:
    out = svc.create({"game": "artificium", "seats": seat_specs, "seed": seed})
    created.append(out["id"])
    return out


def burst(conn: redis.Redis, queue_name: str) -> None:
    """Work every lane's queue (workers.lanes) until all are empty."""
    Worker(lane_queues(conn), connection=conn, serializer=JSONSerializer).work(burst=True, logging_level="WARNING")


def assert_replay_verifies(svc: GameService, game_id: str) -> None:
    meta, entries = load_game(EventStore(svc.store.conn), game_id)
    report = verify_bundle(build_bundle(game_id, meta, entries))
    assert report.ok, report


def test_bot_seats_under_an_rq_worker_play_what_in_process_selfplay_plays(
        conn: redis.Redis, svc: GameService, queue_name: str, created: list[str]) -> None:
    game_id = create(svc, created, BOT_SEATS, "artificium-rq")["id"]
    enqueue_advance(conn, game_id, svc.load(game_id).version)
    burst(conn, queue_name)

    game = svc.load(game_id)
    reference = play(RULES, CONFIG, b"artificium-rq", game_id, BOT_SEATS)
    assert game.finished and game.state == reference.state and game.version == reference.version
    stored = [(e.actor, e.command) for e in svc.entries(game_id)[1:] if e.command is not None]
    assert stored == reference.commands
    metas = [e.entry["meta"] for e in svc.entries(game_id) if e.command is not None and e.actor != "system"]
    assert {m["bot"] for m in metas} == {"random", "greedy"}
    result = RULES.result(game.state)
    assert result is not None and max(result["scores"][1], result["scores"][3]) > max(result["scores"][0::2])
    assert_replay_verifies(svc, game_id)


def test_http_seats_play_their_answers_or_the_default(
        conn: redis.Redis, svc: GameService, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jobs.DEADLINE_ENV, "0.5")
    monkeypatch.setenv(forfeits.FORFEIT_ENV, "0")  # this test is about every call's outcome, not forfeits
    with BotServer("unused", slow_s=2.0) as bots:
        monkeypatch.setenv(seats.HOSTS_ENV, bots.url.split("//", 1)[1])  # 127.0.0.1:<its port>, exactly
        specs = [{"name": "good", "kind": "http", "url": bots.url + "/good"},
                 {"name": "junk", "kind": "http", "url": bots.url + "/garbage"},
                 {"name": "G", "kind": "bot", "bot": "greedy"}]
        out = create(svc, created, specs, "artificium-http-seats")
        bots.secrets.update(s["secret"] for s in out["seats"] if s.get("secret"))
        jobs.run_advance(svc, out["id"], limit=5000)

    game_id = out["id"]
    game = svc.load(game_id)
    assert game.finished and bots.bad_signatures == 0
    asked = {r["payload"]["seat"] for r in bots.requests}
    assert asked == {0, 1}
    for entry in svc.entries(game_id):
        if entry.command is None or entry.actor not in (0, 1):
            continue
        before = svc.state_at(game_id, entry.seq - 1)
        http = entry.entry["meta"]["http"]
        if entry.actor == 0:
            legal = RULES.legal_moves(before.state, 0)
            assert http["outcome"] == "ok" and entry.command == {**RULES.move_to_json(legal[-1]), "seat": 0}
        else:
            default = RULES.default_move(before.state, 1)
            assert http["outcome"] == "garbage" and entry.entry["meta"]["default"] is True
            assert entry.command == RULES.command_to_json(default)
    assert_replay_verifies(svc, game_id)


def test_clocked_seats_that_never_move_are_played_to_the_end_by_their_timeouts(
        conn: redis.Redis, svc: GameService, queue_name: str, created: list[str]) -> None:
    clock = {"initial_s": 20, "increment_s": 2}
    specs = [{"name": "A", "clock": clock}, {"name": "G", "kind": "bot", "bot": "greedy"},
             {"name": "C", "clock": clock}, {"name": "R", "kind": "bot", "bot": "random"}]
    with freeze_time(T0) as frozen:
        game_id = create(svc, created, specs, "artificium-clocks")["id"]
        jobs.run_advance(svc, game_id)
        fired = 0
        while not svc.load(game_id).finished:
            current = clocks.load(conn, game_id)
            assert current is not None
            running = sorted((c.deadline_ms, s, c.stint) for s, c in current.seats.items() if c.running)
            assert running, "a human seat is to act, so its clock runs"
            deadline_ms, seat, stint = running[0]
            frozen.move_to(datetime.fromtimestamp(deadline_ms / 1000, tz=UTC) + timedelta(milliseconds=1))
            outcome = jobs.run_timeout(svc, game_id, seat, stint)
            assert outcome["applied"] and outcome["reason"] == "timeout", outcome
            fired += 1
            assert fired < 500

    applied_in: dict[str, set[str]] = {}
    for entry in svc.entries(game_id):
        if entry.command is None or entry.command["type"] != "ApplyTimeout":
            continue
        before = svc.state_at(game_id, entry.seq - 1).state
        seat = entry.command["target"]
        assert seat in (0, 2)
        default = RULES.default_move(before, seat)
        expected = DiscardFromHand if before.owed_discards else DEFAULTS[before.phase]
        assert isinstance(default, expected), (before.phase, default)
        if isinstance(default, CommitCard):
            assert default.card is before.players[seat].hand[0], "the first card of the hand, in card order"
        assert entry.data == {"type": "TimeoutApplied", "target": seat, "move": type(default).__name__}
        applied_in.setdefault(before.phase.value, set()).add(type(default).__name__)
    assert applied_in == {"market": {"PassMarket"}, "commit": {"CommitCard"}, "resolve": {"TakeCardBack"},
                          "turn_end": {"FinishTurn"}}
    turns = [e for e in svc.entries(game_id) if e.type == TurnStarted.__name__]
    assert len(turns) == 4 and fired > 20
    assert_replay_verifies(svc, game_id)
