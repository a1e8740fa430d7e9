"""The random bot: uniform over the legal moves."""
from __future__ import annotations

from typing import Any

from domain.rng import Rng


def choose(rules: Any, state: Any, seat: int, moves: list, rng: Rng) -> Any:
    return moves[rng.below(len(moves))]
