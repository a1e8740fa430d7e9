"""The random bot: uniform over the legal moves."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.rng import Rng


def choose(rules: Any, state: Any, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    return moves[rng.below(len(moves))]
