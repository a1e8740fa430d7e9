"""A small local bot server for the HTTP-seat tests.

Paths choose the behaviour: ``/good`` plays the last legal move offered (after checking the
signature), ``/first`` the first one, ``/slow`` sleeps past any deadline, ``/loop`` takes a
planning placement back whenever it can and places otherwise, after ``loop_s`` (issue 23's
looping bot), ``/gate`` answers only once the test opens ``gate`` (or after a minute),
``/garbage`` answers text that is not JSON, ``/illegal`` answers a move that is not on the list,
``/error`` answers HTTP 500, ``/redirect`` redirects elsewhere. Every request is recorded, and
``most_at_once`` is the largest number of requests the server held open at the same time.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from workers.httpbot import SIGNATURE_HEADER, verify_signature


class BotServer:
    def __init__(self, secret: str, slow_s: float = 3.0, loop_s: float = 0.0) -> None:
        self.secrets = {secret}  # plus any secret the service hands out at creation
        self.slow_s = slow_s
        self.loop_s = loop_s
        self.requests: list[dict[str, Any]] = []
        self.bad_signatures = 0
        self.gate = threading.Event()
        self.open_now = self.most_at_once = 0
        self._count = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                header = self.headers.get(SIGNATURE_HEADER)
                signed = any(verify_signature(secret, body, header) for secret in server.secrets)
                payload = json.loads(body)
                server.requests.append({"path": self.path, "signed": signed, "payload": payload})
                if not signed:
                    server.bad_signatures += 1
                    return self._send(401, b'{"error": "bad signature"}')
                with server._count:
                    server.open_now += 1
                    server.most_at_once = max(server.most_at_once, server.open_now)
                try:
                    self._answer(payload)
                finally:
                    with server._count:
                        server.open_now -= 1

            def _answer(self, payload: dict[str, Any]) -> None:
                path = self.path
                if path == "/good":
                    return self._json({"move": payload["moves"][-1]})
                if path == "/first":
                    return self._json(payload["moves"][0])
                if path == "/loop":
                    server._stop.wait(server.loop_s)
                    moves = payload["moves"]
                    loop = ([m for m in moves if m["type"] == "TakeBackFollower"]
                            or [m for m in moves if m["type"] == "PlaceFollower"] or moves[-1:])
                    return self._json({"move": loop[0]})
                if path == "/slow":
                    server._stop.wait(server.slow_s)
                    return self._json({"move": payload["moves"][-1]})
                if path == "/gate":
                    server.gate.wait(60)
                    return self._json({"move": payload["moves"][-1]})
                if path == "/garbage":
                    return self._send(200, b"<html>I am not a bot</html>")
                if path == "/illegal":
                    return self._json({"move": {"type": "TakeAction", "place": "no_such_place"}})
                if path == "/error":
                    return self._send(500, b'{"error": "boom"}')
                if path == "/redirect":
                    self.send_response(307)
                    self.send_header("Location", "http://example.com/bot")
                    self.end_headers()
                    return None
                return self._send(404, b"{}")

            def _json(self, obj: Any) -> None:
                self._send(200, json.dumps(obj).encode())

            def _send(self, status: int, body: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the worker gave up waiting, as it should

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> BotServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        time.sleep(0)
