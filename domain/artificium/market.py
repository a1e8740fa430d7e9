"""The Card Market (A-rules l.179-192).

Six cards are laid out. From the first player clockwise, a seat either exchanges one hand card for
one market card or passes for good; rounds go on until everyone has passed. A seat's first
exchange is free, every later one costs 2 coins; instead of the free exchange it may discard its
whole hand and draw 5 (once per turn). The leftovers are discarded when all have passed. No
resources may be sold in this phase (A-rules l.250-251).
"""
from __future__ import annotations

from collections.abc import Iterator

from domain.artificium import data as D
from domain.artificium.common import Tx, Why, draw_cards, take_from_deck, turn_order
from domain.artificium.model import (
    CardExchanged,
    CoinsPaid,
    ExchangeCard,
    HandDiscarded,
    MarketClosed,
    MarketDealt,
    MarketPassed,
    MarketTurnMoved,
    PassMarket,
    Phase,
    PhaseBegan,
    Player,
    RedrawHand,
    State,
)


def exchange_cost(p: Player) -> int:
    """Free for the seat's first exchange of the turn; the hand redraw uses that free one up."""
    return 0 if p.exchanges == 0 else D.EXCHANGE_COST


def open_market(tx: Tx) -> None:
    tx.emit(PhaseBegan(Phase.MARKET))
    tx.emit(MarketDealt(take_from_deck(tx, D.MARKET_CARDS)))
    tx.emit(MarketTurnMoved(tx.state.first_player))


def next_market_turn(tx: Tx, after: int) -> None:
    """The next seat clockwise that has not passed (the seat itself last), or None when all have."""
    state = tx.state
    for seat in turn_order(state, (after + 1) % state.config.players):
        if not state.players[seat].market_passed:
            tx.emit(MarketTurnMoved(seat))
            return
    tx.emit(MarketTurnMoved(None))


def close_market(tx: Tx) -> None:
    tx.emit(MarketClosed(tx.state.market))


# --- exchange -----------------------------------------------------------------------------------------


def validate_exchange(state: State, c: ExchangeCard) -> Why:
    p = state.players[c.seat]
    if c.give not in p.hand:
        return f"{c.give.value} is not in your hand"
    if c.take not in state.market:
        return f"{c.take.value} is not in the market"
    if c.give is c.take and not D.EXCHANGE_SAME_KIND_ALLOWED:
        return "exchanging a card for one of the same kind changes nothing"
    cost = exchange_cost(p)
    if p.coins < cost:
        return f"this exchange costs {cost} coins; you have {p.coins}"
    return None


def apply_exchange(tx: Tx, c: ExchangeCard) -> None:
    cost = exchange_cost(tx.state.players[c.seat])
    if cost:
        tx.emit(CoinsPaid(c.seat, cost))
    tx.emit(CardExchanged(c.seat, c.give, c.take))
    next_market_turn(tx, c.seat)


def candidates_exchange(state: State, seat: int) -> Iterator[ExchangeCard]:
    """Exact: every distinct hand card for every distinct market card of another kind, if affordable."""
    p = state.players[seat]
    if p.coins < exchange_cost(p):
        return
    for give in dict.fromkeys(p.hand):
        for take in dict.fromkeys(state.market):
            if take is not give or D.EXCHANGE_SAME_KIND_ALLOWED:
                yield ExchangeCard(seat, give, take)


# --- redraw -----------------------------------------------------------------------------------------------


def validate_redraw(state: State, c: RedrawHand) -> Why:
    p = state.players[c.seat]
    if p.redrew:
        return "the hand may be redrawn only once per turn"
    if p.exchanges:
        return "the hand may be redrawn only instead of the first, free exchange"
    return None


def apply_redraw(tx: Tx, c: RedrawHand) -> None:
    tx.emit(HandDiscarded(c.seat, tx.state.players[c.seat].hand, redraw=True))
    draw_cards(tx, c.seat, D.REDRAW_CARDS)
    next_market_turn(tx, c.seat)


# --- pass --------------------------------------------------------------------------------------------------


def validate_pass_market(state: State, c: PassMarket) -> Why:
    return None


def apply_pass_market(tx: Tx, c: PassMarket) -> None:
    tx.emit(MarketPassed(c.seat))
    next_market_turn(tx, c.seat)
