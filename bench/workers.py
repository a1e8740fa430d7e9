"""Bot-vs-bot games through Redis + RQ, against the same games played in-process.

Prints games per minute and per-move latency (p50/p99) for:

- the in-process baseline (``workers.selfplay``: decide + evolve only);
- Redis + RQ with one in-process SimpleWorker (load, decide, Lua append per move; the per-move
  figure is the time between two consecutive appends of one game);
- optionally N ``hourglass worker --burst`` processes (``--procs N``; wall time only);

and the greedy bot's win rate against three random bots. Never asserts timings.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/workers.py --games 10
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rq import Queue, SimpleWorker  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402

from core.connection import connect, redis_url  # noqa: E402
from core.games import GameService  # noqa: E402
from core.store import EventStore  # noqa: E402
from domain.orleans import RULES  # noqa: E402
from workers import clocks  # noqa: E402
from workers.enqueue import enqueue_advance  # noqa: E402
from workers.selfplay import play  # noqa: E402

SEATS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "G1", "kind": "bot", "bot": "greedy"},
         {"name": "R2", "kind": "bot", "bot": "random"}, {"name": "G2", "kind": "bot", "bot": "greedy"}]
CONFIG = {"edition": "classic", "players": 4}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def report(label: str, games: int, seconds: float, moves: list[float]) -> None:
    print(f"{label:<34} {games / seconds * 60:9.1f} games/min   {len(moves) / seconds:8.0f} moves/s   "
          f"per move p50 {pct(moves, 0.5) * 1000:7.3f} ms  p99 {pct(moves, 0.99) * 1000:7.3f} ms")


def baseline(seeds: list[str]) -> None:
    moves: list[float] = []
    started = time.perf_counter()
    for seed in seeds:
        moves += play(RULES, CONFIG, seed.encode(), f"bench-{seed}", SEATS).move_seconds
    report("in-process self-play", len(seeds), time.perf_counter() - started, moves)


def create_games(svc: GameService, seeds: list[str]) -> list[str]:
    return [svc.create({"game": "orleans", "edition": "classic", "seats": SEATS, "seed": s})["id"] for s in seeds]


def through_rq(conn: Any, seeds: list[str], queue_name: str) -> list[str]:
    svc = GameService(conn)
    stamps: dict[str, list[float]] = defaultdict(list)
    real_apply = GameService.apply

    def timed_apply(self: GameService, game_id: str, *args: Any, **kwargs: Any) -> Any:
        out = real_apply(self, game_id, *args, **kwargs)
        stamps[game_id].append(time.perf_counter())
        return out

    started = time.perf_counter()
    ids = create_games(svc, seeds)
    for game_id in ids:
        enqueue_advance(conn, game_id, svc.load(game_id).version)
    GameService.apply = timed_apply  # type: ignore[method-assign]
    try:
        q = Queue(queue_name, connection=conn, serializer=JSONSerializer)
        SimpleWorker([q], connection=conn, serializer=JSONSerializer).work(burst=True, logging_level="WARNING")
    finally:
        GameService.apply = real_apply  # type: ignore[method-assign]
    seconds = time.perf_counter() - started
    moves = [b - a for ts in stamps.values() for a, b in zip(ts, ts[1:])]
    finished = sum(GameService(conn).load(g).finished for g in ids)
    report(f"Redis+RQ, 1 worker ({finished}/{len(ids)} done)", len(ids), seconds, moves)
    return ids


def through_processes(conn: Any, seeds: list[str], queue_name: str, procs: int) -> list[str]:
    svc = GameService(conn)
    started = time.perf_counter()
    ids = create_games(svc, seeds)
    for game_id in ids:
        enqueue_advance(conn, game_id, svc.load(game_id).version)
    cmd = [sys.executable, "-m", "workers.cli", "--burst", "--queue", queue_name, "--logging-level", "WARNING"]
    env = {**os.environ, "REDIS_URL": redis_url()}
    for proc in [subprocess.Popen(cmd, cwd=ROOT, env=env) for _ in range(procs)]:
        proc.wait()
    seconds = time.perf_counter() - started
    finished = sum(GameService(conn).load(g).finished for g in ids)
    print(f"{f'Redis+RQ, {procs} worker processes':<34} {len(ids) / seconds * 60:9.1f} games/min   "
          f"({finished}/{len(ids)} finished, wall {seconds:.1f} s)")
    return ids


def win_rate(games: int) -> None:
    wins = 0
    for i in range(games):
        seat = i % 4
        seats = [{"kind": "bot", "bot": "greedy" if s == seat else "random"} for s in range(4)]
        result = RULES.result(play(RULES, CONFIG, f"winrate-{i}".encode(), f"wr{i}", seats).state)
        wins += result is not None and result["winners"] == [seat]
    print(f"greedy vs 3 random: sole winner in {wins}/{games} games ({wins / games:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--procs", type=int, default=0, help="also run N worker processes")
    parser.add_argument("--winrate-games", type=int, default=20)
    args = parser.parse_args()
    seeds = [f"bench-{uuid.uuid4().hex[:8]}-{i}" for i in range(args.games)]
    conn = connect(redis_url())
    queue_name = f"hg-bench-{uuid.uuid4().hex[:8]}"
    os.environ["HOURGLASS_QUEUE"] = queue_name
    print(f"{args.games} games of 4 bots (random, greedy, random, greedy), classic; Redis {redis_url()}")
    baseline(seeds)
    ids = through_rq(conn, seeds, queue_name)
    if args.procs:
        ids += through_processes(conn, [s + "-p" for s in seeds], queue_name, args.procs)
    EventStore(conn).delete(ids)
    conn.delete(*(clocks.clock_key(g) for g in ids))
    conn.delete(*conn.scan_iter(f"rq:*:{queue_name}"), f"rq:queue:{queue_name}")  # this run's own RQ keys
    conn.srem("rq:queues", f"rq:queue:{queue_name}")
    win_rate(args.winrate_games)


if __name__ == "__main__":
    main()
