"""The live-stream hub (service.streams): one reader per game per process, fanned out.

Issue 14: every SSE connection used to run its own XREAD and reload the game per batch.
"""
from __future__ import annotations

import threading
from typing import Any

import redis
from conftest import run_worker

from core.games import GameService
from service.streams import CUT_OFF, Hub, Subscription


class CountingRedis(redis.Redis):
    """A client that counts its XREAD calls."""

    xreads = 0

    def xread(self, *args: Any, **kwargs: Any) -> Any:
        type(self).xreads += 1
        return super().xread(*args, **kwargs)


def _bid(svc: GameService, game_id: str, seat: int, bid: int) -> None:
    game = svc.load(game_id)
    svc.apply(game_id, seat, game.rules.command_from_json({"type": "Bid", "bid": bid}, seat))


def _collect(sub: Subscription, gap: list[Any], game: Any, out: list[int], done: threading.Event) -> None:
    for batch in sub.batches(gap, game, heartbeat=0.1):
        if batch is None:
            continue
        if batch is CUT_OFF:
            break
        out.extend(e.seq for e in batch.entries)
        if batch.finished:
            break
    sub.close()
    done.set()


def test_many_subscribers_share_one_reader_and_each_gets_every_batch_once(conn: redis.Redis, new_game: Any) -> None:
    counting = CountingRedis(connection_pool=conn.connection_pool)
    svc = GameService(counting, client_seeds="any")
    hub = Hub(svc)
    gid = new_game(options={"rounds": 2})["id"]
    start = svc.load(gid)
    received: list[list[int]] = [[] for _ in range(40)]
    finished = [threading.Event() for _ in received]
    for out, done in zip(received, finished):
        sub, gap, game = hub.subscribe(start, after=0)
        threading.Thread(target=_collect, args=(sub, gap, game, out, done), daemon=True).start()
    assert len(hub.feeds) == 1 and len(hub.feeds[gid].subscribers) == 40
    CountingRedis.xreads = 0
    for _ in range(2):
        _bid(svc, gid, 0, 2)
        _bid(svc, gid, 1, 3)
        run_worker(svc, gid)
    assert all(done.wait(10) for done in finished)
    final = svc.load(gid)
    assert final.finished
    assert all(out == list(range(1, final.version + 1)) for out in received)
    assert CountingRedis.xreads <= 2 * final.version  # one reader, not one per subscriber (40x)


def test_a_late_subscriber_gets_the_gap_then_live_batches_without_duplicates(svc: GameService, new_game: Any) -> None:
    hub = Hub(svc)
    gid = new_game(options={"rounds": 2})["id"]
    early, early_done = [], threading.Event()
    sub, gap, game = hub.subscribe(svc.load(gid), after=0)
    threading.Thread(target=_collect, args=(sub, gap, game, early, early_done), daemon=True).start()
    _bid(svc, gid, 0, 1)
    _bid(svc, gid, 1, 1)
    run_worker(svc, gid)
    late, late_done = [], threading.Event()
    sub2, gap2, game2 = hub.subscribe(svc.load(gid), after=2)  # resumes from an older seq
    threading.Thread(target=_collect, args=(sub2, gap2, game2, late, late_done), daemon=True).start()
    _bid(svc, gid, 0, 3)
    _bid(svc, gid, 1, 2)
    run_worker(svc, gid)
    assert early_done.wait(10) and late_done.wait(10)
    version = svc.load(gid).version
    assert early == list(range(1, version + 1)) and late == list(range(3, version + 1))


def test_the_feed_stops_when_its_last_subscriber_leaves(svc: GameService, new_game: Any) -> None:
    hub = Hub(svc)
    gid = new_game()["id"]
    sub, _, _ = hub.subscribe(svc.load(gid), after=0)
    feed = hub.feeds[gid]
    sub.close()
    _bid(svc, gid, 0, 1)  # wakes the blocked XREAD; the feed sees nobody is left
    for _ in range(100):
        if feed.stopped:
            break
        threading.Event().wait(0.05)
    assert feed.stopped and gid not in hub.feeds


def test_a_subscriber_that_falls_too_far_behind_is_cut_off(svc: GameService, new_game: Any,
                                                          monkeypatch: Any) -> None:
    monkeypatch.setattr("service.streams.QUEUE_BATCHES", 2)
    hub = Hub(svc)
    gid = new_game(options={"rounds": 3})["id"]
    slow, _, _ = hub.subscribe(svc.load(gid), after=0)  # never reads
    for _ in range(2):
        _bid(svc, gid, 0, 1)
        _bid(svc, gid, 1, 2)
        run_worker(svc, gid)
    for _ in range(100):
        if slow.cut_off:
            break
        threading.Event().wait(0.05)
    assert slow.cut_off and slow not in hub.feeds.get(gid, slow.feed).subscribers
