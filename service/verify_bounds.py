"""The bounds of ``POST /api/v1/replays/verify``: what one upload may cost the web process.

The verifier reads the body as it arrives (``replays.verify.verify_stream``), so memory holds a
line, never the bundle. Around it, each request is bounded by (app config, env ``HOURGLASS_<NAME>``):

- ``VERIFY_MAX_BYTES`` body bytes (4 MiB; an exported bundle is ~0.35 MB): a larger
  ``Content-Length`` is a 413 before a byte is read, a chunked body a 413 once it passes the cap;
- ``VERIFY_CPU_S`` CPU seconds of verifying (2; a 5-player game takes ~0.15 s): 413
  ``TOO_COSTLY``. Counted with the thread's CPU clock, paused while the request waits for the
  network or lets others run, so it is this request's own work whatever else the process does;
- ``VERIFY_DEADLINE_S`` seconds from the request's start to its report (30): 408 ``TIMEOUT``,
  also when the client stops sending (each read waits no longer than what is left);
- ``VERIFY_PER_ADDRESS`` verifications at once per client address (1), counted in Redis like
  the open event streams (``service.limits.StreamSlot``: a lease, so a dead process frees its
  slots): 429 ``TOO_MANY_VERIFICATIONS``; lifted with every per-address cap by ``RATE_LIMIT=0``;
- ``VERIFY_PER_PROCESS`` verifications at once per web process (2): 503 ``VERIFY_BUSY``.

0 lifts one. After every batch line the verification yields (``time.sleep(0)``: under gevent the
other greenlets of the process run, a seat holder's ``GET /state`` among them). A request whose
body was not read to its end (refused at the cap, at a slot, or wrong in its first line) gets
its answer and then the connection is shut down, so the server never drains the rest of a body
it will not read.
"""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from typing import IO, Any

from flask import Response, current_app, g, request
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.sansio.multipart import Data, Epilogue, Field, File, MultipartDecoder, NeedData

from replays.verify import Interrupted
from service.limits import StreamSlot, client_address
from service.problems import ApiProblem

CHUNK = 64 * 1024  # bytes read from the client at a time
MAX_PART_HEADERS = 64 * 1024  # bytes of multipart preamble and part headers held at once
MAX_PARTS = 16
OFFLINE = "verify large bundles offline: `hourglass replay verify FILE` (docs/replay-format.md)"
RETRY_AFTER_S = 1
SLOT_KEY = "hg:{verify}:addr:"  # + client address: a sorted set of leases (service.limits.StreamSlot)


@dataclass(frozen=True)
class Bounds:
    """The limits of one verification (the module docstring says what each bounds)."""

    max_bytes: int
    cpu_s: float
    deadline_s: float
    per_address: int
    per_process: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Bounds:
        per_address = int(config["VERIFY_PER_ADDRESS"]) if int(config["RATE_LIMIT"]) > 0 else 0
        return cls(int(config["VERIFY_MAX_BYTES"]), float(config["VERIFY_CPU_S"]),
                   float(config["VERIFY_DEADLINE_S"]), per_address, int(config["VERIFY_PER_PROCESS"]))


class Refused(Interrupted):
    """Stops a verification; the request is answered with ``problem``."""

    def __init__(self, problem: ApiProblem) -> None:
        super().__init__(problem.detail)
        self.problem = problem


def declared_too_large(bounds: Bounds, content_length: int | None) -> bool:
    """Whether the request's ``Content-Length`` is over the cap (a 413 before a byte is read)."""
    return bounds.max_bytes > 0 and content_length is not None and content_length > bounds.max_bytes


def too_large(bounds: Bounds) -> ApiProblem:
    """The 413 for a body over the cap: the cap, and where larger bundles are verified."""
    return ApiProblem(413, "TOO_LARGE", f"a bundle sent here may be at most {bounds.max_bytes} bytes; {OFFLINE}",
                      max_bytes=bounds.max_bytes)


