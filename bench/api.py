"""API benchmark: POST moves against gunicorn on loopback (the default ``hourglass serve`` web
settings, rate limiter ON); prints p50/p99 latency and moves/s for 1 client and for N concurrent
clients (``--clients``, default 16), and, in the same run, the baselines:

- the same client against a minimal Flask route (``bench/minimal_wsgi.py``) served by the same
  gunicorn command (worker class, workers, connections): the web server's own floor;
- raw Redis round trips back to back (PING, XADD of an entry the size of a move's);
- interleaved, with both servers up: one client posting moves chosen in its own process to the
  API and, after each, the same request to the minimal route; each server's CPU over the run (its
  master's and workers' time on a CPU, from /proc/<pid>/task/*/schedstat in nanoseconds; psutil's
  tick-grained user + system elsewhere) per request (the games' creation requests are counted
  among the API's), and both p50s. Alternating request by request, a busy machine slows both alike.

The client adds no overhead of its own: ``http.client`` on a keep-alive connection with the
request's body and headers built before the clock starts, one client per process (N processes).
Only the POST of each move is timed. Choosing the move and the SYSTEM steps a worker would append
(run in the client's process through GameService) are not. The concurrent run is made twice: with
each move chosen from GET .../moves (a play loop, so the server also answers those GETs), and with
each move chosen in the client's process from the game it loads anyway (the server answers only
the timed POSTs).

    REDIS_URL=redis://127.0.0.1:6379/0 python bench/api.py [--moves 800] [--clients 16]

Never asserts timings. (tests/service/test_round_trips.py counts the POST's Redis round trips.)
"""
from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.games import Game, GameService  # noqa: E402
from core.store import EventStore  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from service.cli import gunicorn_command  # noqa: E402


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def redis_baseline(conn: redis.Redis, n: int = 2000) -> tuple[float, float]:
    key = f"hg:{{bench-{secrets.token_hex(4)}}}:events"
    entry = json.dumps({"seq": 0, "type": "FollowerPlaced", "data": {"seat": 1, "place": "farmhouse",
                                                                     "followers": ["farmer", "boatman"]},
                        "actor": 1, "time": "2026-01-01T00:00:00.000Z", "command": {"type": "PlaceFollowers"}})
    ping, xadd = [], []
    try:
        for i in range(n):
            t = time.perf_counter()
            conn.ping()
            ping.append(time.perf_counter() - t)
            t = time.perf_counter()
            conn.xadd(key, {"entry": entry, "hash": "0" * 64}, id=f"{i + 1}-0")
            xadd.append(time.perf_counter() - t)
    finally:
        conn.delete(key)
    return statistics.median(ping), statistics.median(xadd)


def start_server(url: str, app: str = "service.wsgi:app") -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "REDIS_URL": url, "HOURGLASS_ADVANCE": "off",
           "HOURGLASS_RATE_LIMIT": "1000000", "HOURGLASS_MAX_LIVE_GAMES_PER_ADDRESS": "0",
           "HOURGLASS_CREATE_RATE_LIMIT": "0", "HOURGLASS_ANON_RATE_LIMIT": "0", "HOURGLASS_WORK_BUDGET": str(10**9)}
    command = [*gunicorn_command("127.0.0.1", port)[:-1], app]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("gunicorn did not start")


