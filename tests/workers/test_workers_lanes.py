"""Issue 23, scheduling: the lease with an owner token, lanes and slices, push decisions handed to
the caller with the lease, the caller's per-bot limit, and cancelling a timeout whose job hash
has vanished. Nothing here measures time: slices are made tiny, and calls are held open."""
from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from core import seats
from core.games import GameService
from core.seats import SeatKind, SeatSpec
from tests.live import PATIENCE_S
from tests.workers.hg_botserver import BotServer
from workers import calls, enqueue, jobs, lanes
from workers.caller import Caller
from workers.lease import Lease, lease_key, wake_key

RANDOM = {"kind": "bot", "bot": "random"}


def waiting(conn: redis.Redis, queue_name: str, lane: lanes.Lane) -> list[str]:
    name = queue_name + lanes.queue_suffix(lane)
    return Queue(name, connection=conn, serializer=JSONSerializer).job_ids


def test_a_lease_is_renewed_and_released_by_its_owner_only(conn: redis.Redis) -> None:
    game_id = "lease-test-game"
    first, second = Lease(conn, game_id), Lease(conn, game_id)
    try:
        assert first.take() and not second.take()  # the second job leaves at once...
        assert conn.exists(wake_key(game_id))  # ...and leaves word for the owner
        assert not second.renew() and not second.release() and conn.get(lease_key(game_id)) == first.token.encode()
        assert first.renew() and first.release()  # released: and someone came meanwhile
        assert not conn.exists(lease_key(game_id)) and not conn.exists(wake_key(game_id))
        again = Lease(conn, game_id, first.token)
        assert first.take() and again.take()  # the same token takes it back (an RQ job's retry)
        assert not first.release() and not conn.exists(lease_key(game_id))  # nobody came this time
    finally:
        conn.delete(lease_key(game_id), wake_key(game_id))


def test_lanes_follow_the_measured_bot_costs() -> None:
    table = [SeatSpec(SeatKind.BOT, "R", bot="random"), SeatSpec(SeatKind.BOT, "G", bot="greedy"),
             SeatSpec(SeatKind.BOT, "S", bot="search"), SeatSpec(SeatKind.HTTP, "H", url="http://x/")]
    assert [lanes.actor_lane("orleans", s, table, frozenset()) for s in range(4)] == ["fast", "fast", "slow", "call"]
    assert lanes.actor_lane("cathedral", 1, table, frozenset()) == "slow"  # its greedy bot's p99 is over a slice
    assert lanes.actor_lane("orleans", "system", table, frozenset()) == "fast"
    assert lanes.actor_lane("orleans", 2, table, frozenset({2})) == "fast"  # a departed seat's default move
    assert lanes.bot_lane("orleans", "a-new-bot") == "slow"  # unmeasured: slow until measured
    assert (lanes.lane_of_queue("hg-slow"), lanes.base_of_queue("hg-slow")) == ("slow", "hg")
    assert (lanes.lane_of_queue("hg"), lanes.base_of_queue("hg")) == ("fast", "hg")


def test_a_fast_slice_hands_the_game_back_to_the_end_of_the_queue(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lanes.SLICE_ENV, "1")  # a slice of 1 ms: each job makes a step or so
    game_id = new_game([{"name": "R1", **RANDOM}, {"name": "R2", **RANDOM}], seed="lanes-slice")["id"]
    other = new_game([{"name": "R1", **RANDOM}, {"name": "R2", **RANDOM}], seed="lanes-slice-other")["id"]
    enqueue.enqueue_advance(conn, other, 0, lane=lanes.FAST)  # a game waiting for its turn
    out = jobs.run_advance(svc, game_id, lane=lanes.FAST)
    assert out["continued"] and out["next"] == "fast" and out["appended"] >= 1
    assert waiting(conn, queue_name, lanes.FAST) == [f"advance-{other}-0", f"advance-{game_id}-{out['version']}"]
    assert not conn.exists(lease_key(game_id))  # let go before the next job was queued


def test_a_fast_game_plays_on_in_its_job_while_no_other_game_waits(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lanes.SLICE_ENV, "1")
    game_id = new_game([{"name": "R1", **RANDOM}, {"name": "R2", **RANDOM}], seed="lanes-alone")["id"]
    clear_lanes(conn, queue_name)  # the creation's news job: this test's job plays in its place
    out = jobs.run_advance(svc, game_id, lane=lanes.FAST, limit=120)
    assert out["appended"] == 120  # slice after slice in one job, up to its step limit
    assert waiting(conn, queue_name, lanes.FAST) == [f"advance-{game_id}-{out['version']}"]


def test_a_fast_game_takes_turns_of_two_slices_with_a_game_waiting_and_one_with_news(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lanes.SLICE_ENV, "1")
    slices: list[int] = []
    over = jobs._Slice.over
    monkeypatch.setattr(jobs._Slice, "over", lambda self, *a: (slices.append(self.number), over(self, *a))[1])
    game_id = new_game([{"name": "R1", **RANDOM}, {"name": "R2", **RANDOM}], seed="lanes-turns")["id"]
    other = new_game([{"name": "R1", **RANDOM}, {"name": "R2", **RANDOM}], seed="lanes-other")["id"]
    clear_lanes(conn, queue_name)
    enqueue.enqueue_advance(conn, other, 0, lane=lanes.FAST)  # another game waits on the fast lane
    out = jobs.run_advance(svc, game_id, lane=lanes.FAST)
    assert out["continued"] and out["next"] == "fast" and max(slices) == lanes.TURN_SLICES
    assert waiting(conn, queue_name, lanes.FAST) == [f"advance-{other}-0", f"advance-{game_id}-{out['version']}"]
    clear_lanes(conn, queue_name)
    enqueue.enqueue_advance(conn, other, 0)  # news: it waits one slice at most
    slices.clear()
    out = jobs.run_advance(svc, game_id, lane=lanes.FAST)
    assert out["continued"] and max(slices) == 1


