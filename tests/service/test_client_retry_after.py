"""The client library waits as the server says (issue 26): a 429 or 503 with ``Retry-After`` is
retried after that long (seconds or an HTTP date), not after a fixed second; a wait longer than
the client's bound fails at once with the wait it was asked for; waiting is bounded in all. The
server here is a real HTTP server answering 429 with Retry-After; the client's sleep is recorded
instead of slept, so no test waits or measures time."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hourglass_client import Client
from hourglass_client.client import ApiError


class Script:
    """What the server answers, in order: (status, Retry-After or None); then 200 for ever."""

    def __init__(self, answers: list[tuple[int, str | None]]) -> None:
        self.answers = list(answers)
        self.seen = 0


@contextmanager
def server(script: Script) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            script.seen += 1
            status, after = script.answers.pop(0) if script.answers else (200, None)
            body = json.dumps({"kind": "RATE_LIMITED", "detail": "slow down"} if status >= 400 else
                              {"ok": True}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/problem+json" if status >= 400 else "application/json")
            if after is not None:
                self.send_header("Retry-After", after)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def client(url: str, waits: list[float], **kwargs: Any) -> Client:
    return Client(url, sleep=waits.append, **kwargs)


def test_a_429_is_retried_after_the_seconds_the_server_names() -> None:
    waits: list[float] = []
    script = Script([(429, "37"), (429, "2")])
    with server(script) as url:
        assert client(url, waits).request("GET", "/x").json() == {"ok": True}
    assert waits == [37.0, 2.0] and script.seen == 3  # as asked, not five one-second tries


def test_a_503_with_an_http_date_waits_until_that_date() -> None:
    waits: list[float] = []
    when = datetime.now(UTC) + timedelta(seconds=30)
    with server(Script([(503, format_datetime(when, usegmt=True))])) as url:
        client(url, waits).request("GET", "/x")
    assert len(waits) == 1 and 25 <= waits[0] <= 31


def test_a_wait_beyond_the_bound_fails_at_once_and_says_how_long_was_asked() -> None:
    waits: list[float] = []
    script = Script([(429, "600")])
    with server(script) as url, pytest.raises(ApiError) as caught:
        client(url, waits, max_wait_s=120).request("GET", "/x")
    assert waits == [] and script.seen == 1
    assert caught.value.status == 429 and caught.value.retry_after == 600.0 and caught.value.kind == "RATE_LIMITED"


def test_the_waiting_is_bounded_in_all() -> None:
    waits: list[float] = []
    script = Script([(429, "50")] * 10)
    with server(script) as url, pytest.raises(ApiError) as caught:
        client(url, waits, retry_budget_s=120, retries=10).request("GET", "/x")
    assert waits == [50.0, 50.0] and caught.value.retry_after == 50.0  # a third wait would pass 120 s


def test_without_retry_after_the_backoff_grows_and_the_retries_end() -> None:
    waits: list[float] = []
    script = Script([(502, None)] * 3 + [(429, "not a number")] * 10)
    with server(script) as url, pytest.raises(ApiError):
        client(url, waits, retries=5).request("GET", "/x")
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0] and script.seen == 6


def test_an_error_that_is_not_retried_is_raised_without_waiting() -> None:
    waits: list[float] = []
    with server(Script([(404, None)])) as url, pytest.raises(ApiError) as caught:
        client(url, waits).request("GET", "/x")
    assert waits == [] and caught.value.status == 404 and caught.value.retry_after is None
