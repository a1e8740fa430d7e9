"""A starter bot for ANY hourglass game (Orléans, Artificium, The Cathedral of Orléans…).

It knows no rules: it reads the legal-move list the service sends, avoids moves that give up the
turn or undo progress when it has anything else, and picks among the rest with a generator seeded
by the game and version (so a replay of your bot decides the same). Copy this file and make
``choose`` smarter: ``turn.view`` is everything your seat may see.

    .venv/bin/pip install ./clients/python
    .venv/bin/python examples/any_game_bot.py --game cathedral
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hourglass_client import Bot, Turn  # noqa: E402
from starter import main  # noqa: E402

RELUCTANT = ("Pass", "GiveUp", "Recall", "Decline", "TakeCardBack", "Finish")  # words in move types


class AnyGameBot(Bot):
    def choose(self, turn: Turn) -> dict[str, Any]:
        eager = [m for m in turn.moves if not any(word in m["type"] for word in RELUCTANT)]
        pool = eager or turn.moves
        return random.Random(f"{turn.game}:{turn.version}").choice(pool)


if __name__ == "__main__":
    sys.exit(main(AnyGameBot(), "orleans"))
