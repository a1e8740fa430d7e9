"""Clocks: timeouts are scheduled with RQ, fire as SYSTEM ApplyTimeout commands that apply the
seat's default move, change nothing when late or duplicated, and replay identically."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from freezegun import freeze_time
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from core import clocks, timing
from core.games import GameService
from domain.games import fold
from domain.rng import Rng
from replays.entries import split_batches
from workers import jobs

REDIS_URL = os.environ.get("HOURGLASS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=UTC)
CLOCKED = [{"name": "A", "clock": {"initial_s": 30, "increment_s": 5}}, {"name": "B", "clock": {"initial_s": 90}}]


def scheduled(conn: redis.Redis, queue_name: str) -> dict[str, datetime]:
    reg = ScheduledJobRegistry(queue_name, connection=conn, serializer=JSONSerializer)
    return {job_id: reg.get_scheduled_time(job_id) for job_id in reg.get_job_ids()}


def redecide(svc: GameService, game_id: str) -> Any:
    """Re-run setup and every stored command with the seed; the events must be the stored ones."""
    game = svc.load(game_id)
    rules, seed = game.rules, game.info.seed
    batches = split_batches([e.entry for e in svc.entries(game_id)])
    config = rules.config_from_json(batches[0][0]["command"]["config"])
    events = rules.setup(config, Rng(seed, game_id, 0))
    assert [rules.event_to_json(e) for e in events] == [e["data"] for e in batches[0]]
    state = fold(rules, events)
    for batch in batches[1:]:
        command = rules.command_from_json(batch[0]["command"])
        events = rules.decide(state, command, Rng(seed, game_id, rules.draw_counter(state)))
        assert [rules.event_to_json(e) for e in events] == [e["data"] for e in batch]
        state = fold(rules, events, state)
    return state


def test_timeouts_fire_apply_the_default_and_replay_identically(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    with freeze_time(T0) as frozen:
        game_id = new_game(CLOCKED, seed="clock-1")["id"]
        jobs.run_advance(svc, game_id)  # the service enqueues this after creation
        game = svc.load(game_id)
        assert game.to_act == {0, 1}
        stint = clocks.load(conn, game_id).seats[0].stint
        assert scheduled(conn, queue_name) == {f"timeout-{game_id}-0-{stint}": T0 + timedelta(seconds=30),
                                              f"timeout-{game_id}-1-{stint}": T0 + timedelta(seconds=90)}

        frozen.tick(10)  # B moves after 10 s: no increment for B, its stint ends
        svc.apply(game_id, 1, game.rules.legal_moves(game.state, 1)[0])
        jobs.run_advance(svc, game_id)
        assert clocks.load(conn, game_id).seats[1] == clocks.SeatClock(80_000)
        assert list(scheduled(conn, queue_name)) == [f"timeout-{game_id}-0-{stint}"]  # B's job was dropped

        frozen.tick(10)  # 20 s: A still has time, the job changes nothing
        before = svc.load(game_id).version
        assert jobs.run_timeout(svc, game_id, 0, stint)["reason"] == "early"
        assert svc.load(game_id).version == before
        assert scheduled(conn, queue_name)[f"timeout-{game_id}-0-{stint}-again"] == T0 + timedelta(seconds=30)

        frozen.tick(11)  # 31 s: A is out of time
        fired = jobs.run_timeout(svc, game_id, 0, stint)
        assert fired["applied"] and fired["reason"] == "timeout"
        batch = list(svc.entries(game_id, after=before))
        assert batch[0].actor == "system"
        assert batch[0].command == {"type": "ApplyTimeout", "seat": "system", "target": 0}
        assert batch[0].entry["meta"]["clock"] == {"seat": 0, "stint": stint,
                                                   "deadline_ms": int((T0 + timedelta(seconds=30)).timestamp() * 1000),
                                                   "late_ms": 1000}
        applied = [e.data for e in batch if e.type == "TimeoutApplied"]
        assert applied == [{"type": "TimeoutApplied", "target": 0, "move": "DrawFollowers"}]
        assert any(e.type == "FollowersDrawn" and e.data["seat"] == 0 for e in batch)

        after = svc.load(game_id).version
        assert not jobs.run_timeout(svc, game_id, 0, stint)["applied"]  # duplicate job
        assert not jobs.run_timeout(svc, game_id, 1, stint)["applied"]  # B acted long ago
        assert svc.load(game_id).version == after

        now_clocks = clocks.load(conn, game_id)
        assert now_clocks.seats[0].remaining_ms == 5_000  # flagged: 0 + increment
        assert svc.load(game_id).to_act == {0, 1}  # planning: both seats' clocks run again
        assert now_clocks.seats[0].deadline_ms == int((T0 + timedelta(seconds=36)).timestamp() * 1000)
        assert now_clocks.seats[1].deadline_ms == int((T0 + timedelta(seconds=111)).timestamp() * 1000)
        new_stint = now_clocks.seats[0].stint
        assert scheduled(conn, queue_name) == {f"timeout-{game_id}-0-{new_stint}": T0 + timedelta(seconds=36),
                                              f"timeout-{game_id}-1-{new_stint}": T0 + timedelta(seconds=111)}

    assert redecide(svc, game_id) == svc.load(game_id).state
    conn.delete(clocks.clock_key(game_id))
    timing.forget_folded()
    with freeze_time(T0 + timedelta(seconds=31)):
        assert jobs.sync_clocks(GameService(conn), svc.load(game_id)) == now_clocks  # a pure fold of the log


def test_a_game_without_clocks_schedules_nothing(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game([{"name": "A"}, {"name": "B"}], seed="clock-none")["id"]
    jobs.run_advance(svc, game_id)
    assert scheduled(conn, queue_name) == {} and clocks.load(conn, game_id) is None
    assert jobs.run_timeout(svc, game_id, 0, 1) == {"game": game_id, "seat": 0, "applied": False, "reason": "stale"}


def test_the_worker_command_runs_scheduled_timeouts(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    seats = [{"name": "A", "clock": {"initial_s": 0.4}}, {"name": "B", "clock": {"initial_s": 0.4}}]
    game_id = new_game(seats, seed="clock-cli")["id"]
    jobs.run_advance(svc, game_id)
    assert len(scheduled(conn, queue_name)) == 2
    time.sleep(0.6)
    subprocess.run([sys.executable, "-m", "workers.cli", "--burst", "--queue", queue_name, "--url", REDIS_URL,
                    "--logging-level", "WARNING"], check=True, timeout=120, cwd=Path(__file__).parents[2])
    commands = [e.command for e in GameService(conn).entries(game_id) if e.command is not None]
    assert {c["target"] for c in commands if c["type"] == "ApplyTimeout"} == {0, 1}
