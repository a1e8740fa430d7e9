"""Torture (R14 "Torture (Bankruptcy)", F§8.1): every coin a seat must pay and cannot becomes a
due item; the seat gives up goods, development points, place tiles, technology, trading stations or
followers, one per coin (default order D12); with nothing left to give, the rest is forgiven."""
from __future__ import annotations

from collections.abc import Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why
from domain.orleans.data import Item
from domain.orleans.model import (
    GOODS,
    TECH,
    CoinsChanged,
    DueAssigned,
    DueForgiven,
    GiveUp,
    ItemLost,
    State,
)
from domain.orleans.queries import can_lose_development


def charge(tx: Tx, seat: int, amount: int, reason: str) -> None:
    """Pay what you can; every missing coin becomes a torture item (F§8.1 Torture)."""
    paid = min(amount, tx.state.players[seat].coins)
    if paid:
        tx.emit(CoinsChanged(seat, -paid, reason))
    owe(tx, seat, amount - paid, reason)


def owe(tx: Tx, seat: int, amount: int, reason: str) -> None:
    if amount <= 0:
        return
    if has_items(tx.state, seat):
        tx.emit(DueAssigned(seat, "torture", amount, reason))
    else:
        tx.emit(DueForgiven(seat, amount))


def torture_options(state: State, seat: int) -> Iterator[GiveUp]:
    """Everything a seat may give up, in the default order of D12. Exact: validate_give_up accepts
    precisely these."""
    p = state.players[seat]
    for g, n in zip(GOODS, p.goods):
        if n:
            yield GiveUp(seat, Item.GOOD, g.value)
    if can_lose_development(p):
        yield GiveUp(seat, Item.DEVELOPMENT, "")
    for s in p.places:
        if D.PLACES[s.place].stack:
            yield GiveUp(seat, Item.PLACE_TILE, s.place)
    if p.techs:
        yield GiveUp(seat, Item.TECHNOLOGY, "")
    for s in p.places:
        if TECH in s.slots:
            yield GiveUp(seat, Item.TECHNOLOGY, s.place)
    if p.stations:
        yield GiveUp(seat, Item.STATION, "")
    for town, owner in state.stations:
        if owner == seat:
            yield GiveUp(seat, Item.STATION, town)
    if not D.STARTING_TILES.issuperset(p.bag):  # a neutral character in the bag
        yield GiveUp(seat, Item.FOLLOWER, "")


def has_items(state: State, seat: int) -> bool:
    return next(torture_options(state, seat), None) is not None


def validate_give_up(state: State, c: GiveUp) -> Why:
    return None if c in list(torture_options(state, c.seat)) else f"you cannot give up {c.item.value} {c.target!r}"


def apply_give_up(tx: Tx, c: GiveUp) -> None:
    tile = None
    if c.item is Item.FOLLOWER:
        candidates = [t for t in tx.state.players[c.seat].bag if not t.starting]
        tile = candidates[tx.rng.below(len(candidates))]  # starting followers are redrawn (F§8.1)
    tx.emit(ItemLost(c.seat, c.item, c.target, tile, tx.rng.counter))
    left = sum(d.amount for d in tx.state.dues if d.seat == c.seat and d.kind == "torture")
    if left and not has_items(tx.state, c.seat):
        tx.emit(DueForgiven(c.seat, left))


