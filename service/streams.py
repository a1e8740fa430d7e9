"""Live streams: one Redis reader and one folded game per game per process, fanned out to every
local subscriber.

A :class:`Feed` runs one blocking ``XREAD`` loop for its game, folds what it reads into the
game it holds (so the end of the game, the views and the legal moves after each batch are known
from the events read, with no second round trip) and hands each batch to every
:class:`Subscription` of that game in this process. The feed starts with its first subscriber,
which loads the game once (every other subscriber joining meanwhile waits for that load, and
later ones join the running feed without touching Redis), and stops soon after its last one
leaves. It keeps its most recent batches (:data:`RECENT_ENTRIES` entries), so a subscriber that
resumes from a recent seq gets its gap from memory, rendered once per viewer.

A subscriber that resumes from an older seq first reads the gap from the store, then takes the
live batches: it registers under the feed's lock and notes the feed's position, so nothing is
missed and nothing is sent twice. A subscriber whose waiting batches are older than the lag
bound (``service.streamlag``) is caught up with one resync line carrying the latest state
instead of the backlog (:class:`Resync`; ``service.streamsink`` for the feed-written path).

The loop uses ``threading``; under gunicorn's gevent worker class (the Procfile's) the threads
and the Redis sockets are cooperative, so a stream costs a greenlet, not an OS thread.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple

from core import timing
from core.games import Game, GameService
from core.store import EventStore, StoredEntry, events_key
from service import streamlag
from service.streamlag import STATS, LagStats
from service.streamsink import CLOCKS, CUT_OFF, QUEUE_BATCHES, Batch, Frame, Offered, Sink, appended_at

log = logging.getLogger(__name__)

BLOCK_MS = 30_000  # one XREAD waits at most this long; the feed re-checks its subscribers between reads. An
# idle feed costs one read per BLOCK_MS (bench/streams.py --idle --games 250: 5 s cost 10 µs per stream per s);
# a feed whose last subscriber left lingers (a connection, a folded game) up to this long, and is rejoined meanwhile
YIELD_EVERY = 64  # subscribers served between two yields of a fan-out (a gevent switch, or the GIL)
RECENT_ENTRIES = 1_000  # entries a feed keeps for the gaps of joining subscribers (older ones: from Redis)


@dataclass(frozen=True)
class Resync:
    """What a subscriber on the queue path gets instead of a backlog older than the bound: a
    resync line with the state after ``batch``."""

    batch: Batch


class Joined(NamedTuple):
    """A subscription, its gap (batches after the resume point up to the live position) and the
    game as of that position."""

    sub: Subscription
    gap: list[Batch]
    game: Game


class Subscription:
    """One client's view of a feed: the gap it asked for, then the live batches.

    Batches (or their entries) up to ``after`` are skipped: the feed may be behind the version
    the client resumes from."""

    def __init__(self, feed: Feed, after: int) -> None:
        self.feed = feed
        self.after = after
        self.queue: queue.Queue[Batch | Resync] = queue.Queue(maxsize=QUEUE_BATCHES)
        self.cut_off = False
        self.sink: Sink | None = None

    def deliver(self, batch: Batch, now: float | None = None) -> Offered:
        """Hand ``batch`` to the sink, or queue it (a full queue is replaced by a resync of it);
        GONE (and cut off) when the subscriber is gone or cut off."""
        if batch.version <= self.after:
            return Offered.SKIPPED
        if batch.entries[0].seq <= self.after:
            batch = batch.tail(self.after)
        if self.sink is not None:
            offered = self.sink.offer(batch, now)
            self.cut_off = offered is Offered.GONE
            return offered
        try:
            self.queue.put_nowait(batch)
        except queue.Full:  # the reader is far behind: only the latest state is worth sending
            while True:
                try:
                    self.queue.get_nowait()
                except queue.Empty:
                    break
            self.queue.put_nowait(Resync(batch))
            self.feed.hub.stats.dropped("resync")
        return Offered.QUEUED

    def attach(self, sink: Sink) -> None:
        """From now on the feed writes to ``sink``; batches queued before go to it first, in order."""
        with self.feed.lock:  # no batch is delivered while the switch happens
            while True:
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
                if isinstance(item, Resync):
                    sink.pending.clear()
                    data, batch, resync = self._resync_bytes(sink, item.batch), item.batch, True
                else:
                    data, batch, resync = sink.frame(item), item, False
                sink.ended = sink.ended or batch.finished
                if not sink.pending:
                    sink.waiting_since = time.time()
                sink.pending.append(Frame(data, batch.appended, resync))
            self.sink = sink

    @staticmethod
    def _resync_bytes(sink: Sink, batch: Batch) -> bytes:
        return sink.resync(batch) if sink.resync is not None else sink.frame(batch)

    def batches(self, heartbeat: float) -> Iterator[Batch | Resync | None]:
        """Live batches as they come; None when ``heartbeat`` s pass quietly; a :class:`Resync`
        of the newest waiting batch instead of those waiting when the oldest is older than the
        bound; ``CUT_OFF`` last when the feed failed."""
        bound = self.feed.hub.bound
        while not self.cut_off:
            try:
                item = self.queue.get(timeout=heartbeat)
            except queue.Empty:
                yield None
                continue
            if isinstance(item, Batch) and item.appended and time.time() - item.appended > bound \
                    and not self.queue.empty():
                counted = False
                while True:  # skip to the newest: the reader falls no further behind than the bound
                    try:
                        newest = self.queue.get_nowait()
                    except queue.Empty:
                        break
                    counted = not isinstance(newest, Resync)  # deliver() counted the resyncs it queued
                    item = newest if isinstance(newest, Resync) else Resync(newest)
                if counted:
                    self.feed.hub.stats.dropped("resync")
            yield item
        yield CUT_OFF

    def close(self) -> None:
        self.feed.leave(self)


class Feed:
    """The one reader of a game's stream in this process, and the game folded to what it read."""

    def __init__(self, hub: Hub, game_id: str) -> None:
        self.hub = hub
        self.game_id = game_id
        self.game: Game | None = None  # set by the subscriber that starts the feed (:meth:`Hub.subscribe`)
        self.ready = threading.Event()  # the game is loaded (or the start failed: game stays None)
        self.subscribers: set[Subscription] = set()
        self.recent: deque[Batch] = deque()
        self.recent_entries = 0
        self.stopped = False
        self.lock = threading.Lock()

    def prime(self, game: Game, primer: list[StoredEntry]) -> None:
        """Hold ``game`` (reading will start after its version); ``primer``, its last entries,
        serves the gaps of joining subscribers."""
        with self.lock:
            self.game = game
            if primer:
                self._remember(self._batch(primer))

    def start(self) -> None:
        """Start reading (once the first subscriber has joined: a feed without any stops)."""
        threading.Thread(target=self.run, name=f"feed-{self.game_id}", daemon=True).start()

    def join(self, after: int | None) -> tuple[Subscription, Game, list[Batch] | None] | None:
        """Register a subscriber; it, the game the live batches start after, and its gap from
        memory (None: read it from the store); None when the feed is stopping or the game over.
        ``after`` None: from the live position (a fresh stream, which opens with that game)."""
        with self.lock:
            if self.stopped or self.game is None or self.game.finished:
                return None
            live_from = self.game.version
            after = live_from if after is None else after
            sub = Subscription(self, after)
            self.subscribers.add(sub)
            gap: list[Batch] | None = []
            if after < live_from:
                covered = self.recent and self.recent[0].entries[0].seq <= after + 1
                gap = [b if b.entries[0].seq > after else b.tail(after)
                       for b in self.recent if b.version > after] if covered else None
            return sub, self.game, gap

    def leave(self, sub: Subscription) -> None:
        with self.lock:
            self.subscribers.discard(sub)

    def run(self) -> None:
        try:
            while self._has_subscribers() and self.game is not None and not self.game.finished:
                self._read_once()
        except Exception:  # a Redis outage or a bug: cut everyone off; they reconnect to a new feed
            log.exception("live feed of game %s stopped", self.game_id)
            with self.lock:
                for sub in self.subscribers:
                    sub.cut_off = True
                    if sub.sink is not None:  # its greenlet sleeps until told
                        sub.sink.abandon()
        finally:
            with self.lock:
                self.stopped = True
            self.hub.forget(self)

    def _has_subscribers(self) -> bool:
        with self.lock:
            if not self.subscribers:
                self.stopped = True
            return not self.stopped

    def _read_once(self) -> None:
        assert self.game is not None
        conn = self.hub.service.store.conn
        rows: list[Any] = conn.xread(  # type: ignore[assignment]
            {events_key(self.game_id): f"{self.game.version}-0"}, count=500, block=BLOCK_MS)
        if not rows:
            return
        entries = [EventStore._decode(entry_id, fields) for entry_id, fields in rows[0][1]]
        with self.lock:
            self.game = self.hub.service.extend(self.game, entries)
            batch = self._batch(entries)
            self._remember(batch)
            self._fan_out(batch)

    def _batch(self, entries: list[StoredEntry]) -> Batch:
        """``entries`` (the last ones of the feed's game) as a batch; a clocked game's clocks after
        it are read now, while they are the current ones (later, only a re-fold could give them)."""
        assert self.game is not None
        batch = Batch(tuple(entries), self.game.finished, self.game, appended_at(entries[0]))
        if timing.controls(self.game):
            batch.once(CLOCKS, partial(timing.figures, self.hub.service, self.game))
        return batch

    def _fan_out(self, batch: Batch) -> None:
        """``batch`` to every subscriber in slices of :data:`YIELD_EVERY`, yielding between them
        when the hub says so; the lag of those written at once is observed per slice (the slice's
        end time: an upper bound)."""
        dropped, sent = [], 0
        now = time.time()
        for count, sub in enumerate(list(self.subscribers), 1):
            offered = sub.deliver(batch, now)
            if offered is Offered.GONE:
                dropped.append(sub)
            elif offered is Offered.SENT and sub.sink is not None:
                sent += 1
            if count % YIELD_EVERY == 0:
                now = self._slice_done(batch, sent)
                sent = 0
                if self.hub.yielding:
                    time.sleep(0)  # let this process's other requests run between slices of a long fan-out
        self._slice_done(batch, sent)
        self.subscribers.difference_update(dropped)

    def _slice_done(self, batch: Batch, sent: int) -> float:
        now = time.time()
        if sent and batch.appended:
            self.hub.stats.observe(now - batch.appended, sent)
        return now

    def _remember(self, batch: Batch) -> None:
        """Keep ``batch`` for joining subscribers' gaps (its renderings shared, not the game after it,
        which a gap does not need: a thousand folded states would outweigh the entries), forgetting
        the oldest beyond RECENT_ENTRIES."""
        self.recent.append(batch if batch.finished else replace(batch, game=None))
        self.recent_entries += len(batch.entries)
        while len(self.recent) > 1 and self.recent_entries - len(self.recent[0].entries) >= RECENT_ENTRIES:
            self.recent_entries -= len(self.recent.popleft().entries)