def _too_costly(bounds: Bounds, line: int) -> ApiProblem:
    return ApiProblem(413, "TOO_COSTLY", f"verifying this bundle took more than {bounds.cpu_s:g} s of CPU time "
                      f"(stopped after line {line}); {OFFLINE}", title="Too costly to verify here",
                      cpu_s=bounds.cpu_s)


def _timeout(bounds: Bounds) -> ApiProblem:
    return ApiProblem(408, "TIMEOUT", f"the bundle was not sent and verified within {bounds.deadline_s:g} s; "
                      f"send it at once, or {OFFLINE}", title="Request timeout")


class Work:
    """One verification's reading and spending: bytes, CPU seconds, the deadline, and whether the
    body was read to its end (if not, :meth:`finish` shuts the connection down)."""

    def __init__(self, bounds: Bounds, environ: Mapping[str, Any]) -> None:
        self.bounds = bounds
        self.sock: socket.socket | None = environ.get("gunicorn.socket")
        self.timeout = self.sock.gettimeout() if self.sock is not None else None
        self.deadline = time.monotonic() + bounds.deadline_s if bounds.deadline_s > 0 else float("inf")
        self.bytes_read = 0  # of the body
        self.bundle_bytes = 0  # of the bundle in it (the whole body, or one multipart field)
        self.cpu_s = 0.0
        self.ended = environ.get("CONTENT_LENGTH") in ("0", 0)
        self._since = time.thread_time()

    def _pause(self) -> None:
        self.cpu_s += time.thread_time() - self._since

    def _resume(self) -> None:
        self._since = time.thread_time()

    def spent(self) -> float:
        """The CPU seconds spent so far, the running stretch included."""
        self._pause()
        self._resume()
        return self.cpu_s

    def pace(self, line: int) -> None:
        """After each batch line: stop when a budget is spent, else let the process's others run."""
        self._pause()
        try:
            if self.bounds.cpu_s > 0 and self.cpu_s > self.bounds.cpu_s:
                raise Refused(_too_costly(self.bounds, line))
            if time.monotonic() > self.deadline:
                raise Refused(_timeout(self.bounds))
            time.sleep(0)  # gevent: a yield to the other greenlets; threads: the GIL changes hands
        finally:
            self._resume()

    def _read(self, stream: IO[bytes]) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Refused(_timeout(self.bounds))
        self._pause()
        try:
            if self.sock is not None and left != float("inf"):
                self.sock.settimeout(left)  # a client that stops sending is cut off at the deadline
            return stream.read(CHUNK)
        except Exception:  # a timeout, a reset, a body shorter than its Content-Length (werkzeug)
            if time.monotonic() >= self.deadline:
                raise Refused(_timeout(self.bounds)) from None
            raise Refused(ApiProblem(400, "MALFORMED", "the body ended before it was complete",
                                     title="Malformed request")) from None
        finally:
            self._resume()

    def chunks(self, stream: IO[bytes]) -> Iterator[bytes]:
        """The body's chunks, counted against the size cap, until its end."""
        while data := self._read(stream):
            self.bytes_read += len(data)
            if self.bounds.max_bytes > 0 and self.bytes_read > self.bounds.max_bytes:
                raise Refused(too_large(self.bounds))
            yield data
        self.ended = True

    def counted(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """``chunks`` as the bundle's bytes."""
        for chunk in chunks:
            self.bundle_bytes += len(chunk)
            yield chunk

    def finish(self, response: Response) -> Response:
        """Shut the connection down after ``response`` unless the body was read to its end (the
        server would otherwise read the rest before the next request); else restore the socket."""
        if self.sock is None:
            return response
        if self.ended:
            with suppress(OSError):
                self.sock.settimeout(self.timeout)
        else:
            response.call_on_close(partial(_shut_down, self.sock))
        return response


_ABORT = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets the connection


def close_unread(response: Response) -> Response:
    """An ``after_request`` hook: shut the connection down after ``response`` when the request's
    body was not read to its end, by the verification (:meth:`Work.finish`) or, when no view ran
    (a rate limit answered first), at all. A client that sends a large body and is refused before
    it was read would otherwise make the worker read the whole body before the next request."""
    work: Work | None = g.get("verify_work")
    if work is not None:
        return work.finish(response)
    asked = request._get_current_object()  # type: ignore[attr-defined]  # one context lookup, not three
    chunked = "chunked" in asked.headers.get("Transfer-Encoding", "").lower()
    sock = asked.environ.get("gunicorn.socket")
    if sock is not None and (chunked or (asked.content_length or 0) > CHUNK):
        response.call_on_close(partial(_shut_down, sock))
    return response


def _shut_down(sock: socket.socket) -> None:
    """After the answer was written: FIN to the client, reads that end at once (so the worker
    closes the connection instead of draining the body), and a reset when it closes, so a client
    still sending learns at once that the rest is not wanted (a plain close would leave it
    waiting on a full window until the kernel times the connection out)."""
    with suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _ABORT)
        sock.shutdown(socket.SHUT_RDWR)


