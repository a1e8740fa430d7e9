"""Fairness between games (issue 23): a fresh bot game's first move while slow and looping push
bots play, next to the same run without them.

    .venv/bin/python bench/fairness.py [--slow 10] [--loop 5] [--fresh 30] [--every 0.5]
                                       [--checkout PATH] [--deadline 2]

Starts a private ``redis-server`` and ``hourglass serve`` on it, with ``make run``'s default
processes (whatever ``serve`` starts in the checkout: since issue 23 the web, the stream process,
a fast-lane worker, a slow-then-fast worker and the caller; ``--checkout`` runs another
checkout's ``serve`` with its own ``.venv``, e.g. the code before, for the "before" figures), and
a bot server in this process:

- ``/slow``: answers after the deadline plus a second, so every call uses its whole deadline
  (``HOURGLASS_BOT_DEADLINE_S``, ``--deadline``) and plays the default move;
- ``/loop``: answers ``moves[0]`` at once (in an Orléans planning phase: placing and taking back
  the same follower, round after round).

Phase 1 (baseline): ``--fresh`` Orléans games of four random bots, one every ``--every`` s,
nothing else in play. Phase 2: ``--slow`` games with a slow push bot and ``--loop`` with a
looping one (each beside three random bots) are started and given a few seconds to fill the
queues, then the same fresh games again. A fresh game's first move is the time from its set-up
batch to its first batch by a seat, both stamped by the server as it appended them (the bench
only reads them). Prints p50 / p99 / max per phase, how many fresh games had not moved by
``--timeout``, and the deepest each queue got. Never asserts timings.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import suppress
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
RANDOMS = [{"name": f"R{i}", "kind": "bot", "bot": "random"} for i in range(4)]


def note(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Bots:
    """The bench's push bots: ``/slow`` outlives every deadline, ``/loop`` answers moves[0] at once."""

    def __init__(self, slow_s: float) -> None:
        self.slow_s = slow_s
        self.calls = {"/slow": 0, "/loop": 0}
        self.stop = threading.Event()
        bots = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                bots.calls[self.path] = bots.calls.get(self.path, 0) + 1
                if self.path == "/slow":
                    bots.stop.wait(bots.slow_s)
                body = json.dumps({"move": payload["moves"][0]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the caller had given up on it: the deadline passed

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()


def stamp_ms(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1000


def first_move_ms(conn: redis.Redis, game_id: str) -> float | None:
    """Milliseconds from the set-up batch to the first batch by a seat, from the stored stamps."""
    rows: Any = conn.xrange(f"hg:{{{game_id}}}:events", count=400)
    entries = [json.loads(fields[b"entry"]) for _, fields in rows]
    seat = next((e for e in entries if isinstance(e.get("actor"), int) and e.get("command")), None)
    return None if seat is None or not entries else stamp_ms(seat["time"]) - stamp_ms(entries[0]["time"])


class Depths:
    """The deepest each RQ queue and the caller's ticket list got while it watched."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self.most: dict[str, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(0.2):
            queues: Any = self.conn.smembers("rq:queues")  # a sync client: a set, not an Awaitable
            calls: Any = self.conn.keys("hg:calls:*")
            names = [k.decode() for k in queues] + [k.decode() for k in calls if not k.endswith(b":alive")]
            for name in names:
                try:
                    length: Any = self.conn.llen(name)
                    depth = int(length)
                except redis.ResponseError:
                    continue
                short = name.removeprefix("rq:queue:")
                self.most[short] = max(self.most.get(short, 0), depth)

    def take(self) -> dict[str, int]:
        found, self.most = self.most, {}
        return found


def create(base: str, seats: list[dict[str, Any]]) -> str:
    body = {"game": "orleans", "edition": "classic", "seats": seats}
    answer = requests.post(f"{base}/api/v1/games", json=body, timeout=30)
    answer.raise_for_status()
    return str(answer.json()["id"])


def fresh_phase(base: str, conn: redis.Redis, count: int, every: float, timeout: float) -> tuple[list[float], int]:
    """Create ``count`` fresh bot games and return their first-move latencies (s) and how many never moved."""
    games = []
    for _ in range(count):
        games.append(create(base, RANDOMS))
        time.sleep(every)
    latencies: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    while len(latencies) < len(games) and time.monotonic() < deadline:
        for game_id in games:
            if game_id not in latencies and (ms := first_move_ms(conn, game_id)) is not None:
                latencies[game_id] = ms / 1000
        time.sleep(0.25)
    return sorted(latencies.values()), len(games) - len(latencies)


def percentile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def row(label: str, latencies: list[float], missing: int, depths: dict[str, int]) -> str:
    shown = ", ".join(f"{k} {v}" for k, v in sorted(depths.items()) if v) or "-"
    median = statistics.median(latencies) if latencies else float("nan")
    return (f"{label:<28} {len(latencies):>5} {median:>8.3f} {percentile(latencies, 0.99):>8.3f} "
            f"{(max(latencies) if latencies else float('nan')):>8.3f} {missing:>8}  {shown}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=10, help="games with a deadline-exhausting push bot")
    parser.add_argument("--loop", type=int, default=5, help="games with a push bot answering moves[0]")
    parser.add_argument("--fresh", type=int, default=30, help="fresh bot games per phase")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between fresh games")
    parser.add_argument("--deadline", type=float, default=2.0, help="HOURGLASS_BOT_DEADLINE_S of the service")
    parser.add_argument("--timeout", type=float, default=150.0, help="how long a phase waits for first moves")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose `hourglass serve` runs")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    python = checkout / ".venv" / "bin" / "python"
    workdir = Path(tempfile.mkdtemp(prefix="hourglass-fairness-"))
    redis_port, web_port = free_port(), free_port()
    bots = Bots(args.deadline + 1.0)
    redis_proc = subprocess.Popen(["redis-server", "--port", str(redis_port), "--save", "", "--appendonly", "no",
                                   "--dir", str(workdir)], stdout=subprocess.DEVNULL, start_new_session=True)
    url = f"redis://127.0.0.1:{redis_port}/0"
    env = {**os.environ, "REDIS_URL": url, "HOURGLASS_VAR": str(workdir), "HOURGLASS_RATE_LIMIT": "0",
           "HOURGLASS_BOT_HOSTS": bots.address, "HOURGLASS_BOT_DEADLINE_S": str(args.deadline),
           "HOURGLASS_FORFEIT_AFTER": "0", "HOURGLASS_QUEUE": "hourglass"}
    with open(workdir / "serve.log", "wb") as log:  # the child keeps its own descriptor
        serve = subprocess.Popen([str(python), "-m", "service.cli", "serve", "--port", str(web_port)], cwd=checkout,
                                 env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{web_port}"
    try:
        conn = redis.Redis.from_url(url)
        started = time.monotonic()
        while time.monotonic() - started < 90:
            try:
                requests.get(f"{base}/openapi.json", timeout=2)
                break
            except requests.RequestException:
                time.sleep(0.2)
        time.sleep(3)  # the workers and the caller come up beside the web
        depths = Depths(conn)
        note(f"serving {checkout} on {base}; phase 1: {args.fresh} fresh games, nothing else")
        base_lat, base_missing = fresh_phase(base, conn, args.fresh, args.every, args.timeout)
        base_depths = depths.take()
        note(f"phase 2: {args.slow} slow and {args.loop} looping push bots, then {args.fresh} fresh games")
        push = [{"name": "push", "kind": "http", "url": f"http://{bots.address}/{path}"} for path in ("slow", "loop")]
        for i in range(args.slow + args.loop):
            create(base, [push[0] if i < args.slow else push[1], *RANDOMS[1:]])
        time.sleep(args.deadline * 3)
        depths.take()
        load_lat, load_missing = fresh_phase(base, conn, args.fresh, args.every, args.timeout)
        load_depths = depths.take()
        depths.stop.set()
        print(f"checkout {checkout} (git {git_head(checkout)}); push deadline {args.deadline:g} s, "
              f"a fresh game every {args.every:g} s; bot calls: slow {bots.calls['/slow']}, loop {bots.calls['/loop']}")
        print(f"{'phase':<28} {'moved':>5} {'p50 s':>8} {'p99 s':>8} {'max s':>8} {'not yet':>8}  deepest queues")
        print(row("fresh games alone", base_lat, base_missing, base_depths))
        print(row(f"beside {args.slow} slow + {args.loop} looping", load_lat, load_missing, load_depths))
    finally:
        for proc in (serve, redis_proc):
            with_group(proc, signal.SIGTERM)
        for proc in (serve, redis_proc):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with_group(proc, signal.SIGKILL)
        bots.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def with_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)


def git_head(checkout: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    raise SystemExit(main())
