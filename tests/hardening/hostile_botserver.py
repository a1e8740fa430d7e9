"""A bot server that misbehaves at the socket level, for the HTTP-seat deadline tests.

Paths: ``/slowloris`` sends its headers at once, then a body of ``DRIBBLE_BYTES``, one byte every
``interval_s`` (0.4 s: more often than any per-read timeout of a 1 s deadline would notice);
``/slow-headers`` sends its status line, then the headers at the same pace;
``/silent`` reads the request and never answers; ``/huge`` streams a 10 MiB body as fast as it
can (with a Content-Length), ``/huge-unsized`` the same without one (ended by closing);
``/redirect`` answers 302 to ``/good``; ``/good`` answers the last legal move. Three paths answer
like an internal service would, each carrying ``INTERNAL_MARKER``: ``/internal-redis`` a Redis
error line, ``/internal-json`` a JSON "move" full of internal-looking fields, ``/internal-500`` a 500
page. Every handler gives up when the server stops, so no thread outlives a test. ``hosts`` records
the Host header of every request.
"""
from __future__ import annotations

import json
import socketserver
import threading
from contextlib import suppress
from typing import Any

DRIBBLE_BYTES = 30  # a dribble ends after this many bytes even if nobody hangs up
HUGE_BYTES = 10 * 1024 * 1024
INTERNAL_MARKER = "INTERNAL-7f3a9c-redis_version:7.2.4-role:master"


class HostileBotServer:
    def __init__(self, interval_s: float = 0.4) -> None:
        self.interval_s = interval_s
        self.stop = threading.Event()
        self.hosts: list[str] = []
        server = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                with suppress(OSError):
                    path, body = self._read_request()
                    server.behave(path, body, self.wfile)

            def _read_request(self) -> tuple[str, bytes]:
                request_line = self.rfile.readline().decode("latin-1")
                length = 0
                while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                    if name.strip().lower() == "host":
                        server.hosts.append(value.strip())
                return request_line.split()[1], self.rfile.read(length)

        self.tcp = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.tcp.daemon_threads = True
        self.thread = threading.Thread(target=self.tcp.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.tcp.server_address[1]}"

    def behave(self, path: str, body: bytes, out: Any) -> None:
        if path == "/slowloris":
            out.write(f"HTTP/1.1 200 OK\r\nContent-Length: {DRIBBLE_BYTES}\r\n\r\n".encode())
            self._dribble(out, b" " * DRIBBLE_BYTES)
        elif path == "/slow-headers":
            out.write(b"HTTP/1.1 200 OK\r\n")
            self._dribble(out, b"X-Slow: " + b"a" * DRIBBLE_BYTES + b"\r\n\r\n")
        elif path == "/silent":
            self.stop.wait(DRIBBLE_BYTES * self.interval_s)
        elif path in ("/huge", "/huge-unsized"):
            sized = f"Content-Length: {HUGE_BYTES}\r\n" if path == "/huge" else "Connection: close\r\n"
            out.write(f"HTTP/1.1 200 OK\r\n{sized}\r\n".encode())
            chunk = b"[" * 65536
            for _ in range(HUGE_BYTES // len(chunk)):
                if self.stop.is_set():
                    return
                out.write(chunk)
        elif path == "/redirect":
            out.write(f"HTTP/1.1 302 Found\r\nLocation: {self.url}/good\r\nContent-Length: 0\r\n\r\n".encode())
        elif path == "/internal-redis":
            out.write(f"-ERR unknown command 'POST' {INTERNAL_MARKER}\r\n".encode())
        elif path == "/internal-json":
            answer = json.dumps({"move": {"type": "Pass", "redis_version": INTERNAL_MARKER, "seat": 0},
                                 "config": {"requirepass": INTERNAL_MARKER}}).encode()
            out.write(f"HTTP/1.1 200 OK\r\nContent-Length: {len(answer)}\r\n\r\n".encode() + answer)
        elif path == "/internal-500":
            page = f"<h1>500</h1><pre>{INTERNAL_MARKER}</pre>".encode()
            out.write(f"HTTP/1.1 500 Oops {INTERNAL_MARKER}\r\nContent-Length: {len(page)}\r\n\r\n".encode() + page)
        elif path == "/good":
            move = json.dumps({"move": json.loads(body)["moves"][-1]}).encode()
            out.write(f"HTTP/1.1 200 OK\r\nContent-Length: {len(move)}\r\n\r\n".encode() + move)

    def _dribble(self, out: Any, data: bytes) -> None:
        for i in range(len(data)):
            out.write(data[i:i + 1])
            out.flush()
            if self.stop.wait(self.interval_s):
                return

    def __enter__(self) -> HostileBotServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.tcp.shutdown()
        self.tcp.server_close()
