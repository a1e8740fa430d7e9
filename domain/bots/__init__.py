"""Bot policies: pure functions over the rules, a state and the legal moves.

A policy is ``choose(rules, state, seat, moves, rng) -> command``; ``rng`` comes from
``bot_rng`` so that a bot game replays exactly from the game's seed. Rules never import bots: a
plugin names its own through a function (``GamePlugin.bots``), imported on first use.
"""
from __future__ import annotations

from domain.core import Policy
from domain.games import find_game, game_names
from domain.rng import Rng

__all__ = ["Policy", "bot_names", "bot_rng", "get_bot", "plays"]


def bot_rng(seed: bytes, game_id: str, seat: int, version: int) -> Rng:
    """The draws of a bot deciding at ``version`` (the game's event count so far)."""
    return Rng(seed, f"{game_id}:bot:{seat}", version)


def _generic() -> dict[str, Policy]:
    """Policies that play any game from its legal moves alone."""
    from domain.bots import random_bot

    return {"random": random_bot.choose}


def _game_bots(game: str) -> dict[str, Policy]:
    """The policies game ``game`` declares (``GamePlugin.bots``), by bot name; none for a game the
    service does not offer. Imports that game alone."""
    plugin = find_game(game)
    return dict(plugin.bots()) if plugin is not None else {}


def _per_game() -> dict[str, dict[str, Policy]]:
    """Policies that exist once per game, as each plugin declares them: bot name -> game name -> policy."""
    out: dict[str, dict[str, Policy]] = {}
    for game in game_names():
        for name, policy in _game_bots(game).items():
            out.setdefault(name, {})[game] = policy
    return out


def bot_names(game: str | None = None) -> tuple[str, ...]:
    """Every built-in bot, or (with ``game``) those that play that game."""
    per_game = _game_bots(game) if game is not None else _per_game()
    return tuple(sorted([*_generic(), *per_game]))


def plays(name: str, game: str) -> bool:
    """Does bot ``name`` play ``game``? Asked about a generic bot, this imports none of the game's
    own bots (a self-play command of random seats starts without them)."""
    return name in _generic() or name in _game_bots(game)


def get_bot(name: str, game: str | None = None) -> Policy:
    """The policy ``name`` for ``game`` (without a game: Orléans). Raises KeyError for a bot that
    does not exist or does not play that game."""
    generic = _generic()
    if name in generic:
        return generic[name]
    policy = _game_bots(game or "orleans").get(name)
    if policy is not None:
        return policy
    if name not in _per_game():
        raise KeyError(f"unknown bot {name!r}; known: {', '.join(bot_names())}")
    raise KeyError(f"bot {name!r} does not play {game}; bots for {game}: {', '.join(bot_names(game))}")
