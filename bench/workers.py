"""Bot-vs-bot games through Redis + RQ, against the same games played in-process.

Prints games per minute and per-move latency (p50/p99) for:

- the in-process baseline (``workers.selfplay``: decide + evolve only);
- Redis + RQ with one in-process SimpleWorker (a slice decides its moves on the game in memory and
  stores them in one Lua append; the per-move figure is the time between two consecutive appends
  of one game divided by the moves the later one stored);
- optionally N ``hourglass worker --burst`` processes (``--procs N``; wall time only);
- SYSTEM steps through a real ``hourglass worker`` process, as a game with four humans makes them
  (``--steps-games N``, default 2): the time from the enqueue after a human's move to the worker's
  first appended batch, by stage of the game, for the default worker and for ``--fork`` (a work
  horse per job, each starting cold) side by side;
- a cold ``GET /state`` and ``GET /replay`` of each finished game (an app that has not seen the
  game), beside the cold load from zero (the same GET with the game's snapshot removed);

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

from rq import SimpleWorker  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402

from core import clocks  # noqa: E402
from core.connection import connect, redis_url  # noqa: E402
from core.games import GameService  # noqa: E402
from core.store import EventStore, events_key, snap_key  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from domain.orleans import RULES  # noqa: E402
from workers.enqueue import enqueue_advance, lane_queues  # noqa: E402
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
    stamps: dict[str, list[tuple[float, int]]] = defaultdict(list)  # (when, moves stored) per append
    real_apply, real_run = GameService.apply, GameService.apply_planned

    def timed_apply(self: GameService, game_id: str, *args: Any, **kwargs: Any) -> Any:
        out = real_apply(self, game_id, *args, **kwargs)
        stamps[game_id].append((time.perf_counter(), 1))
        return out

    def timed_run(self: GameService, game_id: str, run: Any) -> Any:  # a slice's run: one append
        out = real_run(self, game_id, run)
        stamps[game_id].append((time.perf_counter(), len(run)))
        return out

    started = time.perf_counter()
    ids = create_games(svc, seeds)
    for game_id in ids:
        enqueue_advance(conn, game_id, svc.load(game_id).version)
    GameService.apply = timed_apply  # type: ignore[method-assign]
    GameService.apply_planned = timed_run  # type: ignore[method-assign]
    try:
        SimpleWorker(lane_queues(conn), connection=conn, serializer=JSONSerializer).work(
            burst=True, logging_level="WARNING")
    finally:
        GameService.apply, GameService.apply_planned = real_apply, real_run  # type: ignore[method-assign]
    seconds = time.perf_counter() - started
    moves = [(b - a) / n for ts in stamps.values() for (a, _), (b, n) in zip(ts, ts[1:]) for _ in range(n)]
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


def system_steps(conn: Any, games: int, queue_name: str, mode: list[str]) -> list[tuple[float, float]]:
    """(seconds from enqueue to the worker's first batch, fraction of the game done) per SYSTEM step."""
    stamps: dict[str, float] = {}

    def advance(game_id: str, version: int) -> None:
        stamps[game_id] = time.perf_counter()
        enqueue_advance(conn, game_id, version)

    svc = GameService(conn, advance=advance, client_seeds="any")
    cmd = [sys.executable, "-m", "workers.cli", "--queue", queue_name, "--logging-level", "WARNING",
           "--sweep-interval", "0", *mode]
    worker = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "REDIS_URL": redis_url()})
    samples: list[tuple[float, int, str]] = []
    ids: list[str] = []
    rng = __import__("random").Random(7)
    try:
        for n in range(games):
            created = svc.create({"game": "orleans", "edition": "classic", "seed": f"steps-{n}",
                                  "seats": [{"name": f"H{i}"} for i in range(4)]})
            game_id = created["id"]
            ids.append(game_id)
            while True:
                game = svc.load(game_id)
                if game.finished:
                    break
                if SYSTEM in game.to_act:
                    seen = game.version
                    found = conn.xread({events_key(game_id): f"{seen}-0"}, block=30_000, count=1)
                    if not found:
                        raise SystemExit("the worker did not step within 30 s")
                    samples.append((time.perf_counter() - stamps[game_id], seen, game_id))
                    while SYSTEM in svc.load(game_id).to_act:  # the rest of the job's steps
                        conn.xread({events_key(game_id): f"{svc.load(game_id).version}-0"}, block=1000, count=1)
                    continue
                seat = min(a for a in game.to_act if a != SYSTEM)
                move = rng.choice(game.rules.legal_moves(game.state, seat))
                svc.apply(game_id, seat, move, expected_version=game.version)
        lengths = {g: svc.load(g).version for g in ids}
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        EventStore(conn).delete(ids)
    return [(dt, version / lengths[g]) for dt, version, g in samples[1:]]  # the first job also woke the worker


