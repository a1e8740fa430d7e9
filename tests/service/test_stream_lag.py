"""Issue 23: spectator lag that is bounded and visible.

Behind a real gunicorn with a stream process (as ``hourglass serve`` runs them) and a lag bound
of 0.2 s: a reader that stops reading gets, once it reads again, the frame it was in the middle
of, then one resync line with the latest state (never a silent gap), then the batches after it
to the end; the resync is the state ``GET .../states/{version}`` shows the same caller; a client
that resumes with Last-Event-ID after it (the Python client, a raw socket) gets exactly the rest.
A stranger who opens several such streams gets resyncs, and the readers that keep up get every
event, none of them a resync. The stream process loads a game once, not once per stream.
"""
from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import REDIS_URL, run_worker
from hourglass_client import Client
from test_game_actions_streams import ndjson_lines, stream_line_validator
from test_live_streams import Follower, sse_events

from core.games import GameService
from domain.core import SYSTEM
from service.app import create_app
from service.cli import gunicorn_command
from service.streamhub import lag_figures
from tests.live import PATIENCE_S, free_port, wait_until_serving

ROOT = Path(__file__).parents[2]
BOUND_S = 0.2
HUB: dict[str, str] = {}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """gunicorn (gevent, 2 workers) on the toy app, its streams handed to a stream process."""
    port = free_port()
    command = gunicorn_command("127.0.0.1", port, workers=2, threads=8, worker_class="gevent")
    command[-1] = "toy_wsgi:app"
    command[-1:-1] = ["--pythonpath", f"{ROOT},{ROOT / 'tests' / 'service'}"]
    path = tmp_path_factory.mktemp("lag") / "streams.sock"
    env = {**os.environ, "REDIS_URL": REDIS_URL, "HOURGLASS_SSE_HEARTBEAT": "0.5", "HOURGLASS_RATE_LIMIT": "0",
           "HOURGLASS_STREAM_LAG_S": str(BOUND_S), "HOURGLASS_STREAM_HUB": str(path),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "service")])}
    hub = subprocess.Popen([sys.executable, "-m", "service.streamhub", "--socket", str(path), "--app", "toy_wsgi:app"],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + PATIENCE_S
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    HUB["path"] = str(path)
    try:
        wait_until_serving(base, proc)
        yield base, port
    finally:
        for child in (proc, hub):
            child.terminate()
            child.wait(timeout=15)


class Stalled:
    """A stream read from a raw socket that reads nothing until told to (:meth:`read_all`), with
    a receive buffer as small as the kernel allows, so the server's frames soon wait for it."""

    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
        self.sock.settimeout(PATIENCE_S)
        self.sock.connect(("127.0.0.1", port))
        lines = [f"GET {path} HTTP/1.0", "Host: test", "Accept: text/event-stream",
                 *(f"{k}: {v}" for k, v in (headers or {}).items()), "", ""]
        self.sock.sendall("\r\n".join(lines).encode())

    def read_all(self) -> str:
        """Everything until the server closes the stream (HTTP/1.0: no chunks), without headers."""
        data = bytearray()
        while part := self.sock.recv(65536):
            data += part
        self.sock.close()
        head, _, body = bytes(data).partition(b"\r\n\r\n")
        assert b" 200 " in head.split(b"\r\n", 1)[0], head[:100]
        return body.decode()


def orleans(base: str, created: list[str]) -> tuple[str, list[str]]:
    game = requests.post(f"{base}/api/v1/games", timeout=PATIENCE_S, json={
        "game": "orleans", "edition": "classic", "seats": [{"name": f"P{i}"} for i in range(4)]}).json()
    created.append(game["id"])
    return game["id"], [s["token"] for s in game["seats"]]


def play(svc: GameService, gid: str, moves: int, rng: random.Random, pause: float = 0.002) -> None:
    """``moves`` random legal moves of the seats (the SYSTEM steps between them too), in-process."""
    for _ in range(moves):
        run_worker(svc, gid)
        game = svc.load(gid)
        seat = min(a for a in game.to_act if a != SYSTEM)
        svc.apply(gid, seat, rng.choice(game.rules.legal_moves(game.state, seat)), expected_version=game.version)
        time.sleep(pause)  # batches arrive over a while, so waiting frames grow older than the bound


def end(svc: GameService, gid: str) -> None:
    """Three seats resign: the game is decided."""
    for seat in range(3):
        run_worker(svc, gid)
        svc.resign(gid, seat)


def blocks(text: str) -> list[dict[str, Any]]:
    """The SSE messages of a stream: ``event`` (message when absent), ``id`` and parsed ``data``."""
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line and not line.startswith(":"))
        if "data" in fields:
            out.append({"event": fields.get("event", "message"), "id": fields.get("id"),
                        "data": json.loads(fields["data"])})
    return out


