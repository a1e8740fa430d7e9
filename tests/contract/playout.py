"""Seeded random playouts of any registered plugin, recording what the contract suite compares.

A playout is played "warm", the way a worker that keeps its state plays: ``step`` after ``step``
on the same objects, listing moves on each. It records, as JSON, the whole event log and at each
decision every actor's listed moves and (now and then) each built-in bot's pick, so that a fresh
process (``tests/contract/cold.py``) can fold the same events and compare.
"""
from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from domain.bots import bot_names, bot_rng, get_bot
from domain.core import SYSTEM, Actor, GameRules, Rejected, RejectKind
from domain.games import fold, plugins, step
from domain.rng import Rng

TIMEOUT_ODDS = 12  # random seats: one decision in 12 is a timeout (the system plays the seat's default move)
BOT_EVERY = 71  # every built-in bot decides for the first seat to act at one decision in this many
HIDDEN_EVERY = 17  # the redaction probe runs at one decision in this many


@dataclass(frozen=True)
class Case:
    """One game to play: the plugin that sets it up, its config, a seed, and events to fold right
    after set-up (a start the rules reach only by chance, e.g. a seat owning a building)."""

    plugin: GameRules
    config: dict[str, Any]
    seed: str
    extra: Callable[[Any], list[Any]] | None = None
    label: str = ""
    bot: str | None = None  # seats choose with this built-in bot; None: at random

    @property
    def id(self) -> str:
        parts = [self.plugin.engine_version, *(f"{k}={v}" for k, v in sorted(self.config.items())), self.seed]
        return "-".join([*parts, *([self.label] if self.label else []), *([self.bot] if self.bot else [])])


def _orleans_tower_starts() -> list[Case]:
    """Orléans games where a seat owns the Gunpowder Tower from the start (rules 3 and 4): random
    seats then load it in phase 3 and plan from it, the moves where listing order is easiest to get
    wrong (docs/performance.md)."""
    from domain.orleans import data as D
    from domain.orleans.game import RULES, RULES_3
    from domain.orleans.model import PlaceTileTaken

    def tower(owner: int) -> Callable[[Any], list[Any]]:
        return lambda state: [PlaceTileTaken(owner, D.GUNPOWDER_TOWER)]

    return [Case(rules, {"edition": edition, "players": players}, f"tower-{i}", tower(owner), f"tower{owner}")
            for i, (rules, edition, players, owner) in enumerate([
                (RULES_3, "classic", 4, 0), (RULES_3, "2023", 3, 1), (RULES_3, "classic", 2, 1),
                (RULES_3, "2023", 5, 3), (RULES, "classic", 4, 2)])]


EXTRA_CASES: dict[str, Callable[[], list[Case]]] = {"orleans": _orleans_tower_starts}
"""Optional: starts a game's random playouts seldom reach. A game needs no entry."""


SLOW_BOTS = frozenset({"search"})  # bots that simulate many games per decision: not played whole here


def cases() -> list[Case]:
    """Every registered plugin: each edition with its fewest and most players, two seeds, random
    seats; then the extra starts, and each of the game's own bots (which reach positions random
    seats seldom do) on its first edition with the fewest players and on every extra start."""
    out: list[Case] = []
    for plugin in plugins():
        for edition, players in plugin.editions.items():
            for i, n in enumerate(sorted({players[0], players[-1]})):
                config = {"players": n} | ({"edition": edition} if edition else {})
                out.append(Case(plugin, config, f"seed-{i}"))
        extra = EXTRA_CASES.get(plugin.name, list)()
        out += extra
        edition, players = next(iter(plugin.editions.items()))
        for bot in sorted(set(plugin.bots()) - SLOW_BOTS):
            config = {"players": players[0]} | ({"edition": edition} if edition else {})
            out += [Case(plugin, config, "bots", bot=bot), *(dataclasses.replace(c, bot=bot) for c in extra)]
    return out


@dataclass
class Record:
    """What a warm playout saw, as JSON, for a cold process to compare."""

    game: str
    engine_version: str
    seed: str
    game_id: str
    events: list[dict[str, Any]] = field(default_factory=list)
    listings: list[tuple[int, dict[str, list[dict[str, Any]]]]] = field(default_factory=list)
    picks: list[tuple[int, int, str, dict[str, Any]]] = field(default_factory=list)  # (events, seat, bot, pick)
    decisions: int = 0

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))


def actor_key(actor: Actor) -> str:
    return str(actor)


def actor_of(key: str) -> Actor:
    return SYSTEM if key == SYSTEM else int(key)


def accepted(plugin: GameRules, state: Any, command: Any, seed: bytes, game_id: str) -> bool:
    return refusal(plugin, state, command, seed, game_id) is None


