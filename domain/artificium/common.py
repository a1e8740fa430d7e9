"""What every rule module shares: the transaction, turn order, drawing cards, the bank."""
from __future__ import annotations

from typing import Any

from domain.artificium.data import Card
from domain.artificium.evolve import evolve
from domain.artificium.model import CardsDrawn, DeckReshuffled, Phase, Player, State, tables
from domain.engine import Transaction, Why

__all__ = ["Tx", "Why"]



class Tx(Transaction[State, Any]):
    """The events of one decision, folded as they are emitted so later steps see them.

    After every event the draw pile is refilled if it has run out while the discard pile holds
    cards: the rule applies "at any point in the game" (A-rules l.255), not only when a draw
    comes up short, so cards discarded after the pile emptied wait for the next reshuffle.
    """

    __slots__ = ()
    fold = staticmethod(evolve)

    def emit(self, event: Any) -> None:
        super().emit(event)
        if pile_ran_out(self.state):
            reshuffle(self)


def pile_ran_out(state: State) -> bool:
    """The draw pile is empty and the discard pile could refill it (A-rules l.255)."""
    return not state.deck and bool(state.discard) and state.phase is not Phase.FINISHED


def reshuffle(tx: Tx) -> None:
    deck = tx.rng.shuffled(tx.state.discard)  # the discard pile is kept sorted
    tx.emit(DeckReshuffled(deck, tx.rng.counter))


def turn_order(state: State, start: int | None = None) -> tuple[int, ...]:
    """Every seat clockwise (rising seat number), from ``start`` (default: the first player)."""
    n = state.config.players
    first = state.first_player if start is None else start
    return tuple((first + i) % n for i in range(n))


def player(state: State, seat: int) -> Player:
    return state.players[seat]


def is_seat(state: State, seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.config.players


def bank_pays(state: State, amount: int) -> int:
    """How many of ``amount`` tokens the bank can hand out (all of them while it is unlimited)."""
    return amount if not tables(state).bank_is_limited else max(0, min(amount, state.bank))


def take_from_deck(tx: Tx, count: int) -> tuple[Card, ...]:
    """The top ``count`` cards (fewer if deck and discard run dry). When the pile holds fewer,
    the discard pile is shuffled under the cards left first: the same cards as drawing the rest,
    finding the pile empty and reshuffling (A-rules l.255). The caller emits the event that
    moves them."""
    if len(tx.state.deck) < count and tx.state.discard:
        reshuffle(tx)
    return tx.state.deck[:count]


def draw_cards(tx: Tx, seat: int, count: int) -> tuple[Card, ...]:
    cards = take_from_deck(tx, count)
    if cards:
        tx.emit(CardsDrawn(seat, cards))
    return cards
