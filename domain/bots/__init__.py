"""Bot policies: pure functions over the rules, a state and the legal moves.

A policy is ``choose(rules, state, seat, moves, rng) -> command``; ``rng`` comes from
``bot_rng`` so that a bot game replays exactly from the game's seed. Rules never import bots.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.rng import Rng

Policy = Callable[[Any, Any, int, list, Rng], Any]


def bot_rng(seed: bytes, game_id: str, seat: int, version: int) -> Rng:
    """The draws of a bot deciding at ``version`` (the game's event count so far)."""
    return Rng(seed, f"{game_id}:bot:{seat}", version)


def _registry() -> dict[str, Policy]:
    from domain.bots import greedy, random_bot, search_orleans

    return {"random": random_bot.choose, "greedy": greedy.choose, "search": search_orleans.choose}


def _per_game() -> dict[str, dict[str, Policy]]:
    """Policies that exist once per game: bot name -> game name -> policy."""
    from domain.bots import artificium_greedy, greedy, search_artificium, search_orleans

    return {"greedy": {"orleans": greedy.choose, "artificium": artificium_greedy.choose},
            "search": {"orleans": search_orleans.choose, "artificium": search_artificium.choose}}


def bot_names() -> tuple[str, ...]:
    return tuple(sorted(_registry()))


def get_bot(name: str, game: str | None = None) -> Policy:
    """The policy ``name``; with ``game``, that game's own version of it where there is one
    (``greedy`` is one policy per game; without a game it is the Orléans one)."""
    bots = _registry()
    if name not in bots:
        raise KeyError(f"unknown bot {name!r}; known: {', '.join(sorted(bots))}")
    return _per_game().get(name, {}).get(game or "", bots[name])
