"""The readers of the accounts' and bots' event streams (``core.botfeed``) for a process's open
streams (``service.feeds``): one blocking ``XREAD`` over many subscribers' keys, not one per stream.

An open stream is a :class:`Listener`: its stream key, the id it has read up to, and where its
events go (its socket, :class:`service.streamsink.Sink`, written with a send that never waits;
or a queue its response iterator takes them from). :class:`Readers` puts each listener on a
reader holding at most :data:`KEYS_PER_READER` keys (every listener of a key on the same one);
each reader waits on its keys with one ``XREAD`` of up to :data:`BLOCK_MS`, hands what it reads
to the listeners of each key (each takes the entries after its own id) and reads again. So a
thousand idle streams cost four reads every 30 s, where each used to re-issue its own read every
heartbeat, holding a pooled connection; and a batch on one key re-issues a read of at most
:data:`KEYS_PER_READER` keys (a read over every key of the process would grow with them).

A listener that joins a reader in the middle of its read must not wait for the read to time out:
the joiner asks Redis to end that read (``CLIENT UNBLOCK`` of the reader's own connection), and
the reader reads again with the new key. A key whose last listener left is dropped at the next
read. On a Redis Cluster one read cannot span slots (and the reader's connection is not one
server's): there each listener gets a reader of its own, as before, but still no keep-alive
of its own.
"""
from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from core.botfeed import BotEvent, decode
from core.connection import is_cluster
from service.streamsink import QUEUE_BATCHES, Offered, Sink, chunk

log = logging.getLogger(__name__)

BLOCK_MS = 30_000  # a reader's XREAD waits at most this long (as a game's feed, service.streams.BLOCK_MS)
KEYS_PER_READER = 256  # keys one read spans: an event on any of them re-issues a read of them all
COUNT = 500  # entries per key and read (a stream resumed far back is read in several)
UNBLOCK_TRIES = 500  # a joiner's attempts (2 ms apart) to end a read that does not hold its key yet
RETRY_S = 1.0  # after a failed read, the reader waits this long before it reads again


def id_key(text: str) -> tuple[int, int]:
    """A stream id as a sortable pair ("1767268802000-0" -> (1767268802000, 0))."""
    head, _, tail = text.partition("-")
    return int(head), int(tail or 0)


class Listener:
    """One open stream: ``key`` (its Redis stream), ``after`` (the last id it has), ``frame``
    (an event's text). Its events go to ``sink`` when it has one (bytes, framed as HTTP chunks
    when ``chunked``), else to ``queue`` (a list of events per read; None: the stream is cut off)."""

    def __init__(self, key: str, after: str, frame: Callable[[BotEvent], str]) -> None:
        self.key, self.after, self.frame = key, after, frame
        self.sink: Sink | None = None
        self.chunked = True
        self.queue: queue.Queue[list[BotEvent] | None] = queue.Queue(maxsize=QUEUE_BATCHES)
        self.gone = False

    def deliver(self, events: list[BotEvent]) -> None:
        """The events after ``after`` (a read may start before it, for another listener of the key)."""
        mine = id_key(self.after)
        fresh = [e for e in events if id_key(e.id) > mine]
        if not fresh or self.gone:
            return
        self.after = fresh[-1].id
        if self.sink is not None:
            data = "".join(self.frame(e) for e in fresh).encode("utf-8")
            self.gone = self.sink.offer_bytes(chunk(data) if self.chunked else data) is Offered.GONE
            return
        try:
            self.queue.put_nowait(fresh)
        except queue.Full:  # far behind: end the stream, the client resumes with Last-Event-ID
            self.cut_off()

    def cut_off(self) -> None:
        """End the stream (the reader failed, or the client fell far behind); it resumes with Last-Event-ID."""
        self.gone = True
        if self.sink is not None:
            self.sink.abandon()
            return
        while True:
            try:
                self.queue.put_nowait(None)
                return
            except queue.Full:
                self.queue.get_nowait()


