"""The Market place and the orders it fills (C-rules l.189-245).

Up to 2 items from the knapsack, one command each, to the Hour Glass tile, to the Workshop where
the seat's Master Builder stands, or into another seat's knapsack (one with room: C§4.8
gifts_respect_knapsack_capacity). An order takes only what it still lacks (C§5). When a Workshop
or the Hour Glass has all it needs, the seat receives its rewards, the delivered goods go back to
the black bag and rosettes to the supply; the Workshop tile is turned over, the Hour Glass tile
leaves the game (the next one comes only at the end of the round).
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from domain.cathedral import data as D
from domain.cathedral.common import Tx, Why, hour_glass_lacks, is_full, is_seat, workshop_here, workshop_lacks
from domain.cathedral.data import Action, Item
from domain.cathedral.model import (
    Deliver,
    Delivered,
    HourGlassCompleted,
    RewardsEarned,
    State,
    Target,
    WorkshopCompleted,
)


def market_open(state: State) -> Why:
    """Why no delivery at all may be made now (None: the command decides); validate_deliver's
    first test, which action_possible asks once rather than for every candidate."""
    pending = state.pending
    if pending is None or pending.action is not Action.MARKET:
        return "deliveries need a Market place space"
    if pending.delivered >= D.DELIVERIES_PER_MARKET:
        return f"a Market place delivers at most {D.DELIVERIES_PER_MARKET} items"
    return None


def validate_deliver(state: State, c: Deliver) -> Why:
    why = market_open(state)
    if why:
        return why
    if c.item not in state.knapsacks[c.seat]:
        return f"you have no {c.item.value} in your knapsack"
    if (c.player is not None) != (c.to is Target.PLAYER):
        return "name a 'player' exactly when delivering to a player"
    return _check_target(state, c)


def _check_target(state: State, c: Deliver) -> Why:
    if c.to is Target.HOUR_GLASS:
        if state.hour_glass is None:
            return "no Hour Glass tile is face up this round"
        return None if hour_glass_lacks(state)[c.item] else f"the Hour Glass tile needs no {c.item.value}"
    if c.to is Target.WORKSHOP:
        slot = workshop_here(state, c.seat)
        if slot is None:
            return f"no open Workshop where your Master Builder stands ({state.builders[c.seat].value})"
        return None if workshop_lacks(state, slot)[c.item] else f"Workshop {slot.tile.value} needs no {c.item.value}"
    if not is_seat(state, c.player) or c.player == c.seat:
        return f"player must be another seat, 0-{state.config.players - 1}"
    assert c.player is not None
    if D.GIFT_NEEDS_ROOM and state.config.rules_version < 2 and is_full(state, c.player):
        return f"seat {c.player}'s knapsack is full"
    return None


def apply_deliver(tx: Tx, c: Deliver) -> None:
    tx.emit(Delivered(c.seat, c.item, c.to, c.player))
    state = tx.state
    if c.to is Target.HOUR_GLASS and state.hour_glass is not None and not hour_glass_lacks(state):
        tx.emit(HourGlassCompleted(c.seat, state.hour_glass.tile, state.hour_glass.delivered))
        tx.emit(RewardsEarned(c.seat, D.tables(state.config.rules_version).hour_glasses[state.hour_glass.tile].rewards))
    if c.to is Target.WORKSHOP:
        slot = workshop_here(state, c.seat)
        if slot is not None and not workshop_lacks(state, slot):
            tx.emit(WorkshopCompleted(c.seat, slot.place, slot.tile, slot.delivered))
            tx.emit(RewardsEarned(c.seat, D.tables(state.config.rules_version).workshops[slot.tile].rewards))


def candidates_deliver(state: State, seat: int) -> Iterator[Deliver]:
    players = state.config.players
    for item in dict.fromkeys(state.knapsacks[seat]):
        yield from _deliveries(seat, item, players)


@cache
def _deliveries(seat: int, item: Item, players: int) -> tuple[Deliver, ...]:
    """One item's Deliver commands for a seat, made once: commands are frozen values, safe to share."""
    return (Deliver(seat, item, Target.HOUR_GLASS), Deliver(seat, item, Target.WORKSHOP),
            *(Deliver(seat, item, Target.PLAYER, other) for other in range(players) if other != seat))
