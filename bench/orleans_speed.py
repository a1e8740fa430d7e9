"""Decisions per CPU-second of random 4-player classic Orléans, for several checkouts in one run.

Each round plays the same seeded games once per checkout, each in a fresh process (so no cache
or import of one checkout helps another), and times them with ``time.process_time`` (CPU time:
steadier than wall time on a shared machine). Rounds interleave the checkouts; the figures are
min / median / max over rounds, and each checkout's ratio to the first one in the same round.
Never asserts timings. docs/performance.md records the runs this served.

Usage: python bench/orleans_speed.py [--games N] [--rounds N] [--no-relist] CHECKOUT [CHECKOUT ...]
(a checkout is a directory holding domain/; ``.`` is this one. ``--no-relist`` adds, per
checkout that has it, a variant with ``dispatch.RELIST`` emptied.)
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from domain.games import get_game
from domain.selfplay import play
rules = get_game("orleans")
if {no_relist}:
    from domain.orleans import dispatch
    dispatch.RELIST.clear()
config = rules.config_from_json({{"edition": "classic", "players": 4}})
play(rules, config, b"warm-up", "warm-up", ["random"])
start = time.process_time()
decisions = sum(play(rules, config, f"speed-{{i}}".encode(), f"speed-{{i}}", ["random"]).decisions
                for i in range({games}))
print(json.dumps({{"decisions": decisions, "cpu": time.process_time() - start}}))
"""


def run(root: str, games: int, no_relist: bool) -> float:
    code = CHILD.format(root=str(Path(root).resolve()), games=games, no_relist=no_relist)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    figures = json.loads(out.stdout)
    return float(figures["decisions"] / figures["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-relist", action="store_true")
    args = parser.parse_args()
    variants = [(c, False) for c in args.checkouts]
    if args.no_relist:
        variants += [(c, True) for c in args.checkouts
                     if "RELIST" in (Path(c) / "domain" / "orleans" / "dispatch.py").read_text(encoding="utf-8")]
    rates: dict[tuple[str, bool], list[float]] = {v: [] for v in variants}
    ratios: dict[tuple[str, bool], list[float]] = {v: [] for v in variants}
    for _ in range(args.rounds):
        this_round = {v: run(v[0], args.games, v[1]) for v in variants}
        for v, rate in this_round.items():
            rates[v].append(rate)
            ratios[v].append(rate / this_round[variants[0]])
    print(f"random 4-player classic Orléans, {args.games} games per checkout per round, {args.rounds} rounds")
    print("checkout | decisions / CPU-s min / median / max | ratio to the first min / median / max")
    for v in variants:
        r, q = rates[v], ratios[v]
        label = v[0] + (" without RELIST" if v[1] else "")
        print(f"{label} | {min(r):,.0f} / {statistics.median(r):,.0f} / {max(r):,.0f} | "
              f"{min(q):.2f} / {statistics.median(q):.2f} / {max(q):.2f}")


if __name__ == "__main__":
    main()
