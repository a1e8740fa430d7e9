"""core.clocks as pure arithmetic over batches, and its Redis cache."""
from __future__ import annotations

import uuid

import pytest
import redis

from core import clocks
from core.clocks import Batch, TimeControl
from core.store import events_key

CONTROLS = {0: TimeControl(60_000, 5_000), 1: TimeControl(30_000, 0)}


def batch(version: int, t: int, actor: int | str, to_act: set, target: int | None = None,
          provisional: bool = False) -> Batch:
    return Batch(version, t, actor, target, frozenset(to_act), provisional)


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
    c = clocks.step(c, batch(4, 4_000, 1, {0, 1}), CONTROLS)  # seat 1 ended a decision and has the next
    assert c.seats[0].stint == 3 and c.seats[0].remaining_ms == 56_000 and c.seats[0].deadline_ms == 60_000
    assert c.seats[1].stint == 4 and c.seats[1].remaining_ms == 26_000 and c.seats[1].deadline_ms == 30_000


def test_a_seat_that_joins_earns_no_increment_before_it_ever_moved() -> None:
    """Issue 25: a join is the joining seat's own batch, but no decision of its ended (its clock
    never ran): the clock starts at its initial time, and the increment comes with its first move."""
    c = clocks.start(CONTROLS)
    c = clocks.step(c, batch(2, 0, 0, set()), CONTROLS)  # seat 0 takes its open seat; nobody is to act yet
    assert c.seats[0] == clocks.SeatClock(60_000)
    c = clocks.step(c, batch(3, 1_000, 0, {0}), CONTROLS)  # seat 0 joins the other open seat: the game starts
    assert c.seats[0].remaining_ms == 60_000 and c.seats[0].deadline_ms == 61_000
    c = clocks.step(c, batch(4, 11_000, 0, {1}), CONTROLS)  # its first move: 10 s used, +5 s
    assert c.seats[0] == clocks.SeatClock(55_000)


def test_a_provisional_move_keeps_the_stint_its_deadline_and_earns_no_increment() -> None:
    """Planning placements and take-backs are one decision with FinishPlanning (issue 23): the
    deadline set when planning began holds however many of them the seat makes."""
    c = clocks.start(CONTROLS)
    c = clocks.step(c, batch(3, 0, "system", {0, 1}), CONTROLS)
    for version in range(4, 40):  # seat 0 places and takes back, one a second
        c = clocks.step(c, batch(version, (version - 3) * 1_000, 0, {0, 1}, provisional=True), CONTROLS)
        assert c.seats[0].stint == 3 and c.seats[0].deadline_ms == 60_000
    assert c.remaining_at(0, 36_000) == 24_000 and c.remaining_at(1, 36_000) == 0  # seat 1 ran out at 30 s
    c = clocks.step(c, batch(40, 50_000, 0, {1}), CONTROLS)  # FinishPlanning: the stint ends, +5 s
    assert c.seats[0] == clocks.SeatClock(15_000)


def test_a_per_move_clock_is_not_renewed_by_a_provisional_move() -> None:
    controls = {0: TimeControl(5_000, 0, per_move=True)}
    c = clocks.start(controls)
    c = clocks.step(c, batch(2, 0, "system", {0}), controls)
    c = clocks.step(c, batch(3, 4_000, 0, {0}, provisional=True), controls)
    assert c.seats[0].deadline_ms == 5_000 and c.remaining_at(0, 4_500) == 500
    c = clocks.step(c, batch(4, 4_900, 0, {0}), controls)  # a decision ended, the next begins at once
    assert c.seats[0].stint == 4 and c.seats[0].deadline_ms == 9_900


def test_a_provisional_move_that_leaves_to_act_ends_the_stint() -> None:
    """An Orléans draw is provisional (a tower owner goes on loading), but a seat without a tower
    is done with phase 3 when it draws: its stint ends with the increment."""
    c = clocks.start(CONTROLS)
    c = clocks.step(c, batch(3, 0, "system", {0, 1}), CONTROLS)
    c = clocks.step(c, batch(4, 2_000, 0, {1}, provisional=True), CONTROLS)
    assert c.seats[0] == clocks.SeatClock(63_000)


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
        assert not clocks.save(conn, game_id, newer)  # no such game (deleted, expired): no cache outlives it
        assert not conn.exists(clocks.clock_key(game_id))
        conn.xadd(events_key(game_id), {"entry": "{}"})  # the game's log exists
        assert clocks.save(conn, game_id, newer)
        assert not clocks.save(conn, game_id, older)
        assert clocks.load(conn, game_id) == newer
        assert clocks.clock_key(game_id) == f"hg:{{{game_id}}}:clock"
        public = clocks.public(newer, 1_000)
        assert public["0"] == {"remaining_ms": 59_000, "running": True, "deadline_ms": 60_000}
    finally:
        conn.delete(clocks.clock_key(game_id), events_key(game_id))