def wait_for_subscribers(count: int) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while lag_figures(HUB["path"])["subscribers"] < count:
        assert time.monotonic() < deadline, "the stream process does not hold the streams"
        time.sleep(0.1)


def test_a_stalled_reader_gets_a_resync_then_the_rest_and_resumes_after_it(
        server: tuple[str, int], svc: GameService, created: list[str]) -> None:
    base, port = server
    gid, tokens = orleans(base, created)
    path = f"/api/v1/games/{gid}/events/stream?after=0"  # every event, from the first
    before = lag_figures(HUB["path"])
    stalled = Stalled(port, path, {"Authorization": f"Bearer {tokens[2]}"})
    healthy = Follower(port, path, {"Accept": "text/event-stream"})
    wait_for_subscribers(before["subscribers"] + 2)
    play(svc, gid, 400, random.Random(7))  # well over the ~70 KB the socket buffers hold for it
    reading = ThreadPoolExecutor(1).submit(stalled.read_all)  # it reads again only now
    play(svc, gid, 5, random.Random(8), pause=0.3)
    end(svc, gid)
    text = reading.result(timeout=PATIENCE_S)
    final = svc.load(gid).version
    messages = blocks(text)
    kinds = [m["event"] for m in messages]
    assert "resync" in kinds and kinds[-1] == "end", (len(text), len(kinds), final)
    seen = 0  # every seq once, in order, each gap covered by a resync that says so
    for message in messages:
        if message["event"] == "message":
            assert message["data"]["seq"] == seen + 1
            seen = message["data"]["seq"]
        elif message["event"] == "resync":
            resync = message["data"]
            assert resync["version"] > seen and message["id"] == str(resync["version"]) and resync["reason"] == "behind"
            seen = resync["version"]
            at = requests.get(f"{base}/api/v1/games/{gid}/states/{seen}", timeout=PATIENCE_S,
                              headers={"Authorization": f"Bearer {tokens[2]}"}).json()
            same = ("version", "status", "seat", "to_act", "view")
            assert {k: resync[k] for k in same} == {k: at[k] for k in same}  # seat 2's own view, nobody else's
            assert isinstance(resync["moves"], list)
    assert seen == final
    assert lag_figures(HUB["path"])["resyncs"] > before["resyncs"]
    assert sse_events(healthy.text()) == requests.get(f"{base}/api/v1/games/{gid}/events?limit=1000",
                                                      timeout=PATIENCE_S).json()["events"]  # kept up: every event
    first = next(m for m in messages if m["event"] == "resync")["data"]["version"]
    resumed = [int(e.id) for e in Client(base, tokens[2]).follow_game(gid, after=first) if e.id is not None]
    assert resumed == list(range(first + 1, final + 1))  # Last-Event-ID after a resync: exactly the rest
    raw = Follower(port, path, {"Accept": "text/event-stream", "Last-Event-ID": str(first)})
    assert [e["seq"] for e in sse_events(raw.text())] == list(range(first + 1, final + 1))


def _feed_at(app: Any, gid: str, version: int) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while True:
        feed = app.extensions["hourglass.streams"].feeds.get(gid)
        if feed is not None and feed.game is not None and feed.game.version >= version:
            return
        assert time.monotonic() < deadline, "the feed did not read the game"
        time.sleep(0.01)