class Client:
    """One keep-alive connection; ``call`` sends a pre-built request and reads the whole answer."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port)

    def call(self, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        self.conn.request(method, path, body=body, headers=headers or {})
        response = self.conn.getresponse()
        return response.status, response.read()


def worker_steps(svc: GameService, game_id: str) -> Game | None:
    """Append SYSTEM steps as a worker would; the game a seat is then to act in, None once it is over."""
    game = svc.load(game_id)
    while not game.finished:
        if SYSTEM not in game.to_act:
            return game
        game = svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM), expected_version=game.version,
                         idempotency_key=f"advance:{game.version}").game
    return None


def play_moves(args: tuple[str, int, int, int, bool]) -> tuple[list[float], list[str]]:
    """One client: play Orléans games by POSTing random legal moves; the POSTs' latencies.

    ``listed``: each move is chosen from GET .../moves; otherwise from the legal moves of the
    game as the client's own GameService loaded it (no request but the timed POST).
    """
    latencies, games, _ = play_interleaved((*args, 0))
    return latencies, games


def play_interleaved(args: tuple[str, int, int, int, bool, int]) -> tuple[list[float], list[str], list[float]]:
    """``play_moves``, and with ``echo_port`` the minimal route's request after each POST (timed too)."""
    url, port, moves, seed, listed, echo_port = args
    svc = GameService(redis.Redis.from_url(url))
    client = Client(port)
    echo = Client(echo_port) if echo_port else None
    echo_latencies: list[float] = []
    rng = random.Random(seed)
    latencies: list[float] = []
    games: list[str] = []
    create = json.dumps({"game": "orleans", "edition": "classic",
                         "seats": [{"name": f"P{i}"} for i in range(4)]}).encode()
    json_headers = {"Content-Type": "application/json"}
    while len(latencies) < moves:
        status, raw = client.call("POST", "/api/v1/games", create, json_headers)
        if status != 201:
            raise RuntimeError(f"create failed: {status} {raw[:300]!r}")
        created = json.loads(raw)
        game_id = created["id"]
        games.append(game_id)
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        path = f"/api/v1/games/{game_id}/moves"
        while len(latencies) < moves and (game := worker_steps(svc, game_id)) is not None:
            seat = min(a for a in game.to_act if a != SYSTEM)
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            if listed:
                status, raw = client.call("GET", path, None, auth)
                page = json.loads(raw)
                version, move = page["version"], rng.choice(page["moves"])
            else:
                version = game.version
                move = game.rules.move_to_json(rng.choice(game.rules.legal_moves(game.state, seat)))
            body = json.dumps(move).encode()
            headers = {**auth, **json_headers, "If-Match": str(version)}
            t = time.perf_counter()
            status, raw = client.call("POST", path, body, headers)
            latencies.append(time.perf_counter() - t)
            if status not in (200, 412):  # 412: a worker step of another client raced (never here: one game each)
                raise RuntimeError(f"move rejected: {status} {raw[:300]!r}")  # not SystemExit: a pool would hang
            if echo is not None:
                t = time.perf_counter()
                status, _ = echo.call("POST", "/echo", ECHO_BODY, ECHO_HEADERS)
                echo_latencies.append(time.perf_counter() - t)
                assert status == 200
    return latencies, games, echo_latencies


ECHO_BODY = json.dumps({"type": "PlaceFollowers", "place": "farmhouse", "followers": ["farmer"]}).encode()
ECHO_HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer " + "x" * 32, "If-Match": "12"}


def echo_calls(args: tuple[int, int]) -> list[float]:
    port, n = args
    client = Client(port)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        status, _ = client.call("POST", "/echo", ECHO_BODY, ECHO_HEADERS)
        out.append(time.perf_counter() - t)
        assert status == 200
    return out


def server_cpu(proc: subprocess.Popen[bytes]) -> float:
    """CPU seconds gunicorn's master and its workers have used so far: their threads' time on a CPU
    (schedstat, in ns) where Linux has it, else user + system (in clock ticks)."""
    processes = [psutil.Process(proc.pid)]
    processes += processes[0].children(recursive=True)
    total = 0.0
    for p in processes:
        with contextlib.suppress(psutil.NoSuchProcess, OSError):
            tasks = list(Path(f"/proc/{p.pid}/task").glob("*/schedstat"))
            if tasks:
                total += sum(int(t.read_text().split()[0]) for t in tasks) / 1e9
                continue
            times = p.cpu_times()
            total += times.user + times.system
    return total


def fan_out(fn: Any, jobs: list[Any]) -> tuple[list[Any], float]:
    ctx = multiprocessing.get_context("fork")
    started = time.perf_counter()
    with ctx.Pool(len(jobs)) as pool:
        results = pool.map(fn, jobs)
    return results, time.perf_counter() - started