def report_steps(label: str, samples: list[tuple[float, float]]) -> None:
    times = [dt for dt, _ in samples]
    thirds = [[dt for dt, at in samples if lo <= at < hi] for lo, hi in ((0, 1 / 3), (1 / 3, 2 / 3), (2 / 3, 1.01))]
    print(f"{label:<34} {len(times)} steps   p50 {pct(times, 0.5) * 1000:6.2f} ms  p99 {pct(times, 0.99) * 1000:6.2f} ms  "
          f"max {max(times) * 1000:6.2f} ms   p50 by third of the game: "
          + " / ".join(f"{pct(t, 0.5) * 1000:.2f}" for t in thirds) + " ms")


def cold_reads(conn: Any, ids: list[str]) -> None:
    """GET /state and /replay of finished games by an app that has not seen them."""
    from service.app import create_app

    def fresh() -> Any:
        return create_app({"REDIS": conn, "TESTING": True, "RATE_LIMIT": 0, "ADVANCE": lambda g, v: None}).test_client()

    warm = fresh()
    warm.get(f"/api/v1/games/{ids[0]}/state")  # imports and first-request set-up, not a cold game
    with_snap: list[float] = []
    from_zero: list[float] = []
    replay_first: list[float] = []
    replay_stored: list[float] = []
    for game_id in ids[1:]:
        t = time.perf_counter()
        assert warm.get(f"/api/v1/games/{game_id}/state").status_code == 200
        with_snap.append(time.perf_counter() - t)
    zero = fresh()
    zero.get(f"/api/v1/games/{ids[0]}/state")
    for game_id in ids[1:]:
        saved = conn.dump(snap_key(game_id))
        conn.delete(snap_key(game_id))
        t = time.perf_counter()
        assert zero.get(f"/api/v1/games/{game_id}/state").status_code == 200
        from_zero.append(time.perf_counter() - t)
        if saved is not None:
            conn.restore(snap_key(game_id), 0, saved, replace=True)
        for out in (replay_first, replay_stored):
            t = time.perf_counter()
            assert zero.get(f"/api/v1/games/{game_id}/replay").status_code == 200
            out.append(time.perf_counter() - t)
    events = sum(EventStore(conn).version(g) for g in ids[1:]) / len(ids[1:])
    print(f"cold GET /state, finished game ({events:.0f} events): p50 {pct(with_snap, 0.5) * 1000:.2f} ms "
          f"max {max(with_snap) * 1000:.2f} ms;  baseline, folded from zero: p50 {pct(from_zero, 0.5) * 1000:.2f} ms "
          f"max {max(from_zero) * 1000:.2f} ms")
    print(f"GET /replay, finished game: first request (builds and stores) p50 {pct(replay_first, 0.5) * 1000:.2f} ms; "
          f"later (stored) p50 {pct(replay_stored, 0.5) * 1000:.2f} ms")


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
    parser.add_argument("--steps-games", type=int, default=2, help="human games for the SYSTEM step figures")
    parser.add_argument("--only-steps", action="store_true", help="just the SYSTEM step and cold read figures")
    args = parser.parse_args()
    seeds = [f"bench-{uuid.uuid4().hex[:8]}-{i}" for i in range(args.games)]
    conn = connect(redis_url())
    queue_name = f"hg-bench-{uuid.uuid4().hex[:8]}"
    os.environ["HOURGLASS_QUEUE"] = queue_name
    print(f"{args.games} games of 4 bots (random, greedy, random, greedy), classic; Redis {redis_url()}")
    if not args.only_steps:
        baseline(seeds)
    ids = through_rq(conn, seeds, queue_name)
    cold_reads(conn, ids)
    if args.procs:
        ids += through_processes(conn, [s + "-p" for s in seeds], queue_name, args.procs)
    EventStore(conn).delete(ids)
    if args.steps_games:
        report_steps("SYSTEM step, hourglass worker", system_steps(conn, args.steps_games, queue_name, []))
        report_steps("  baseline: --fork (horse per job)", system_steps(conn, args.steps_games, queue_name, ["--fork"]))
    conn.delete(*(clocks.clock_key(g) for g in ids))
    conn.delete(*conn.scan_iter(f"rq:*:{queue_name}"), f"rq:queue:{queue_name}")  # this run's own RQ keys
    conn.srem("rq:queues", f"rq:queue:{queue_name}")
    if not args.only_steps:
        win_rate(args.winrate_games)


if __name__ == "__main__":
    main()
