"""Builders for the Orléans scenario tests: start from a real set-up, then craft the state.

Every scenario starts from ``fold(RULES, RULES.setup(config, Rng(b"seed", "g", 0)))`` and changes
only what the scenario needs with ``dataclasses.replace`` / ``with_player``. Commands go through
``RULES.decide`` exactly as the service sends them.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from domain.core import SYSTEM, Rejected, RejectKind
from domain.games import fold
from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.data import Char, Event, Good, Hourglass, Tile
from domain.orleans.evolve import CHAR_INDEX, GOOD_INDEX, TRACK_INDEX, with_player
from domain.orleans.game import LEGACY_RULES, RULES_3, RULES_4
from domain.orleans.model import RULES_VERSION, TECH, Phase, Slots, State

SEED = b"seed"
GAME = "g"

# short names for character tiles
F, B, C, T, K, S, M = (Tile.FARMER, Tile.BOATMAN, Tile.CRAFTSMAN, Tile.TRADER, Tile.KNIGHT, Tile.SCHOLAR,
                       Tile.MONK)
SF, SB, SC, ST = Tile.START_FARMER, Tile.START_BOATMAN, Tile.START_CRAFTSMAN, Tile.START_TRADER
STARTING = (SF, SB, SC, ST)
NO_GOODS = (0, 0, 0, 0, 0)


def rng(state: State | None = None, counter: int | None = None):
    from domain.rng import Rng

    if counter is None:
        counter = 0 if state is None else state.draws
    return Rng(SEED, GAME, counter)


@cache
def _setup(edition: str, players: int, exclusion: bool, start_player: int, seed: bytes, rules_version: int) -> State:
    from domain.rng import Rng

    rules = next(r for r in (RULES, RULES_4, RULES_3, LEGACY_RULES) if r.engine_version == f"orleans-{rules_version}")
    config = rules.config_from_json(
        {"edition": edition, "players": players, "exclusion": exclusion, "start_player": start_player})
    return fold(RULES, RULES.setup(config, Rng(seed, GAME, 0)))


def fresh(edition: str = "classic", players: int = 4, exclusion: bool = False, start_player: int = 0,
          seed: bytes = SEED, rules_version: int = RULES_VERSION) -> State:
    """The state right after set-up (states are frozen, so caching is safe); ``rules_version=2``
    for a game recorded before orleans-3, which keeps the rules it was created with."""
    return _setup(edition, players, exclusion, start_player, seed, rules_version)


def step(state: State, command: Any) -> tuple[State, list[Any]]:
    """Decide and fold one command; returns (new state, events). Checks ``RULES.step`` on the way."""
    events = RULES.decide(state, command, rng(state))
    new = fold(RULES, events, state)
    assert RULES.step(state, command, rng(state)) == (events, new)
    return new, events


def play(state: State, command: Any, *, listed: bool = True) -> tuple[State, list[Any]]:
    """Like ``step`` but first checks the command is among the actor's legal moves."""
    if listed:
        moves = RULES.legal_moves(state, command.seat)
        assert command in moves, f"{command} not in legal moves {moves}"
    return step(state, command)


def rejected(state: State, command: Any, kind: RejectKind = RejectKind.ILLEGAL_MOVE, *,
             listed_check: bool = True) -> Rejected:
    """Assert the command is refused with ``kind`` (and, for seat commands, not listed)."""
    with pytest.raises(Rejected) as info:
        RULES.decide(state, command, rng(state))
    assert info.value.kind is kind, info.value
    if listed_check:
        assert command not in RULES.legal_moves(state, command.seat)
    return info.value


