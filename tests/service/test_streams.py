"""The live-stream hub (service.streams): one reader per game per process, fanned out.

Issue 14: every SSE connection used to run its own XREAD and reload the game per batch.
"""
from __future__ import annotations

import itertools
import threading
from typing import Any

import redis
from conftest import run_worker

from core.games import GameService
from service.streams import Hub, Joined, Resync
from service.streamsink import CUT_OFF, Batch


class CountingRedis(redis.Redis):
    """A client that counts its XREAD calls."""

    xreads = 0

    def xread(self, *args: Any, **kwargs: Any) -> Any:
        type(self).xreads += 1
        return super().xread(*args, **kwargs)


def _bid(svc: GameService, game_id: str, seat: int, bid: int) -> None:
    game = svc.load(game_id)
    svc.apply(game_id, seat, game.rules.command_from_json({"type": "Bid", "bid": bid}, seat))


def _collect(joined: Joined | None, out: list[int], done: threading.Event) -> None:
    assert joined is not None
    sub, gap, _ = joined
    for batch in itertools.chain(gap, sub.batches(heartbeat=0.1)):
        if batch is None:
            continue
        if batch is CUT_OFF:
            break
        assert isinstance(batch, Batch)
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
    received: list[list[int]] = [[] for _ in range(40)]
    finished = [threading.Event() for _ in received]
    for out, done in zip(received, finished):
        threading.Thread(target=_collect, args=(hub.subscribe(gid, after=0), out, done),
                         daemon=True).start()
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
    threading.Thread(target=_collect, args=(hub.subscribe(gid, after=0), early, early_done), daemon=True).start()
    _bid(svc, gid, 0, 1)
    _bid(svc, gid, 1, 1)
    run_worker(svc, gid)
    late, late_done = [], threading.Event()
    late_sub = hub.subscribe(gid, after=2)  # resumes from an older seq
    threading.Thread(target=_collect, args=(late_sub, late, late_done), daemon=True).start()
    _bid(svc, gid, 0, 3)
    _bid(svc, gid, 1, 2)
    run_worker(svc, gid)
    assert early_done.wait(10) and late_done.wait(10)
    version = svc.load(gid).version
    assert early == list(range(1, version + 1)) and late == list(range(3, version + 1))


def test_the_feed_stops_when_its_last_subscriber_leaves(svc: GameService, new_game: Any) -> None:
    hub = Hub(svc)
    gid = new_game()["id"]
    joined = hub.subscribe(gid, after=0)
    assert joined is not None
    sub, feed = joined.sub, hub.feeds[gid]
    sub.close()
    _bid(svc, gid, 0, 1)  # wakes the blocked XREAD; the feed sees nobody is left
    for _ in range(100):
        if feed.stopped:
            break
        threading.Event().wait(0.05)
    assert feed.stopped and gid not in hub.feeds


def _caught_up(hub: Hub, gid: str, version: int) -> None:
    for _ in range(200):
        feed = hub.feeds.get(gid)
        if feed is None or (feed.game is not None and feed.game.version >= version):
            return
        threading.Event().wait(0.05)
    raise AssertionError("the feed did not read the game")


def test_a_subscriber_whose_queue_is_full_gets_a_resync_of_the_latest_instead(svc: GameService, new_game: Any,
                                                                             monkeypatch: Any) -> None:
    monkeypatch.setattr("service.streams.QUEUE_BATCHES", 2)
    hub = Hub(svc, bound=3600)  # only the length bound applies
    gid = new_game(options={"rounds": 3})["id"]
    joined = hub.subscribe(gid, after=0)
    assert joined is not None
    slow = joined.sub  # reads nothing while two rounds are played
    for _ in range(2):
        _bid(svc, gid, 0, 1)
        _bid(svc, gid, 1, 2)
        run_worker(svc, gid)
    version = svc.load(gid).version
    _caught_up(hub, gid, version)
    waiting = list(slow.queue.queue)
    assert len(waiting) <= 2 and any(isinstance(item, Resync) for item in waiting)
    last = waiting[-1].batch if isinstance(waiting[-1], Resync) else waiting[-1]
    assert last.version == version and not slow.cut_off and slow in hub.feeds[gid].subscribers


def test_a_reader_behind_the_lag_bound_skips_to_one_resync_of_the_newest_batch(svc: GameService,
                                                                              new_game: Any) -> None:
    hub = Hub(svc, bound=0.0)  # every waiting batch is too old
    gid = new_game(options={"rounds": 3})["id"]
    joined = hub.subscribe(gid, after=0)
    assert joined is not None
    for _ in range(2):
        _bid(svc, gid, 0, 1)
        _bid(svc, gid, 1, 2)
        run_worker(svc, gid)
    version = svc.load(gid).version
    _caught_up(hub, gid, version)
    before = hub.stats.resyncs
    first = next(iter(joined.sub.batches(heartbeat=0.1)))
    assert isinstance(first, Resync) and first.batch.version == version and first.batch.game is not None
    assert first.batch.game.version == version and hub.stats.resyncs == before + 1
    joined.sub.close()


def test_a_crowd_joining_at_once_loads_the_game_once_and_reads_no_gap(svc: GameService, new_game: Any,
                                                                      monkeypatch: Any) -> None:
    """Issue 23: the stream process spent a third of its time loading the game for each joining
    stream. Thirty joining together: one load (the others wait for it), and their gaps (from seq
    0 of a new game) come from the feed's memory, not from Redis."""
    hub = Hub(svc)
    gid = new_game(options={"rounds": 2})["id"]
    svc.repository.forget()  # a process that has not seen the game yet
    loads, reads = [], []
    load, entries = svc.load, svc.entries
    monkeypatch.setattr(svc, "load", lambda game_id: loads.append(game_id) or load(game_id))
    monkeypatch.setattr(svc, "entries", lambda *a, **k: reads.append(a) or entries(*a, **k))
    barrier = threading.Barrier(30)
    joined: list[Joined | None] = []

    def join() -> None:
        barrier.wait()
        joined.append(hub.subscribe(gid, after=0))

    threads = [threading.Thread(target=join) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    version = load(gid).version
    assert len(joined) == 30 and len(loads) == 1 and len(reads) == 1  # the load and the feed's primer
    assert all(j is not None and [e.seq for b in j.gap for e in b.entries] == list(range(1, version + 1))
               for j in joined)
    for j in joined:
        assert j is not None
        j.sub.close()
