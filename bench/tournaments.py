"""Tournament games per minute through Redis, RQ workers and the tournament runner, against the
same games played in-process (``workers.selfplay``) in the same run. Never asserts timings. It runs a
real tournament, so its games also enter that Redis's leaderboard: point it at a test Redis.

The tournament is a round robin of built-in bots (every pairing in both seatings,
``--games-per-pairing`` times), run by ``--procs`` ``hourglass worker`` processes on a private
queue; the figure covers everything a tournament does per game: creating it with its derived seed,
the worker's advance jobs, the replay bundle, the stream events and the rating updates.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/tournaments.py --game artificium --games-per-pairing 5
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rq import Worker  # noqa: E402

from core.bots import BotRegistry  # noqa: E402
from core.connection import connect, redis_url  # noqa: E402
from core.leaderboard import Leaderboard, board_key  # noqa: E402
from core.store import EventStore  # noqa: E402
from core.tournament_store import TournamentStore  # noqa: E402
from core.tournaments import game_seed  # noqa: E402
from domain.games import get_game  # noqa: E402
from workers.enqueue import queue  # noqa: E402
from workers.selfplay import play  # noqa: E402
from workers.tournaments import enqueue_tick  # noqa: E402

BUILTINS = ("random", "greedy")


def tournament_run(conn: object, args: argparse.Namespace, queue_name: str) -> tuple[str, float, float, int]:
    """(tournament id, wall seconds, the worker processes' CPU seconds, games) from creation to its end."""
    store = TournamentStore(conn)  # type: ignore[arg-type]
    spec = {"name": "bench", "game": args.game, "players_per_game": 2, "format": "round_robin",
            "games_per_pairing": args.games_per_pairing, "parallel": args.parallel,
            "entrants": [{"builtin": b} for b in BUILTINS]}
    env = {**os.environ, "REDIS_URL": args.redis, "HOURGLASS_QUEUE": queue_name}
    procs = [subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--queue", queue_name,
                               "--logging-level", "WARNING"], cwd=ROOT, env=env) for _ in range(args.procs)]
    try:
        ready(conn, queue_name, len(procs))  # the workers have imported the engine: the clock starts
        started, idle = time.perf_counter(), process_cpu([p.pid for p in procs])
        tid = store.create(spec, BotRegistry(conn), Leaderboard(conn))["id"]  # type: ignore[arg-type]
        os.environ["HOURGLASS_QUEUE"] = queue_name
        enqueue_tick(conn, tid)  # type: ignore[arg-type]
        while not store.load(tid).tournament.finished:
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        cpu = process_cpu([p.pid for p in procs]) - idle
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=20)
    return tid, seconds, cpu, len(store.load(tid).tournament.games)


def ready(conn: object, queue_name: str, procs: int, patience_s: float = 120.0) -> None:
    """Wait until ``procs`` workers listen on the queue (RQ registers one once it has started)."""
    deadline = time.monotonic() + patience_s
    while Worker.count(queue=queue(conn, queue_name)) < procs:  # type: ignore[arg-type]
        if time.monotonic() > deadline:
            raise SystemExit(f"{procs} workers did not start within {patience_s:.0f} s")
        time.sleep(0.1)
    time.sleep(0.5)  # from registered to waiting on the queue


def process_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes ``pids`` and their waited-for children have used
    (Linux ``/proc/<pid>/stat``: utime, stime, cutime, cstime; RQ's scheduler is such a child)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(f) for f in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


def selfplay_run(conn: object, tid: str, game: str) -> tuple[float, float]:
    """The same games (same seeds, same seats, same ids) in-process: decide and evolve only."""
    t = TournamentStore(conn).load(tid).tournament  # type: ignore[arg-type]
    seed = TournamentStore(conn).seed(tid)  # type: ignore[arg-type]
    rules = get_game(game)
    started, cpu = time.perf_counter(), time.process_time()
    for g in t.games:
        seats = [{"kind": "bot", "bot": t.entrants[n].builtin} for n in g.seats]
        config = {"players": 2, **({"edition": t.settings.edition} if t.settings.edition else {})}
        play(rules, config, game_seed(seed, tid, g.index), t.game_id(g.index), seats)
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="artificium")
    p.add_argument("--games-per-pairing", type=int, default=5)
    p.add_argument("--parallel", type=int, default=4)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--redis", default=os.environ.get("REDIS_URL") or redis_url())
    args = p.parse_args()
    conn = connect(args.redis)
    queue_name = f"hg-bench-tournament-{uuid.uuid4().hex[:8]}"
    tid, seconds, workers_cpu, games = tournament_run(conn, args, queue_name)
    baseline, baseline_cpu = selfplay_run(conn, tid, args.game)
    print(f"{args.game}, 2-player round robin of {', '.join(BUILTINS)}: {games} games, {args.procs} worker processes, "
          f"parallel {args.parallel}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'tournament through Redis + RQ':<34} {games / seconds * 60:9.1f} games/min   ({seconds:.2f} s; "
          f"workers' CPU {workers_cpu / games * 1000:.0f} ms per game)")
    print(f"{'in-process self-play (baseline)':<34} {games / baseline * 60:9.1f} games/min   ({baseline:.2f} s; "
          f"CPU {baseline_cpu / games * 1000:.0f} ms per game)")
    print(f"{'ratio (through RQ / in-process)':<34} {baseline / seconds:9.3f}x rate   "
          f"{baseline_cpu / workers_cpu:.3f}x CPU per game")
    t = TournamentStore(conn).load(tid).tournament
    EventStore(conn).delete([g.game_id for g in t.games if g.game_id])
    TournamentStore(conn).delete([tid])
    conn.srem(f"{board_key(args.game, t.settings.edition)}:applied", tid)
    queue(conn, queue_name).delete(delete_jobs=True)


if __name__ == "__main__":
    main()
