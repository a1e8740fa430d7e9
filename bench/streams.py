"""Live-stream benchmark: one 4-seat game followed by many spectators over SSE.

    python bench/streams.py [--spectators 1000] [--moves 80] [--pace 0.01] [--worker-class gevent|gthread]
                            [--client-procs 2] [--split] [--hub [--hub-nice N]] [--burn N] [--lag-s S]
    python bench/streams.py --idle [--hub] [--spectators 1000] [--games 1] [--heartbeat 15] [--idle-s 30]
                            [--kind game|account|bot]

Starts gunicorn on a free loopback port (2 workers; gevent by default, as in the Procfile, or
the old gthread 2 x 8 threads for comparison), opens N spectator streams from ``--client-procs``
processes of their own (one asyncio loop each, reading with a protocol rather than a coroutine
per line, so reading a thousand sockets costs the machine little and does not slow the client
that posts), then plays moves over HTTP (``--pace`` s after the SYSTEM steps before each move:
10 ms by default, a stress; a quarter of a second is still a brisk game).

Prints, for the moving seat's POST, p50/p99 with no spectator and with N (the baseline is
measured in the same run); the server's CPU time per move in both runs (from /proc: steadier
than latencies on a busy machine); for every batch the delay from the POST being sent to each
spectator receiving it (p50/p99/max), and how many spectators got every batch; and, as the
fan-out's baseline, the same spectators fed by a bare Python loop of non-blocking sends (no
framework, no Redis): the floor of a fan-out on this machine.

``--hub`` hands the streams over to a stream process (``service.streamhub``), the layout
``hourglass serve`` runs by default, at serve's lower CPU priority (``--hub-nice``, 0 for the
same priority as the web); its CPU is counted as the server's, and the bench then also prints
the server's own lag figures (``service.streamlag``: append -> write on each socket, per batch
and subscriber) next to the lag bound (``--lag-s``, the server's ``HOURGLASS_STREAM_LAG_S``),
and the resync lines and cut-offs it sent. ``--split`` serves the
streams from a second server of the same app (1 worker each, the same process count), as a proxy
routing ``/events/stream`` to a pool of its own would: the fan-out then never queues in front of
a move in one process. ``--burn N`` keeps N processes spinning on the CPU at normal priority for
the whole run (baseline and floor included): "both CPUs busy with other work" is ``--burn 2`` on
a 2-core machine.

``--idle`` plays no move: it opens the streams (``--games`` live games followed in turn), waits
until they are all served, and prints the server's CPU per open stream per second over
``--idle-s`` seconds (stream caps on, so each stream's slot in Redis must be kept alive), beside a
bare keep-alive loop's measured in the same run: one process holding the same number of sockets
and sending each an SSE comment every ``--heartbeat`` seconds. ``--kind account`` opens the
streams on ``GET /api/v1/account/events/stream`` of as many accounts (made for the run, one
stream each, nothing in their games), ``--kind bot`` on ``GET /api/v1/bots/<id>/events/stream``
of as many pull bots; ``--games`` is then unused. Never asserts timings.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.accounts import Accounts  # noqa: E402
from core.bots import BotRegistry  # noqa: E402
from core.games import GameService  # noqa: E402
from core.retention import creator_key  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from service.streamhub import DEFAULT_NICE  # noqa: E402
from tests.conftest import forget_games  # noqa: E402


def server_cpu_s(proc: subprocess.Popen[bytes]) -> float:
    """CPU seconds (user + system) used so far by gunicorn's worker processes (Linux /proc)."""
    return sum(process_cpu_s(int(child)) for child in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split())


