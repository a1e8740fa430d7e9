"""What one decision of each built-in bot costs, per game: the figures behind ``workers.lanes``.

Plays ``--games`` games per (game, bot) in-process, the bot under test in seat 0 and ``random``
in the other seats, and times every decision of seat 0 (the policy call only, wall clock and CPU).
Prints per (game, bot) the decisions timed, p50 / p99 / max milliseconds, and the lane
``workers.lanes`` gives the bot, next to the same figures for ``random`` (the baseline) from the
same run. A bot whose p99 is above ``workers.lanes.SLICE_S`` would overrun a job's slice with one
decision, so its decisions run on the slow queue, one per job. Never asserts timings.

Usage: python bench/botcost.py [--games 3] [--players 4] [--seed bench-botcost]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's packages, not an installed copy

from domain.bots import bot_names, bot_rng, get_bot  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from domain.games import fold, game_names, get_game, step  # noqa: E402
from domain.rng import Rng  # noqa: E402
from workers.lanes import SLICE_S, bot_lane  # noqa: E402

MAX_DECISIONS = 20_000


def timed_game(game: str, bot: str, players: int, seed: bytes, game_id: str) -> list[float]:
    """Seconds of every decision seat 0 (``bot``) made in one game against random bots."""
    rules = get_game(game)
    config = rules.config_from_json({"players": players})
    state = fold(rules, rules.setup(config, Rng(seed, game_id, 0)))
    version = 0
    spent: list[float] = []
    for _ in range(MAX_DECISIONS):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        moves = rules.legal_moves(state, SYSTEM if SYSTEM in acting else min(acting))
        if SYSTEM in acting:
            command = moves[0]
        else:
            seat = min(a for a in acting if isinstance(a, int))  # SYSTEM is not among them here
            policy = get_bot(bot if seat == 0 else "random", game)
            started = time.perf_counter()
            command = policy(rules, state, seat, moves, bot_rng(seed, game_id, seat, version))
            if seat == 0:
                spent.append(time.perf_counter() - started)
        events, state = step(rules, state, command, Rng(seed, game_id, rules.draw_counter(state)))
        version += len(events)
    return spent


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", default="bench-botcost")
    args = parser.parse_args()
    print(f"slice {SLICE_S * 1000:.0f} ms; {args.games} games per row, the bot in seat 0, random elsewhere")
    print(f"{'game':<11} {'bot':<8} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  lane")
    for game in game_names():
        players = args.players if game != "cathedral" else min(args.players, 4)
        for bot in sorted(bot_names(game), key=lambda b: (b != "random", b)):  # the baseline first
            spent: list[float] = []
            for i in range(args.games):
                spent += timed_game(game, bot, players, f"{args.seed}-{i}".encode(), f"botcost-{game}-{bot}-{i}")
            ms = [s * 1000 for s in spent]
            print(f"{game:<11} {bot:<8} {len(ms):>9} {statistics.median(ms):>8.2f} {percentile(ms, 0.99):>8.2f} "
                  f"{max(ms):>8.2f}  {bot_lane(game, bot)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
