"""Live streams: one Redis reader per game per process, fanned out to every local subscriber.

A :class:`Feed` runs one blocking ``XREAD`` loop for its game, folds what it reads into the
game service's cached game (so the end of the game is known from the events read, with no
second round trip) and hands each batch to every :class:`Subscription` of that game in this
process. The feed starts with its first subscriber and stops soon after its last one leaves.

A subscriber that resumes from an older seq first reads the gap from the store, then takes the
live batches: it registers under the feed's lock and notes the feed's position, so nothing is
missed and nothing is sent twice. A subscriber that falls more than ``QUEUE_BATCHES`` behind is
cut off (the client reconnects with Last-Event-ID) rather than holding memory for ever.

The loop uses ``threading``; under gunicorn's gevent worker class (the Procfile's) the threads
and the Redis sockets are cooperative, so a stream costs a greenlet, not an OS thread.
"""
from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from core.games import Game, GameService
from core.store import EventStore, StoredEntry, events_key

log = logging.getLogger(__name__)

T = TypeVar("T")
BLOCK_MS = 5_000  # one XREAD waits at most this long; the feed re-checks its subscribers between reads
QUEUE_BATCHES = 1_000


@dataclass(frozen=True)
class Batch:
    """Entries appended together, and whether the game is over after them.

    ``rendered`` keeps each viewer's text of the batch per stream format, so a thousand
    spectators (all seat None) cost one rendering, not a thousand, and what every viewer shares
    (the game after the batch, its clocks) is read from Redis once per batch (:meth:`once`).
    """

    entries: tuple[StoredEntry, ...]
    finished: bool
    rendered: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @property
    def version(self) -> int:
        return self.entries[-1].seq

    def text_for(self, seat: int | None, render: Callable[[Iterable[StoredEntry], int | None], str],
                 form: str = "sse") -> str:
        return self.once((form, seat), lambda: render(self.entries, seat))

    def once(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``'s value, computed by the first subscriber that asks for ``key`` in this batch
        and shared with the others (what is the same for every viewer: the clocks after the batch)."""
        with self.lock:  # the first asker computes; the others wait for it and share its value
            if key not in self.rendered:
                self.rendered[key] = make()
            found: T = self.rendered[key]
        return found


CUT_OFF = Batch((), False)  # sent to a subscriber that fell too far behind


class Subscription:
    """One client's view of a feed: the gap it asked for, then the live batches."""

    def __init__(self, feed: Feed, after: int) -> None:
        self.feed = feed
        self.after = after
        self.queue: queue.Queue[Batch] = queue.Queue(maxsize=QUEUE_BATCHES)
        self.cut_off = False

    def deliver(self, batch: Batch) -> bool:
        """Queue ``batch``; False (and cut off) when the subscriber is too far behind."""
        try:
            self.queue.put_nowait(batch)
        except queue.Full:
            self.cut_off = True
        return not self.cut_off

    def batches(self, catch_up: list[StoredEntry], game: Game, heartbeat: float) -> Iterator[Batch | None]:
        """The gap (as one batch), then live batches; None when ``heartbeat`` s pass quietly."""
        if catch_up:
            yield Batch(tuple(catch_up), game.finished and catch_up[-1].seq >= game.version)
        while not self.cut_off:
            try:
                yield self.queue.get(timeout=heartbeat)
            except queue.Empty:
                yield None
        yield CUT_OFF

    def close(self) -> None:
        self.feed.leave(self)


class Feed:
    """The one reader of a game's stream in this process."""

    def __init__(self, hub: Hub, game: Game) -> None:
        self.hub = hub
        self.game = game
        self.subscribers: set[Subscription] = set()
        self.stopped = False
        self.lock = threading.Lock()

    def join(self, after: int) -> tuple[Subscription, int] | None:
        """Register a subscriber; returns it and the version the live batches start after."""
        with self.lock:
            if self.stopped:
                return None
            sub = Subscription(self, after)
            self.subscribers.add(sub)
            return sub, self.game.version

    def leave(self, sub: Subscription) -> None:
        with self.lock:
            self.subscribers.discard(sub)

    def run(self) -> None:
        try:
            while self._has_subscribers() and not self.game.finished:
                self._read_once()
        except Exception:  # a Redis outage or a bug: cut everyone off; they reconnect to a new feed
            log.exception("live feed of game %s stopped", self.game.game_id)
            with self.lock:
                for sub in self.subscribers:
                    sub.cut_off = True
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
        conn = self.hub.service.store.conn
        rows: list[Any] = conn.xread(  # type: ignore[assignment]
            {events_key(self.game.game_id): f"{self.game.version}-0"}, count=500, block=BLOCK_MS)
        if not rows:
            return
        entries = [EventStore._decode(entry_id, fields) for entry_id, fields in rows[0][1]]
        with self.lock:
            self.game = self.hub.service.extend(self.game, entries)
            batch = Batch(tuple(entries), self.game.finished)
            self.subscribers = {sub for sub in self.subscribers if sub.deliver(batch)}


class Hub:
    """This process's feeds, by game id."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.feeds: dict[str, Feed] = {}
        self.lock = threading.Lock()

    def subscribe(self, game: Game, after: int) -> tuple[Subscription, list[StoredEntry], Game]:
        """A subscription for ``game`` after seq ``after``, the entries of the gap up to the
        live position, and the game as of that position."""
        sub, live_from, feed = self._join(game, after)
        gap = self.service.entries(game.game_id, after=after, until=live_from) if after < live_from else []
        return sub, gap, feed.game

    def _join(self, game: Game, after: int) -> tuple[Subscription, int, Feed]:
        with self.lock:
            feed = self.feeds.get(game.game_id)
            joined = feed.join(after) if feed is not None else None
            if feed is None or joined is None:  # no feed, or one that is stopping: start another
                feed = self.feeds[game.game_id] = Feed(self, game)
                joined = feed.join(after)
                assert joined is not None
                threading.Thread(target=feed.run, name=f"feed-{game.game_id}", daemon=True).start()
        sub, live_from = joined
        return sub, live_from, feed

    def forget(self, feed: Feed) -> None:
        with self.lock:
            if self.feeds.get(feed.game.game_id) is feed:
                del self.feeds[feed.game.game_id]