def process_cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_hub(url: str, nice: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """The stream process (service.streamhub) that ``hourglass serve`` runs beside the web."""
    path = os.path.join(tempfile.mkdtemp(prefix="hourglass-bench-"), "streams.sock")
    hub = subprocess.Popen([sys.executable, "-m", "service.streamhub", "--socket", path, "--nice", str(nice)], cwd=ROOT,
                           env={**os.environ, **env, "REDIS_URL": url}, stdout=subprocess.DEVNULL)
    for _ in range(1200):  # a minute: with --burn, a nice process imports the app slowly
        if os.path.exists(path):
            return hub, path
        time.sleep(0.05)
    hub.kill()
    raise SystemExit("the stream process did not start")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def start_server(url: str, worker_class: str, workers: int = 2, hub: str = "",
                 extra: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    concurrency = ["--worker-connections", "4000"] if worker_class == "gevent" else ["--threads", "8"]
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
               "--worker-class", worker_class, *concurrency, "--timeout", "120", "--graceful-timeout", "3", "service.wsgi:app"]
    env = {**os.environ, "REDIS_URL": url, "HOURGLASS_ADVANCE": "off", "HOURGLASS_RATE_LIMIT": "0",
           "HOURGLASS_SSE_HEARTBEAT": "15", "HOURGLASS_STREAM_HUB": hub, **(extra or {})}
    log = open(os.environ.get("HOURGLASS_BENCH_LOG", os.devnull), "wb")  # noqa: SIM115
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
    for _ in range(150):
        try:
            requests.get(f"http://127.0.0.1:{port}/openapi.json", timeout=1)
            return proc, port
        except requests.RequestException:  # not listening yet, or too busy starting up to answer within 1 s
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("gunicorn did not start")


class Spectators:
    """N SSE connections; records when each one receives each event id.

    Each connection is an asyncio protocol that splits what arrives into lines and notes the ids:
    no per-line coroutine, so the bench's own reading costs little next to the server's writing."""

    def __init__(self, port: int, game_id: str | list[str], count: int) -> None:
        self.port, self.count = port, count
        # followed in turn, one per stream: a game id, or "<path> <bearer token>" (an account's or a bot's stream)
        self.games = [game_id] if isinstance(game_id, str) else list(game_id)
        self.started = 0
        self.arrivals: dict[int, list[float]] = defaultdict(list)
        self.connected = 0
        self.failed = 0
        self.resyncs = 0
        self.beats = 0  # keep-alive comments received, all streams

    async def follow(self) -> None:
        loop = asyncio.get_running_loop()
        closed = loop.create_future()
        try:
            await asyncio.wait_for(loop.create_connection(lambda: _Follower(self, closed), "127.0.0.1", self.port), 30)
            await closed
        except (TimeoutError, OSError, ConnectionError):
            self.failed += 1


class _Follower(asyncio.Protocol):
    def __init__(self, watchers: Spectators, closed: asyncio.Future[None]) -> None:
        self.watchers, self.closed = watchers, closed
        self.rest = b""
        self.started = False
        self.opened = False

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        watchers = self.watchers
        target = watchers.games[watchers.started % len(watchers.games)]
        watchers.started += 1
        path, _, token = target.partition(" ") if target.startswith("/") else (
            f"/api/v1/games/{target}/events/stream", "", "")
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        transport.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n{auth}"
                        "Accept: text/event-stream\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        *lines, self.rest = (self.rest + data).split(b"\n")
        for line in lines:
            if not self.started:
                if b" 200 " not in line:
                    self.watchers.failed += 1
                    self.transport.close()
                    return
                self.started = True
                self.watchers.connected += 1
            elif line.startswith(b"event: snapshot"):
                self.opened = True  # the table as of the connection: its id is no live arrival
            elif line.startswith(b"id: "):
                if b"-" in line:
                    continue  # a Redis stream id (an account's or a bot's stream): no game's version
                if self.opened:
                    self.opened = False
                    continue
                self.watchers.arrivals[int(line[4:])].append(now)
            elif line.startswith(b": heartbeat"):
                self.watchers.beats += 1
            elif line.startswith(b"event: resync"):
                self.watchers.resyncs += 1
            elif line.startswith(b"event: end"):
                self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def worker_steps(svc: GameService, game_id: str) -> bool:
    while True:
        game = svc.load(game_id)
        if game.finished:
            return False
        if SYSTEM not in game.to_act:
            return True
        svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM), expected_version=game.version,
                  idempotency_key=f"advance:{game.version}")


def forget(conn: redis.Redis, game_ids: list[str]) -> None:
    """Delete the bench's games and what they left: their keys, their lobby index entries and
    wake-up keys (``forget_games``) and their places in the loopback creator's live set."""
    if game_ids:
        forget_games(conn, game_ids)
        conn.zrem(creator_key("addr:127.0.0.1"), *game_ids)  # service.auth: the anonymous owner


