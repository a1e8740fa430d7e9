"""Cart and Boat (C-rules l.160-180): move the Master Builder along one route to the next place,
a land route by Cart, a river by Boat, then take any good or the rosette lying on that route.

Taking is optional, item by item. Into a full knapsack an item goes only if another one goes back
(goods to the black bag, rosettes to the supply); otherwise it stays on the route.
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from domain.cathedral import data as D
from domain.cathedral.common import Tx, Why, check_put_back, put_back_choices
from domain.cathedral.data import Action, Place, Route, RouteKind
from domain.cathedral.model import BuilderMoved, ItemPutBack, ItemTaken, State, TakeItem, Travel

ROUTE_KIND = {Action.CART: RouteKind.LAND, Action.BOAT: RouteKind.RIVER}


def may_travel(state: State) -> Why:
    """Why no route at all may be travelled now (None: the route decides); validate_travel's
    first test, which action_possible asks once rather than for every candidate."""
    pending = state.pending
    if pending is None or pending.action not in ROUTE_KIND:
        return "only a Cart or Boat space moves the Master Builder"
    if pending.route is not None:
        return "the Master Builder has already moved this turn"
    return None


def validate_travel(state: State, c: Travel) -> Why:
    why = may_travel(state)
    if why:
        return why
    pending = state.pending
    assert pending is not None  # may_travel
    spec = D.ROUTES[c.route]
    kind = ROUTE_KIND[pending.action]
    if spec.kind is not kind:
        return f"{c.route.value} is a {spec.kind.value} route; {pending.action.value} travels by {kind.value}"
    here = state.builders[c.seat]
    if spec.other_end(here) is None:
        return f"{c.route.value} does not start at {here.value}, where your Master Builder stands"
    return None


def apply_travel(tx: Tx, c: Travel) -> None:
    to = D.ROUTES[c.route].other_end(tx.state.builders[c.seat])
    assert to is not None  # validated
    tx.emit(BuilderMoved(c.seat, c.route, to))


def candidates_travel(state: State, seat: int) -> Iterator[Travel]:
    """The routes that start where the seat's Master Builder stands (in Route order); the
    validator still decides which of them the pending action may take."""
    return iter(_travels(seat, state.builders[seat]))


@cache
def _travels(seat: int, here: Place) -> tuple[Travel, ...]:
    """Made once per seat and place: commands are frozen values, safe to share."""
    return tuple(Travel(seat, route) for route in ROUTES_FROM[here])


ROUTES_FROM = {place: tuple(r for r in Route if D.ROUTES[r].other_end(place) is not None) for place in Place}


def items_left(state: State) -> tuple[int, ...]:
    """The spots of the route just travelled that still hold an item."""
    route = state.pending.route if state.pending is not None else None
    if route is None:
        return ()
    return tuple(spot for spot in D.spots_on(route) if state.spots[spot] is not None)


def validate_take(state: State, c: TakeItem) -> Why:
    pending = state.pending
    if pending is None or pending.route is None:
        return "move along a route first; only items on it may be taken"
    if c.spot not in D.spots_on(pending.route):
        return f"spot {c.spot} is not on {pending.route.value}"
    if state.spots[c.spot] is None:
        return f"spot {c.spot} is empty"
    return check_put_back(state, c.seat, c.put_back)


def apply_take(tx: Tx, c: TakeItem) -> None:
    item = tx.state.spots[c.spot]
    assert item is not None  # validated
    if c.put_back is not None:
        tx.emit(ItemPutBack(c.seat, c.put_back))
    tx.emit(ItemTaken(c.seat, c.spot, item))


def candidates_take(state: State, seat: int) -> Iterator[TakeItem]:
    return (TakeItem(seat, spot, back) for spot in items_left(state) for back in put_back_choices(state, seat))
