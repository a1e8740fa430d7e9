"""Phases 2 and 3: the census on the Farmers track, then recalling characters from action spaces
and drawing followers from the bag onto the market (R14 "Phase 2", "Phase 3", "Placed Character
Tiles"; F§2.1, F§2.6)."""
from __future__ import annotations

from collections.abc import Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, draw_from_bag, gain_coins
from domain.orleans.data import Char, Tile
from domain.orleans.evolve import TRACK_INDEX
from domain.orleans.model import (
    TECH,
    DrawFollowers,
    FollowerRecalled,
    FollowersDrawn,
    Phase,
    PhaseBegan,
    RecallFollower,
    State,
    TakeCensus,
)
from domain.orleans.queries import draw_limit, free_market, max_draw, slots_of
from domain.orleans.torture import charge


def take_census(tx: Tx, c: TakeCensus) -> None:
    positions = [p.tracks[TRACK_INDEX[Char.FARMER]] for p in tx.state.players]
    top, bottom = max(positions), min(positions)
    if top != bottom:
        if positions.count(top) == 1:
            gain_coins(tx, positions.index(top), D.CENSUS_COIN, "census")
        if positions.count(bottom) == 1 and tx.state.config.players > 2:
            charge(tx, positions.index(bottom), D.CENSUS_COIN, "census")
    tx.emit(PhaseBegan(Phase.FOLLOWERS))


def validate_recall(state: State, c: RecallFollower) -> Why:
    p = state.players[c.seat]
    slots = slots_of(p, c.place)
    if slots is None or not 0 <= c.space < len(slots):
        return f"you have no space {c.space} at {c.place!r}"
    if slots[c.space] in (None, TECH):
        return f"no character on space {c.space} of {c.place}"
    if p.recalls + 1 > draw_limit(p):
        return "each recalled character costs one draw and you have none left"
    if free_market(p) <= 0:
        return "your market is full"
    return None


def apply_recall(tx: Tx, c: RecallFollower) -> None:
    slots = slots_of(tx.state.players[c.seat], c.place)
    assert slots is not None  # validate_recall checked it
    tile = Tile(slots[c.space])
    tx.emit(FollowerRecalled(c.seat, c.place, c.space, tile))


def candidates_recall(state: State, seat: int) -> Iterator[RecallFollower]:
    """Exact: every character on an action space, while a draw and a market space are left."""
    p = state.players[seat]
    if p.recalls + 1 > draw_limit(p) or free_market(p) <= 0:
        return
    for x in p.places:
        for i, v in enumerate(x.slots):
            if v is not None and v != TECH:
                yield RecallFollower(seat, x.place, i)


def validate_draw(state: State, c: DrawFollowers) -> Why:
    top = max_draw(state.players[c.seat])
    return None if 0 <= c.count <= top else f"you may draw 0 to {top} followers"


def apply_draw(tx: Tx, c: DrawFollowers) -> None:
    tiles = draw_from_bag(tx, tx.state.players[c.seat].bag, c.count)
    tx.emit(FollowersDrawn(c.seat, tiles, tx.rng.counter))
    if all(p.drew for p in tx.state.players):
        tx.emit(PhaseBegan(Phase.PLANNING))


def candidates_draw(state: State, seat: int) -> Iterator[DrawFollowers]:
    return (DrawFollowers(seat, n) for n in range(max_draw(state.players[seat]) + 1))