def refusal(plugin: GameRules, state: Any, command: Any, seed: bytes, game_id: str) -> RejectKind | None:
    """Why ``decide`` refuses ``command`` (None: it accepts it)."""
    try:
        plugin.decide(state, command, Rng(seed, game_id, plugin.draw_counter(state)))
        return None
    except Rejected as exc:
        return exc.kind


def near_misses(command: Any, listed: list[Any], players: int) -> Iterator[Any]:
    """Commands of the same type with one field changed: to values its type allows (enum members,
    neighbouring and out-of-range numbers, None where optional) and to the values that field takes
    in the other listed moves (place names, spaces). Generic: read from the type hints."""
    if not dataclasses.is_dataclass(command):
        return
    hints = typing.get_type_hints(type(command))
    for f in dataclasses.fields(command):
        if f.name == "seat":
            continue
        value = getattr(command, f.name)
        candidates: list[Any] = [getattr(m, f.name) for m in listed if type(m) is type(command)]
        tp = hints[f.name]
        options = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
        for option in options:
            if option is type(None):
                candidates.append(None)
            elif isinstance(option, type) and issubclass(option, Enum):
                candidates += list(option)
            elif option is bool:
                candidates.append(not value)
            elif option is int and isinstance(value, int):
                candidates += [*range(-1, max(players, 12) + 1), value + 1]
        seen: set[Any] = set()
        for other in candidates:
            key = (type(other), other if not isinstance(other, list) else tuple(other))
            if key in seen or other == value:
                continue
            seen.add(key)
            try:
                yield dataclasses.replace(command, **{f.name: other})
            except (TypeError, ValueError):
                continue


def start(case: Case) -> tuple[GameRules, Any, list[Any], bytes, str]:
    plugin = case.plugin
    seed, game_id = case.seed.encode(), f"contract-{case.id}"
    events = plugin.setup(plugin.config_from_json(dict(case.config)), Rng(seed, game_id, 0))
    state = fold(plugin, events)
    if case.extra is not None:
        more = case.extra(state)
        state = fold(plugin, more, state)
        events = [*events, *more]
    return plugin, state, list(events), seed, game_id


Check = Callable[[GameRules, Any, Actor, list[Any], Any, bytes, str], None]


def playout(case: Case, on_decision: Check | None = None, *, bots: bool = True,
            max_decisions: int = 20_000) -> tuple[Any, Record]:
    """Play ``case`` to the end with random choices; ``on_decision`` checks each decision."""
    plugin, state, log, seed, game_id = start(case)
    record = Record(plugin.name, plugin.engine_version, case.seed, game_id,
                    events=[plugin.event_to_json(e) for e in log])
    chooser = Rng(seed, game_id + ":contract", 0)
    rng = Rng(seed, game_id)
    names = bot_names(plugin.name) if bots else ()
    chooses = get_bot(case.bot, plugin.name) if case.bot else None
    while not plugin.is_finished(state):
        assert record.decisions < max_decisions, f"{game_id}: no end after {max_decisions} decisions"
        acting = sorted(plugin.to_act(state), key=str)
        assert acting, "an unfinished game has someone to act"
        listing = {actor_key(a): plugin.legal_moves(state, a) for a in [*acting, SYSTEM]}
        record.listings.append((len(log), {k: [plugin.command_to_json(m) for m in v] for k, v in listing.items()}))
        actor = SYSTEM if SYSTEM in acting else acting[chooser.below(len(acting))]
        if chooses is None and actor != SYSTEM and chooser.below(TIMEOUT_ODDS) == 0 and listing[SYSTEM]:
            actor = SYSTEM  # a clock ran out (a bot's seat plays on: its plans are not cut short)
        moves = listing[actor_key(actor)]
        assert moves, f"{actor} is to act but has no legal move"
        if chooses is not None and actor != SYSTEM:
            command = chooses(plugin, state, actor, moves, bot_rng(seed, game_id, int(actor), len(log)))
        else:
            command = moves[chooser.below(len(moves))]
        if on_decision is not None:
            on_decision(plugin, state, actor, moves, command, seed, game_id)
        if names and record.decisions % BOT_EVERY == 0:
            for seat in (a for a in acting[:1] if isinstance(a, int)):
                for name in names:
                    policy = get_bot(name, plugin.name)
                    pick = policy(plugin, state, seat, plugin.legal_moves(state, seat), bot_rng(seed, game_id, seat, len(log)))
                    record.picks.append((len(log), seat, name, plugin.command_to_json(pick)))
        rng.counter = plugin.draw_counter(state)
        caused, state = step(plugin, state, command, rng)
        log += caused
        record.events += [plugin.event_to_json(e) for e in caused]
        record.decisions += 1
    return state, record
