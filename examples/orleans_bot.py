"""A starter bot for Orléans: prefers acting to passing, and plans to fill whole places.

An action only runs once every space of its place holds a follower, so in planning it puts a
follower where the place can still be filled from what is left on its market (a Monk stands in
for anyone), fewest empty spaces first, and finishes planning when no such place is left: the
followers it keeps wait on the market for a later round.

    .venv/bin/pip install ./clients/python
    .venv/bin/python examples/orleans_bot.py            # plays one game against two greedy bots

``choose`` ranks the move types; among moves of the best type it draws evenly (seeded by game and
version). ``turn.view`` has your board, bag, coins and the public board: start there.
"""
from __future__ import annotations

import random
import sys
from collections import Counter
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
        if best == PREFERENCE.index("PlaceFollower"):
            return self.plan(turn, pool)
        return random.Random(f"{turn.game}:{turn.version}").choice(pool)

    def plan(self, turn: Turn, placements: list[dict[str, Any]]) -> dict[str, Any]:
        me = turn.view["seats"][turn.seat]
        market = Counter(kind(tile) for tile in me["market"])
        empty = {place["id"]: [(i, space["needs"]) for i, space in enumerate(place["spaces"]) if space["holds"] is None]
                 for place in me["places"]}

        def left_to_fill(move: dict[str, Any]) -> tuple[bool, int]:
            """(cannot be completed from the market, empty spaces left) after this placement."""
            needs = [need for i, need in empty.get(move["place"], []) if i != move["space"]]
            rest = market - Counter([kind(move["tile"])])
            short = sum((Counter(needs) - Counter({k: n for k, n in rest.items() if k != "monk"})).values())
            return short > rest["monk"], len(needs)

        score = {id(m): left_to_fill(m) for m in placements}
        best = min(score.values())
        finish = [m for m in turn.moves if m["type"] == "FinishPlanning"]
        if best[0] and finish:  # no place can be completed: keep the rest on the market
            return finish[0]
        pool = [m for m in placements if score[id(m)] == best]
        return random.Random(f"{turn.game}:{turn.version}").choice(pool)


def kind(tile: str) -> str:
    """The character of a tile: a starting follower ("start_farmer") is a farmer."""
    return tile.removeprefix("start_")


if __name__ == "__main__":
    sys.exit(main(OrleansBot(), "orleans"))
