"""The game registry: every game package, by name, behind the contract of ``domain.core``.

Usage from the layers above::

    rules = get_game("orleans")
    config = rules.config_from_json({"edition": "classic", "players": 4})
    rng = Rng(seed, game_id, 0)
    state = fold(rules, rules.setup(config, rng))
    rng = Rng(seed, game_id, rules.draw_counter(state))
    events = rules.decide(state, rules.command_from_json(move, seat), rng)
    state = fold(rules, events, state)
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.core import GameRules, Rejected, RejectKind


def _orleans() -> GameRules:
    from domain.orleans import RULES

    return RULES


def _artificium() -> GameRules:
    from domain.artificium import RULES

    return RULES


def _cathedral() -> GameRules:
    from domain.cathedral import RULES

    return RULES


_LOADERS = {"orleans": _orleans, "artificium": _artificium, "cathedral": _cathedral}


def game_names() -> tuple[str, ...]:
    return tuple(sorted(_LOADERS))


def get_game(name: str, engine_version: str | None = None) -> GameRules:
    """The rules of game ``name``; with ``engine_version``, those that replay a game recorded by
    that engine (see ``for_engine``)."""
    loader = _LOADERS.get(name)
    if loader is None:
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown game {name!r}; known: {', '.join(game_names())}")
    rules = loader()
    return rules if engine_version is None else for_engine(rules, engine_version)


def for_engine(rules: GameRules, engine_version: str) -> GameRules:
    """The rules that set up a game recorded by ``engine_version`` again.

    A game whose rules changed keeps the older rules reachable by offering
    ``rules.for_engine(engine_version)``; a game without it has one rule set for every version.
    Only set-up needs this: a game records its rules in its config, so ``decide`` and ``evolve``
    follow the state.
    """
    select = getattr(rules, "for_engine", None)
    if select is None:
        return rules
    chosen: GameRules = select(engine_version)
    return chosen


def provisional(rules: GameRules) -> frozenset[str]:
    """The command types (by name) after which a seat that stays to act is still in the same
    decision, as the game declares them in ``rules.provisional``; empty for a game that declares
    none. Every other command a seat sends ends its decision (its clock's stint, core/clocks.py)."""
    names: frozenset[str] = getattr(rules, "provisional", frozenset())
    return names


def fold(rules: GameRules, events: Iterable[Any], state: Any = None) -> Any:
    """Apply events in order; ``state=None`` starts from nothing (the setup events come first)."""
    for event in events:
        state = rules.evolve(state, event)
    return state


def stepper(rules: GameRules) -> Callable[[Any, Any, Any], tuple[list[Any], Any]]:
    """``step`` for one game's rules, with the choice between ``rules.step`` and decide + fold
    made once (for loops that step many times)."""
    own: Callable[[Any, Any, Any], tuple[list[Any], Any]] | None = getattr(rules, "step", None)
    if own is not None:
        return own
    return lambda state, command, rng: step(rules, state, command, rng)


def step(rules: GameRules, state: Any, command: Any, rng: Any) -> tuple[list[Any], Any]:
    """``decide`` and the state after its events, i.e. ``(events, fold(rules, events, state))``.

    A game whose ``decide`` already folds its events as it emits them (Orléans does) may offer
    ``rules.step`` with the same result, to spare the second fold on the hot path.
    """
    own = getattr(rules, "step", None)
    if own is not None:
        stepped: tuple[list[Any], Any] = own(state, command, rng)
        return stepped
    events = rules.decide(state, command, rng)
    return events, fold(rules, events, state)