def line(label: str, samples: list[float], seconds: float | None = None) -> str:
    rate = f", {len(samples) / seconds:.0f}/s" if seconds else ""
    return (f"  {label:<44} n={len(samples):<5} p50 {percentile(samples, 0.5) * 1000:6.2f} ms  "
            f"p99 {percentile(samples, 0.99) * 1000:6.2f} ms{rate}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=800, help="POSTs per run (split among the clients)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args()
    conn = redis.Redis.from_url(args.redis_url)
    games: list[str] = []
    proc, port = start_server(args.redis_url)
    try:
        games += play_moves((args.redis_url, port, 20, 0, True))[1]  # warm both gunicorn workers' imports
        sequential, seq_games = play_moves((args.redis_url, port, args.moves, 1, True))
        games += seq_games
        minimal, minimal_port = start_server(args.redis_url, "bench.minimal_wsgi:app")
        try:
            echo_calls((minimal_port, 50))
            before, echo_before = server_cpu(proc), server_cpu(minimal)
            own, own_games, echo_one = play_interleaved((args.redis_url, port, args.moves, 2, False, minimal_port))
            post_cpu = (server_cpu(proc) - before) / (len(own) + len(own_games))
            echo_cpu = (server_cpu(minimal) - echo_before) / len(echo_one)
        finally:
            minimal.terminate()
            minimal.wait(timeout=15)
        games += own_games
        per_client = max(1, args.moves // args.clients)
        concurrent: dict[bool, tuple[list[float], float]] = {}
        for listed in (True, False):
            results, wall = fan_out(play_moves, [(args.redis_url, port, per_client, 100 + i, listed)
                                                 for i in range(args.clients)])
            concurrent[listed] = [x for lat, _ in results for x in lat], wall
            games += [g for _, gs in results for g in gs]
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    proc, port = start_server(args.redis_url, "bench.minimal_wsgi:app")
    try:
        echo_calls((port, 50))
        echo_results, echo_wall = fan_out(echo_calls, [(port, per_client)] * args.clients)
        echo_many = [x for r in echo_results for x in r]
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    ping, xadd = redis_baseline(conn)
    EventStore(conn).delete(games)
    print(f"POST /api/v1/games/{{id}}/moves (gunicorn: {' '.join(gunicorn_command('h', 0)[5:9])}, rate limiter on)")
    print(line("1 client, GET+POST", sequential))
    print(line("1 client, POST only (interleaved)", own) + f"  server CPU {post_cpu * 1e6:.0f} us/request "
          f"({len(own)} moves + {len(own_games)} creates)")
    print(line(f"{args.clients} concurrent clients, GET+POST", *concurrent[True]))
    print(line(f"{args.clients} concurrent clients, POST only", *concurrent[False]))
    print("Baseline, same client and server settings: minimal Flask route POST /echo")
    print(line("1 client (interleaved with the POSTs)", echo_one) + f"  server CPU {echo_cpu * 1e6:.0f} us/request")
    print(line(f"{args.clients} concurrent clients, POST only", echo_many, echo_wall))
    print(f"Redis baseline (same run): PING p50 {ping * 1000:.3f} ms, XADD p50 {xadd * 1000:.3f} ms (back to back)")
    p50 = percentile(own, 0.5)
    print(f"  ratio: POST p50 (1 client, POST only) / XADD p50 = {p50 / xadd:.1f}x; "
          f"POST p50 / minimal route p50 = {p50 / percentile(echo_one, 0.5):.1f}x")
    print(f"  ratio: server CPU per POST / per minimal route request = {post_cpu / echo_cpu:.1f}x; "
          f"p99 at {args.clients} clients (POST only) {percentile(concurrent[False][0], 0.99) * 1000:.2f} ms "
          f"against the route's {percentile(echo_many, 0.99) * 1000:.2f} ms")
    print(f"  load average while printing: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
