"""Scale-out benchmark: moves/s with 1 and 2 worker processes and with 1 and 2 web processes,
next to a raw XADD baseline measured in the same run on the same event-store Redis.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/scaleout.py
    REDIS_URL=redis+cluster://127.0.0.1:7101 HOURGLASS_QUEUE_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/scaleout.py

- **XADD baseline**: back-to-back XADDs of one client to one game-tagged stream (``hg:{…}:events``).
- **workers**: ``--games`` 4-bot games (random bots) advanced by N ``hourglass worker`` processes
  (``python -m workers.cli``: jobs run in the worker's own process, its default) through the real RQ queue; moves/s
  is the number of appended batches (commands) per second over a ``--seconds`` window that
  starts once every worker has appended.
- **web**: ``--clients`` HTTP client threads, each playing its own 4-human game against gunicorn
  with N processes (``service.cli.gunicorn_command``: gevent, as the Procfile runs it), with two
  worker processes appending the SYSTEM steps; per move a client GETs the summary (who is to act)
  and the legal moves, then POSTs one; moves/s counts the accepted POSTs over the window. The
  rate limiter is off (``HOURGLASS_RATE_LIMIT=0``): one client plays four seats.

Every process (web, workers, clients, Redis) shares this machine's cores, so "2 processes" can
add at most what a free core gives; on a multi-machine deployment each process brings its own.
Beside each row the table shows how many cores each group kept busy over the window (CPU
seconds per second, from /proc for the web and worker process sessions, from INFO for the Redis
servers, and this process's own for the bench's clients), so a row that did not scale shows
whether the processes were starved of CPU, and moves per busy core-second of the group the row
scales (web processes, or workers): what each added core buys while the Redis servers keep up.
Prints a table; never asserts timings.
"""
from __future__ import annotations

import argparse
import os
import random
import secrets
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.connection import connect, is_cluster, plain_redis  # noqa: E402
from core.games import GameService  # noqa: E402
from core.store import EventStore  # noqa: E402
from service.cli import gunicorn_command  # noqa: E402
from workers.enqueue import enqueue_advance  # noqa: E402

BOTS = [{"name": f"R{i}", "kind": "bot", "bot": "random"} for i in range(4)]
HUMANS = [{"name": f"P{i}"} for i in range(4)]
TIMEOUT_S = 30.0