def test_a_resync_line_is_what_get_state_and_get_moves_say_at_its_version(conn: Any, created: list[str]) -> None:
    """Through the response iterator (no direct socket), with a bound of 0: a reader with two
    batches waiting gets one resync of the newest instead, for a seat its own view and legal
    moves and for a spectator the spectator's view (hidden information only through views)."""
    app = create_app({"REDIS": conn, "TESTING": True, "RATE_LIMIT": 0, "STREAM_LAG_S": 0.0, "SSE_HEARTBEAT": 0.2,
                      "ADVANCE": "off", "CLIENT_SEEDS": "any"})
    client, svc = app.test_client(), app.extensions["hourglass"]
    game = client.post("/api/v1/games", json={"game": "toy", "edition": "classic", "options": {"rounds": 3},
                                              "seats": [{"name": "Ann"}, {"name": "Bob"}]}).json
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    created.append(gid)
    start = svc.load(gid).version
    streams = {who: client.get(f"/api/v1/games/{gid}/events/stream", buffered=False, headers={
        "Accept": "application/x-ndjson", **({"Authorization": f"Bearer {tokens[who]}"} if who is not None else {})})
        for who in (1, None)}
    readers = {who: ndjson_lines(stream) for who, stream in streams.items()}
    for lines in readers.values():  # a fresh stream opens with the table at the game's start
        opening = json.loads(next(lines))
        assert opening["kind"] == "snapshot" and opening["version"] == start, opening
    client.post(f"/api/v1/games/{gid}/moves", json={"type": "Bid", "bid": 2}, headers={"Authorization": f"Bearer {tokens[0]}"})
    _feed_at(app, gid, start + 1)  # one batch waits for each reader...
    client.post(f"/api/v1/games/{gid}/moves", json={"type": "Bid", "bid": 1}, headers={"Authorization": f"Bearer {tokens[1]}"})
    run_worker(svc, gid)
    version = svc.load(gid).version
    _feed_at(app, gid, version)  # ...and more behind it
    for who, lines in readers.items():
        line = json.loads(next(line for line in lines if line))
        headers = {"Authorization": f"Bearer {tokens[who]}"} if who is not None else {}
        state = client.get(f"/api/v1/games/{gid}/state", headers=headers).json
        assert line["kind"] == "resync" and line["reason"] == "behind" and line["version"] == version
        assert {k: line[k] for k in ("version", "status", "seat", "to_act", "view", "clocks")} == \
            {k: state[k] for k in ("version", "status", "seat", "to_act", "view", "clocks")}
        if who is None:
            assert line["moves"] == []
        else:
            assert line["moves"] == client.get(f"/api/v1/games/{gid}/moves", headers=headers).json["moves"] != []
    assert stream_line_validator(client).is_valid(line)  # the OpenAPI document's StreamLine describes it
    for stream in reversed(list(streams.values())):  # each stream's request context, last opened first
        stream.close()


def test_a_stranger_with_stalled_streams_gets_resyncs_while_the_others_keep_up(
        server: tuple[str, int], svc: GameService, created: list[str]) -> None:
    """The abuse case: six streams that read nothing cost the server a frame and a resync line
    each (their backlog is dropped, the fan-out never waits on them); the spectators who read,
    of this game and of another one, get every event and no resync. (Such streams draw on the
    stranger's own open-stream slots, ``SSE_PER_ADDRESS``, lifted in this test's server.)"""
    base, port = server
    gid, _ = orleans(base, created)
    other, _ = orleans(base, created)
    path, elsewhere_path = f"/api/v1/games/{gid}/events/stream?after=0", f"/api/v1/games/{other}/events/stream?after=0"
    before = lag_figures(HUB["path"])
    stranger = [Stalled(port, path) for _ in range(6)]
    readers = [Follower(port, path, {"Accept": "text/event-stream"}) for _ in range(3)]
    elsewhere = Follower(port, elsewhere_path, {"Accept": "text/event-stream"})
    wait_for_subscribers(before["subscribers"] + 10)
    rng = random.Random(11)
    play(svc, gid, 400, rng)
    play(svc, other, 30, rng)
    end(svc, gid)
    end(svc, other)
    for game_id, followers in ((gid, readers), (other, [elsewhere])):
        public = requests.get(f"{base}/api/v1/games/{game_id}/events?limit=1000", timeout=PATIENCE_S).json()["events"]
        for follower in followers:
            text = follower.text()
            assert sse_events(text) == public and "event: resync" not in text
    for stalled in stranger:
        kinds = [m["event"] for m in blocks(stalled.read_all())]
        assert "resync" in kinds and kinds[-1] == "end"
    assert lag_figures(HUB["path"])["resyncs"] >= before["resyncs"] + len(stranger)
