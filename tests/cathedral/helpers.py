"""Builders for the Cathedral scenario tests: start from a real set-up, then craft the state.

Every scenario starts from ``fresh(players)`` and changes only what it needs. The crafting helpers
move tiles between their real places (bag, supply, board, knapsack), so every crafted state still
keeps the playout invariants; ``check`` is run on each one. Commands go through ``RULES.decide``
exactly as the service sends them; ``play`` also checks the command is listed and that
``RULES.step`` agrees with decide + fold.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from domain.cathedral import RULES
from domain.cathedral import data as D
from domain.cathedral.data import Bag, EventTile, Follower, HourGlass, Item, Place, Space, Workshop
from domain.cathedral.evolve import expand, put, to_supplies, with_bag, with_knapsack, without
from domain.cathedral.model import DrawFollower, HourGlassSlot, PlaceFollower, State, Step, WorkshopSlot, sort_tiles
from domain.core import Rejected, RejectKind
from domain.games import fold
from domain.rng import Rng
from tests.cathedral.invariants import check

SEED = b"seed"
GAME = "g"


def rng(state: State) -> Rng:
    return Rng(SEED, GAME, state.draws)


@cache
def fresh(players: int = 3, edition: str = "standard", seed: bytes = SEED) -> State:
    """The state right after set-up: round 1, seat 0 to draw (states are frozen: caching is safe)."""
    config = RULES.config_from_json({"edition": edition, "players": players})
    return fold(RULES, RULES.setup(config, Rng(seed, GAME, 0)))


def step(state: State, command: Any) -> tuple[State, list[Any]]:
    """Decide and fold one command; returns (new state, events). Checks ``RULES.step`` on the way."""
    events = RULES.decide(state, command, rng(state))
    new = fold(RULES, events, state)
    assert RULES.step(state, command, rng(state)) == (events, new)
    check(new)
    return new, events


def play(state: State, command: Any) -> tuple[State, list[Any]]:
    """Like ``step`` but first checks the command is among the actor's legal moves."""
    moves = RULES.legal_moves(state, command.seat)
    assert command in moves, f"{command} not in legal moves {moves}"
    return step(state, command)


def rejected(state: State, command: Any, kind: RejectKind = RejectKind.ILLEGAL_MOVE) -> Rejected:
    """Assert the command is refused with ``kind`` and not listed."""
    with pytest.raises(Rejected) as info:
        RULES.decide(state, command, rng(state))
    assert info.value.kind is kind, info.value
    assert command not in RULES.legal_moves(state, command.seat)
    return info.value


