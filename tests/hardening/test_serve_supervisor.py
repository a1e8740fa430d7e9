"""Findings 1b and 1c: ``hourglass serve`` keeps serving through a Redis outage and a dead child.

``hourglass serve`` (gunicorn + worker under one supervisor) runs on a private redis-server that
is SIGKILLed (the web answers 503 meanwhile, finding 4) and started again, empty, on the same
port: the web answers again by itself and a
bot-only game created through the API afterwards is played to its end. Then the worker child is
SIGKILLed: the supervisor starts a new one (the web stays up) and the next game finishes too.
SIGTERM still stops every child.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import requests

from service.streamhub import DEFAULT_NICE
from tests.hardening.conftest import PATIENCE_S, Children, RedisServer, free_port, wait_until
from tests.live import open_sockets

BOTS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "R2", "kind": "bot", "bot": "random"}]


def children_of(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux /proc)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text() if (task / "children").exists() else ""
        out += [int(p) for p in text.split()]
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def worker_pid(serve_pid: int) -> int | None:
    found = [p for p in children_of(serve_pid) if cmdline(p).rstrip().endswith("service.cli worker --lanes now,fast")]
    return found[0] if found else None


def alive(pid: int) -> bool:
    """Running (a zombie or a missing /proc entry is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def answers(base: str) -> bool:
    """The web reached Redis: an unknown game is a 404 problem, not an error."""
    try:
        return requests.get(f"{base}/api/v1/games/0000000000000000", timeout=3).status_code == 404
    except requests.RequestException:
        return False


def play_bot_game(base: str, seed: str) -> float:
    body: dict[str, Any] = {"game": "orleans", "edition": "classic", "seats": BOTS, "seed": seed}
    created = requests.post(f"{base}/api/v1/games", json=body, timeout=PATIENCE_S)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    started = time.monotonic()

    def finished() -> bool:
        try:
            return requests.get(f"{base}/api/v1/games/{game_id}", timeout=3).json().get("status") == "finished"
        except (requests.RequestException, ValueError):
            return False

    wait_until(finished, PATIENCE_S, 0.2, f"bot game {game_id} to finish")
    return time.monotonic() - started


def test_serve_rides_out_a_redis_kill_and_a_dead_worker(private_redis: RedisServer, children: Children) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {"REDIS_URL": private_redis.url, "HOURGLASS_RATE_LIMIT": "0"}
    serve = children.hourglass("serve", "serve", "--port", str(port), "--workers", "1", "--threads", "4", env=env)
    wait_until(lambda: answers(base), PATIENCE_S, 0.1, "the web to answer")
    play_bot_game(base, "serve-before")

    private_redis.kill()
    killed = time.monotonic()
    outage = requests.get(f"{base}/api/v1/games/0000000000000000", timeout=PATIENCE_S)
    assert outage.status_code == 503 and outage.json()["kind"] == "UNAVAILABLE" and outage.headers["Retry-After"]
    time.sleep(3)
    private_redis.start()
    wait_until(lambda: answers(base), PATIENCE_S, 0.1, "the web to answer after Redis came back")
    print(f"web answered {time.monotonic() - killed - 3:.1f} s after Redis came back")
    assert serve.poll() is None, children.log("serve")[-3000:]
    play_bot_game(base, "serve-after-outage")

    old_worker = wait_until(lambda: worker_pid(serve.pid), PATIENCE_S, what="the worker child")
    os.kill(old_worker, signal.SIGKILL)
    new_worker = wait_until(lambda: (p := worker_pid(serve.pid)) and p != old_worker and p, PATIENCE_S, 0.1,
                            "a new worker child")
    assert answers(base) and serve.poll() is None
    play_bot_game(base, "serve-after-worker-kill")
    assert "worker exited with code -9; restarting" in children.log("serve")

    web = [p for p in children_of(serve.pid) if p != new_worker]
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(timeout=30) == 0
    assert not any(alive(p) for p in [new_worker, *web])


def streams_pid(serve_pid: int) -> int | None:
    found = [p for p in children_of(serve_pid) if "service.streamhub" in cmdline(p)]
    return found[0] if found else None


def test_serve_hands_live_streams_to_its_stream_process(private_redis: RedisServer, children: Children) -> None:
    """``hourglass serve`` runs a stream process beside the web: it holds the live streams, a
    dead one is started again (its streams resume on the web meanwhile), and its socket's
    directory goes when serve stops."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {"REDIS_URL": private_redis.url, "HOURGLASS_RATE_LIMIT": "0", "HOURGLASS_CLIENT_SEEDS": "any"}
    serve = children.hourglass("serve", "serve", "--no-worker", "--port", str(port), "--workers", "1", env=env)
    wait_until(lambda: answers(base), PATIENCE_S, 0.1, "the web to answer")
    hub = wait_until(lambda: streams_pid(serve.pid), PATIENCE_S, what="the stream process")
    # until it listens, the web serves streams itself (and keeps serving those)
    wait_until(lambda: "stream process on " in children.log("serve"), PATIENCE_S, 0.1, "the stream process to listen")
    # it runs below the web's CPU priority, so on shared cores a move goes before the fan-out
    assert os.getpriority(os.PRIO_PROCESS, hub) == min(19, os.getpriority(os.PRIO_PROCESS, serve.pid) + DEFAULT_NICE)
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]}
    game_id = requests.post(f"{base}/api/v1/games", json=body, timeout=PATIENCE_S).json()["id"]
    streams = [requests.get(f"{base}/api/v1/games/{game_id}/events/stream", stream=True, timeout=PATIENCE_S) for _ in range(3)]
    assert all(s.status_code == 200 for s in streams)

    # its listener, and a control connection and the client socket per stream
    wait_until(lambda: open_sockets(hub) >= 1 + 2 * 3, PATIENCE_S, 0.1, "the stream process to hold the streams")
    first = [next(s.iter_lines()) for s in streams]
    assert all(line.startswith(b"retry: ") for line in first)

    os.kill(hub, signal.SIGKILL)
    wait_until(lambda: (p := streams_pid(serve.pid)) and p != hub and p, PATIENCE_S, 0.1, "a new stream process")
    assert "streams exited with code -9; restarting" in children.log("serve")
    for stream in streams:
        stream.close()
    socket_dir = next(Path(line.split(" on ", 1)[1]).parent for line in children.log("serve").splitlines()
                      if "stream process on " in line)
    assert socket_dir.exists()
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(timeout=30) == 0
    assert not socket_dir.exists()