def of_type(events: Iterable[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


# --- crafting ------------------------------------------------------------------------------------


def slot_values(values: Iterable[Any]) -> tuple[str | None, ...]:
    out = []
    for v in values:
        if v is None or v == TECH:
            out.append(v)
        else:
            out.append(Tile(v).value)
    return tuple(out)


def with_place(state: State, seat: int, place: str, values: Iterable[Any] | None = None) -> State:
    """Give ``seat`` the place (a place tile is taken out of the stacks) with the given slots."""
    p = state.players[seat]
    n = len(D.PLACES[place].spaces)
    vals = slot_values(values) if values is not None else (None,) * n
    assert len(vals) == n, (place, vals)
    places = list(p.places)
    for i, s in enumerate(places):
        if s.place == place:
            places[i] = Slots(place, vals)
            break
    else:
        places.append(Slots(place, vals))
        if place in state.place_tiles:
            state = replace(state, place_tiles=tuple(t for t in state.place_tiles if t != place))
    return with_player(state, seat, places=tuple(places))


def slots(state: State, seat: int, place: str) -> tuple[str | None, ...] | None:
    for s in state.players[seat].places:
        if s.place == place:
            return s.slots
    return None


def owns(state: State, seat: int, place: str) -> bool:
    return slots(state, seat, place) is not None


def with_track(state: State, seat: int, char: Char, pos: int) -> State:
    p = state.players[seat]
    tracks = list(p.tracks)
    tracks[TRACK_INDEX[char]] = pos
    return with_player(state, seat, tracks=tuple(tracks))


def track(state: State, seat: int, char: Char) -> int:
    return state.players[seat].tracks[TRACK_INDEX[char]]


def goods_tuple(**counts: int) -> tuple[int, ...]:
    return tuple(counts.get(g.value, 0) for g in D.Good)


def with_goods(state: State, seat: int, **counts: int) -> State:
    return with_player(state, seat, goods=goods_tuple(**counts))


def good(state: State, seat: int, g: Good) -> int:
    return state.players[seat].goods[GOOD_INDEX[g]]


def market_good(state: State, g: Good) -> int:
    return state.goods_market[GOOD_INDEX[g]]


def with_market_good(state: State, g: Good, n: int) -> State:
    m = list(state.goods_market)
    m[GOOD_INDEX[g]] = n
    return replace(state, goods_market=tuple(m))


def supply(state: State, char: Char) -> int:
    return state.supply[CHAR_INDEX[char]]


def with_supply(state: State, char: Char, n: int) -> State:
    s = list(state.supply)
    s[CHAR_INDEX[char]] = n
    return replace(state, supply=tuple(s))


def coins(state: State, seat: int) -> int:
    return state.players[seat].coins


def in_actions(state: State, seat: int = 0, event: Hourglass | None = None, round: int = 2) -> State:
    """Phase 5 with ``seat`` to act; the round's event defaults to Income (not Pilgrimage)."""
    ev = event if event is not None else Hourglass(Event.INCOME)
    players = tuple(replace(p, passed=False, drew=True, planned=True) for p in state.players)
    return replace(state, phase=Phase.ACTIONS, turn=seat, round=round, event=ev, players=players,
                   start_player=state.start_player)


def in_event(state: State, event: Hourglass, round: int = 2) -> State:
    """Phase 6 with ``event`` revealed; the SYSTEM resolves it."""
    players = tuple(replace(p, passed=True) for p in state.players)
    return replace(state, phase=Phase.EVENT, turn=None, round=round, event=event, players=players)


def in_followers(state: State) -> State:
    players = tuple(replace(p, drew=False, recalls=0) for p in state.players)
    return replace(state, phase=Phase.FOLLOWERS, turn=None, round=2, event=Hourglass(Event.INCOME),
                   players=players)


def in_planning(state: State) -> State:
    players = tuple(replace(p, planned=False, pending=(), tower_pending=(), drew=True) for p in state.players)
    return replace(state, phase=Phase.PLANNING, turn=None, round=2, event=Hourglass(Event.INCOME),
                   players=players)


def everyone_else_passed(state: State, seat: int) -> State:
    players = tuple(replace(p, passed=(i != seat)) for i, p in enumerate(state.players))
    return replace(state, players=players)


def system(state: State, command: Any) -> tuple[State, list[Any]]:
    assert RULES.legal_moves(state, SYSTEM) == [command], RULES.legal_moves(state, SYSTEM)
    return step(state, command)
