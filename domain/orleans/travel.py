"""Ship, Wagon and Horse Wagon (F§5, F§6): move the merchant along one connection and take a
good lying there, if any (R14 "Empty Roads or Waterways"). The map is F§1."""
from __future__ import annotations

from collections.abc import Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, close_choice, use_place
from domain.orleans.evolve import CONNECTION_INDEX
from domain.orleans.model import (
    Choice,
    ChoiceKind,
    ChoiceOffered,
    GoodTaken,
    MerchantMoved,
    State,
    TakeGood,
    Travel,
)
from domain.orleans.queries import activated_places, activated_why, open_choice

TRAVEL = {"ship": D.Route.WATERWAY, "wagon": D.Route.ROAD, "horse_wagon": D.Route.ROAD}


_CONNECTIONS_BY_END: dict[tuple[str, str, D.Route], D.Connection] = {}


_NEIGHBOURS: dict[tuple[str, D.Route], tuple[str, ...]] = {}


for _c in D.CONNECTIONS:  # both directions of every connection (F§1), in table order
    for _a, _b in ((_c.a, _c.b), (_c.b, _c.a)):
        _CONNECTIONS_BY_END[(_a, _b, _c.route)] = _c
        _NEIGHBOURS[(_a, _c.route)] = (*_NEIGHBOURS.get((_a, _c.route), ()), _b)


def connection_to(town: str, to: str, route: D.Route) -> D.Connection | None:
    return _CONNECTIONS_BY_END.get((town, to, route))


def neighbours(town: str, route: D.Route) -> tuple[str, ...]:
    return _NEIGHBOURS.get((town, route), ())


def validate_travel(state: State, c: Travel) -> Why:
    if c.place not in TRAVEL:
        return f"{c.place!r} does not move the merchant"
    p = state.players[c.seat]
    why = activated_why(p, c.place)
    if why:
        return why
    if connection_to(p.merchant, c.to, TRAVEL[c.place]) is None:
        return f"no {TRAVEL[c.place].value} from {p.merchant} to {c.to}"
    return None


def apply_travel(tx: Tx, c: Travel) -> None:
    use_place(tx, c.seat, c.place)
    conn = connection_to(tx.state.players[c.seat].merchant, c.to, TRAVEL[c.place])
    assert conn is not None  # validate_travel checked it
    tx.emit(MerchantMoved(c.seat, conn.id, c.to))
    if tx.state.roads[CONNECTION_INDEX[conn.id]]:
        tx.emit(ChoiceOffered(Choice(c.seat, ChoiceKind.GOOD, c.place, connection=conn.id)))


def candidates_travel(state: State, seat: int) -> Iterator[Travel]:
    p = state.players[seat]
    ready = activated_places(p)
    for place, route in TRAVEL.items():
        if place in ready:
            for town in neighbours(p.merchant, route):
                yield Travel(seat, place, town)


def validate_take_good(state: State, c: TakeGood) -> Why:
    goods = state.roads[CONNECTION_INDEX[open_choice(state).connection]]
    return None if c.good is None or c.good in goods else f"no {c.good.value} on this connection"


def apply_take_good(tx: Tx, c: TakeGood) -> None:
    if c.good is not None:
        tx.emit(GoodTaken(c.seat, c.good, open_choice(tx.state).connection))
    close_choice(tx)


def candidates_take_good(state: State, seat: int) -> Iterator[TakeGood]:
    goods = set(state.roads[CONNECTION_INDEX[open_choice(state).connection]])
    for g in sorted(goods, key=lambda g: -D.GOOD_POINTS[g]):  # most valuable first: the default
        yield TakeGood(seat, g)
    yield TakeGood(seat, None)