def of_type(events: Iterable[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


# --- crafting (every helper keeps each tile in exactly one place) --------------------------------------


def knapsack(state: State, seat: int, *items: Item) -> State:
    """``seat``'s knapsack holds exactly ``items``: the old ones go back, the new ones come from
    the black bag (goods) or the supply (rosettes)."""
    state = to_supplies(with_knapsack(state, seat, remove=state.knapsacks[seat]), state.knapsacks[seat])
    goods = tuple(i for i in items if i is not Item.ROSETTE)
    state = replace(state, black_bag=without(state.black_bag, goods),
                    supply_rosettes=state.supply_rosettes - items.count(Item.ROSETTE))
    state = with_knapsack(state, seat, add=items)
    check(state)
    return state


def at(state: State, seat: int, place: Place) -> State:
    return replace(state, builders=put(state.builders, seat, place))


def turn_of(state: State, seat: int) -> State:
    return replace(state, active=seat)


def holding(state: State, follower: Follower, seat: int | None = None) -> State:
    """The active seat (or ``seat``) has just drawn ``follower`` (taken from whichever bag has one)."""
    if seat is not None:
        state = turn_of(state, seat)
    bag = Bag.RED if follower in state.red_bag else Bag.BLUE
    state = with_bag(state, bag, without(state.bag(bag), (follower,)))
    state = replace(state, drawn=follower, step=Step.PLACE)
    check(state)
    return state


def occupy(state: State, *spaces: Space, follower: Follower | None = None) -> State:
    """Put a tile on each space (one it accepts, taken from the bags), as earlier turns would have."""
    for space in spaces:
        spec = D.SPACES[space]
        tile = follower or next(f for f in (*spec.shows, Follower.MONK, Follower.FARMER) if spec.accepts(f))
        bag = Bag.RED if tile in state.red_bag else Bag.BLUE
        state = with_bag(state, bag, without(state.bag(bag), (tile,)))
        state = replace(state, spaces=put(state.spaces, D.SPACE_INDEX[space], tile))
    check(state)
    return state


def placed(state: State, space: Space, follower: Follower | None = None, seat: int | None = None) -> State:
    """The active seat (or ``seat``) has just put a tile on ``space`` and must carry out its action."""
    spec = D.SPACES[space]
    tile = follower or next(f for f in (*spec.shows, Follower.MONK) if spec.accepts(f))
    state, _ = play(holding(state, tile, seat), PlaceFollower(state.active if seat is None else seat, space))
    return state


def spots(state: State, **items: Item | None) -> State:
    """Set map spots (``s3=Item.WOOD``, ``s15=None``); items come from / go to their supplies."""
    for name, item in items.items():
        spot = int(name[1:])
        old = state.spots[spot]
        if old is not None:
            state = to_supplies(state, (old,))
        if item is Item.ROSETTE:
            state = replace(state, supply_rosettes=state.supply_rosettes - 1)
        elif item is not None:
            state = replace(state, black_bag=without(state.black_bag, (item,)))
        state = replace(state, spots=put(state.spots, spot, item))
    check(state)
    return state


def workshops(state: State, *tiles: Workshop, delivered: dict[Place, tuple[Item, ...]] | None = None) -> State:
    """The Workshop tiles on the board (in Workshop-place order), with deliveries already made."""
    delivered = delivered or {}
    state = to_supplies(state, [i for w in state.workshops for i in w.delivered])
    slots = tuple(WorkshopSlot(place, tile, sort_tiles(delivered.get(place, ())))
                  for place, tile in zip(D.WORKSHOP_PLACES, tiles))
    box = sort_tiles(without(tuple(Workshop), tiles))
    state = replace(state, workshops=slots, workshop_box=box)
    made = [i for items in delivered.values() for i in items]
    state = replace(state, black_bag=without(state.black_bag, [i for i in made if i is not Item.ROSETTE]),
                    supply_rosettes=state.supply_rosettes - made.count(Item.ROSETTE))
    check(state)
    return state


def hour_glass(state: State, tile: HourGlass | None, *delivered: Item) -> State:
    """This round's Hour Glass tile (``None``: none face up), with items already delivered."""
    old = state.hour_glass
    if old is not None:
        state = to_supplies(state, old.delivered)
        state = replace(state, hour_glass=None, hour_glass_pool=sort_tiles(state.hour_glass_pool + (old.tile,)))
    if tile is not None:
        state = replace(state, hour_glass_pool=without(state.hour_glass_pool, (tile,)),
                        hour_glass=HourGlassSlot(tile, sort_tiles(delivered)))
        state = replace(state, black_bag=without(state.black_bag, [i for i in delivered if i is not Item.ROSETTE]),
                        supply_rosettes=state.supply_rosettes - delivered.count(Item.ROSETTE))
    check(state)
    return state


def active_order(state: State, tile: EventTile | None) -> State:
    """``tile`` is the active Event order (taken from the face-down stack)."""
    if state.order is not None:
        state = replace(state, event_pool=sort_tiles(state.event_pool + (state.order,)), order=None)
    if tile is not None:
        state = replace(state, event_pool=without(state.event_pool, (tile,)), order=tile)
    check(state)
    return state


def next_event(state: State, tile: EventTile) -> State:
    """Leave only ``tile`` face down so the next reveal must turn it up (the others discarded)."""
    rest = without(state.event_pool, (tile,))
    return replace(state, event_pool=(tile,), event_discard=state.event_discard + rest)


def next_blueprints(state: State, *tiles: D.Reward) -> State:
    """Leave only ``tiles`` face down (the others already turned)."""
    rest = without(state.blueprint_pool, tiles)
    return replace(state, blueprint_pool=sort_tiles(tiles), blueprints_turned=state.blueprints_turned + rest)


def drawing(state: State, seat: int | None = None) -> DrawFollower:
    return DrawFollower(state.active if seat is None else seat, Bag.RED)


def under_rules(state: State, version: int) -> State:
    """The same state in a game played by rules ``version`` (its config records the version; a
    Blueprint pile nobody has turned yet is that version's, as rules 3 re-tuned the tables)."""
    state = replace(state, config=replace(state.config, rules_version=version))
    if not state.blueprints_turned:
        state = replace(state, blueprint_pool=expand(D.tables(version).blueprints))
    return state
