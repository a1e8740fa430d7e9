"""core.clocks as pure arithmetic over batches, and its Redis cache."""
from __future__ import annotations

import uuid

import pytest
import redis

from core import clocks
from core.clocks import Batch, TimeControl

CONTROLS = {0: TimeControl(60_000, 5_000), 1: TimeControl(30_000, 0)}


def batch(version: int, t: int, actor: int | str, to_act: set, target: int | None = None) -> Batch:
    return Batch(version, t, actor, target, frozenset(to_act))


def test_time_control_parsing() -> None:
    assert TimeControl.from_json({"initial_s": 90, "increment_s": 2.5}) == TimeControl(90_000, 2_500)
    assert TimeControl.from_json({"initial_s": 1}) == TimeControl(1_000, 0)
    for bad in ({}, {"initial_s": 0}, {"initial_s": -1}, {"initial_s": "5"}, {"initial_s": True},
                {"initial_s": 5, "extra": 1}, {"initial_s": 5, "increment_s": -1}, [5]):
        with pytest.raises(ValueError):
            TimeControl.from_json(bad)  # type: ignore[arg-type]


def test_turn_based_clocks_charge_the_seat_to_act_and_credit_its_increment() -> None:
    c = clocks.start(CONTROLS)
    c = clocks.step(c, batch(5, 1_000, "system", {0}), CONTROLS)  # seat 0 starts at t=1s
    assert c.seats[0].running and c.seats[0].stint == 5 and c.seats[0].deadline_ms == 61_000
    assert not c.seats[1].running
    c = clocks.step(c, batch(7, 11_000, 0, {1}), CONTROLS)  # 0 used 10 s, gets +5 s; 1 starts
    assert c.seats[0] == clocks.SeatClock(55_000)
    assert c.seats[1].running and c.seats[1].deadline_ms == 41_000
    assert c.remaining_at(1, 21_000) == 20_000


def test_simultaneous_seats_run_together_and_a_move_restarts_the_stint() -> None:
    c = clocks.start(CONTROLS)
    c = clocks.step(c, batch(3, 0, "system", {0, 1}), CONTROLS)
    c = clocks.step(c, batch(4, 4_000, 1, {0, 1}), CONTROLS)  # seat 1 planned one follower
    assert c.seats[0].stint == 3 and c.seats[0].remaining_ms == 56_000 and c.seats[0].deadline_ms == 60_000
    assert c.seats[1].stint == 4 and c.seats[1].remaining_ms == 26_000 and c.seats[1].deadline_ms == 30_000


def test_a_timeout_ends_the_stint_at_zero_plus_increment() -> None:
    c = clocks.start(CONTROLS)
    c = clocks.step(c, batch(3, 0, "system", {0}), CONTROLS)
    c = clocks.step(c, batch(9, 61_500, "system", {1}, target=0), CONTROLS)
    assert c.seats[0] == clocks.SeatClock(5_000)
    assert c.seats[1].running


def test_fold_skips_batches_already_counted() -> None:
    batches = [batch(3, 0, "system", {0}), batch(5, 2_000, 0, {1}), batch(6, 3_000, 1, {0})]
    once = clocks.fold_batches(clocks.start(CONTROLS), batches, CONTROLS)
    again = clocks.fold_batches(once, batches, CONTROLS)
    assert once == again and once.version == 6


def test_cache_keeps_the_newest_version(conn: redis.Redis) -> None:
    game_id = f"t{uuid.uuid4().hex[:10]}"
    try:
        newer = clocks.fold_batches(clocks.start(CONTROLS), [batch(8, 0, "system", {0})], CONTROLS)
        older = clocks.fold_batches(clocks.start(CONTROLS), [batch(4, 0, "system", {1})], CONTROLS)
        assert clocks.save(conn, game_id, newer)
        assert not clocks.save(conn, game_id, older)
        assert clocks.load(conn, game_id) == newer
        assert clocks.clock_key(game_id) == f"hg:{{{game_id}}}:clock"
        public = clocks.public(newer, 1_000)
        assert public["0"] == {"remaining_ms": 59_000, "running": True, "deadline_ms": 60_000}
    finally:
        conn.delete(clocks.clock_key(game_id))
