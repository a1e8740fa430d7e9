"""Hidden information: what is inside the bags and the face-down stacks never leaks (issue 11).

Properties, over many positions of random playouts in every configuration:
- a view (every seat's and a spectator's) does not change when the contents of every bag and
  face-down stack change (same sizes, other tiles);
- no pile has an order that could leak: every tile is drawn from a sorted pile at the moment it
  turns up, so the same command under another seed turns up other tiles while nothing before it
  changes, and the opening events carry no pile at all;
- every event is the same for every viewer: each names only what the table sees as it happens.
"""
from __future__ import annotations

from dataclasses import replace
from enum import Enum
from typing import Any, TypeVar

import pytest

from domain.canonical import canonical_json
from domain.cathedral import RULES
from domain.cathedral.data import Space
from domain.cathedral.model import DrawFollower, EventRevealed, FollowerDrawn, PlaceFollower, State, sort_tiles
from domain.rng import Rng
from tests.cathedral.test_playout import playout

E = TypeVar("E", bound=Enum)
CONFIGS = [(2, "standard", 0), (3, "expert", 1), (4, "standard", 2), (2, "expert", 3), (4, "expert", 4)]


def shifted(tiles: tuple[E, ...]) -> tuple[E, ...]:
    """The same number of tiles, each replaced by the next kind of its enum: other contents."""
    if not tiles:
        return tiles
    kinds = list(type(tiles[0]))
    return sort_tiles(kinds[(kinds.index(t) + 1) % len(kinds)] for t in tiles)


def disguise(state: State) -> State:
    """The same table with every hidden pile holding other tiles."""
    return replace(
        state, red_bag=shifted(state.red_bag), blue_bag=shifted(state.blue_bag),
        black_bag=shifted(state.black_bag), event_pool=shifted(state.event_pool),
        hour_glass_pool=shifted(state.hour_glass_pool), blueprint_pool=shifted(state.blueprint_pool),
        workshop_box=shifted(state.workshop_box))


def positions(players: int, edition: str, seed_index: int) -> tuple[list[State], list[Any]]:
    state, log = playout(players, edition, seed_index)
    states, current = [], None
    for event in log:
        current = RULES.evolve(current, event)
        states.append(current)
    return states, log


@pytest.mark.parametrize("players,edition,seed_index", CONFIGS)
def test_no_view_shows_what_is_inside_a_bag_or_a_face_down_stack(players: int, edition: str, seed_index: int) -> None:
    states, _ = positions(players, edition, 200 + seed_index)
    changed = 0
    for state in states[10::2]:
        other = disguise(state)
        changed += other != state
        for seat in [None, *range(players)]:
            assert RULES.view(state, seat) == RULES.view(other, seat), (seat, state.round, state.step)
    assert changed > 20, "the sample must contain positions whose piles really differ"


def test_a_view_shows_the_size_of_each_pile_and_nothing_else_of_it() -> None:
    states, _ = positions(3, "standard", 300)
    state = states[len(states) // 2]
    view = RULES.view(state, 1)
    assert view["bags"] == {"red": len(state.red_bag), "blue": len(state.blue_bag), "black": len(state.black_bag)}
    assert view["events"]["stack"] == len(state.event_pool)
    assert view["blueprints"]["face_down"] == len(state.blueprint_pool)
    text = canonical_json(view)
    for key in ("red_bag", "blue_bag", "black_bag", "event_pool", "hour_glass_pool", "blueprint_pool", "workshop_box"):
        assert key not in text


@pytest.mark.parametrize("players,edition,seed_index", CONFIGS[:3])
def test_every_event_is_the_same_for_every_viewer(players: int, edition: str, seed_index: int) -> None:
    _, log = positions(players, edition, 400 + seed_index)
    for event in log:
        public = RULES.event_view(event, None)
        assert public == RULES.event_to_json(event)
        assert all(RULES.event_view(event, seat) == public for seat in range(players))


def test_the_opening_events_carry_no_pile() -> None:
    """GameStarted names the configuration only: bags and stacks follow from the edition's data."""
    events = RULES.setup(RULES.config_from_json({"players": 4, "edition": "expert"}), Rng(b"s", "g", 0))
    assert RULES.event_to_json(events[0]) == {"type": "GameStarted", "config": {"players": 4, "edition": "expert",
                                                                           "rules_version": 3}}


@pytest.mark.parametrize("players,edition,seed_index", CONFIGS[2:])
def test_no_tile_is_decided_before_it_turns_up(players: int, edition: str, seed_index: int) -> None:
    """The same draw at the same position under other seeds turns up other tiles, always from the
    pile: nothing in the state or in the log before it fixed the tile in advance."""
    states, _ = positions(players, edition, 500 + seed_index)
    draws = reveals = 0
    for state in states[::3]:
        moves = RULES.legal_moves(state, state.active) if not RULES.is_finished(state) else []
        for move in moves:
            if isinstance(move, DrawFollower) and len(set(state.bag(move.bag))) > 1:
                seen = {first(RULES.decide(state, move, other(i, state)), FollowerDrawn).follower for i in range(16)}
                assert len(seen) > 1 and seen <= set(state.bag(move.bag))
                draws += 1
            if isinstance(move, PlaceFollower) and move.space is Space.R7 and len(state.event_pool) > 1:
                seen = {first(RULES.decide(state, move, other(i, state)), EventRevealed).tile for i in range(16)}
                assert len(seen) > 1 and seen <= set(state.event_pool)
                reveals += 1
    assert draws > 5 and reveals > 0


def other(i: int, state: State) -> Rng:
    return Rng(f"other-seed-{i}".encode(), "g", state.draws)


def first(events: list[Any], cls: type) -> Any:
    return next(e for e in events if isinstance(e, cls))
