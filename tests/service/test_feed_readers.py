"""The readers of accounts' and bots' event streams (service.feedreaders): one XREAD over many
streams' keys, each listener given the entries after its own id, a joiner never left waiting
for a read that does not hold its key."""
from __future__ import annotations

import queue
import secrets
from collections.abc import Iterator

import pytest
import redis

from core.botfeed import BotEvent
from service import feedreaders
from service.feedreaders import Listener, Readers

WAIT_S = 20.0  # a liveness bound far below the patched read timeout, never a figure of speed


@pytest.fixture
def keys(conn: redis.Redis) -> Iterator[list[str]]:
    run = secrets.token_hex(4)
    made = [f"hg:acct:{{t{run}{i}}}:events" for i in range(6)]
    yield made
    conn.delete(*made)


@pytest.fixture(autouse=True)
def long_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feedreaders, "BLOCK_MS", 600_000)  # a joiner that waited for a read's end would time out


def listen(readers: Readers, key: str, after: str = "0-0") -> Listener:
    listener = Listener(key, after, lambda event: event.id)
    readers.add(listener)
    return listener


def received(listener: Listener) -> list[BotEvent]:
    events = listener.queue.get(timeout=WAIT_S)
    assert events is not None
    return events


def add(conn: redis.Redis, key: str, name: str) -> str:
    return conn.xadd(key, {"event": name, "data": "{}"}).decode()


def test_one_read_serves_the_keys_of_many_listeners_each_joining_during_a_read(conn: redis.Redis,
                                                                            keys: list[str]) -> None:
    readers = Readers(conn)
    listeners = []
    for key in keys[:3]:
        listeners.append(listen(readers, key))
        sent = add(conn, key, "game_started")  # the reader is (or soon is) blocked on the keys before it
        assert [e.id for e in received(listeners[-1])] == [sent]
    assert len(readers.readers) == 1 and set(readers.readers[0].listeners) == set(keys[:3])
    for listener in listeners:
        readers.remove(listener)
    assert readers.readers[0].listeners == {} and readers.by_key == {}


def test_each_listener_of_a_key_gets_the_entries_after_its_own_id(conn: redis.Redis, keys: list[str]) -> None:
    ids = [add(conn, keys[0], f"e{i}") for i in range(3)]
    readers = Readers(conn)
    late, early = listen(readers, keys[0], ids[1]), listen(readers, keys[0], ids[0])
    assert [e.id for e in received(late)] == ids[2:]
    assert [e.id for e in received(early)] == ids[1:]
    newer = add(conn, keys[0], "e3")
    assert [e.id for e in received(late)] == [newer] and [e.id for e in received(early)] == [newer]
    with pytest.raises(queue.Empty):  # nothing twice
        late.queue.get(timeout=0.2)


def test_keys_beyond_a_readers_share_go_to_another_reader(conn: redis.Redis, keys: list[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feedreaders, "KEYS_PER_READER", 2)
    readers = Readers(conn)
    listeners = [listen(readers, key) for key in keys[:5]] + [listen(readers, keys[0])]
    assert [len(r.listeners) for r in readers.readers] == [2, 2, 1]
    sent = add(conn, keys[4], "your_turn")
    assert [e.id for e in received(listeners[4])] == [sent]
    sent = add(conn, keys[0], "your_turn")
    assert [e.id for e in received(listeners[0])] == [sent] == [e.id for e in received(listeners[5])]


def test_a_listener_that_left_is_sent_nothing_and_a_full_queue_cuts_the_stream_off(
        conn: redis.Redis, keys: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    readers = Readers(conn)
    gone, stays = listen(readers, keys[0]), listen(readers, keys[1])
    readers.remove(gone)
    add(conn, keys[0], "game_started")
    sent = add(conn, keys[1], "game_started")
    assert [e.id for e in received(stays)] == [sent]
    assert gone.queue.empty()
    for _ in range(stays.queue.maxsize):
        stays.queue.put_nowait([])
    stays.deliver([BotEvent("9999999999999-0", "your_turn", {})])
    assert stays.gone
    drained = [stays.queue.get_nowait() for _ in range(stays.queue.qsize())]
    assert drained[-1] is None  # the stream's iterator ends there; the client resumes with Last-Event-ID


def test_on_a_cluster_each_listener_has_a_reader_of_its_own(conn: redis.Redis, keys: list[str]) -> None:
    readers = Readers(conn)
    readers.shared = False  # as for a RedisCluster, where one read cannot span slots
    first, second = listen(readers, keys[0]), listen(readers, keys[0])
    assert readers.placed[first] is not readers.placed[second] and readers.readers == []
    sent = add(conn, keys[0], "game_started")
    assert [e.id for e in received(first)] == [sent] == [e.id for e in received(second)]
    readers.remove(first)
    readers.remove(second)
    assert readers.placed == {}
