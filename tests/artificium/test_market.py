"""The Card Market (A-rules l.179-192, l.250-251)."""
from __future__ import annotations

from dataclasses import replace

from domain.artificium import RULES
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    CardsDrawn,
    CoinsPaid,
    ExchangeCard,
    HandDiscarded,
    MarketClosed,
    PassMarket,
    Phase,
    RedrawHand,
    SellResource,
    State,
    sort_cards,
)
from domain.core import RejectKind
from tests.artificium.helpers import give, of_type, play, rejected, resources, started

S, F, C, X = Card.SAWMILL, Card.FARM, Card.CASTLE, Card.FAIR


def market_state(players: int = 3) -> State:
    """Turn 1's market with seat 0 first; seat 0 holds Sawmill+Farm, the market has a Castle and a Fair."""
    state = replace(started(players), first_player=0, market_turn=0, market=sort_cards((C, C, X, X, S, F)))
    for seat in range(players):
        state = give(state, seat, hand=[S, F])
    return state


def test_exchange_swaps_one_hand_card_for_one_market_card() -> None:
    """A-rules l.181-182: exchange one card from the hand for one card from the market."""
    state, _ = play(market_state(), ExchangeCard(0, S, C))
    assert state.players[0].hand == (F, C) and S in state.market and state.market.count(C) == 1
    assert state.players[0].coins == 5, "the first exchange is free (A-rules l.184-185)"


def test_later_exchanges_cost_two_coins() -> None:
    """A-rules l.184-185: every exchange after the first costs 2 coins."""
    state, _ = play(market_state(), ExchangeCard(0, S, C))
    state, _ = play(state, PassMarket(1))
    state, _ = play(state, PassMarket(2))
    state, events = play(state, ExchangeCard(0, F, X))
    assert of_type(events, CoinsPaid) == [CoinsPaid(0, 2)] and state.players[0].coins == 3


def test_an_exchange_that_cannot_be_paid_is_refused() -> None:
    state = give(market_state(), 0, exchanges=1, coins=1)
    rejected(state, ExchangeCard(0, S, C))
    assert all(not isinstance(m, ExchangeCard) for m in RULES.legal_moves(state, 0))


def test_cards_not_held_or_not_in_the_market_and_pointless_swaps_are_refused() -> None:
    """Our reading (data.EXCHANGE_SAME_KIND_ALLOWED): a swap for an identical card is not offered."""
    state = market_state()
    rejected(state, ExchangeCard(0, C, S))  # not in hand
    rejected(state, ExchangeCard(0, S, Card.THEFT))  # not in the market
    rejected(state, ExchangeCard(0, S, S))  # same kind: no change


def test_turns_go_clockwise_from_the_first_player_and_skip_seats_that_passed() -> None:
    """A-rules l.180-184: clockwise from the first player; a seat that passed may not exchange again."""
    state = replace(market_state(3), first_player=1, market_turn=1)
    assert RULES.to_act(state) == {1}
    state, _ = play(state, PassMarket(1))
    assert RULES.to_act(state) == {2}
    state, _ = play(state, ExchangeCard(2, S, C))
    assert RULES.to_act(state) == {0}
    state, _ = play(state, PassMarket(0))
    assert RULES.to_act(state) == {2}, "seat 1 passed for good; seat 2 goes again"
    rejected(state, ExchangeCard(1, S, C), RejectKind.NOT_YOUR_TURN)


def test_when_all_have_passed_the_leftovers_are_discarded_and_play_begins() -> None:
    """A-rules l.183-186: the phase ends when everyone has passed; the market cards are discarded."""
    state = market_state(2)
    state, _ = play(state, PassMarket(0))
    state, events = play(state, PassMarket(1))
    assert of_type(events, MarketClosed) == [MarketClosed((S, F, C, C, X, X))]
    assert state.market == () and state.discard.count(C) == 2
    assert state.phase is Phase.COMMIT and RULES.to_act(state) == {0, 1}


def test_redraw_discards_the_whole_hand_and_draws_five() -> None:
    """A-rules l.188-189: instead of the free exchange, discard the hand and draw 5 new cards."""
    state, events = play(market_state(), RedrawHand(0))
    assert of_type(events, HandDiscarded) == [HandDiscarded(0, (S, F), redraw=True)]
    assert len(of_type(events, CardsDrawn)[0].cards) == 5 and len(state.players[0].hand) == 5
    assert state.discard.count(S) >= 1


def test_redraw_only_instead_of_the_first_exchange_and_once_per_turn() -> None:
    """A-rules l.189-191: once per turn, only instead of the first exchange, never after passing."""
    after_exchange = give(market_state(), 0, exchanges=1)
    rejected(after_exchange, RedrawHand(0))
    after_redraw = give(market_state(), 0, exchanges=1, redrew=True)
    rejected(after_redraw, RedrawHand(0))


def test_after_a_redraw_exchanges_cost_two_coins() -> None:
    """A-rules l.191-192: the redraw uses up the free exchange; later exchanges cost 2 coins."""
    state, _ = play(market_state(2), RedrawHand(0))
    state, _ = play(state, PassMarket(1))
    card = state.players[0].hand[0]
    take = next(c for c in state.market if c is not card)
    state, events = play(state, ExchangeCard(0, card, take))
    assert of_type(events, CoinsPaid) == [CoinsPaid(0, 2)]


def test_no_selling_during_the_card_market() -> None:
    """A-rules l.250-251: resources cannot be sold during the Card Market."""
    state = give(market_state(), 0, resources=resources(wheat=2))
    rejected(state, SellResource(0, Resource.WHEAT), RejectKind.WRONG_PHASE)