class _Reader:
    """One thread (a greenlet under gevent) reading its listeners' keys; state under the
    :class:`Readers`' lock. ``reading`` is the generation of the read in flight (-1: none)."""

    def __init__(self, readers: Readers, shared: bool) -> None:
        self.readers, self.shared = readers, shared
        self.listeners: dict[str, set[Listener]] = {}
        self.generation = 0  # bumped by each join
        self.reading = -1
        self.client_id: int | None = None
        self.wake = threading.Event()
        self.running = False

    def streams(self) -> dict[str, str]:
        """What to read: each key from the oldest id one of its listeners has."""
        return {key: min((sub.after for sub in subs), key=id_key) for key, subs in self.listeners.items()}

    def run(self) -> None:
        client: Any = None
        while True:
            with self.readers.lock:
                streams = self.streams()
                if not streams and not self.shared:
                    self.running = False  # a cluster listener's reader ends with it
                    return
                self.reading = self.generation if streams else -1
                self.wake.clear()
            if not streams:
                self.wake.wait()
                continue
            try:
                if client is None:
                    client = self._connect()
                rows: Any = client.xread(streams, count=COUNT, block=BLOCK_MS)
            except Exception:  # a Redis outage: cut every listener off; they reconnect and resume
                log.exception("reading %d event streams failed", len(streams))
                self._close(client)
                client = None
                self._cut_off_all()
                time.sleep(RETRY_S)
                continue
            finally:
                with self.readers.lock:
                    self.reading = -1
            try:
                self._hand_out(streams, rows or [])
            except Exception:  # a bug: never let the reader die with its listeners waiting on it
                log.exception("handing out the entries of %d event streams failed", len(streams))
                self._cut_off_all()

    def _connect(self) -> Any:
        """This reader's own connection (a plain Redis: one the joiners can name to end its read)."""
        conn = self.readers.conn
        if not self.shared:
            return conn
        client = redis.Redis(connection_pool=conn.connection_pool, single_connection_client=True)
        found: Any = client.client_id()
        self.client_id = int(found)
        return client

    def _close(self, client: Any) -> None:
        if client is not None and self.shared:
            self.client_id = None
            client.close()

    def _hand_out(self, streams: dict[str, str], rows: Any) -> None:
        """What a read found, to the listeners of each key whose id it read from: one that joined
        meanwhile further back gets its entries from the next read, which starts from its id."""
        for key, entries in rows:
            name = key.decode("utf-8") if isinstance(key, bytes) else str(key)
            events = decode(entries)
            start = id_key(streams[name])
            with self.readers.lock:
                subs = [sub for sub in self.listeners.get(name, ()) if id_key(sub.after) >= start]
            for sub in subs:
                sub.deliver(events)
            if any(sub.gone for sub in subs):
                with self.readers.lock:
                    for sub in subs:
                        if sub.gone:
                            self.readers.detach(sub)

    def _cut_off_all(self) -> None:
        with self.readers.lock:
            subs = [sub for held in self.listeners.values() for sub in held]
        for sub in subs:
            sub.cut_off()

    def hurry(self, generation: int) -> None:
        """End the read in flight if it was issued before ``generation`` (it lacks a new key);
        the reader then reads again with it."""
        for _ in range(UNBLOCK_TRIES):
            with self.readers.lock:
                if self.reading < 0 or self.reading >= generation or self.client_id is None:
                    return  # between reads (the next holds the key), or already reading it
                client_id = self.client_id
            try:
                if self.readers.conn.client_unblock(client_id):
                    return
            except redis.RedisError:
                return  # the read fails too, or times out: the key is read at the next one
            time.sleep(0.002)  # the read is on its way to Redis: end it once it is there


class Readers:
    """A process's readers on one Redis connection (:func:`readers_of`)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.shared = not is_cluster(conn)
        self.lock = threading.Lock()
        self.readers: list[_Reader] = []  # the shared ones (a plain Redis)
        self.by_key: dict[str, _Reader] = {}  # which shared reader reads a key
        self.placed: dict[Listener, _Reader] = {}

    def add(self, listener: Listener) -> None:
        """Deliver ``listener``'s events after its id from now on."""
        with self.lock:
            reader = self.by_key.get(listener.key) if self.shared else None
            if reader is None:
                reader = self._roomy()
                if self.shared:
                    self.by_key[listener.key] = reader
            self.placed[listener] = reader
            reader.listeners.setdefault(listener.key, set()).add(listener)
            reader.generation += 1
            generation, start = reader.generation, not reader.running
            reader.running = True
            reader.wake.set()
        if start:
            threading.Thread(target=reader.run, name="hourglass-feed-reader", daemon=True).start()
        else:
            reader.hurry(generation)

    def _roomy(self) -> _Reader:
        """A reader with room for another key (a new one when all are full). Called under the lock."""
        if self.shared:
            for reader in self.readers:
                if len(reader.listeners) < KEYS_PER_READER:
                    return reader
        reader = _Reader(self, self.shared)
        if self.shared:
            self.readers.append(reader)
        return reader

    def remove(self, listener: Listener) -> None:
        """No more events for ``listener`` (its key leaves its reader's next read if it was the last)."""
        with self.lock:
            self.detach(listener)

    def detach(self, listener: Listener) -> None:
        """:meth:`remove`, under the lock."""
        reader = self.placed.pop(listener, None)
        subs = reader.listeners.get(listener.key) if reader is not None else None
        if reader is None or subs is None:
            return
        subs.discard(listener)
        if not subs:
            del reader.listeners[listener.key]
            if self.by_key.get(listener.key) is reader:
                del self.by_key[listener.key]


_READERS: dict[tuple[int, int], tuple[Any, Readers]] = {}
_READERS_LOCK = threading.Lock()


def readers_of(conn: Any) -> Readers:
    """This process's readers for the connection pool of ``conn`` (a forked child makes its own:
    threads do not survive a fork)."""
    pool = getattr(conn, "connection_pool", conn)  # a RedisCluster has no single pool: the client itself
    where = (os.getpid(), id(pool))
    with _READERS_LOCK:
        found = _READERS.get(where)
        if found is None or found[0] is not pool:
            found = _READERS[where] = (pool, Readers(conn))
        return found[1]
