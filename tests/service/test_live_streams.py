"""Live streams behind a real gunicorn, where the feed writes batches straight onto the sockets.

Issue 14. For the Procfile's gevent workers and the gthread alternative: many spectators (SSE,
NDJSON, HTTP/1.0) and a seat follow one game from its start; each gets every event once, in
order, exactly as the paged log shows it to the same caller, keep-alives while idle and the end
marker last; and every HTTP/1.1 body is valid chunked encoding, read here from raw sockets with a
strict decoder (the feed frames its writes itself, so a framing slip would show).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import REDIS_URL, run_worker
from hourglass_client import Client

from service.cli import gunicorn_command
from tests.browser import launch, playwright_or_skip
from tests.live import PATIENCE_S, free_port, open_sockets, wait_until_serving

ROOT = Path(__file__).parents[2]
SPECTATORS = 24
SERVERS: dict[str, subprocess.Popen[bytes]] = {}
HUBS: dict[str, subprocess.Popen[bytes]] = {}
HUB_PATHS: dict[str, str] = {}


@pytest.fixture(scope="module", params=["gevent", "gthread", "gevent+hub"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """gunicorn (2 workers) on the toy app; with ``+hub``, its live streams handed over to a
    stream process (service.streamhub), as ``hourglass serve`` runs them."""
    worker_class, _, hub = request.param.partition("+")
    port = free_port()
    command = gunicorn_command("127.0.0.1", port, workers=2, threads=2 * SPECTATORS, worker_class=worker_class)
    command[-1] = "toy_wsgi:app"
    command[-1:-1] = ["--pythonpath", f"{ROOT},{ROOT / 'tests' / 'service'}"]
    env = {**os.environ, "REDIS_URL": REDIS_URL, "HOURGLASS_SSE_HEARTBEAT": "0.3", "HOURGLASS_RATE_LIMIT": "0",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "service")])}
    base = f"http://127.0.0.1:{port}"
    if hub:
        env["HOURGLASS_STREAM_HUB"] = str(tmp_path_factory.mktemp("hub") / "streams.sock")
        HUBS[base] = start_hub(env)
        HUB_PATHS[base] = env["HOURGLASS_STREAM_HUB"]
    proc = SERVERS[base] = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(base, proc)
        yield base, port
    finally:
        for child in (proc, HUBS.pop(base, None)):
            if child is not None:
                child.terminate()
                child.wait(timeout=PATIENCE_S)
        del SERVERS[base]


def start_hub(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The stream process on ``HOURGLASS_STREAM_HUB``, listening once this returns."""
    path = Path(env["HOURGLASS_STREAM_HUB"])
    path.unlink(missing_ok=True)
    hub = subprocess.Popen([sys.executable, "-m", "service.streamhub", "--socket", str(path), "--app", "toy_wsgi:app"],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if path.exists():
            return hub
        time.sleep(0.05)
    raise AssertionError("the stream process did not start")


class Follower:
    """One stream read from a raw socket; ``body`` is the de-chunked body once the response ends."""

    def __init__(self, port: int, path: str, headers: dict[str, str], version: str = "HTTP/1.1") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)
        lines = [f"GET {path} {version}", "Host: test", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
        self.sock.sendall("\r\n".join(lines).encode())
        self.file = self.sock.makefile("rb")
        self.body = b""
        self.chunked = version == "HTTP/1.1"
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            status = self.file.readline()
            assert b" 200 " in status, status
            head = {}
            while (line := self.file.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                head[name.strip().lower()] = value.strip()
            assert ("transfer-encoding" in head) == self.chunked
            self.body = self._chunks() if self.chunked else self.file.read()
        except BaseException as error:  # noqa: BLE001 - reported by the test thread
            self.error = error
        finally:
            self.sock.close()

    def _chunks(self) -> bytes:
        body = bytearray()
        while True:
            size_line = self.file.readline()
            assert size_line.endswith(b"\r\n"), size_line
            size = int(size_line, 16)
            data = self.file.read(size)
            assert len(data) == size and self.file.read(2) == b"\r\n", "a chunk's length does not match its data"
            if size == 0:
                return bytes(body)
            body += data

    def text(self) -> str:
        self.thread.join(PATIENCE_S)
        assert not self.thread.is_alive(), "the stream did not end"
        assert self.error is None, self.error
        return self.body.decode()


def toy_game(base: str, rounds: int, created: list[str]) -> tuple[str, list[str]]:
    """A new toy game of two humans through the API: its id and the seats' tokens."""
    game = requests.post(f"{base}/api/v1/games", json={"game": "toy", "edition": "classic", "options": {"rounds": rounds},
                                                        "seats": [{"name": "A"}, {"name": "B"}]}, timeout=PATIENCE_S).json()
    created.append(game["id"])
    return game["id"], [s["token"] for s in game["seats"]]


def play_rounds(base: str, svc: Any, gid: str, tokens: list[str], rounds: int) -> None:
    """Both seats bid over HTTP and the SYSTEM steps follow (as a worker would), ``rounds`` times."""
    for _ in range(rounds):
        for who, bid in ((0, 2), (1, 1)):
            answer = requests.post(f"{base}/api/v1/games/{gid}/moves", json={"type": "Bid", "bid": bid},
                                   headers={"Authorization": f"Bearer {tokens[who]}"}, timeout=PATIENCE_S)
            assert answer.status_code == 200, answer.text
        run_worker(svc, gid)


def sse_events(text: str) -> list[dict[str, Any]]:
    return [json.loads(block.split("data: ", 1)[1]) for block in text.split("\n\n") if block.startswith("id: ")]


def test_every_follower_gets_every_event_once_in_order_with_valid_framing(server: tuple[str, int], svc: Any,
                                                                          created: list[str]) -> None:
    base, port = server
    gid, tokens = toy_game(base, 3, created)
    path = f"/api/v1/games/{gid}/events/stream"
    sse = [Follower(port, path, {"Accept": "text/event-stream"}) for _ in range(SPECTATORS)]
    ndjson = Follower(port, path, {"Accept": "application/x-ndjson"})
    old = Follower(port, path, {"Accept": "text/event-stream"}, version="HTTP/1.0")
    seat = Follower(port, path, {"Accept": "text/event-stream", "Authorization": f"Bearer {tokens[1]}"})
    time.sleep(1.0)  # quiet: keep-alives go out through gunicorn, then the feed's writes follow them
    first_live = svc.load(gid).version + 1
    if base in HUBS:  # the stream process holds every live stream (the HTTP/1.0 one included)
        deadline = time.monotonic() + PATIENCE_S
        while open_sockets(HUBS[base].pid) < SPECTATORS + 3:  # the hand-overs may lag on a busy machine
            assert time.monotonic() < deadline, "the stream process does not hold the streams"
            time.sleep(0.1)
    play_rounds(base, svc, gid, tokens, 3)
    version = svc.load(gid).version
    assert svc.load(gid).finished

    def paged(token: str | None) -> list[dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return requests.get(f"{base}/api/v1/games/{gid}/events?limit=500", headers=headers, timeout=PATIENCE_S).json()["events"]

    public = paged(None)
    assert [e["seq"] for e in public] == list(range(1, version + 1))
    live = public[first_live - 1:]  # a fresh stream: the table as of its opening, then what follows it
    for follower in [*sse, old]:
        text = follower.text()
        assert text.split("\n\n")[1].startswith(f"event: snapshot\nid: {first_live - 1}\n")
        assert sse_events(text) == live
        assert ": heartbeat" in text.split(f"id: {first_live}\n")[0]  # a keep-alive came before the first move
        assert text.rstrip("\n").rsplit("\n\n", 1)[-1].startswith("event: end")
    assert sse_events(seat.text()) == paged(tokens[1])[first_live - 1:] != live  # the seat's own view
    assert "event: moves\n" in seat.text()  # and what it may do whenever a batch leaves it to act
    lines = [json.loads(line) for line in ndjson.text().splitlines() if line]
    assert lines[0]["kind"] == "snapshot" and lines[0]["version"] == first_live - 1 and lines[0]["moves"] == []
    assert [line for line in lines if line["kind"] == "event"] == [{"kind": "event", **e} for e in live]
    assert lines[-1]["kind"] == "end"


def _workers(master: subprocess.Popen[bytes]) -> list[int]:
    return [int(pid) for pid in Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()]


def test_a_follower_whose_worker_is_killed_resumes_and_misses_nothing(server: tuple[str, int], svc: Any,
                                                                      created: list[str]) -> None:
    """Kill every gunicorn worker (SIGKILL, mid-game, mid-stream): the client library reconnects
    with Last-Event-ID to the workers the master starts again and gets every event exactly once.
    With a stream process, it is killed too, earlier, and started again as the supervisor would:
    meanwhile the web workers serve the streams themselves."""
    base, _ = server
    master = SERVERS[base]
    gid, tokens = toy_game(base, 6, created)
    seen: list[int] = []
    follower = threading.Thread(target=lambda: seen.extend(
        int(e.id) for e in Client(base).follow_game(gid, after=0) if e.id is not None), daemon=True)
    follower.start()

    def bid(who: int, amount: int) -> None:
        # The workers may be restarting: a refused connection is tried again, and a worker that is
        # still importing the app is waited for (an answer ends the wait at once).
        deadline = time.monotonic() + PATIENCE_S
        while True:
            try:
                answer = requests.post(f"{base}/api/v1/games/{gid}/moves", json={"type": "Bid", "bid": amount},
                                       headers={"Authorization": f"Bearer {tokens[who]}",
                                                "Idempotency-Key": f"{who}-{svc.load(gid).version}"},
                                       timeout=PATIENCE_S)
                assert answer.status_code == 200, answer.text
                return
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "the server did not come back"
                time.sleep(0.1)

    killed: list[int] = []
    for round_ in range(6):
        if round_ == 1 and base in HUBS:
            HUBS[base].kill()
            HUBS[base].wait(PATIENCE_S)
            time.sleep(0.5)  # the follower resumes on a web worker that cannot reach the stream process
            env = {**os.environ, "HOURGLASS_STREAM_HUB": HUB_PATHS[base], "REDIS_URL": REDIS_URL,
                   "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "service")])}
            HUBS[base] = start_hub(env)
        if round_ == 3:
            killed = _workers(master)
            for pid in killed:
                os.kill(pid, signal.SIGKILL)
        bid(0, 2)
        bid(1, 1)
        run_worker(svc, gid)
    follower.join(PATIENCE_S)
    assert not follower.is_alive() and svc.load(gid).finished
    assert seen == list(range(1, svc.load(gid).version + 1))  # every event once, in order
    assert killed and not set(killed) & set(_workers(master))  # served by new workers after the kill


def test_a_browser_event_source_reads_the_feed_written_stream(server: tuple[str, int], svc: Any,
                                                              created: list[str]) -> None:
    """Chromium's own EventSource parses what the feed writes (its chunk framing and SSE frames),
    through a quiet spell with keep-alives, to the end event."""
    sync_api = playwright_or_skip()
    base, _ = server
    gid, tokens = toy_game(base, 2, created)
    with sync_api.sync_playwright() as pw:
        chromium = launch(pw)
        try:
            page = chromium.new_page()
            page.goto(f"{base}/openapi.json")
            page.evaluate("""gid => {
                window.ids = []; window.ended = false;
                const source = new EventSource(`/api/v1/games/${gid}/events/stream?after=0`);
                source.onmessage = e => window.ids.push(Number(e.lastEventId));
                source.addEventListener("end", () => { window.ended = true; source.close(); });
            }""", gid)
            page.wait_for_function("window.ids.length >= 1", timeout=PATIENCE_S * 1000)
            time.sleep(0.8)  # keep-alives go out through gunicorn between the feed's writes
            play_rounds(base, svc, gid, tokens, 2)
            page.wait_for_function("window.ended", timeout=PATIENCE_S * 1000)
            assert page.evaluate("window.ids") == list(range(1, svc.load(gid).version + 1))
        finally:
            chromium.close()


class Reader:
    """A stream read from a raw socket as it comes (it never ends by itself): :meth:`until` reads
    (strictly de-chunking an HTTP/1.1 body) until the text so far satisfies a condition."""

    def __init__(self, port: int, path: str, headers: dict[str, str], version: str = "HTTP/1.1") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)
        lines = [f"GET {path} {version}", "Host: test", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
        self.sock.sendall("\r\n".join(lines).encode())
        self.file = self.sock.makefile("rb")
        assert b" 200 " in self.file.readline()
        head = {}
        while (line := self.file.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            head[name.strip().lower()] = value.strip()
        self.chunked = version == "HTTP/1.1"
        assert ("transfer-encoding" in head) == self.chunked
        self.text = ""

    def until(self, done: Any) -> str:
        deadline = time.monotonic() + PATIENCE_S
        while not done(self.text):
            assert time.monotonic() < deadline, f"the stream stopped short: {self.text!r}"
            if self.chunked:
                size = int(self.file.readline(), 16)
                data = self.file.read(size)
                assert size > 0 and len(data) == size and self.file.read(2) == b"\r\n", "bad chunk framing"
            else:
                data = self.file.read1(65536)  # what the header's reading left buffered first
                assert data, "the stream ended"
            self.text += data.decode()
        return self.text

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.mark.parametrize("kind", ["account", "bot"])
def test_an_account_or_bot_stream_gets_each_event_once_with_keep_alives_and_resumes(
        server: tuple[str, int], conn: Any, kind: str) -> None:
    """The accounts' and bots' streams read by the process's shared reader (service.feedreaders)
    and written onto the sockets: the opening, keep-alives while idle, each event once and in
    order (SSE, NDJSON, HTTP/1.0, and one resumed with Last-Event-ID), valid chunk framing."""
    from core.accounts import Accounts
    from core.botfeed import AccountFeed, BotFeed
    from core.bots import BotRegistry

    _, port = server
    name = f"s{os.urandom(4).hex()}"
    if kind == "account":
        made = Accounts(conn).create(name)
        feed: Any = AccountFeed(conn)
        who, token, path = made["id"], made["key"], "/api/v1/account/events/stream"
    else:
        made = BotRegistry(conn).register(name, "pull")
        feed = BotFeed(conn)
        who, token, path = made["id"], made["token"], f"/api/v1/bots/{made['id']}/events/stream"
    auth = {"Authorization": f"Bearer {token}"}
    try:
        before = feed.publish(who, "invite_received", {"n": 0})
        sse = [Reader(port, path, {**auth, "Accept": "text/event-stream"}) for _ in range(3)]
        ndjson = Reader(port, path, {**auth, "Accept": "application/x-ndjson"})
        old = Reader(port, path, {**auth, "Accept": "text/event-stream"}, version="HTTP/1.0")
        resumed = Reader(port, path, {**auth, "Accept": "text/event-stream", "Last-Event-ID": "0-0"})
        for reader in [*sse, old, resumed]:
            reader.until(lambda text: ": heartbeat" in text)  # idle: a keep-alive came
        ndjson.until(lambda text: "\n\n" in text)  # the resync line, then an empty keep-alive line
        sent = [feed.publish(who, "invite_received", {"n": n}) for n in range(1, 4)]
        for reader in [*sse, old]:
            text = reader.until(lambda text: f"id: {sent[-1]}\n" in text)
            assert text.startswith(f"retry: 2000\n\nid: {before}\nevent: resync\n")
            assert [line[4:] for line in text.splitlines() if line.startswith("id: ")] == [before, *sent]
        text = resumed.until(lambda text: f"id: {sent[-1]}\n" in text)
        assert [line[4:] for line in text.splitlines() if line.startswith("id: ")] == [before, *sent]
        text = ndjson.until(lambda text: f'"id": "{sent[-1]}"' in text)
        lines = [json.loads(line) for line in text.splitlines() if line]
        assert [(line["id"], line["event"]) for line in lines] == [(before, "resync")] + [
            (i, "invite_received") for i in sent]
        for reader in [*sse, ndjson, old, resumed]:
            reader.close()
    finally:
        if kind == "account":
            Accounts(conn).delete([who])
        else:
            BotRegistry(conn).delete([who])
