"""API benchmark: POST moves against gunicorn on loopback; prints moves/s, p50 and p99 latency,
and, measured in the same run, the p50 of raw Redis round trips (PING, XADD) as the baseline.

    python bench/api.py [--moves 600] [--redis-url redis://127.0.0.1:6379/0]

Only the POST of each move is timed. Choosing the move (GET .../moves) and the SYSTEM steps a
worker would append (run in this process through GameService) are not. Never asserts timings.
"""
from __future__ import annotations

import argparse
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.games import GameService  # noqa: E402
from core.store import EventStore  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from service.cli import gunicorn_command  # noqa: E402


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def redis_baseline(conn: redis.Redis, n: int = 2000) -> tuple[float, float]:
    key = f"hg:{{bench-{secrets.token_hex(4)}}}:events"
    ping, xadd = [], []
    try:
        for i in range(n):
            t = time.perf_counter()
            conn.ping()
            ping.append(time.perf_counter() - t)
            t = time.perf_counter()
            conn.xadd(key, {"entry": f'{{"seq":{i},"type":"Bench"}}', "hash": "0" * 64}, id=f"{i + 1}-0")
            xadd.append(time.perf_counter() - t)
    finally:
        conn.delete(key)
    return statistics.median(ping), statistics.median(xadd)


def start_server(url: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "REDIS_URL": url, "HOURGLASS_ADVANCE": "off", "HOURGLASS_RATE_LIMIT": "0"}
    proc = subprocess.Popen(gunicorn_command("127.0.0.1", port), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            requests.get(f"{base}/openapi.json", timeout=1)
            return proc, base
        except requests.ConnectionError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("gunicorn did not start")


def worker_steps(svc: GameService, game_id: str) -> bool:
    """Append SYSTEM steps as a worker would; False once the game is over."""
    while True:
        game = svc.load(game_id)
        if game.finished:
            return False
        if SYSTEM not in game.to_act:
            return True
        svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM), expected_version=game.version,
                  idempotency_key=f"advance:{game.version}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args()
    conn = redis.Redis.from_url(args.redis_url)
    svc = GameService(conn)
    proc, base = start_server(args.redis_url)
    http = requests.Session()
    rng = random.Random(1)
    latencies: list[float] = []
    games: list[str] = []
    try:
        while len(latencies) < args.moves:
            body = {"game": "orleans", "edition": "classic", "seats": [{"name": f"P{i}"} for i in range(4)]}
            created = http.post(f"{base}/api/v1/games", json=body).json()
            games.append(created["id"])
            tokens = {s["seat"]: s["token"] for s in created["seats"]}
            while len(latencies) < args.moves and worker_steps(svc, created["id"]):
                seat = min(a for a in svc.load(created["id"]).to_act if a != SYSTEM)
                auth = {"Authorization": f"Bearer {tokens[seat]}"}
                moves = http.get(f"{base}/api/v1/games/{created['id']}/moves", headers=auth).json()
                move = rng.choice(moves["moves"])
                t = time.perf_counter()
                r = http.post(f"{base}/api/v1/games/{created['id']}/moves", json=move,
                              headers={**auth, "If-Match": str(moves["version"])})
                latencies.append(time.perf_counter() - t)
                if r.status_code != 200:
                    raise SystemExit(f"move rejected: {r.status_code} {r.text}")
        ping, xadd = redis_baseline(conn)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        EventStore(conn).delete(games)
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    print(f"POST moves: {len(latencies)} in {len(games)} games, {len(latencies) / sum(latencies):.0f} moves/s "
          f"(sequential, one client)")
    print(f"  latency p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms")
    print(f"Redis baseline (same run): PING p50 {ping * 1000:.3f} ms, XADD p50 {xadd * 1000:.3f} ms")
    print(f"  ratio: move p50 / XADD p50 = {p50 / xadd:.1f}x")


if __name__ == "__main__":
    main()
