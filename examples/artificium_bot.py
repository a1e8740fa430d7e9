"""A starter bot for Artificium: buys and builds when it can, and keeps its cards in play.

    .venv/bin/pip install ./clients/python
    .venv/bin/python examples/artificium_bot.py --players 4

``turn.view`` holds your hand, resources and the market; the other hands are hidden from you.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hourglass_client import Bot, Turn  # noqa: E402
from starter import main  # noqa: E402

PREFERENCE = ("CommitCard", "BuyResource", "SellResource", "ExchangeCard", "DiscardFromHand", "FinishTurn",
              "PassMarket", "DeclineCard", "TakeCardBack")


class ArtificiumBot(Bot):
    def choose(self, turn: Turn) -> dict[str, Any]:
        def rank(move: dict[str, Any]) -> int:
            return PREFERENCE.index(move["type"]) if move["type"] in PREFERENCE else len(PREFERENCE) // 2

        best = min(rank(m) for m in turn.moves)
        pool = [m for m in turn.moves if rank(m) == best]
        return random.Random(f"{turn.game}:{turn.version}").choice(pool)


if __name__ == "__main__":
    sys.exit(main(ArtificiumBot(), "artificium"))
