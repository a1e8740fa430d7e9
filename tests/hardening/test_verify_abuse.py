"""Issue 22, the verify endpoint: a stranger's uploads to ``POST /api/v1/replays/verify`` against
``hourglass serve``, at the socket.

Before: a 64 MiB body of newlines that fails at line 1 cost 10-20 s of server time and lifted a
web worker from ~100 MB to 1.2 GB; four in parallel made a seat holder's ``GET /state`` 57x
slower. Now the body streams through the verifier (service.verify_bounds): such a body gets its
answer after its first chunk (or a 413 before any byte), the connection is then shut rather than
drained, a second verification from one address is a 429 and one past the process's slots a 503,
and a client that stops sending is cut off at the deadline. The service keeps answering the seat
holder throughout (bench/verify_abuse.py measures how fast; tests assert no timings).
"""
from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.hardening.conftest import PATIENCE_S, RedisServer, descendants, serving, wait_until

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = (ROOT / "tests" / "golden" / "orleans-2-bundle-classic-4p.jsonl").read_bytes()
VERIFY = "/api/v1/replays/verify"
MIB = 1 << 20
HOSTILE_MIB = 64


@dataclass
class Served:
    base: str
    port: int
    proc: Any
    redis: RedisServer
    game: str
    token: str

    def state(self) -> int:
        response = requests.get(f"{self.base}/api/v1/games/{self.game}/state",
                                headers={"Authorization": f"Bearer {self.token}"}, timeout=PATIENCE_S)
        return response.status_code


def _serve(tmp: Path, env: dict[str, str], *args: str) -> Iterator[Served]:
    with serving(tmp, env, *args) as up:
        created = requests.post(f"{up.base}/api/v1/games", json={
            "game": "orleans", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}]}, timeout=PATIENCE_S).json()
        yield Served(up.base, up.port, up.proc, up.redis, created["id"], created["seats"][0]["token"])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``hourglass serve`` as shipped: default limits, two gevent web workers."""
    yield from _serve(tmp_path_factory.mktemp("verify-default"), {})


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One web worker, a 3 s deadline, and client addresses from X-Forwarded-For (to play several)."""
    yield from _serve(tmp_path_factory.mktemp("verify-tight"),
                      {"HOURGLASS_VERIFY_DEADLINE_S": "3", "HOURGLASS_TRUSTED_PROXIES": "1"}, "--workers", "1")


@dataclass
class Upload:
    status: int
    body: dict[str, Any]
    sent: int  # body bytes the server let the client send
    closed: bool  # the server ended the connection after answering