def clear_lanes(conn: redis.Redis, queue_name: str) -> None:
    for lane in lanes.QUEUE_LANES:
        Queue(queue_name + lanes.queue_suffix(lane), connection=conn, serializer=JSONSerializer).empty()


def test_a_slow_bot_moves_the_game_to_the_slow_lane_for_one_decision(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game([{"name": "S", "kind": "bot", "bot": "search"}, {"name": "R", **RANDOM}], seed="lanes-slow")["id"]
    out = jobs.run_advance(svc, game_id, lane=lanes.FAST)  # SYSTEM's set-up steps, then the search bot's turn
    assert out["next"] == "slow" and waiting(conn, queue_name, lanes.SLOW) == [f"advance-{game_id}-{out['version']}"]
    slow = jobs.run_advance(svc, game_id, lane=lanes.SLOW)
    assert slow["appended"] == 1 and slow["continued"]  # one decision, then back to whoever acts next


def test_a_push_decision_goes_to_a_live_caller_with_the_lease(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "127.0.0.1:9")
    game_id = new_game([{"name": "P", "kind": "http", "url": "http://127.0.0.1:9/"}, {"name": "R", **RANDOM}],
                       seed="lanes-call")["id"]
    conn.zadd(calls.alive_key(), {"test-caller": int(time.time() * 1000) + 60_000})
    try:
        out = jobs.run_advance(svc, game_id, lane=lanes.FAST)
        assert out["called"] and conn.pttl(lease_key(game_id)) > 0  # the caller holds the game now
        raw = conn.lrange(calls.tickets_key(), 0, -1)
        tickets = [calls.Ticket.from_json(r) for r in raw]  # type: ignore[union-attr]
        assert [(t.game_id, t.seat, t.version) for t in tickets] == [(game_id, 0, out["version"])]
        assert conn.get(lease_key(game_id)) == tickets[0].lease.encode()
        assert jobs.run_advance(svc, game_id, lane=lanes.FAST) == {"game": game_id, "busy": True}  # no second call
    finally:
        conn.delete(calls.alive_key(), calls.tickets_key(), lease_key(game_id), wake_key(game_id))


@pytest.fixture
def bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[BotServer]:
    monkeypatch.setenv(jobs.DEADLINE_ENV, "5")
    with BotServer("unused", slow_s=0.3) as server:
        monkeypatch.setenv(seats.HOSTS_ENV, server.url.split("//", 1)[1])
        yield server


def test_the_caller_keeps_one_bot_to_its_limit_of_open_calls(
        conn: redis.Redis, svc: GameService, queue_name: str, created: list[str], bots: BotServer) -> None:
    bot = svc.bots.register(f"busy-{int(time.time() * 1000)}", "http", url=bots.url + "/slow")
    bots.secrets.add(bot["secret"])
    caller = Caller(svc, per_bot=1)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(caller.run(),), daemon=True)
    try:
        games = []
        for i in range(3):
            out = svc.create({"game": "orleans", "edition": "classic", "seed": f"limit-{i}",
                              "seats": [{"bot_id": bot["id"]}, {"name": "R", **RANDOM}]})
            created.append(out["id"])
            games.append(out["id"])
        thread.start()
        deadline = time.monotonic() + PATIENCE_S
        while len(bots.requests) < 6 and time.monotonic() < deadline:
            for game_id in games:  # what the fast-lane worker does with each game's jobs
                jobs.run_advance(svc, game_id, lane=lanes.FAST)
            time.sleep(0.05)
    finally:
        loop.call_soon_threadsafe(caller.stop.set)
        thread.join(timeout=PATIENCE_S)
        svc.bots.delete([bot["id"]])
        conn.delete(calls.tickets_key())
    assert len({r["payload"]["game"] for r in bots.requests}) >= 2  # several games asked the bot...
    assert bots.most_at_once == 1  # ...one call at a time


def test_cancelling_a_timeout_whose_job_vanished_changes_nothing(conn: redis.Redis, queue_name: str) -> None:
    """A timeout job's hash can vanish between a read and a delete (its TTL, the scheduler taking it):
    cancelling it must not fail the advance job that cancels (RQ's Job.delete raised here)."""
    assert enqueue.schedule_timeout(conn, "vanish", 0, 7, int(time.time() * 1000) + 60_000)
    conn.delete(Job.key_for(enqueue.timeout_job_id("vanish", 0, 7)))  # the hash is gone, the registry entry not
    assert enqueue.cancel_timeout(conn, "vanish", 0, 7) is True
    assert enqueue.cancel_timeout(conn, "vanish", 0, 7) is False  # already gone: nothing to do, no error
