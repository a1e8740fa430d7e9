"""``hourglass bot check`` speaks the platform's outcome vocabulary (issue 26): each kind of bad
bot gets the very code the worker records for it in play (``workers.httpbot.ask_bot``, the same
call), the check cuts a slow bot at the decision's deadline and stops where the platform would
forfeit the seat."""
from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from workers import botcheck
from workers.httpbot import MAX_RESPONSE_BYTES, OUTCOMES, ask_bot, request_body, verify_signature

SECRET = "k" * 40
DEADLINE = "0.4"


class Server:
    def __init__(self) -> None:
        self.requests: list[str] = []
        self.release = threading.Event()


@contextmanager
def bots() -> Iterator[tuple[str, Server]]:
    state = Server()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server naming)
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.requests.append(self.path)
            signed = verify_signature(SECRET, body, self.headers.get("X-Hourglass-Signature"))
            moves = json.loads(body)["moves"]
            if self.path == "/refuse" or (not signed and self.path != "/open"):
                return self.send(401, b'{"error": "bad signature"}')
            answers = {"/good": json.dumps({"move": moves[-1]}).encode(), "/open": json.dumps(moves[-1]).encode(),
                       "/nomove": b'{"hello": 1}', "/text": b"<html>not a bot</html>",
                       "/illegal": b'{"move": {"type": "NoSuchMove"}}', "/huge": b" " * (MAX_RESPONSE_BYTES + 10)}
            if self.path == "/slow":
                state.release.wait(10)
                return self.send(200, json.dumps({"move": moves[-1]}).encode())
            if self.path == "/error":
                return self.send(500, b"{}")
            return self.send(200, answers[self.path])

        def send(self, status: int, body: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()


def check(url: str, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    code = botcheck.main([url, "--secret", SECRET, "--deadline", DEADLINE, "--decisions", "6", *extra], out)
    return code, out.getvalue()


def platform_outcome(url: str) -> str:
    """What the worker records for this bot's answer in a game."""
    moves = [{"type": "Pass"}]
    body = request_body("g", 0, 1, {}, moves, 0)
    return ask_bot(url, SECRET, body, float(DEADLINE), lambda m: m in moves, botcheck.allow_only(url)).outcome


@pytest.mark.parametrize("path, outcome", [
    ("/refuse", "bad_signature"), ("/huge", "too_large"), ("/nomove", "garbage"), ("/text", "garbage"),
    ("/illegal", "illegal"), ("/error", "http_status"),
])
def test_the_check_names_each_failure_as_the_platform_does(path: str, outcome: str) -> None:
    with bots() as (base, _):
        assert platform_outcome(base + path) == outcome
        code, text = check(base + path)
    assert code == 1 and f"FAIL {outcome}:" in text, text
    named = {line.split()[1].rstrip(":") for line in text.splitlines() if line.startswith("FAIL ")}
    assert named <= set(OUTCOMES) | {botcheck.FORGED}, named


def test_a_good_bot_passes_and_an_open_one_is_forged() -> None:
    with bots() as (base, _):
        code, text = check(base + "/good")
        assert code == 0 and "pass: nothing a tournament would reject" in text, text
        code, text = check(base + "/open")
        assert code == 1 and "FAIL forged:" in text and "FAIL bad_signature" not in text, text
        out = io.StringIO()
        code = botcheck.main([base + "/good", "--secret", "x" * 40, "--deadline", DEADLINE, "--decisions", "2"], out)
        assert code == 1 and "FAIL bad_signature:" in out.getvalue()  # the bot and you disagree on the secret


def test_a_slow_bot_is_cut_at_the_deadline_and_the_check_stops_where_the_platform_forfeits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOURGLASS_FORFEIT_AFTER", "3")
    with bots() as (base, state):
        assert platform_outcome(base + "/slow") == "timeout"
        state.requests.clear()
        code, text = check(base + "/slow", "--decisions", "40")
        asked = list(state.requests)
    assert code == 1 and "FAIL timeout:" in text and "stopped: 3 failed decisions in a row" in text, text
    assert len(asked) == 2 + 3  # the two forgery probes, then three decisions: not forty answers waited out
    assert "3 decisions asked" in text
