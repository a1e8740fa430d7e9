"""A bot's lookahead: one listed move applied on the bot's own rng stream, shared by the greedy
bots of Artificium and The Cathedral (Orléans' greedy bot has its own, behind its speed seam)."""
from __future__ import annotations

from types import ModuleType
from typing import Any

from domain import games
from domain.core import Rejected
from domain.rng import Rng


def apply_listed(rules: Any, dispatch: ModuleType, state: Any, move: Any, look: Rng) -> Any | None:
    """``move`` applied to ``state`` on ``look``, one of the bot's own rng streams (never the
    game's); None if the rules reject it.

    ``dispatch`` is the game's dispatch module (its ``step``, ``Tx``, ``settle`` and
    ``COMMAND_RULES``). Every move a bot scores comes from ``legal_moves``, so while ``rules`` step
    with that module the checks ``decide`` runs first (``dispatch.guard``: whose turn, which command
    types, the validator) are skipped: the command is applied and the automatic steps run, exactly
    what ``decide`` does after its checks. Other rules (a test's wrapper) step in full."""
    try:
        if rules.step is dispatch.step:
            tx = dispatch.Tx(state, look)
            dispatch.COMMAND_RULES[type(move)].apply(tx, move)
            dispatch.settle(tx)
            return tx.state
        return games.step(rules, state, move, look)[1]
    except Rejected:
        return None