class Hub:
    """This process's feeds, by game id; ``bound`` is the lag bound (s), ``stats`` where lags go.

    ``yielding``: a fan-out lets the process's other work run between slices of subscribers (a
    web worker's requests); the stream process passes False, so a live batch goes out to every
    subscriber before any joining stream is served (joins wait a fan-out, never the reverse)."""

    def __init__(self, service: GameService, bound: float = streamlag.DEFAULT_LAG_S, stats: LagStats = STATS,
                 *, yielding: bool = True) -> None:
        self.service = service
        self.bound = bound
        self.stats = stats
        self.yielding = yielding
        self.feeds: dict[str, Feed] = {}
        self.lock = threading.Lock()

    def subscribe(self, game_id: str, after: int | None) -> Joined | None:
        """A subscription to ``game_id`` after seq ``after``, with its gap and the game as of the
        live position; None when the game is over (nothing live to follow). ``after`` None: from
        the live position, with no gap (a fresh stream, which opens with a snapshot of that game).

        The first subscriber of a game in this process loads it and starts the feed; the others
        (those joining meanwhile wait for that load) share the feed's game."""
        while True:
            feed, starter = self._feed(game_id)
            if starter:
                self._start(feed)
            else:
                feed.ready.wait()
            if feed.game is not None and feed.game.finished:
                return None
            joined = feed.join(after)
            if starter:
                feed.start()
            if joined is None:
                continue  # it stopped meanwhile (its last subscriber left): the next call starts another
            sub, game, gap = joined  # the game as the feed held it when this subscriber joined
            if gap is None:  # older than the feed's memory: from the store
                entries = self.service.entries(game_id, after=sub.after, until=game.version)
                gap = [Batch(tuple(entries), False, game)] if entries else []
            return Joined(sub, gap, game)

    def _feed(self, game_id: str) -> tuple[Feed, bool]:
        """The game's feed, and True when the caller created it and must start it."""
        with self.lock:
            feed = self.feeds.get(game_id)
            if feed is not None and not feed.stopped:
                return feed, False
            feed = self.feeds[game_id] = Feed(self, game_id)
            return feed, True

    def _start(self, feed: Feed) -> None:
        """Load the game once for everyone waiting on ``feed``, and prime it (unless it is over)."""
        try:
            game = self.service.load(feed.game_id)
            first = max(0, game.version - RECENT_ENTRIES)
            primer = [] if game.finished else self.service.entries(feed.game_id, after=first, until=game.version)
        except BaseException:
            with feed.lock:
                feed.stopped = True
            self.forget(feed)
            feed.ready.set()
            raise
        if game.finished:
            with feed.lock:
                feed.game, feed.stopped = game, True
            self.forget(feed)
        else:
            feed.prime(game, primer)
        feed.ready.set()

    def subscribers(self) -> int:
        """Live subscribers of this process, all games."""
        with self.lock:
            feeds = list(self.feeds.values())
        return sum(len(feed.subscribers) for feed in feeds)

    def forget(self, feed: Feed) -> None:
        with self.lock:
            if self.feeds.get(feed.game_id) is feed:
                del self.feeds[feed.game_id]
