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

Under gunicorn, a subscriber that has caught up hands its socket to the feed (:class:`Sink`): the
feed then writes each batch's bytes, rendered once per viewer and framed once, straight onto every
socket with a send that never waits. That is one system call per subscriber per batch, instead of
waking the subscriber's greenlet to run the response iterator, gunicorn's chunked write and
gevent's ``sendall``. A socket whose buffer is full gets the rest of its bytes from its own
greenlet instead (a blocking write there), and later batches queue behind them in order.
"""
from __future__ import annotations

import logging
import queue
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from core.games import Game, GameService
from core.store import EventStore, StoredEntry, events_key

log = logging.getLogger(__name__)

T = TypeVar("T")
BLOCK_MS = 5_000  # one XREAD waits at most this long; the feed re-checks its subscribers between reads
QUEUE_BATCHES = 1_000
YIELD_EVERY = 64  # subscribers served between two yields of a fan-out (a gevent switch, or the GIL)


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
    lock: threading.RLock = field(default_factory=threading.RLock, compare=False, repr=False)

    @property
    def version(self) -> int:
        return self.entries[-1].seq

    def once(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``'s value, computed by the first subscriber that asks for ``key`` in this batch
        and shared with the others (what is the same for every viewer: the clocks after the batch)."""
        found = self.rendered.get(key, _MISSING)  # after the first asker, no lock: the value never changes
        if found is not _MISSING:
            return found
        with self.lock:  # the first asker computes (and may ask for another key: re-entrant); the others share
            if key not in self.rendered:
                self.rendered[key] = make()
            made: T = self.rendered[key]
        return made


_MISSING = object()
CUT_OFF = Batch((), False)  # sent to a subscriber that fell too far behind


def _green(sock: Any) -> bool:
    return type(sock).__module__.startswith("gevent")


def sender(sock: Any) -> Callable[[bytes], int]:
    """A send on ``sock`` that never waits: it returns the bytes written and raises
    ``BlockingIOError`` when the buffer is full (``OSError`` when the peer has gone). gevent's
    socket waits for room unless told a timeout of 0; a standard blocking socket honours
    ``MSG_DONTWAIT``. Decided once per socket: the feed calls it for every subscriber."""
    if _green(sock):
        return lambda data: sock.send(data, socket.MSG_DONTWAIT, 0.0)
    return lambda data: sock.send(data, socket.MSG_DONTWAIT)


def direct_socket(environ: dict[str, Any]) -> Any | None:
    """The client's socket under gunicorn, when the feed may write to it: a gevent socket, or a
    blocking standard one (gthread); None for any other server (the queue path then serves)."""
    sock = environ.get("gunicorn.socket")
    if sock is None or environ.get("REQUEST_METHOD") != "GET":
        return None
    if _green(sock) or (isinstance(sock, socket.socket) and sock.gettimeout() is None):
        return sock
    return None


def chunk(data: bytes) -> bytes:
    """``data`` as one HTTP/1.1 chunk, as gunicorn frames each piece of a response without a length."""
    return b"%x\r\n%s\r\n" % (len(data), data)


