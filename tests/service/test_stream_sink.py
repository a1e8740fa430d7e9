"""service.streams.Sink: the feed writing a subscriber's frames straight onto its socket.

Issue 14: a thousand spectators cost a greenlet wake-up, a response-iterator step, gunicorn's
chunked write and gevent's sendall each per batch. The feed now sends each frame itself, without
waiting; a socket whose buffer is full gets the rest from its own greenlet, in order. These tests
use a socket pair with small buffers, so the full-buffer paths really run.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from service.streamlag import LagStats
from service.streamsink import Batch, Offered, Sink, chunk, direct_socket, sender

BIG = 256 * 1024  # far beyond the small buffers below: a frame this size is only part-sent


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    yield server, client
    server.close()
    client.close()


def batch(data: bytes, finished: bool = False) -> Batch:
    return Batch((), finished, rendered={"frame": data})


def framed(b: Batch) -> bytes:
    return b.rendered["frame"]  # type: ignore[no-any-return]


def read_exactly(sock: socket.socket, size: int) -> bytes:
    out = bytearray()
    while len(out) < size:
        part = sock.recv(size - len(out))
        if not part:
            break
        out += part
    return bytes(out)


def test_a_frame_the_socket_takes_is_sent_at_once_by_the_feed(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    sink = Sink(server, framed)
    assert sink.offer(batch(b"id: 1\n\n")) is Offered.SENT and not sink.pending and not sink.wake.is_set()
    assert read_exactly(client, 7) == b"id: 1\n\n"
    assert not sink.done


def test_a_full_buffer_queues_the_rest_in_order_for_the_subscribers_own_writer(
        pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    sink = Sink(server, framed)
    frames = [bytes([65 + i]) * BIG for i in range(3)] + [b"end\n"]
    for i, data in enumerate(frames):
        assert sink.offer(batch(data, finished=i == len(frames) - 1)) is Offered.QUEUED
    assert sink.partial and len(sink.pending) == 4 and sink.wake.is_set()  # the first one only began
    assert not sink.beat(b": heartbeat\n\n") and len(sink.pending) == 4  # the end is queued: no keep-alive, and none cut in
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_exactly(client, sum(map(len, frames)))))
    reader.start()
    sink.drain()
    reader.join(10)
    assert received == [b"".join(frames)]  # every byte once, in order
    assert sink.done and not sink.busy  # the end went out


def test_a_keep_alive_that_did_not_fit_holds_the_socket_and_the_feed_queues_behind_it(
        pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    sink = Sink(server, framed)
    beat = b": heartbeat\n\n" * (BIG // 13)  # a keep-alive the small buffer takes only part of
    assert sink.beat(beat) and sink.partial and sink.wake.is_set()  # the rest waits for the greenlet
    assert sink.offer(batch(b"id: 2\n\n")) is Offered.QUEUED
    assert [f.data for f in sink.pending][1:] == [b"id: 2\n\n"]  # queued behind it, not interleaved
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_exactly(client, len(beat) + 7)))
    reader.start()
    sink.drain()
    reader.join(10)
    assert not sink.busy and received == [beat + b"id: 2\n\n"]


def test_a_subscriber_too_far_behind_is_cut_off_on_a_frame_boundary(
        pair: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("service.streamsink.QUEUE_BATCHES", 2)
    server, client = pair
    sink = Sink(server, framed)
    frames = [bytes([65 + i]) * BIG for i in range(4)]
    assert sink.offer(batch(frames[0])) is Offered.QUEUED and sink.offer(batch(frames[1])) is Offered.QUEUED
    assert sink.offer(batch(frames[2])) is Offered.GONE  # pending was full (and no resync line): cut off
    assert sink.offer(batch(frames[3])) is Offered.GONE and sink.gone
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_exactly(client, 4 * BIG)))
    reader.start()
    sink.drain()  # finishes the first frame only
    server.shutdown(socket.SHUT_WR)
    reader.join(10)
    assert received == [frames[0]] and sink.done


def test_a_client_that_went_away_is_dropped(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    client.close()
    sink = Sink(server, framed)
    offered = [sink.offer(batch(b"x" * 100)) for _ in range(3)]
    assert offered[-1] is Offered.GONE and sink.gone and sink.done


def send_now(sock: socket.socket, data: bytes) -> int:
    try:
        return sender(sock)(data)
    except BlockingIOError:
        return 0


def test_the_feeds_send_never_waits_and_chunks_are_http_chunks(pair: tuple[socket.socket, socket.socket]) -> None:
    server, _ = pair
    sent = send_now(server, b"y" * BIG)
    assert 0 < sent < BIG and send_now(server, b"z" * BIG) == 0  # full: at once, nothing written
    assert chunk(b"hello") == b"5\r\nhello\r\n" and chunk(b"x" * 26) == b"1a\r\n" + b"x" * 26 + b"\r\n"


def test_the_feed_writes_only_to_sockets_it_can_write_without_waiting(pair: tuple[socket.socket, socket.socket]) -> None:
    import gevent.socket

    server, _ = pair
    green = gevent.socket.socket(fileno=os.dup(server.fileno()))
    try:
        assert direct_socket({"gunicorn.socket": server, "REQUEST_METHOD": "GET"}) is server  # gthread: blocking
        assert direct_socket({"gunicorn.socket": green, "REQUEST_METHOD": "GET"}) is green  # gevent
        assert send_now(green, b"y" * BIG) > 0 and send_now(green, b"z" * BIG) == 0  # full: 0, no wait on the hub
        assert direct_socket({"gunicorn.socket": server, "REQUEST_METHOD": "HEAD"}) is None  # no body to write
        assert direct_socket({"REQUEST_METHOD": "GET"}) is None  # another server: the response iterator serves
        server.settimeout(5)
        assert direct_socket({"gunicorn.socket": server, "REQUEST_METHOD": "GET"}) is None  # a send could wait
    finally:
        green.close()


def stale(data: bytes, appended: float, finished: bool = False) -> Batch:
    """A batch whose first entry was appended at ``appended`` (s since the epoch)."""
    return Batch((), finished, appended=appended, rendered={"frame": data})


def test_a_backlog_older_than_the_bound_becomes_one_resync_of_the_latest(
        pair: tuple[socket.socket, socket.socket]) -> None:
    """Issue 23: a reader behind by more than the bound is caught up with the latest state, not
    a backlog; the frame being written is finished first, so the stream stays well-formed."""
    server, client = pair
    stats = LagStats()
    sink = Sink(server, framed, resync=lambda b: b"RESYNC " + b.rendered["frame"][:1], bound=1.0, stats=stats)
    first, t0 = b"A" * BIG, time.time()
    assert sink.offer(stale(first, t0), t0) is Offered.QUEUED and sink.partial  # the socket took part of it
    assert sink.offer(stale(b"B" * 100, t0 + 0.1), t0 + 0.5) is Offered.QUEUED and len(sink.pending) == 2
    for i, letter in enumerate(b"CDE"):  # 2 s on, the waiting frames are older than the bound
        assert sink.offer(stale(bytes([letter]) * 100, t0 + 1.9 + i / 100), t0 + 2) is Offered.QUEUED
    assert [f.resync for f in sink.pending] == [False, True] and sink.pending[-1].data == b"RESYNC E"
    assert stats.resyncs == 1  # one backlog dropped; a newer resync replacing the waiting one is not another
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_exactly(client, BIG + 8)))
    reader.start()
    sink.drain()
    reader.join(10)
    assert received == [first + b"RESYNC E"] and not sink.pending and stats.writes == 2  # lag observed per frame


def test_a_socket_that_takes_nothing_for_the_stall_time_is_cut_off(
        pair: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("service.streamlag.STALL_S", 0.0)
    server, client = pair
    stats = LagStats()
    sink = Sink(server, framed, resync=lambda b: b"RESYNC", stats=stats)
    t0 = time.time()
    assert sink.offer(stale(b"A" * BIG, t0), t0) is Offered.QUEUED
    assert sink.offer(stale(b"B", t0), t0 + 0.01) is Offered.GONE and sink.gone and not sink.pending
    assert stats.cuts == 1
    client.settimeout(5)
    while client.recv(65536):  # what the socket took, then the end: the connection was shut down
        pass
    sink.drain()
    assert sink.done


def test_the_lag_figures_are_a_histogram_with_the_worst_for_export() -> None:
    stats = LagStats()
    heard: list[tuple[float, int]] = []
    stats.listen(on_lag=lambda seconds, count: heard.append((seconds, count)))
    stats.observe(0.010, 98)
    stats.observe(0.300, 1)
    stats.observe(2.5, 1)
    stats.dropped("resync")
    figures = stats.snapshot(bound_s=1.0)
    assert figures["writes"] == 100 and figures["worst_s"] == 2.5 and figures["resyncs"] == 1 and figures["cuts"] == 0
    assert 0.010 <= figures["p50_s"] <= 0.0125 and 0.3 <= figures["p99_s"] <= 0.375 and figures["bound_s"] == 1.0
    assert list(figures["buckets"].values()) == [98, 99, 100] and heard[0] == (0.010, 98)
