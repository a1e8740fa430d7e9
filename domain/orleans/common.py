"""What every Orléans rule module shares: the transaction, coins from the supply, development
points, returning a used place's characters to the bag, drawing from a bag, closing a choice."""
from __future__ import annotations

from domain.engine import Transaction, Why
from domain.orleans import data as D
from domain.orleans.data import Tile
from domain.orleans.evolve import FOLD, evolve
from domain.orleans.model import (
    ActionTaken,
    ChoiceClosed,
    CitizenTaken,
    CoinsChanged,
    Command,
    DevelopmentMoved,
    Event,
    State,
)
from domain.orleans.queries import coin_supply, open_choice, placed_tiles

__all__ = ["Tx", "Why", "always_valid", "gain_coins", "advance_development", "use_place", "close_choice",
           "draw_from_bag"]


class Tx(Transaction[State, Event]):
    """The events of one decision, applied as they are emitted so later steps see them."""

    __slots__ = ()
    fold = staticmethod(evolve)

    def emit(self, event: Event) -> None:
        """``Transaction.emit`` with the event's fold rule looked up here: two calls fewer per event
        on the hot path of self-play (``evolve`` is ``FOLD.fold``, which does this lookup)."""
        self.events.append(event)
        rule = _RULE_OF.get(type(event))
        self.state = evolve(self.state, event) if rule is None else rule(self.state, event)


_RULE_OF = FOLD  # event class -> its fold rule (evolve.FOLD, a dict)


def always_valid(state: State, c: Command) -> Why:
    return None


def gain_coins(tx: Tx, seat: int, amount: int, reason: str) -> None:
    supply = coin_supply(tx.state)
    if supply is not None:
        amount = min(amount, supply)  # D11: payouts stop while the supply is empty
    if amount > 0:
        tx.emit(CoinsChanged(seat, amount, reason))


def advance_development(tx: Tx, seat: int, points: int) -> None:
    start = tx.state.players[seat].development
    end = min(D.DEVELOPMENT_MAX, start + points)
    if end == start:
        return
    tx.emit(DevelopmentMoved(seat, end))
    for space, coins in sorted(D.DEVELOPMENT_COINS.items()):
        if start < space <= end:
            gain_coins(tx, seat, coins, "development")
    for i, space in enumerate(D.DEVELOPMENT_CITIZENS):
        if start < space <= end and tx.state.development_citizens[i] is None:
            tx.emit(CitizenTaken(seat, f"development:{i}"))


def use_place(tx: Tx, seat: int, place: str) -> None:
    """Return the characters of an activated place to the bag (technology stays)."""
    tx.emit(ActionTaken(seat, place, placed_tiles(tx.state.players[seat], place)))


def close_choice(tx: Tx) -> None:
    tx.emit(ChoiceClosed(open_choice(tx.state).seat))


def draw_from_bag(tx: Tx, bag: tuple[Tile, ...], count: int) -> tuple[Tile, ...]:
    left = list(bag)  # already sorted: draws index into a sorted sequence
    return tuple(left.pop(tx.rng.below(len(left))) for _ in range(count))
