"""Instructions per random 4-player Orléans game, counted by valgrind, for several checkouts.

On a shared machine the wall clock (and even CPU time) of the same games moves by tens of per
cent; an instruction count does not depend on the load. Each checkout runs in a fresh process under
``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``: a warm-up game, then 1 and then ``--games``
seeded games; the difference divided by ``--games - 1`` is one game, imports and warm-up cancel.
``lines`` adds each game's output line (``summary_line``: the final hash). ``--cli`` counts
``python -m service.cli selfplay`` as a whole process instead (1 and ``--games`` games; the start-up
is the one-game run less one game). Needs valgrind; slow (a minute or two per count). Never asserts.

Usage: python bench/selfplay_instructions.py [--games N] [--lines] [--cli] CHECKOUT [CHECKOUT ...]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

CHILD = """
import sys
sys.path.insert(0, {root!r})
from domain.games import get_game
from domain.selfplay import play, summary_line
rules = get_game("orleans")
config = rules.config_from_json({{"edition": "classic", "players": 4}})
play(rules, config, b"w", "w", ["random"])
for i in range({games}):
    game = play(rules, config, f"bench-{{i}}".encode(), f"bench-{{i}}", ["random"])
    if {lines}:
        summary_line(rules, game, "x")
"""


def instructions(root: Path, command: list[str]) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                           *command], cwd=root, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--lines", action="store_true", help="each game's output line too")
    parser.add_argument("--cli", action="store_true", help="`python -m service.cli selfplay` as a whole process")
    args = parser.parse_args()
    for checkout in args.checkouts:
        root = Path(checkout).resolve()
        if args.cli:
            cli = ["-m", "service.cli", "selfplay", "--game", "orleans", "--players", "4", "--bots", "random"]
            one = instructions(root, [*cli, "--games", "1"])
            many = instructions(root, [*cli, "--games", str(args.games)])
            game = (many - one) / (args.games - 1)
            print(f"{checkout}: {game / 1e6:.1f} M instructions a game, start-up {(one - game) / 1e6:.0f} M "
                  "(hourglass selfplay, whole process)")
            continue
        counts = [instructions(root, ["-c", CHILD.format(root=str(root), games=n, lines=args.lines)])
                  for n in (1, args.games)]
        what = "play + output line" if args.lines else "play"
        print(f"{checkout}: {(counts[1] - counts[0]) / (args.games - 1) / 1e6:.1f} M instructions a game ({what})")


if __name__ == "__main__":
    main()
