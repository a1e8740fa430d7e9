"""What every rule module shares: the transaction, blind draws, seats, knapsacks and orders."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

from domain.cathedral import data as D
from domain.cathedral.data import Condition, Item
from domain.cathedral.evolve import evolve
from domain.cathedral.model import State, WorkshopSlot
from domain.engine import Transaction, Why

__all__ = ["Tx", "Why"]

T = TypeVar("T")


class Tx(Transaction[State, Any]):
    """The events of one decision, folded as they are emitted so later steps see them."""

    __slots__ = ()
    fold = staticmethod(evolve)


def blind_draw(tx: Tx, pool: Sequence[T]) -> T:
    """One tile drawn blindly from a sorted pile: an index from the game's rng (design.md)."""
    index: int = tx.rng.below(len(pool))
    return pool[index]


# --- seats -------------------------------------------------------------------------------------------


def is_seat(state: State, seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.config.players


def next_seat(state: State, seat: int) -> int:
    """Clockwise is rising seat number (C-rules l.148-150)."""
    return (seat + 1) % state.config.players


# --- knapsacks (C-rules l.173-180, l.182-187) ---------------------------------------------------------------------


def is_full(state: State, seat: int) -> bool:
    return len(state.knapsacks[seat]) >= D.KNAPSACK_SLOTS


def put_back_choices(state: State, seat: int) -> tuple[Item | None, ...]:
    """The ``put_back`` values a gain into ``seat``'s knapsack may carry: None while there is room,
    else one of each kind of item held (C-rules l.173-180)."""
    if not is_full(state, seat):
        return (None,)
    return tuple(dict.fromkeys(state.knapsacks[seat]))


def check_put_back(state: State, seat: int, put_back: Item | None) -> Why:
    if not is_full(state, seat):
        return None if put_back is None else "your knapsack has room: nothing needs to go back"
    if put_back is None:
        return f"your knapsack is full ({D.KNAPSACK_SLOTS} items): name an item to put back, or leave this one"
    if put_back not in state.knapsacks[seat]:
        return f"you have no {put_back.value} to put back"
    return None


# --- orders: what a Workshop or the Hour Glass still lacks ---------------------------------------------


def lacking(needs: tuple[Item, ...], delivered: tuple[Item, ...]) -> Counter[Item]:
    """What an order still lacks. The answer is shared between callers (read it, never change it):
    the pairs are few (a tile's needs and a part of them), and validators ask for them constantly."""
    key = (needs, delivered)
    lacks = _LACKING.get(key)
    if lacks is None:
        lacks = _LACKING[key] = Counter(needs) - Counter(delivered)
    return lacks


_LACKING: dict[tuple[tuple[Item, ...], tuple[Item, ...]], Counter[Item]] = {}
_NOTHING: Counter[Item] = Counter()


def workshop_here(state: State, seat: int) -> WorkshopSlot | None:
    """The open Workshop where ``seat``'s Master Builder stands (C-rules l.202-206)."""
    place = state.builders[seat]
    return next((w for w in state.workshops if w.place is place and not w.done), None)


def workshop_lacks(state: State, slot: WorkshopSlot) -> Counter[Item]:
    return lacking(D.tables(state.config.rules_version).workshops[slot.tile].needs, slot.delivered)


def hour_glass_lacks(state: State) -> Counter[Item]:
    glass = state.hour_glass
    if glass is None:
        return _NOTHING
    return lacking(D.tables(state.config.rules_version).hour_glasses[glass.tile].needs, glass.delivered)


# --- Event orders (C-rules l.358-369) --------------------------------------------------------------------


def order_met(state: State) -> bool:
    """Whether the active Event order's condition holds now."""
    if state.order is None:
        return False
    spec = D.tables(state.config.rules_version).events[state.order]
    if spec.condition is Condition.BUILDER_AT:
        return spec.place in state.builders
    if spec.condition is Condition.TWO_BUILDERS:
        return len(set(state.builders)) < len(state.builders)
    return any(k.count(Item.ROSETTE) >= spec.count for k in state.knapsacks)