def create(base: str) -> dict:
    response = requests.post(f"{base}/api/v1/games", json={"game": "orleans", "edition": "classic",
                                                           "seats": [{"name": f"P{i}"} for i in range(4)]})
    if response.status_code != 201:
        raise SystemExit(f"creating a game failed: {response.status_code} {response.text}")
    return response.json()


def play(base: str, svc: GameService, created: dict, moves: int, seed: int,
         pace: float = 0.01) -> tuple[list[float], dict[int, float]]:
    """Post ``moves`` moves (SYSTEM steps in-process, then ``pace`` s of thought before each
    move): POST latencies and version -> send time."""
    http, rng = requests.Session(), random.Random(seed)
    gid, tokens = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    latencies: list[float] = []
    sent: dict[int, float] = {}
    while len(latencies) < moves and worker_steps(svc, gid):
        time.sleep(pace)
        seat = min(a for a in svc.load(gid).to_act if a != SYSTEM)
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        listed = http.get(f"{base}/api/v1/games/{gid}/moves", headers=auth).json()
        t = time.perf_counter()
        r = http.post(f"{base}/api/v1/games/{gid}/moves", json=rng.choice(listed["moves"]),
                      headers={**auth, "If-Match": str(listed["version"])})
        latencies.append(time.perf_counter() - t)
        sent[r.json()["version"]] = t
    return latencies, sent


def spectate(port: int, game_id: str | list[str], count: int, ready: Any, done: Any, out: Any) -> None:
    """A spectator process: ``count`` streams on one asyncio loop; reports connects and arrivals."""
    async def run() -> Spectators:
        watchers = Spectators(port, game_id, count)
        tasks = [asyncio.create_task(watchers.follow()) for _ in range(count)]
        for _ in range(2400):  # two minutes: a few thousand streams handed over on a busy machine
            if watchers.connected + watchers.failed >= count:
                break
            await asyncio.sleep(0.05)
        ready.set()
        while not done.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return watchers

    watchers = asyncio.run(run())
    out.put((watchers.connected, watchers.failed, watchers.resyncs, watchers.beats, dict(watchers.arrivals)))


