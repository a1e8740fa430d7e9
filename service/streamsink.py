"""A live batch, and a subscriber's socket that the feed writes batches onto (``service.streams``).

Under gunicorn, a subscriber that has caught up hands its socket to the feed (:class:`Sink`): the
feed then writes each batch's bytes, rendered once per viewer and framed once, straight onto every
socket with a send that never waits. That is one system call per subscriber per batch, instead of
waking the subscriber's greenlet to run the response iterator, gunicorn's chunked write and
gevent's ``sendall``. A socket whose buffer is full gets the rest of its bytes from its own
greenlet instead (a blocking write there), and later batches queue behind them in order.

The queue is bounded in time, not only in length: when its oldest frame is older than the lag
bound (``service.streamlag``), the frames behind the one being written are dropped and replaced
by one **resync** line that carries the latest state, so a slow reader costs at most a frame and
a resync in memory and is never a silent gap. A socket that takes nothing for
:data:`~service.streamlag.STALL_S` is cut off (shut down; the client resumes with Last-Event-ID).
The socket's own send buffer is set small (:data:`SEND_BUFFER`): left to the kernel it grows to
megabytes for a reader that stalls, a backlog the bound could not see.
"""
from __future__ import annotations

import contextlib
import heapq
import math
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from core.store import StoredEntry
from core.timing import entry_ms
from service import streamlag
from service.streamlag import STATS, LagStats

if TYPE_CHECKING:
    from core.games import Game

T = TypeVar("T")
QUEUE_BATCHES = 1_000  # frames a subscriber may have waiting, whatever their age
SEND_BUFFER = 32 * 1024  # SO_SNDBUF of a feed-written socket (Linux doubles it): bytes the kernel holds for a reader


def appended_at(entry: StoredEntry) -> float:
    """When ``entry`` was appended (s since the epoch, the appender's clock, ms precision)."""
    return entry_ms(entry.entry["time"]) / 1000


@dataclass(frozen=True)
class Batch:
    """Entries appended together, whether the game is over after them, and the game after them.

    ``rendered`` keeps each viewer's text of the batch per stream format, so a thousand
    spectators (all seat None) cost one rendering, not a thousand, and what every viewer shares
    (the clocks after the batch) is computed once per batch (:meth:`once`). ``game`` is the
    feed's fold after the batch (None for batches built elsewhere, e.g. in tests); ``appended``
    when its first entry was appended (s since the epoch; 0: unknown, no lag is measured);
    ``origin`` the batch this one is the tail of (:meth:`tail`), whose shared values it reuses.
    """

    entries: tuple[StoredEntry, ...]
    finished: bool
    game: Game | None = field(default=None, compare=False, repr=False)
    appended: float = 0.0
    origin: Batch | None = field(default=None, compare=False, repr=False)
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

    def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """Like :meth:`once`, on the batch this one is a tail of (values about the state after it)."""
        return (self.origin or self).once(key, make)

    def tail(self, after: int) -> Batch:
        """The entries after seq ``after`` (some must be left) as a batch of their own, for a
        subscriber that already has the others; its renderings are its own."""
        kept = tuple(e for e in self.entries if e.seq > after)
        return Batch(kept, self.finished, self.game, appended_at(kept[0]) if self.appended else 0.0,
                     self.origin or self)


_MISSING = object()
CLOCKS = "clocks"  # the key of the clocks after a batch (the same for every viewer) in Batch.rendered
CUT_OFF = Batch((), False)  # sent to a subscriber that fell too far behind


class Offered(Enum):
    """What :meth:`Sink.offer` did with a batch."""

    SENT = "sent"  # every byte went onto the socket now
    QUEUED = "queued"  # waiting for the subscriber's own greenlet (its buffer was full, or it was writing)
    GONE = "gone"  # the subscriber is cut off or went away
    SKIPPED = "skipped"  # the subscriber had it already (it resumed after it)


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


class Frame(NamedTuple):
    """Bytes waiting for a subscriber's socket."""

    data: bytes
    appended: float  # when the batch it carries was appended (0: unknown)
    resync: bool = False  # a resync line (a newer one replaces it while it waits)