def note(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def xadd_baseline(conn: Any, n: int) -> float:
    """Back-to-back XADDs per second of one client to one game-tagged stream."""
    key = f"hg:{{bench-{secrets.token_hex(4)}}}:events"
    try:
        started = time.perf_counter()
        for i in range(n):
            conn.xadd(key, {"entry": f'{{"seq":{i},"type":"Bench"}}', "hash": "0" * 64}, id=f"{i + 1}-0")
        return n / (time.perf_counter() - started)
    finally:
        conn.delete(key)


def commands(store: EventStore, ids: list[str]) -> int:
    """Appended batches (each carries its command on its first entry), over ``ids``."""
    return sum(1 for g in ids for e in store.read(g) if e.command is not None)


def env_for(args: argparse.Namespace, queue: str) -> dict[str, str]:
    env = {**os.environ, "REDIS_URL": args.redis_url, "HOURGLASS_QUEUE": queue, "HOURGLASS_RATE_LIMIT": "0"}
    if args.queue_url:
        env["HOURGLASS_QUEUE_URL"] = args.queue_url
    return env


def start_workers(n: int, env: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    cmd = [sys.executable, "-m", "workers.cli", "--logging-level", "WARNING", "--sweep-interval", "0"]
    return [subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True) for _ in range(n)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


TICKS = os.sysconf("SC_CLK_TCK")


def session_cpu(sids: list[int]) -> float:
    """CPU seconds used so far by every process of these sessions (and their reaped children:
    the forked work horses)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) in sids:  # fields after the name: state ppid pgrp session ...
            total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


def redis_cpu(conn: Any) -> float:
    """CPU seconds used so far by the Redis server(s) behind ``conn`` (every cluster node)."""
    infos = list(conn.info("cpu", target_nodes=conn.ALL_NODES).values()) if is_cluster(conn) else [conn.info("cpu")]
    return sum(float(i["used_cpu_sys"]) + float(i["used_cpu_user"]) for i in infos)


class Cores:
    """How many cores each group of processes kept busy over a window."""

    def __init__(self, groups: dict[str, list[int]], conns: dict[str, Any]) -> None:
        self.groups, self.conns = groups, conns
        self.t0 = time.perf_counter()
        self.start = self._sample()

    def _sample(self) -> dict[str, float]:
        out = {name: session_cpu(sids) for name, sids in self.groups.items()}
        out.update({name: redis_cpu(c) for name, c in self.conns.items()})
        out["bench"] = time.process_time()
        return out

    def busy(self) -> dict[str, float]:
        end, seconds = self._sample(), time.perf_counter() - self.t0
        return {name: (end[name] - self.start[name]) / seconds for name in end}


def window(store: EventStore, ids: list[str], seconds: float, cores: Cores) -> tuple[float, dict[str, float]]:
    """Moves/s over ``seconds`` (counted from the store before and after), and the busy cores."""
    before, t0 = commands(store, ids), time.perf_counter()
    time.sleep(seconds)
    after, t1 = commands(store, ids), time.perf_counter()
    return (after - before) / (t1 - t0), cores.busy()


def redis_groups(svc: GameService) -> dict[str, Any]:
    store, queue = svc.store.conn, plain_redis(svc.store.conn)
    return {"store": store} if queue is store else {"store": store, "queue": queue}


def bench_workers(args: argparse.Namespace, svc: GameService, n: int,
                  cleanup: list[str]) -> tuple[float, dict[str, float]]:
    queue = f"bench-scaleout-{uuid.uuid4().hex[:8]}"
    os.environ["HOURGLASS_QUEUE"] = queue
    ids = [svc.create({"game": "orleans", "edition": "classic", "seats": BOTS, "seed": f"scale-{queue}-{i}"})["id"]
           for i in range(args.games)]
    cleanup += ids
    start = {g: svc.load(g).version for g in ids}
    procs = start_workers(n, env_for(args, queue))
    try:
        for g in ids:
            enqueue_advance(svc.store.conn, g, start[g])
        deadline = time.monotonic() + 60
        while sum(svc.store.version(g) > start[g] for g in ids) < min(n, len(ids)) and time.monotonic() < deadline:
            time.sleep(0.05)  # every worker has imported the engine and taken a game
        note(f"workers={n}: every worker has appended; measuring")
        cores = Cores({"workers": [p.pid for p in procs]}, redis_groups(svc))
        return window(svc.store, ids, args.seconds, cores)
    finally:
        stop(procs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_web(n: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(gunicorn_command("127.0.0.1", port, workers=n), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            requests.get(f"{base}/openapi.json", timeout=1)
            return proc, base
        except requests.RequestException:
            time.sleep(0.1)
    stop([proc])
    raise SystemExit("gunicorn did not start")


class Client(threading.Thread):
    """Plays one 4-human game: summary (who is to act), legal moves, POST one, again."""

    def __init__(self, base: str, seed: int, stop_at: threading.Event) -> None:
        super().__init__(daemon=True)
        self.base, self.rng, self.stop_at = base, random.Random(seed), stop_at
        self.http = requests.Session()
        self.posted: list[float] = []  # when each accepted POST came back
        self.errors = 0
        created = self.http.post(f"{base}/api/v1/games", json={"game": "orleans", "edition": "classic",
                                                                "seats": HUMANS}).json()
        self.game_id: str = created["id"]
        self.tokens = {s["seat"]: s["token"] for s in created["seats"]}

    def run(self) -> None:
        url = f"{self.base}/api/v1/games/{self.game_id}"
        while not self.stop_at.is_set():
            summary = self.http.get(url, timeout=TIMEOUT_S).json()
            humans = [a for a in summary["to_act"] if isinstance(a, int)]
            if summary["status"] != "active" or not humans:
                if summary["status"] not in ("active", "open"):
                    return  # over
                time.sleep(0.005)  # a worker is appending the SYSTEM step
                continue
            auth = {"Authorization": f"Bearer {self.tokens[self.rng.choice(humans)]}"}
            try:
                moves = self.http.get(f"{url}/moves", headers=auth, timeout=TIMEOUT_S).json()["moves"]
                if not moves:
                    continue
                r = self.http.post(f"{url}/moves", json=self.rng.choice(moves), headers=auth, timeout=TIMEOUT_S)
            except requests.RequestException:
                self.errors += 1
                continue
            if r.status_code == 200:
                self.posted.append(time.perf_counter())
            else:
                self.errors += 1


def bench_web(args: argparse.Namespace, svc: GameService, n: int,
              cleanup: list[str]) -> tuple[float, dict[str, float], int]:
    queue = f"bench-scaleout-{uuid.uuid4().hex[:8]}"
    env = env_for(args, queue)
    env["HOURGLASS_ADVANCE"] = "rq"
    workers = start_workers(2, env)
    stop_at = threading.Event()
    web: list[subprocess.Popen[bytes]] = []
    try:
        proc, base = start_web(n, env)
        web.append(proc)
        clients = [Client(base, i, stop_at) for i in range(args.clients)]
        cleanup += [c.game_id for c in clients]
        for c in clients:
            c.start()
        note(f"web={n}: {len(clients)} clients playing; measuring")
        time.sleep(2.0)  # warm-up: every gunicorn process has served requests
        cores = Cores({"web": [proc.pid], "workers": [p.pid for p in workers]}, redis_groups(svc))
        t0 = time.perf_counter()
        time.sleep(args.seconds)
        t1 = time.perf_counter()
        busy = cores.busy()
        stop_at.set()
        for c in clients:
            c.join(timeout=15)
        moves = sum(1 for c in clients for t in c.posted if t0 <= t < t1)
        return moves / (t1 - t0), busy, sum(c.errors for c in clients)
    finally:
        stop(web)
        stop(workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--queue-url", default=os.environ.get("HOURGLASS_QUEUE_URL"),
                        help="plain Redis for the RQ queues (needed with a redis+cluster:// URL)")
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring window of each row")
    parser.add_argument("--games", type=int, default=8, help="bot games for the worker rows")
    parser.add_argument("--clients", type=int, default=16, help="HTTP clients (one game each) for the web rows")
    parser.add_argument("--xadds", type=int, default=5000)
    parser.add_argument("--rows", default="workers,web", help="which rows besides the baseline")
    args = parser.parse_args()
    os.environ["REDIS_URL"] = args.redis_url
    if args.queue_url:
        os.environ["HOURGLASS_QUEUE_URL"] = args.queue_url
    conn = connect(args.redis_url)
    svc = GameService(conn)
    cleanup: list[str] = []
    rows: list[tuple[str, float, dict[str, float], str]] = []
    try:
        xadd = xadd_baseline(conn, args.xadds)
        rows.append(("raw XADD, 1 client, back to back", xadd, {}, "baseline"))
        for n in (1, 2) if "workers" in args.rows else ():
            rate, busy = bench_workers(args, svc, n, cleanup)
            rows.append((f"bot games, {n} worker process{'es' if n > 1 else ''}", rate, busy,
                         f"{args.games} games"))
        for n in (1, 2) if "web" in args.rows else ():
            rate, busy, errors = bench_web(args, svc, n, cleanup)
            rows.append((f"HTTP moves, {n} web process{'es' if n > 1 else ''} (+2 workers)", rate, busy,
                         f"{args.clients} clients, {errors} non-200"))
    finally:
        svc.store.delete(cleanup)
    load = os.getloadavg()[0]
    print(f"event store: {args.redis_url}   queues: {args.queue_url or args.redis_url}   "
          f"window {args.seconds:g} s, {os.cpu_count()} cores shared by every process, load {load:.1f} at the end")
    print(f"{'':<44} {'moves/s':>9} {'x XADD':>8}   cores busy: {'web':>5} {'workers':>7} {'store':>5} "
          f"{'queue':>5} {'bench':>5}   {'moves/core-s':>12}   notes")
    for label, rate, busy, text in rows:
        shown = " ".join(f"{busy[k]:{w}.2f}" if k in busy else " " * w for k, w in
                         (("web", 5), ("workers", 7), ("store", 5), ("queue", 5), ("bench", 5)))
        scaled = busy.get("web", busy.get("workers"))  # the group the row adds processes to
        per_core = f"{rate / scaled:12.0f}" if scaled else " " * 12
        print(f"{label:<44} {rate:9.1f} {rate / xadd:8.4f}               {shown}   {per_core}   {text}")


if __name__ == "__main__":
    main()