class Sink:
    """A subscriber's socket, written by the feed (:meth:`offer`) and by its own greenlet (:meth:`drain`).

    ``frame(batch)`` is the subscriber's bytes for a batch, framed for the wire. The feed sends
    them at once when nothing of this subscriber is queued or being written; otherwise (its buffer
    was full, or its greenlet is writing a keep-alive) they queue in ``pending``, in order, and its
    greenlet writes them. ``busy`` marks a write by the greenlet (or by gunicorn for it) in
    progress, so the two writers never interleave bytes.
    """

    def __init__(self, sock: Any, frame: Callable[[Batch], bytes], key: Hashable = None) -> None:
        self.sock, self.frame, self.key = sock, frame, key
        self._send = sender(sock)
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.pending: deque[bytes] = deque()
        self.partial = False  # pending[0] is the rest of a frame the feed began to send
        self.busy = False
        self.ended = False  # the batch that finished the game has been sent or queued
        self.gone = False  # cut off (too far behind) or the client went away

    def offer(self, batch: Batch) -> bool:
        """Send ``batch`` now or queue it; False when this subscriber is done with (cut off or gone).

        ``key`` names this subscriber's frame in ``batch.rendered`` (where ``frame`` keeps it), so
        every subscriber after the first of its kind takes the bytes with one dictionary read."""
        data = batch.rendered.get(self.key) if self.key is not None else None
        if data is None:
            data = self.frame(batch)
        with self.lock:
            if self.gone:
                return False
            self.ended = self.ended or batch.finished
            if self.busy or self.pending:
                if len(self.pending) >= QUEUE_BATCHES:
                    self.gone = True
                else:
                    self.pending.append(data)
                self.wake.set()
                return not self.gone
            try:
                sent = self._send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.gone, sent = True, len(data)
            if sent < len(data):
                self.pending.append(data[sent:])
                self.partial = sent > 0
            if self.pending or self.ended or self.gone:
                self.wake.set()
        return not self.gone

    def claim(self) -> bool:
        """Take the socket for a write of the greenlet's own (a keep-alive through gunicorn);
        False when the feed's bytes are queued: those go first (:meth:`drain`)."""
        with self.lock:
            if self.pending or self.busy:
                return False
            self.busy = True
            return True

    def drain(self) -> None:
        """Write what is queued, waiting for room as needed, then give the socket back to the feed.

        Once cut off, only the rest of a part-sent frame is written, so the stream ends on a
        frame boundary."""
        while True:
            with self.lock:
                if not self.pending or (self.gone and not self.partial):
                    self.pending.clear()
                    self.busy = False
                    return
                data = self.pending.popleft()
                self.partial, self.busy = False, True
            try:
                self.sock.sendall(data)
            except OSError:
                with self.lock:
                    self.gone = True
                    self.pending.clear()

    def wait(self, timeout: float) -> bool:
        """Until the feed has something for this subscriber's greenlet, or ``timeout`` s."""
        woke = self.wake.wait(timeout)
        self.wake.clear()
        return woke

    @property
    def done(self) -> bool:
        """Nothing more will be written: the end went out, or the subscriber is cut off or gone."""
        with self.lock:
            return not self.pending and (self.ended or self.gone)


class Subscription:
    """One client's view of a feed: the gap it asked for, then the live batches."""

    def __init__(self, feed: Feed, after: int) -> None:
        self.feed = feed
        self.after = after
        self.queue: queue.Queue[Batch] = queue.Queue(maxsize=QUEUE_BATCHES)
        self.cut_off = False
        self.sink: Sink | None = None

    def deliver(self, batch: Batch) -> bool:
        """Queue ``batch`` (or hand it to the sink); False (and cut off) when the subscriber is too
        far behind or gone."""
        if self.sink is not None:
            self.cut_off = not self.sink.offer(batch)
            return not self.cut_off
        try:
            self.queue.put_nowait(batch)
        except queue.Full:
            self.cut_off = True
        return not self.cut_off

    def attach(self, sink: Sink) -> None:
        """From now on the feed writes to ``sink``; batches queued before go to it first, in order."""
        with self.feed.lock:  # no batch is delivered while the switch happens
            while True:
                try:
                    batch = self.queue.get_nowait()
                except queue.Empty:
                    break
                data = sink.frame(batch)
                sink.ended = sink.ended or batch.finished
                sink.pending.append(data)
            self.sink = sink

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
            dropped = []
            for count, sub in enumerate(list(self.subscribers), 1):
                if not sub.deliver(batch):
                    dropped.append(sub)
                if count % YIELD_EVERY == 0:
                    time.sleep(0)  # let this process's other requests run between slices of a long fan-out
            self.subscribers.difference_update(dropped)


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