class Sink:
    """A subscriber's socket, written by the feed (:meth:`offer`), by the keep-alive timer
    (:meth:`beat`, :class:`KeepAlives`) and by its own greenlet (:meth:`drain`).

    ``frame(batch)`` is the subscriber's bytes for a batch, framed for the wire; ``resync(batch)``
    the bytes of a resync line bringing it to the state after ``batch`` (None: the backlog is
    only bounded in length, as before). The feed sends a frame at once when nothing of this
    subscriber is queued or being written; otherwise (its buffer was full, or its greenlet is
    writing the rest of a frame or a keep-alive) it queues in ``pending``, in order, and its
    greenlet writes it (the frame being written stays first in ``pending`` until it is out).
    ``busy`` marks a write by the greenlet in progress; the feed and the timer send only under
    ``lock`` and when nothing is queued or being written, so no two writers interleave bytes.
    ``bound`` is the lag bound in seconds.
    """

    def __init__(self, sock: Any, frame: Callable[[Batch], bytes], key: Hashable = None, *,
                 resync: Callable[[Batch], bytes] | None = None, bound: float = streamlag.DEFAULT_LAG_S,
                 stats: LagStats = STATS) -> None:
        self.sock, self.frame, self.key = sock, frame, key
        self.resync, self.bound, self.stats = resync, bound, stats
        with contextlib.suppress(OSError):  # without it, a reader that stalls may have megabytes waiting in the kernel
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self._send = sender(sock)
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.pending: deque[Frame] = deque()
        self.partial = False  # pending[0] is the rest of a frame the feed began to send
        self.busy = False
        self.ended = False  # the batch that finished the game has been sent or queued
        self.gone = False  # cut off (stalled) or the client went away
        self.retired = False  # the stream is over: nothing may be written any more (the connection may serve another request)
        self.waiting_since = 0.0  # when pending last became non-empty or a frame of it last went out

    def offer(self, batch: Batch, now: float | None = None) -> Offered:
        """Send ``batch`` now or queue it (replacing a backlog older than the bound by a resync).

        ``key`` names this subscriber's frame in ``batch.rendered`` (where ``frame`` keeps it), so
        every subscriber after the first of its kind takes the bytes with one dictionary read.
        ``now`` is the caller's clock reading (the feed reads it once per slice of subscribers)."""
        data = batch.rendered.get(self.key) if self.key is not None else None
        if data is None:
            data = self.frame(batch)
        return self.offer_bytes(data, now, batch)

    def offer_bytes(self, data: bytes, now: float | None = None, batch: Batch | None = None) -> Offered:
        """Send ``data`` (framed for the wire) now or queue it, as :meth:`offer` does a batch's
        bytes; without ``batch`` (bytes of no game: an account's or a bot's stream) the backlog
        is bounded in length and in the time the reader takes nothing, never in age."""
        now = time.time() if now is None else now
        with self.lock:
            if self.gone:
                return Offered.GONE
            self.ended = self.ended or (batch is not None and batch.finished)
            if self.busy or self.pending:
                self._queue(batch, data, now)
                self.wake.set()
                return Offered.GONE if self.gone else Offered.QUEUED
            try:
                sent = self._send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.gone, sent = True, len(data)
            if sent < len(data):
                self.pending.append(Frame(data[sent:], batch.appended if batch is not None else 0.0))
                self.partial = sent > 0
                self.waiting_since = now
            if self.pending or self.ended or self.gone:
                self.wake.set()
            if self.gone:
                return Offered.GONE
        return Offered.QUEUED if sent < len(data) else Offered.SENT

    def _queue(self, batch: Batch | None, data: bytes, now: float) -> None:
        """Behind a frame being written: queue ``data``, or, when the backlog is older than the
        bound (or too long), keep only the frame in progress and a resync line; cut off a socket
        that has taken nothing for ``STALL_S``. Called with the lock held."""
        if not self.pending:
            self.waiting_since = now
        elif now - self.waiting_since > streamlag.STALL_S:
            self.gone = True
            self.pending.clear()
            self.stats.dropped("cut")
            self._shut()
            return
        appended = batch.appended if batch is not None else 0.0
        stale = bool(self.pending) and appended > 0 and now - self.pending[0].appended > self.bound
        if self.resync is not None and batch is not None and (stale or len(self.pending) >= QUEUE_BATCHES):
            keep = self.pending[0] if self.partial or self.busy else None  # the frame being written
            counted = not any(f.resync for f in self.pending)  # a newer resync replacing one is not counted
            self.pending.clear()
            if keep is not None:
                self.pending.append(keep)
            self.pending.append(Frame(self.resync(batch), batch.appended, resync=True))
            if counted:
                self.stats.dropped("resync")
        elif len(self.pending) >= QUEUE_BATCHES:
            self.gone = True
            self.stats.dropped("cut")
        else:
            self.pending.append(Frame(data, appended))

    def beat(self, data: bytes, now: float | None = None) -> bool:
        """A keep-alive (``data``, framed for the wire), sent now without waiting unless the
        socket is in use (a frame is queued or being written: the stream is not idle); a part
        that did not fit waits in ``pending`` for the subscriber's greenlet. A reader that has
        taken nothing of a waiting frame for ``STALL_S`` is cut off here, even on a quiet game.
        False once the stream needs no more keep-alives (over, cut off, gone)."""
        now = time.time() if now is None else now
        with self.lock:
            if self.retired or self.gone or self.ended:
                return False
            if self.pending or self.busy:
                if self.pending and now - self.waiting_since > streamlag.STALL_S:
                    self.gone = True
                    self.pending.clear()
                    self.stats.dropped("cut")
                    self._shut()
                    self.wake.set()
                    return False
                return True
            try:
                sent = self._send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.gone = True
                self.wake.set()
                return False
            if sent < len(data):
                self.pending.append(Frame(data[sent:], 0.0))
                self.partial = sent > 0
                self.waiting_since = now
                self.wake.set()
        return True

    def abandon(self) -> None:
        """The feed stopped: end this stream (the client resumes with Last-Event-ID)."""
        with self.lock:
            self.gone = True
        self.wake.set()

    def retire(self) -> None:
        """The stream is over: no keep-alive or batch is written from now on."""
        with self.lock:
            self.retired = self.gone = True

    def _shut(self) -> None:
        """End the connection under a writer blocked on it (its greenlet's sendall then fails)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

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
                frame = self.pending[0]  # stays first while written: a resync keeps it
                self.partial, self.busy = False, True
            try:
                self.sock.sendall(frame.data)
            except OSError:
                with self.lock:
                    self.gone = True
                    self.pending.clear()
                continue
            now = time.time()
            with self.lock:
                if self.pending and self.pending[0] is frame:
                    self.pending.popleft()
                self.waiting_since = now
            if frame.appended:
                self.stats.observe(now - frame.appended)

    def wait(self, timeout: float | None = None) -> bool:
        """Until the feed (or the keep-alive timer) has something for this subscriber's greenlet,
        or ``timeout`` s (None: no timeout)."""
        woke = self.wake.wait(timeout)
        self.wake.clear()
        return woke

    @property
    def done(self) -> bool:
        """Nothing more will be written: the end went out, or the subscriber is cut off or gone."""
        with self.lock:
            return not self.pending and (self.ended or self.gone)


TICK_S = 1.0  # the keep-alive timer's coarsest slot: keep-alives due within one slot go out together, one wake-up
TICKS_PER_BEAT = 16  # a heartbeat shorter than 16 slots gets finer slots (a keep-alive at most 1/16 late)


class _Beat(NamedTuple):
    sink: Sink
    every: float
    data: bytes


class KeepAlives:
    """One timer for the keep-alives of every feed-written stream of a process (a timer wheel:
    slots of :data:`TICK_S`, finer for short heartbeats, each holding the streams due in it, so
    a thousand streams cost at most one wake-up a second).

    A stream's greenlet then sleeps without a timeout until the feed has something for it, and
    an idle stream costs one non-blocking send per heartbeat from this one thread
    (:meth:`Sink.beat`), instead of a greenlet waking, a generator step and gunicorn's write. A
    stream leaves the wheel at the first beat after it is over (:meth:`Sink.retire`, or ended)."""

    def __init__(self, tick: float = TICK_S) -> None:
        self.tick = tick
        self.lock = threading.Lock()
        self.slots: dict[float, list[_Beat]] = {}
        self.due: list[float] = []  # the slots held (when each is due, monotonic s), a heap
        self.next_at = math.inf  # when the timer wakes next (monotonic s)
        self.wake = threading.Event()
        self.pid = 0  # the process whose thread runs the timer (a forked child starts its own)
        self.firing = 0  # beats taken out of their slots by a fire() that has not put them back yet

    def add(self, sink: Sink, every: float, data: bytes) -> None:
        """Send ``data`` onto ``sink`` every ``every`` s, starting ``every`` s from now."""
        with self.lock:
            if self.pid != os.getpid():
                self.pid, self.next_at = os.getpid(), math.inf
                self.wake = threading.Event()
                threading.Thread(target=self._run, args=(self.wake,), name="hourglass-keep-alives", daemon=True).start()
            self._put(_Beat(sink, every, data), time.monotonic() + every)

    def __len__(self) -> int:
        """The streams held: in their slots, or being sent their keep-alive by :meth:`fire`."""
        with self.lock:
            return sum(len(beats) for beats in self.slots.values()) + self.firing

    def _put(self, beat: _Beat, at: float) -> None:
        tick = min(self.tick, beat.every / TICKS_PER_BEAT)
        slot = math.ceil(at / tick) * tick
        beats = self.slots.get(slot)
        if beats is None:
            beats = self.slots[slot] = []
            heapq.heappush(self.due, slot)
            if slot < self.next_at:
                self.wake.set()  # sooner than the timer meant to wake
        beats.append(beat)

    def fire(self, now: float | None = None) -> float | None:
        """Send the keep-alives due by ``now`` (monotonic s) and schedule their next ones, a
        heartbeat after the slot they were due in (no drift when the timer wakes late); when the
        next is due (None: no stream held)."""
        now = time.monotonic() if now is None else now
        fired: list[tuple[float, _Beat]] = []
        with self.lock:
            while self.due and self.due[0] <= now:
                slot = heapq.heappop(self.due)
                fired += [(slot, beat) for beat in self.slots.pop(slot)]
            self.firing += len(fired)
        wall = time.time()
        kept = [(slot, beat) for slot, beat in fired if beat.sink.beat(beat.data, wall)]
        with self.lock:
            self.firing -= len(fired)
            for slot, beat in kept:
                self._put(beat, slot + beat.every if slot + beat.every > now else now + beat.every)
            return self.due[0] if self.due else None

    def _run(self, wake: threading.Event) -> None:
        while True:
            at = self.fire()
            with self.lock:
                at = self.due[0] if self.due else None  # streams added meanwhile
                self.next_at = math.inf if at is None else at
                wake.clear()
            wake.wait(None if at is None else max(0.0, at - time.monotonic()))


KEEP_ALIVES = KeepAlives()
