"""Findings 4 and 9 at the socket: gunicorn's own error answers are problem+json, and clients that
send their headers slowly do not starve the API.

``hourglass serve --no-web``'s counterpart, ``--no-worker``, runs gunicorn as shipped (gevent
worker class, ``service.gunicorn_worker``) on a free loopback port. Before: gunicorn answered a
too-long request line or too many headers with an HTML page, and its gthread workers (2 x 8
threads) were all held by 16 sockets trickling their headers, so 40 such sockets made every
request time out.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.hardening.conftest import PATIENCE_S, Children, free_port, wait_until
from tests.workers.conftest import REDIS_URL

SLOW_SOCKETS = 40


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    kids = Children(tmp_path_factory.mktemp("front"))
    port = free_port()
    env = {"REDIS_URL": REDIS_URL, "HOURGLASS_RATE_LIMIT": "0", "HOURGLASS_ADVANCE": "off"}
    kids.hourglass("serve", "serve", "--no-worker", "--port", str(port), "--workers", "1", env=env)
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return requests.get(f"{base}/openapi.json", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_until(up, PATIENCE_S, 0.1, "gunicorn to answer")
        yield base
    finally:
        kids.stop_all()


def raw(base: str, payload: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = base.split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=PATIENCE_S) as sock:
        sock.sendall(payload)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize("name, payload, status", [
    ("request line too long", b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    ("too many headers", b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: 1\r\n" % i for i in range(120)) + b"\r\n", 431),
    ("header field too long", b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431),
    ("bad request line", b"THIS IS NOT HTTP\r\n\r\n", 400),
    ("bad http version", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", 400),
    ("bad header name", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400),
    ("unknown transfer coding", b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: bogus\r\n\r\n", 501),
])
def test_gunicorns_own_errors_are_problem_json(server: str, name: str, payload: bytes, status: int) -> None:
    code, headers, body = raw(server, payload)
    assert code == status, (name, body[:200])
    assert headers["content-type"] == "application/problem+json", name
    problem = json.loads(body)
    assert problem["status"] == status and problem["kind"] and problem["title"] and problem["detail"]
    assert int(headers["content-length"]) == len(body)


def _slow_client(base: str, stop: threading.Event, opened: list[socket.socket]) -> None:
    host, port = base.split("//", 1)[1].split(":")
    sock = socket.create_connection((host, int(port)), timeout=PATIENCE_S)
    opened.append(sock)
    sock.sendall(b"GET /api/v1/games/0000000000000000 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    while not stop.wait(0.5):  # one header byte every half second, never the end of the headers
        try:
            sock.sendall(b"a")
        except OSError:
            return


def test_forty_slow_header_sockets_do_not_starve_a_seat_holder(server: str, created: list[str]) -> None:
    answer = requests.post(f"{server}/api/v1/games", json={
        "game": "orleans", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}]}, timeout=PATIENCE_S)
    assert answer.status_code == 201, answer.text
    game: dict[str, Any] = answer.json()
    created.append(game["id"])  # deleted after the test (tests/workers/conftest.py)
    auth = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    stop, opened = threading.Event(), []  # type: ignore[var-annotated]
    clients = [threading.Thread(target=_slow_client, args=(server, stop, opened), daemon=True)
               for _ in range(SLOW_SOCKETS)]
    try:
        for c in clients:
            c.start()
        wait_until(lambda: len(opened) == SLOW_SOCKETS, PATIENCE_S, what="the slow sockets to connect")
        time.sleep(1)
        took = []
        for _ in range(5):
            started = time.monotonic()
            answer = requests.get(f"{server}/api/v1/games/{game['id']}/state", headers=auth, timeout=PATIENCE_S)
            took.append(time.monotonic() - started)
            assert answer.status_code == 200 and answer.json()["seat"] == 0
        print(f"with {SLOW_SOCKETS} slow-header sockets open: seat holder's GET /state took "
              f"{max(took) * 1000:.0f} ms at most")
    finally:
        stop.set()
        for sock in opened:
            sock.close()
