"""The printed parts of Orléans that the viewer draws but no view carries (the plugin's
``reference``, served as GET /api/v1/reference/orleans): built from the rules tables, so a correction
in ``domain/orleans/data.py`` reaches the page without a second copy in JavaScript."""
from __future__ import annotations

from typing import Any

from domain.orleans import data as D


def reference() -> dict[str, Any]:
    return {
        "game": "orleans",
        "rounds": D.ROUNDS,
        "places": {p.id: {"name": p.name, "stack": p.stack} for p in D.PLACES.values()},
        "deeds": {d.id: d.name for d in D.DEEDS},
        "tracks": {char.value: length for char, length in D.TRACK_LENGTH.items()},
        "development": {
            "length": D.DEVELOPMENT_MAX,
            "status": [{"from": threshold, "status": status} for threshold, status in sorted(D.DEVELOPMENT_STATUS)],
            "coins": {str(space): coins for space, coins in sorted(D.DEVELOPMENT_COINS.items())},
            "citizens": list(D.DEVELOPMENT_CITIZENS),
        },
        "hourglass": {  # the stack each round's tile comes from, round 1 first ("" = unscaled)
            D.Edition.CLASSIC.value: [""] * (1 + len(D.CLASSIC_REST)),
            D.Edition.E2023.value: [""] + [_letter(stack) for stack in D.E2023_STACKS for _ in stack],
        },
        "goods": {good.value: D.GOOD_POINTS[good] for good in D.Good},
    }


def _letter(stack: tuple[D.Hourglass, ...]) -> str:
    """A 2023 hour-glass stack's letter: the level its scaled tiles carry (A, B or C)."""
    return next(tile.level for tile in stack if tile.level)