def multipart_field(work: Work, chunks: Iterator[bytes], boundary: str, name: str) -> Iterator[bytes]:
    """The bytes of the multipart body's field ``name`` (werkzeug's streaming decoder), as they
    arrive; the parts after it are read to the body's end (they count against the cap)."""
    if not boundary:
        raise Refused(ApiProblem(400, "MALFORMED", "a multipart body needs a boundary", title="Malformed request"))
    # the decoder's limit is on what it holds when a chunk arrives: that chunk and what is left over
    decoder = MultipartDecoder(boundary.encode("latin-1"), CHUNK + MAX_PART_HEADERS, max_parts=MAX_PARTS)
    current: str | None = None
    while True:
        try:
            event = decoder.next_event()
        except (ValueError, RequestEntityTooLarge):
            raise Refused(ApiProblem(400, "MALFORMED", f"not a multipart/form-data body with a field '{name}'",
                                     title="Malformed request")) from None
        if isinstance(event, NeedData):
            try:
                decoder.receive_data(next(chunks, None))
            except RequestEntityTooLarge:
                raise Refused(ApiProblem(400, "MALFORMED", f"multipart headers longer than {MAX_PART_HEADERS} bytes",
                                         title="Malformed request")) from None
        elif isinstance(event, (Field, File)):
            current = event.name
        elif isinstance(event, Data) and current == name:
            work.bundle_bytes += len(event.data)
            if event.data:
                yield event.data
            if not event.more_data:
                for _ in chunks:  # the rest of the body: read, not kept, so the connection stays usable
                    pass
                return
        elif isinstance(event, Epilogue):
            return


@contextmanager
def admitted(bounds: Bounds, conn: Any) -> Iterator[None]:
    """Hold this address's and this process's verification slots for the block (429 / 503)."""
    slot = None
    if bounds.per_address > 0:
        slot = StreamSlot(conn, [SLOT_KEY + client_address()], bounds.deadline_s + 30)
        if slot.open([bounds.per_address]):
            raise ApiProblem(429, "TOO_MANY_VERIFICATIONS", f"this address already has {bounds.per_address} "
                             "verification(s) running; wait for its answer", headers={"Retry-After": str(RETRY_AFTER_S)})
    try:
        process = _process_slots(bounds.per_process)
        if process is not None and not process.acquire(blocking=False):
            raise ApiProblem(503, "VERIFY_BUSY", f"this server verifies {bounds.per_process} bundles at once and is "
                             f"busy; retry shortly, or {OFFLINE}", headers={"Retry-After": str(RETRY_AFTER_S)})
        try:
            yield
        finally:
            if process is not None:
                process.release()
    finally:
        if slot is not None:
            slot.close()


def _process_slots(size: int) -> threading.BoundedSemaphore | None:
    """This app's semaphore of ``size`` verification slots (None: unbounded)."""
    if size <= 0:
        return None
    slots: threading.BoundedSemaphore = current_app.extensions.setdefault(
        "hourglass.verify_slots", threading.BoundedSemaphore(size))
    return slots
