"""``POST /api/v1/replays/verify`` within bounds (service.verify_bounds), in-process: what a
stranger with a script gets from each bound, and that the bound leaves the next request alone.
The same findings against ``hourglass serve`` at the socket: tests/hardening/test_verify_abuse.py."""
from __future__ import annotations

import io
import json
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from service.app import create_app
from service.limits import StreamSlot
from service.verify_bounds import SLOT_KEY

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = (ROOT / "tests" / "golden" / "orleans-2-bundle-classic-4p.jsonl").read_bytes()
VERIFY = "/api/v1/replays/verify"
NDJSON = "application/x-ndjson"


def _app(conn: redis.Redis, **config: Any) -> Any:
    return create_app({"REDIS": conn, "ADVANCE": "off", "TESTING": True, "TRUSTED_PROXIES": 1,
                       "ANON_RATE_LIMIT": 100_000, **config})


@pytest.fixture
def stranger() -> dict[str, str]:
    """A client address of its own (through the trusted proxy header), so no other test shares its slots."""
    return {"X-Forwarded-For": f"198.51.100.{secrets.randbelow(250) + 1}, {secrets.token_hex(4)}"}


def _problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json(force=True)
    assert body["status"] == status and body["kind"] == kind
    return body


class Trickle(io.RawIOBase):
    """A body that arrives ``size`` bytes at a time, ``pause`` seconds apart (a slow client)."""

    def __init__(self, data: bytes, size: int, pause: float) -> None:
        self.data, self.size, self.pause, self.at = data, size, pause, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        time.sleep(self.pause)
        out = self.data[self.at:self.at + min(self.size, n if n > 0 else self.size)]
        self.at += len(out)
        return out


def _chunked(stream: Any) -> dict[str, Any]:
    """environ overrides for a body without Content-Length (Transfer-Encoding: chunked)."""
    return {"wsgi.input": stream, "wsgi.input_terminated": True, "HTTP_TRANSFER_ENCODING": "chunked"}


def test_a_bundle_within_the_bounds_verifies(conn: redis.Redis, stranger: dict[str, str]) -> None:
    client = _app(conn).test_client()
    body = client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger).get_json()
    assert body["ok"] is True and body["lines"] == GOLDEN.count(b"\n")


def test_a_declared_length_over_the_cap_is_413_naming_the_cap_and_the_cli(conn: redis.Redis,
                                                                           stranger: dict[str, str]) -> None:
    client = _app(conn, VERIFY_MAX_BYTES=100_000).test_client()
    body = _problem(client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger), 413, "TOO_LARGE")
    assert "100000 bytes" in body["detail"] and "hourglass replay verify FILE" in body["detail"]
    assert body["max_bytes"] == 100_000


def test_a_chunked_body_over_the_cap_is_413_once_it_passes_it(conn: redis.Redis, stranger: dict[str, str]) -> None:
    client = _app(conn, VERIFY_MAX_BYTES=100_000).test_client()
    stream = Trickle(GOLDEN, 64 * 1024, 0)
    response = client.post(VERIFY, content_type=NDJSON, headers=stranger, environ_overrides=_chunked(stream))
    _problem(response, 413, "TOO_LARGE")
    assert stream.at < len(GOLDEN)  # the rest was never read


def test_a_bundle_that_costs_more_cpu_than_the_budget_is_413_too_costly(conn: redis.Redis,
                                                                        stranger: dict[str, str]) -> None:
    client = _app(conn, VERIFY_CPU_S=0.001).test_client()
    body = _problem(client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger), 413, "TOO_COSTLY")
    assert "0.001 s of CPU time" in body["detail"] and "hourglass replay verify FILE" in body["detail"]


def test_a_client_slower_than_the_deadline_is_408(conn: redis.Redis, stranger: dict[str, str]) -> None:
    client = _app(conn, VERIFY_DEADLINE_S=0.3).test_client()
    stream = Trickle(GOLDEN, 1000, 0.05)
    response = client.post(VERIFY, content_type=NDJSON, headers=stranger, environ_overrides=_chunked(stream))
    assert "0.3 s" in _problem(response, 408, "TIMEOUT")["detail"]
    assert stream.at < len(GOLDEN)


def test_a_second_verification_from_one_address_is_429_until_the_first_ends(conn: redis.Redis,
                                                                            stranger: dict[str, str]) -> None:
    client = _app(conn).test_client()
    address = stranger["X-Forwarded-For"].split(",")[-1].strip()
    running = StreamSlot(conn, [SLOT_KEY + address], 60)
    assert running.open([1]) == 0  # what a verification in flight from that address holds
    try:
        response = client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger)
        _problem(response, 429, "TOO_MANY_VERIFICATIONS")
        assert int(response.headers["Retry-After"]) >= 1  # ours, or the window's reset (Flask-Limiter keeps the later)
        other = {"X-Forwarded-For": "203.0.113.9, " + secrets.token_hex(4)}
        assert client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=other).get_json()["ok"] is True
    finally:
        running.close()
    assert client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger).get_json()["ok"] is True
    assert conn.zcard(SLOT_KEY + address) == 0  # every request gave its slot back


