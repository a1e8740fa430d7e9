"""The game registry: the one list of game plugins (``domain.core.GamePlugin``), by name.

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

import importlib
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from domain.core import GamePlugin, GameRules, Rejected, RejectKind

# The one list of games: each package declares ``RULES = GamePlugin(...)`` in its __init__.py.
# Bots, reference data, the events page, the benches and the viewer's renderers derive from it.
# A game is named after its package (``domain.<name>``), so the names, and which games the public
# API offers, are known here without importing any game: a package is imported on the first use of
# its game (``get_game``), and checked then against the tuple it is listed in.
LISTED_PACKAGES: tuple[str, ...] = (
    "domain.orleans",
    "domain.artificium",
    "domain.cathedral",
)
# Registered but kept out of the public API (``GamePlugin.listed`` False; see ``show``).
UNLISTED_PACKAGES: tuple[str, ...] = (
    "domain.toy",
)
PACKAGES: tuple[str, ...] = LISTED_PACKAGES + UNLISTED_PACKAGES

_shown: set[str] = set()  # unlisted games this process offers all the same (see ``show``)


def _name(package: str) -> str:
    """A game's name from its package: ``domain.<name>`` (tests/contract/test_registry.py)."""
    return package.rsplit(".", 1)[-1]


_PACKAGE_OF: dict[str, str] = {_name(package): package for package in PACKAGES}
if len(_PACKAGE_OF) != len(PACKAGES):
    raise TypeError(f"two registered games share a name: {PACKAGES}")


@cache
def _load(package: str) -> GameRules:
    """The plugin of one registered package, imported on its first use (a process that plays one
    game imports that game's package alone)."""
    plugin = importlib.import_module(package).RULES
    if not isinstance(plugin, GamePlugin):
        raise TypeError(f"{package}.RULES is not a domain.core.GamePlugin")
    if plugin.name != _name(package):
        raise TypeError(f"{package}.RULES is named {plugin.name!r}, not {_name(package)!r}")
    if plugin.listed != (package in LISTED_PACKAGES):
        raise TypeError(f"{package}.RULES.listed is {plugin.listed}, yet the registry lists it otherwise")
    return plugin


@cache
def plugins() -> tuple[GameRules, ...]:
    """Every registered plugin, listed or not, in the order of ``PACKAGES`` (imports them all)."""
    return tuple(_load(package) for package in PACKAGES)


def _offered(name: str) -> bool:
    package = _PACKAGE_OF.get(name)
    return package is not None and (package in LISTED_PACKAGES or name in _shown)


def show(name: str) -> None:
    """Offer the unlisted game ``name`` in this process (the service tests play the toy game)."""
    if name not in _PACKAGE_OF:
        raise KeyError(name)
    _shown.add(name)


def game_names() -> tuple[str, ...]:
    """The games the service offers: the listed ones and any shown in this process (imports none)."""
    return tuple(sorted(name for name in _PACKAGE_OF if _offered(name)))


def find_game(name: str) -> GameRules | None:
    """The plugin of game ``name`` if the service offers it, else None (imports that game alone)."""
    return _load(_PACKAGE_OF[name]) if _offered(name) else None


def get_game(name: str, engine_version: str | None = None) -> GameRules:
    """The rules of game ``name``; with ``engine_version``, those that replay a game recorded by
    that engine (see ``for_engine``)."""
    rules = find_game(name)
    if rules is None:
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown game {name!r}; known: {', '.join(game_names())}")
    return rules if engine_version is None else for_engine(rules, engine_version)


def for_engine(rules: GameRules, engine_version: str) -> GameRules:
    """The rules that set up a game recorded by ``engine_version`` again.

    A game whose rules changed keeps the older rules reachable by offering
    ``rules.for_engine``; a game without it has one rule set for every version.
    Only set-up needs this: a game records its rules in its config, so ``decide`` and ``evolve``
    follow the state.
    """
    return rules if rules.for_engine is None else rules.for_engine(engine_version)


def by_reference(name: str, engine_version: str) -> GameRules:
    """The registered plugin a pickle names (``GamePlugin.__reduce__``): a plugin is pickled as
    its game's name and engine version, never as its functions, and unpickles to the very object
    this process registered (listed or not)."""
    package = _PACKAGE_OF.get(name)
    if package is None:
        raise ValueError(f"no registered game {name!r}")
    found = for_engine(_load(package), engine_version)
    if found.engine_version != engine_version:
        raise ValueError(f"{name}: no plugin for engine version {engine_version!r} here")
    return found


def provisional(rules: GameRules) -> frozenset[str]:
    """The command types (by name) after which a seat that stays to act is still in the same
    decision (``GamePlugin.provisional``). Every other command a seat sends ends its decision
    (its clock's stint, core/clocks.py)."""
    return rules.provisional


def fold(rules: GameRules, events: Iterable[Any], state: Any = None) -> Any:
    """Apply events in order; ``state=None`` starts from nothing (the setup events come first)."""
    for event in events:
        state = rules.evolve(state, event)
    return state


def stepper(rules: GameRules) -> Callable[[Any, Any, Any], tuple[list[Any], Any]]:
    """``step`` for one game's rules, with the choice between ``rules.step`` and decide + fold
    made once (for loops that step many times)."""
    if rules.step is not None:
        return rules.step
    return lambda state, command, rng: step(rules, state, command, rng)


def step(rules: GameRules, state: Any, command: Any, rng: Any) -> tuple[list[Any], Any]:
    """``decide`` and the state after its events, i.e. ``(events, fold(rules, events, state))``.

    A game whose ``decide`` already folds its events as it emits them (Orléans does) may offer
    ``rules.step`` with the same result, to spare the second fold on the hot path.
    """
    if rules.step is not None:
        return rules.step(state, command, rng)
    events = rules.decide(state, command, rng)
    return events, fold(rules, events, state)