class Crowd:
    """``count`` spectators of ``game_id`` on ``port`` in ``procs`` processes of their own (so
    reading a thousand sockets does not slow the client that posts), connected once built."""

    def __init__(self, port: int, game_id: str | list[str], count: int, procs: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.port, self.game_id, self.count = port, game_id, count
        self.done, self.out = ctx.Event(), ctx.Queue()
        shares = [count // procs + (1 if i < count % procs else 0) for i in range(procs)]
        readies = [ctx.Event() for _ in shares]
        self.procs = [ctx.Process(target=spectate, args=(port, game_id, n, ready, self.done, self.out))
                      for n, ready in zip(shares, readies)]
        for proc in self.procs:
            proc.start()
        for ready in readies:
            ready.wait(120)

    def gather(self) -> Spectators:
        """Stop the spectators; what they received, all processes together."""
        self.done.set()
        watchers = Spectators(self.port, self.game_id, self.count)
        for _ in self.procs:
            connected, failed, resyncs, beats, arrivals = self.out.get(timeout=60)
            watchers.connected += connected
            watchers.failed += failed
            watchers.resyncs += resyncs
            watchers.beats += beats
            for version, times in arrivals.items():
                watchers.arrivals[version].extend(times)
        for proc in self.procs:
            proc.join(10)
        return watchers


def joined(hub: subprocess.Popen[bytes], hub_path: str, spectators: int, limit: float = 300.0) -> float:
    """Seconds until the stream process holds ``spectators`` live subscribers (the web workers have
    answered them all already; the hand-overs may still be on their way), at most ``limit``. A
    stream process that does not say (an older one) is asked the kernel: its open sockets, two per
    stream (the client's, and the web worker's connection that waits for its end)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        figures = server_lag(hub_path)
        held = figures["subscribers"] if figures is not None else open_sockets(hub.pid) // 2
        if held >= spectators:
            break
        time.sleep(0.2)
    return time.perf_counter() - t0


def open_sockets(pid: int) -> int:
    """Sockets process ``pid`` holds (Linux /proc)."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(FileNotFoundError):
            count += os.readlink(fd).startswith("socket:")
    return count


def watched(base: str, port: int, svc: GameService, spectators: int, moves: int, procs: int,
            cpu_s: Callable[[], float], pace: float, hub: subprocess.Popen[bytes] | None = None,
            hub_path: str = "") -> tuple[Spectators, list[float], dict[int, float], float]:
    """Connect the spectators (in ``procs`` processes of their own, so reading a thousand sockets
    does not slow the client that posts) to a new game, then play it (with a stream process,
    once it holds every spectator: the lag of a steady audience, not of a crowd still arriving).

    Arrival and send times are ``time.perf_counter()``, which is CLOCK_MONOTONIC on Linux: one
    clock for every process of the machine."""
    created = create(base)
    t0 = time.perf_counter()
    crowd = Crowd(port, created["id"], spectators, procs)
    if hub is not None:
        waited = joined(hub, hub_path, crowd.count)
        print(f"the stream process held every spectator {time.perf_counter() - t0:.1f} s after they began to "
              f"connect ({waited:.1f} s after the web had answered the last one)")
    time.sleep(1.0)
    cpu = cpu_s()
    latencies, sent = play(base, svc, created, moves, 2, pace)
    time.sleep(2.0)
    cpu = cpu_s() - cpu
    watchers = crowd.gather()
    forget(svc.store.conn, [created["id"]])
    return watchers, latencies, sent, cpu


def fan_out_floor(spectators: int, moves: int, procs: int, pace: float) -> tuple[Spectators, dict[int, float]]:
    """The floor of a fan-out on this machine, measured in the same run: a plain Python loop that
    writes a batch-sized SSE frame to every spectator socket with one non-blocking send each (no
    HTTP framework, no Redis, no game), read by the same spectator processes."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=spectators)
    port = listener.getsockname()[1]
    accepted: list[socket.socket] = []

    def accept() -> None:
        while len(accepted) < spectators:
            conn, _ = listener.accept()
            while not conn.recv(4096).endswith(b"\r\n\r\n"):
                pass
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            accepted.append(conn)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    crowd = Crowd(port, "floor", spectators, procs)
    acceptor.join(10)
    time.sleep(1.0)
    payload = "x" * 400  # about one move's batch as a spectator sees it
    sent = {}
    for version in range(1, moves + 1):
        time.sleep(pace)
        frame = f"id: {version}\ndata: {payload}\n\n".encode()
        sent[version] = time.perf_counter()
        for conn in accepted:
            with contextlib.suppress(OSError):  # a full buffer: that spectator misses this frame (it shows)
                conn.send(frame, socket.MSG_DONTWAIT)
    time.sleep(2.0)
    watchers = crowd.gather()
    for conn in accepted:
        conn.close()
    listener.close()
    return watchers, sent


def _keep_alive_loop(count: int, heartbeat: float, port_out: Any, stop: Any) -> None:
    """The bare keep-alive loop: accept ``count`` streams, answer each request with a 200, then
    send every socket one SSE comment per ``heartbeat`` s (one non-blocking send each), until ``stop``."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=count)
    port_out.put(listener.getsockname()[1])
    accepted: list[socket.socket] = []
    while len(accepted) < count:
        conn, _ = listener.accept()
        while not conn.recv(4096).endswith(b"\r\n\r\n"):
            pass
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nretry: 2000\n\n")
        accepted.append(conn)
    beat = b": heartbeat\n\n"
    while not stop.wait(heartbeat):
        for conn in accepted:
            with contextlib.suppress(OSError):
                conn.send(beat, socket.MSG_DONTWAIT)
    for conn in accepted:
        conn.close()


def keep_alive_floor(count: int, heartbeat: float, window: float, procs: int) -> tuple[float, Spectators]:
    """The idle floor, measured in the same run: CPU seconds a bare Python loop (a process of its
    own: no framework, no Redis, no game) spends keeping ``count`` streams alive with one
    keep-alive per ``heartbeat`` s each for ``window`` s, and what its clients received."""
    ctx = multiprocessing.get_context("fork")
    port_out, stop = ctx.Queue(), ctx.Event()
    loop = ctx.Process(target=_keep_alive_loop, args=(count, heartbeat, port_out, stop), daemon=True)
    loop.start()
    try:
        crowd = Crowd(port_out.get(timeout=30), "floor", count, procs)
        time.sleep(2.0)
        cpu = process_cpu_s(loop.pid or 0)
        time.sleep(window)
        cpu = process_cpu_s(loop.pid or 0) - cpu
        watchers = crowd.gather()
    finally:
        stop.set()
        loop.join(10)
    return cpu, watchers


def idle(args: argparse.Namespace) -> None:
    """``--idle``: open streams to live games where nothing moves; the server's CPU per open stream
    per second over ``--idle-s`` s, beside the bare keep-alive loop's (same heartbeat, same clients).

    The stream caps are on (as in production: every stream holds a slot in Redis that must stay
    alive while it is open), raised so the bench's one address may open them all."""
    svc = GameService(redis.Redis.from_url(args.redis_url))
    heartbeat = args.heartbeat
    caps = str(args.spectators * 2 + 100)
    # the bots of one address share one request budget (service.limits): room for a stream each
    extra = {"HOURGLASS_RATE_LIMIT": "600" if args.kind == "game" else caps, "HOURGLASS_ANON_RATE_LIMIT": "1000000",
             "HOURGLASS_SSE_PER_ADDRESS": caps,
             "HOURGLASS_SSE_PER_TOKEN": caps, "HOURGLASS_WORK_BUDGET": caps, "HOURGLASS_WORK_PERIOD_S": "1",
             "HOURGLASS_MAX_LIVE_GAMES_PER_ADDRESS": caps, "HOURGLASS_SSE_HEARTBEAT": f"{heartbeat:g}"}
    hub, hub_path = start_hub(args.redis_url, args.hub_nice, extra) if args.hub else (None, "")
    server, port = start_server(args.redis_url, args.worker_class, 2, hub_path, extra)
    base = f"http://127.0.0.1:{port}"
    games: list[str] = []
    parts: dict[str, float] = {}
    subscribers: list[str] = []
    try:
        if args.kind == "game":
            games = [create(base)["id"] for _ in range(args.games)]
            targets = games
        else:
            subscribers, targets = subscriber_streams(svc.store.conn, args.kind, args.spectators)
        crowd = Crowd(port, targets, args.spectators, args.client_procs)
        if hub is not None and args.kind == "game":  # the other streams stay in the web workers
            joined(hub, hub_path, crowd.count)
        time.sleep(2.0)
        web0, hub0 = server_cpu_s(server), process_cpu_s(hub.pid) if hub else 0.0
        time.sleep(args.idle_s)
        parts = {"web workers": server_cpu_s(server) - web0}
        if hub is not None:
            parts["stream process"] = process_cpu_s(hub.pid) - hub0
        watchers = crowd.gather()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        if hub is not None:
            hub.terminate()
            hub.wait(timeout=10)
        forget(svc.store.conn, games)
        if subscribers:
            (Accounts if args.kind == "account" else BotRegistry)(svc.store.conn).delete(subscribers)
    floor_cpu, floor = keep_alive_floor(args.spectators, heartbeat, args.idle_s, args.client_procs)
    open_streams = max(1, watchers.connected)

    def per_stream(cpu: float, streams: int) -> float:
        return cpu / args.idle_s / max(1, streams) * 1e6

    total = sum(parts.values())
    layout = f"2 workers handing the streams to a stream process (--hub, nice {args.hub_nice})" if hub else "2 workers"
    followed = f"over {args.games} game(s)" if args.kind == "game" else f"of as many {args.kind}s"
    print(f"idle streams: gunicorn {args.worker_class}, {layout}; {args.spectators} {args.kind} streams {followed} "
          f"with no move, heartbeat {heartbeat:g} s, measured over {args.idle_s:g} s; {watchers.connected} connected, "
          f"{watchers.failed} failed; load average {os.getloadavg()[0]:.2f}")
    split = ", ".join(f"{name} {per_stream(cpu, open_streams):.2f}" for name, cpu in parts.items())
    print(f"server CPU while idle: {total:.3f} s = {per_stream(total, open_streams):.2f} µs per open stream per second "
          f"({split}); {per_stream(total, open_streams) * 10_000 / 1e6 * 100:.1f}% of a core per 10,000 streams")
    print(f"bare keep-alive loop, the same streams and heartbeat: {floor_cpu:.3f} s = "
          f"{per_stream(floor_cpu, floor.connected):.2f} µs per stream per second ({floor.connected} connected); "
          f"the server is {total / max(floor_cpu, 1e-9):.1f}x the loop")
    print(f"keep-alives received per stream: server {watchers.beats / open_streams:.2f}, "
          f"loop {floor.beats / max(1, floor.connected):.2f}")


def subscriber_streams(conn: redis.Redis, kind: str, count: int) -> tuple[list[str], list[str]]:
    """``count`` new accounts (``kind`` "account") or pull bots ("bot"), and for each its event
    stream as a Spectators target: "<path> <bearer token>"."""
    run = os.urandom(3).hex()
    ids, targets = [], []
    for i in range(count):
        if kind == "account":
            made = Accounts(conn).create(f"b{run}{i}")
            ids.append(made["id"])
            targets.append(f"/api/v1/account/events/stream {made['key']}")
        else:
            made = BotRegistry(conn).register(f"b{run}{i}", "pull")
            ids.append(made["id"])
            targets.append(f"/api/v1/bots/{made['id']}/events/stream {made['token']}")
    return ids, targets


def server_lag(path: str) -> dict[str, Any] | None:
    """The stream process's own lag figures, or None from a server that does not measure them."""
    try:
        from service.streamhub import lag_figures
    except ImportError:  # an older tree: its stream process does not measure
        return None
    try:
        return lag_figures(path)
    except (OSError, ValueError):  # a stream process that does not measure (it closes the connection)
        return None


def print_lag(lag: dict[str, Any]) -> None:
    def ms(seconds: float | None) -> str:
        return "n/a" if seconds is None else f"{seconds * 1000:.1f} ms"

    within = "every write within it" if lag["worst_s"] <= lag["bound_s"] else "NOT within it"
    print(f"server lag, append -> write on each spectator's socket ({lag['writes']} writes): p50 <= {ms(lag['p50_s'])}, "
          f"p99 <= {ms(lag['p99_s'])}, worst {ms(lag['worst_s'])}; bound {lag['bound_s']:g} s: {within}; "
          f"{lag['resyncs']} resyncs, {lag['cuts']} cut-offs")


def _spin(stop: Any) -> None:
    """A CPU burner: pure Python arithmetic until ``stop`` is set (checked every ~10 ms)."""
    count = 0
    while not stop.is_set():
        for _ in range(20_000):
            count += 1


@contextlib.contextmanager
def burners(count: int) -> Any:
    """``count`` processes at the bench's own priority, each keeping a core busy while inside."""
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    procs = [ctx.Process(target=_spin, args=(stop,), daemon=True) for _ in range(count)]
    for proc in procs:
        proc.start()
    try:
        yield
    finally:
        stop.set()
        for proc in procs:
            proc.join(5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=80)
    parser.add_argument("--worker-class", default="gevent", choices=("gevent", "gthread"))
    parser.add_argument("--hub", action="store_true",
                        help="hand the streams over to a stream process, as `hourglass serve` runs them")
    parser.add_argument("--hub-nice", type=int, default=DEFAULT_NICE,
                        help="the stream process's CPU priority decrement (serve's default: %(default)s)")
    parser.add_argument("--split", action="store_true",
                        help="serve the streams from a server of their own (1 worker each) instead of 2 shared workers")
    parser.add_argument("--pace", type=float, default=0.01,
                        help="seconds between the batches before a move and its POST (a seat's thinking time)")
    parser.add_argument("--client-procs", type=int, default=2, help="spectator processes (each one asyncio loop)")
    parser.add_argument("--burn", type=int, default=0,
                        help="processes spinning on the CPU for the whole run (other work on the machine)")
    parser.add_argument("--lag-s", type=float, default=None,
                        help="the servers' lag bound (HOURGLASS_STREAM_LAG_S; default: the app's)")
    parser.add_argument("--idle", action="store_true",
                        help="no moves: the server's CPU per open stream per second beside a bare keep-alive loop's")
    parser.add_argument("--idle-s", type=float, default=30.0, help="--idle: seconds measured (default %(default)s)")
    parser.add_argument("--games", type=int, default=1, help="--idle: live games the streams follow, in turn")
    parser.add_argument("--kind", default="game", choices=("game", "account", "bot"),
                        help="--idle: whose streams: spectators of games, accounts' or pull bots' (one each)")
    parser.add_argument("--heartbeat", type=float, default=15.0,
                        help="--idle: the servers' SSE_HEARTBEAT, and the bare loop's (default %(default)s s)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args()
    with burners(args.burn):
        idle(args) if args.idle else run(args)


def run(args: argparse.Namespace) -> None:
    """The bench proper (see the module's docstring), under whatever load the caller set up."""
    svc = GameService(redis.Redis.from_url(args.redis_url))
    extra = {} if args.lag_s is None else {"HOURGLASS_STREAM_LAG_S": str(args.lag_s)}
    hub, hub_path = start_hub(args.redis_url, args.hub_nice, extra) if args.hub else (None, "")
    servers = [start_server(args.redis_url, args.worker_class, 1 if args.split else 2, hub_path, extra)]
    if args.split:  # a second server of the same app, for the streams only (a proxy would route by path)
        servers.append(start_server(args.redis_url, args.worker_class, 1, extra=extra))
    lag: dict[str, Any] | None = None
    port, stream_port = servers[0][1], servers[-1][1]
    base = f"http://127.0.0.1:{port}"

    def cpu() -> float:
        return sum(server_cpu_s(server) for server, _ in servers) + (process_cpu_s(hub.pid) if hub else 0.0)
    try:
        alone_game = create(base)
        cpu_alone = cpu()
        alone, _ = play(base, svc, alone_game, args.moves, 1, args.pace)  # baseline: the same server, no spectator
        cpu_alone = cpu() - cpu_alone
        forget(svc.store.conn, [alone_game["id"]])
        watchers, crowded, sent, cpu_crowded = watched(base, stream_port, svc, args.spectators, args.moves,
                                                       args.client_procs, cpu, args.pace, hub, hub_path)
        lag = server_lag(hub_path) if hub_path else None
    finally:
        for server, _ in servers:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:  # open streams hold the graceful shutdown
                server.kill()
        if hub is not None:
            hub.terminate()
            hub.wait(timeout=10)
    floor, floor_sent = fan_out_floor(args.spectators, args.moves, args.client_procs, args.pace)
    delays = [arrival - t0 for v, t0 in sent.items() for arrival in watchers.arrivals.get(v, [])]
    floor_delays = [arrival - t0 for v, t0 in floor_sent.items() for arrival in floor.arrivals.get(v, [])]
    complete = sum(1 for v in sent if len(watchers.arrivals.get(v, [])) == watchers.connected)
    layout = ("1 worker for the API + 1 for the streams (--split)" if args.split else
              f"2 workers handing the streams to a stream process (--hub, nice {args.hub_nice})" if args.hub
              else "2 workers serving both")
    busy = f"; {args.burn} CPU burners" if args.burn else ""
    print(f"gunicorn {args.worker_class}, {layout}{busy}; a move every {args.pace * 1000:.0f} ms + its requests; "
          f"{args.spectators} spectators: {watchers.connected} connected, "
          f"{watchers.failed} failed")
    print(f"POST move (baseline, no spectator): p50 {statistics.median(alone) * 1000:.2f} ms, "
          f"p99 {percentile(alone, 0.99) * 1000:.2f} ms")
    if crowded:
        print(f"POST move with the spectators:      p50 {statistics.median(crowded) * 1000:.2f} ms, "
              f"p99 {percentile(crowded, 0.99) * 1000:.2f} ms "
              f"({statistics.median(crowded) / statistics.median(alone):.2f}x the baseline p50)")
    if crowded:
        per_move, per_move_alone = cpu_crowded / len(crowded), cpu_alone / len(alone)
        print(f"server CPU per move: {per_move_alone * 1000:.2f} ms alone, {per_move * 1000:.2f} ms with the spectators "
              f"(about {(per_move - per_move_alone) / max(1, watchers.connected) * 1e6:.1f} µs per spectator per move, "
              "SYSTEM batches included)")
    if delays:
        print(f"move -> every spectator: p50 {percentile(delays, 0.5) * 1000:.1f} ms, "
              f"p99 {percentile(delays, 0.99) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms; "
              f"{complete}/{len(sent)} batches reached every connected spectator")
    if watchers.resyncs:
        print(f"resync lines received by the spectators: {watchers.resyncs}")
    if lag is not None:
        print_lag(lag)
    if floor_delays:
        print(f"floor, the same spectators fed by a bare non-blocking send loop: p50 "
              f"{percentile(floor_delays, 0.5) * 1000:.1f} ms, p99 {percentile(floor_delays, 0.99) * 1000:.1f} ms, "
              f"max {max(floor_delays) * 1000:.1f} ms ({floor.connected} connected)")


if __name__ == "__main__":
    main()