def test_a_process_verifying_its_limit_answers_503_with_retry_after(conn: redis.Redis,
                                                                   stranger: dict[str, str]) -> None:
    app = _app(conn, VERIFY_PER_PROCESS=1)
    client = app.test_client()
    assert client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger).status_code == 200
    slots = app.extensions["hourglass.verify_slots"]
    assert slots.acquire(blocking=False)  # another verification in flight in this process
    try:
        response = client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger)
        _problem(response, 503, "VERIFY_BUSY")
        assert int(response.headers["Retry-After"]) >= 1  # ours, or the window's reset (Flask-Limiter keeps the later)
        address = stranger["X-Forwarded-For"].split(",")[-1].strip()
        assert conn.zcard(SLOT_KEY + address) == 0  # the refused request holds no address slot either
    finally:
        slots.release()
    assert client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger).get_json()["ok"] is True


def test_rate_limit_zero_lifts_the_per_address_slot(conn: redis.Redis, stranger: dict[str, str]) -> None:
    client = _app(conn, RATE_LIMIT=0).test_client()
    address = stranger["X-Forwarded-For"].split(",")[-1].strip()
    running = StreamSlot(conn, [SLOT_KEY + address], 60)
    running.open([1])
    try:
        assert client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger).get_json()["ok"] is True
    finally:
        running.close()


def test_multipart_streams_the_bundle_field_among_others(conn: redis.Redis, stranger: dict[str, str]) -> None:
    client = _app(conn).test_client()
    data = {"note": "before", "bundle": (io.BytesIO(GOLDEN), "game.jsonl"), "after": (io.BytesIO(b"x" * 5000), "x")}
    response = client.post(VERIFY, data=data, content_type="multipart/form-data", headers=stranger)
    assert response.status_code == 200 and response.get_json()["ok"] is True


@pytest.mark.parametrize("data, content_type", [
    ({"other": (io.BytesIO(GOLDEN), "game.jsonl")}, "multipart/form-data"),
    (b"--x\r\nno headers here", "multipart/form-data; boundary=x"),
    (b"not multipart at all", "multipart/form-data; boundary=x"),
    (b"no boundary", "multipart/form-data"),
    (b"", NDJSON),
])
def test_no_bundle_is_400(conn: redis.Redis, stranger: dict[str, str], data: Any, content_type: str) -> None:
    client = _app(conn).test_client()
    _problem(client.post(VERIFY, data=data, content_type=content_type, headers=stranger), 400, "MALFORMED")


def test_a_verification_is_charged_to_its_requesters_work_budget(conn: redis.Redis, stranger: dict[str, str]) -> None:
    """1 unit of work per started MiB (issue 22: verify uploads draw from the one budget): a declared
    size pays before a byte is read, so an address with nothing left is refused at once."""
    client = _app(conn, VERIFY_MAX_BYTES=8 << 20, WORK_BUDGET=3).test_client()
    assert client.post(VERIFY, data=b"\n" * 1000, content_type=NDJSON, headers=stranger).status_code == 200  # 1 unit
    big = client.post(VERIFY, data=GOLDEN + b"\n" * (1 << 20), content_type=NDJSON, headers=stranger)  # 2 units
    assert big.status_code == 200
    refused = _problem(client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger), 429, "WORK_BUDGET")
    assert refused["budget"] == "work" and refused["cost"] == 1 and refused["left"] < 1
    too_large = client.post(VERIFY, data=b"x" * ((8 << 20) + 1), content_type=NDJSON, headers=stranger)
    assert too_large.status_code == 413  # refused by its declared size before it is charged anything


def test_a_bundle_sent_as_json_is_verified_from_the_copy_the_depth_check_read(conn: redis.Redis,
                                                                              stranger: dict[str, str]) -> None:
    client = _app(conn).test_client()
    lines = GOLDEN.split(b"\n")
    body = client.post(VERIFY, data=lines[0] + b"\n", content_type="application/json", headers=stranger).get_json()
    assert body["ok"] is False and body["divergence"]["what"].startswith("missing footer")
    assert json.loads(lines[0])["kind"] == "header"


def test_zero_lifts_each_bound(conn: redis.Redis, stranger: dict[str, str]) -> None:
    client = _app(conn, VERIFY_MAX_BYTES=0, VERIFY_CPU_S=0, VERIFY_DEADLINE_S=0, VERIFY_PER_ADDRESS=0,
                  VERIFY_PER_PROCESS=0).test_client()
    assert client.post(VERIFY, data=GOLDEN, content_type=NDJSON, headers=stranger).get_json()["ok"] is True
