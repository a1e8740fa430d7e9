"""A starter bot for Orléans: prefers acting to passing, and placing followers to recalling them.

    .venv/bin/pip install ./clients/python
    .venv/bin/python examples/orleans_bot.py            # plays one game against two greedy bots

``choose`` ranks the move types; among moves of the best type it draws evenly (seeded by game and
version). ``turn.view`` has your board, bag, coins and the public board: start there.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hourglass_client import Bot, Turn  # noqa: E402
from starter import main  # noqa: E402

PREFERENCE = ("TakeAction", "SendToDeed", "PlaceFollower", "DrawFollowers", "FinishPlanning", "Pass",
              "RecallFollower", "GiveUp")


class OrleansBot(Bot):
    def choose(self, turn: Turn) -> dict[str, Any]:
        def rank(move: dict[str, Any]) -> int:
            return PREFERENCE.index(move["type"]) if move["type"] in PREFERENCE else len(PREFERENCE) // 2

        best = min(rank(m) for m in turn.moves)
        pool = [m for m in turn.moves if rank(m) == best]
        if best == PREFERENCE.index("DrawFollowers"):  # draw as many as allowed
            return max(pool, key=lambda m: m.get("count", 0))
        return random.Random(f"{turn.game}:{turn.version}").choice(pool)


if __name__ == "__main__":
    sys.exit(main(OrleansBot(), "orleans"))