def upload(port: int, body: bytes | None = None, *, mib: int = HOSTILE_MIB, chunked: bool = False,
           headers: dict[str, str] | None = None, stop_after: int | None = None, path: str = VERIFY,
           content_type: str = "application/x-ndjson") -> Upload:
    """POST ``body`` (default: ``mib`` MiB of newlines) to ``path`` (the verify endpoint) on a raw
    socket, sending until the server answers or stops reading; ``stop_after`` bytes: then fall silent."""
    total = len(body) if body is not None else mib * MIB
    lines = [f"POST {path} HTTP/1.1", "Host: test", f"Content-Type: {content_type}",
             "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}",
             *(f"{k}: {v}" for k, v in (headers or {}).items())]
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    reply = bytearray()
    closed = threading.Event()

    def read() -> None:
        with suppress(OSError):
            while chunk := sock.recv(65536):
                reply.extend(chunk)
        closed.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    sent = 0
    with suppress(OSError):
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        limit = total if stop_after is None else min(stop_after, total)
        while sent < limit and not reply:
            block = body[sent:sent + 256 * 1024] if body is not None else b"\n" * min(256 * 1024, limit - sent)
            block = block[:limit - sent]
            sock.sendall(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
            sent += len(block)
        if chunked and sent == total and not reply:
            sock.sendall(b"0\r\n\r\n")
    wait_until(lambda: b"\r\n\r\n" in reply, PATIENCE_S, 0.01, "an answer")
    if sent < total:  # a body the server did not read to its end: it must end the connection
        closed.wait(10)
    sock.close()
    head, _, rest = bytes(reply).partition(b"\r\n\r\n")
    return Upload(int(head.split()[1]), json.loads(rest[:int(_header(head, b"content-length"))]), sent, closed.is_set())


def _header(head: bytes, name: bytes) -> bytes:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    raise AssertionError(f"no {name!r} header in {head!r}")


def _web_peak_rss_mb(proc: Any) -> float:
    """The largest peak resident set (VmHWM) of the gunicorn processes under ``hourglass serve``."""
    best = 0
    for pid in descendants(proc.pid):
        with suppress(OSError):
            if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        best = max(best, int(line.split()[1]))
    return best / 1024


def test_64_mib_declared_is_refused_before_a_byte_is_read(served: Served) -> None:
    answer = upload(served.port)
    assert answer.status == 413 and answer.body["kind"] == "TOO_LARGE"
    assert "hourglass replay verify FILE" in answer.body["detail"] and str(4 * MIB) in answer.body["detail"]
    assert answer.closed and answer.sent < HOSTILE_MIB * MIB // 4  # shut, not drained
    assert served.state() == 200


def test_64_mib_of_newlines_without_a_length_is_refused_after_its_first_line(served: Served) -> None:
    answer = upload(served.port, chunked=True)
    assert answer.status == 200 and answer.body["ok"] is False
    assert answer.body["divergence"]["line"] == 1 and "not JSON" in answer.body["divergence"]["what"]
    assert answer.closed and answer.sent < HOSTILE_MIB * MIB // 4
    assert served.state() == 200


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("path", ["/api/v1/games", "/api/v1/accounts", "/api/v1/games/0000000000000000/moves"])
def test_64_mib_to_any_endpoint_is_refused_and_not_drained(served: Served, path: str, chunked: bool) -> None:
    """Every endpoint caps its body (64 KiB): a larger body is a 413, and the connection is shut
    after it instead of the worker reading the other 64 MiB."""
    answer = upload(served.port, path=path, content_type="application/json", chunked=chunked)
    # a declared length is refused before the body is read; a chunked one is cut at the cap, and
    # what arrived (64 KiB of newlines) is no JSON
    expected = (400, "MALFORMED") if chunked else (413, "TOO_LARGE")
    assert (answer.status, answer.body["kind"]) in (expected, (413, "TOO_LARGE")), answer.body
    assert answer.closed and answer.sent < HOSTILE_MIB * MIB // 4
    assert served.state() == 200


def test_a_body_under_the_cap_wrong_in_line_1_gets_its_answer_and_the_connection_is_shut(served: Served) -> None:
    answer = upload(served.port, mib=3)
    assert answer.status == 200 and answer.body["divergence"]["line"] == 1
    assert answer.closed


def test_four_hostile_clients_in_a_loop_leave_the_seat_holder_answered(served: Served) -> None:
    answers: list[str] = []
    stop = threading.Event()

    def attack() -> None:
        chunked = False
        while not stop.is_set():
            answer = upload(served.port, chunked=chunked)
            answers.append(f"{answer.status} {answer.body.get('ok', answer.body.get('kind'))}")
            chunked = not chunked

    threads = [threading.Thread(target=attack, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        states = [served.state() for _ in range(40)]
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    assert states == [200] * 40
    assert answers and set(answers) <= {"413 TOO_LARGE", "200 False", "429 TOO_MANY_VERIFICATIONS", "429 RATE_LIMITED",
                                        "429 WORK_BUDGET"}
    assert _web_peak_rss_mb(served.proc) < 400  # before: 1.2 GB after one such body


def _honouring_retry_after(send: Any) -> requests.Response:
    """``send()`` again while it answers 429 with a Retry-After, as a well-behaved client does: the
    hostile loop before this test may have spent this address's budget or still hold its slot."""
    deadline = time.monotonic() + PATIENCE_S
    while (answer := send()).status_code == 429 and time.monotonic() < deadline:
        assert answer.headers["Content-Type"] == "application/problem+json"
        time.sleep(min(float(answer.headers.get("Retry-After", "1")), 5.0))
    return answer


def test_a_real_bundle_still_verifies_raw_and_multipart(served: Served) -> None:
    raw = _honouring_retry_after(lambda: requests.post(
        served.base + VERIFY, data=GOLDEN, headers={"Content-Type": "application/x-ndjson"}, timeout=60))
    assert raw.status_code == 200 and raw.json()["ok"] is True
    form = _honouring_retry_after(lambda: requests.post(
        served.base + VERIFY, files={"bundle": ("game.jsonl", GOLDEN)}, timeout=60))
    assert form.status_code == 200 and form.json()["ok"] is True


def _held(served: Served, address: str, results: list[Upload]) -> threading.Thread:
    """A verification from ``address`` that sends the header line and falls silent."""
    first = GOLDEN.index(b"\n") + 1
    thread = threading.Thread(target=lambda: results.append(upload(
        served.port, GOLDEN, headers={"X-Forwarded-For": address}, stop_after=first)), daemon=True)
    thread.start()
    return thread


def _slots(served: Served, address: str) -> int:
    return int(served.redis.client().zcard(f"hg:{{verify}}:addr:{address}"))


def test_one_verification_per_address_then_429_and_a_silent_client_is_cut_off(tight: Served) -> None:
    held: list[Upload] = []
    thread = _held(tight, "198.51.100.7", held)
    wait_until(lambda: _slots(tight, "198.51.100.7") == 1, PATIENCE_S, 0.02, "the held verification's slot")
    second = upload(tight.port, GOLDEN, headers={"X-Forwarded-For": "198.51.100.7"})
    assert second.status == 429 and second.body["kind"] == "TOO_MANY_VERIFICATIONS"
    other = upload(tight.port, GOLDEN, headers={"X-Forwarded-For": "198.51.100.8"})
    assert other.status == 200 and other.body["ok"] is True
    thread.join(timeout=30)
    assert held[0].status == 408 and held[0].body["kind"] == "TIMEOUT" and held[0].closed
    assert _slots(tight, "198.51.100.7") == 0
    again = upload(tight.port, GOLDEN, headers={"X-Forwarded-For": "198.51.100.7"})
    assert again.status == 200 and again.body["ok"] is True


def test_a_process_verifying_its_limit_answers_503_and_the_seat_holder_still_plays(tight: Served) -> None:
    held: list[Upload] = []
    threads = [_held(tight, f"198.51.100.{n}", held) for n in (21, 22)]
    wait_until(lambda: _slots(tight, "198.51.100.21") + _slots(tight, "198.51.100.22") == 2, PATIENCE_S, 0.02, "two slots")
    busy = wait_until(lambda: (lambda a: a if a.status == 503 else None)(
        upload(tight.port, GOLDEN, headers={"X-Forwarded-For": "198.51.100.23"})), 2.5, 0.05, "a 503")
    assert busy.body["kind"] == "VERIFY_BUSY" and "hourglass replay verify FILE" in busy.body["detail"]
    assert tight.state() == 200
    for thread in threads:
        thread.join(timeout=30)
    assert [answer.status for answer in held] == [408, 408]
    done = upload(tight.port, GOLDEN, headers={"X-Forwarded-For": "198.51.100.23"})
    assert done.status == 200 and done.body["ok"] is True
