"""Turns: Start, the first-player marker, Turn end, reshuffles, 4 turns (A-rules l.164-177, l.246-255)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.artificium import RULES
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    SYSTEM,
    CardDiscarded,
    CardsDrawn,
    DeckReshuffled,
    DiscardFromHand,
    FinishTurn,
    GameEnded,
    MarketDealt,
    PassMarket,
    Phase,
    ResolveCard,
    SellResource,
    StartTurn,
    State,
    TurnStarted,
    sort_cards,
)
from domain.artificium.turn import next_first_player
from domain.core import Rejected, RejectKind
from domain.rng import Rng
from tests.artificium.helpers import fresh, give, of_type, play, rejected, resolving, resources, step


def turn_end(players: int = 3) -> State:
    """Turn 1's Turn end: seat 0 resolved a Farm, everyone else had passed."""
    state = resolving(players, 0, Card.FARM, resources=resources(coal=1))
    state, _ = play(state, ResolveCard(0))
    assert state.phase is Phase.TURN_END
    return state


def test_turn_end_discard_and_sell_then_finish() -> None:
    """A-rules l.247-249: discard any or all hand cards, sell any number of resources."""
    state = give(turn_end(), 1, hand=[Card.CASTLE, Card.FAIR])
    assert RULES.to_act(state) == {0, 1, 2}
    state, events = play(state, DiscardFromHand(1, Card.CASTLE))
    assert events == [CardDiscarded(1, Card.CASTLE)] and Card.CASTLE in state.discard
    state, _ = play(state, SellResource(0, Resource.COAL))
    state, _ = play(state, FinishTurn(0))
    rejected(state, SellResource(0, Resource.WHEAT), RejectKind.NOT_YOUR_TURN)
    state, _ = play(state, FinishTurn(1))
    state, _ = play(state, FinishTurn(2))
    assert state.phase is Phase.START and RULES.to_act(state) == {SYSTEM}


def test_later_turns_fill_hands_up_to_five_and_keep_bigger_hands() -> None:
    """A-rules l.171-173: draw up to 5 cards; a hand of more than 5 (Wizard) is kept whole."""
    state = replace(fresh(3), turn=1)
    state = give(state, 0, hand=[Card.FARM, Card.FARM])
    state = give(state, 1, hand=[Card.FAIR] * 7)
    state, events = step(state, StartTurn())
    drawn = {e.seat: len(e.cards) for e in of_type(events, CardsDrawn)}
    assert drawn == {0: 3, 2: 5} and len(state.players[1].hand) == 7
    assert of_type(events, TurnStarted)[0].turn == 2


def test_the_seat_with_fewest_vp_goes_first_from_turn_two() -> None:
    """A-rules l.175-176: the marker goes to the player with the fewest victory points."""
    state = replace(fresh(4), turn=1, first_player=0)
    for seat, vp in enumerate((9, 4, 2, 7)):
        state = give(state, seat, vp=vp)
    state, events = step(state, StartTurn())
    assert of_type(events, TurnStarted) == [TurnStarted(2, 2)] and state.market_turn == 2


def test_ties_go_to_the_closest_clockwise_from_the_previous_first_player() -> None:
    """A-rules l.176-177: among tied players, the closest clockwise to the previous first player."""
    state = replace(fresh(5), turn=1, first_player=3)
    for seat, vp in enumerate((1, 1, 5, 5, 6)):
        state = give(state, seat, vp=vp)
    assert next_first_player(state) == 0, "3 -> 4 -> 0: seat 0 comes before seat 1"
    state = replace(state, first_player=1)
    assert next_first_player(state) == 1, "the previous first player, tied, keeps the marker (our reading)"


def test_an_empty_draw_pile_is_refilled_from_the_shuffled_discard_pile() -> None:
    """A-rules l.255: whenever the draw pile is empty, shuffle the discard pile into a new one."""
    state = fresh(2)
    state = replace(state, deck=state.deck[:3], discard=sort_cards(state.deck[3:]))
    state, events = step(state, StartTurn())
    assert len(of_type(events, DeckReshuffled)) == 1
    assert sum(len(e.cards) for e in of_type(events, CardsDrawn)) == 10
    assert len(of_type(events, MarketDealt)[0].cards) == 6 and state.discard == ()


def test_the_pile_is_refilled_the_moment_it_runs_out_not_at_the_next_draw() -> None:
    """A-rules l.255: "if the draw pile is empty at any point": the market takes the last 6 cards,
    the discard pile becomes the new pile at once, and the market leftovers discarded later wait
    for the next reshuffle."""
    state = replace(fresh(2), turn=1)
    for seat in (0, 1):
        state = give(state, seat, hand=state.deck[5 * seat:5 * seat + 5])
    old_discard = sort_cards(state.deck[16:])
    state = replace(state, deck=state.deck[10:16], discard=old_discard)
    state, events = step(state, StartTurn())
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("DeckReshuffled") == kinds.index("MarketDealt") + 1 and not of_type(events, CardsDrawn)
    assert sorted(state.deck) == sorted(old_discard) and state.discard == ()
    market = state.market
    first = state.first_player
    state, _ = play(state, PassMarket(first))
    state, events = play(state, PassMarket(1 - first))
    assert state.discard == market and not of_type(events, DeckReshuffled), "the leftovers start a new discard pile"
    assert sorted(state.deck) == sorted(old_discard)


def test_a_card_discarded_onto_an_empty_table_becomes_the_new_pile() -> None:
    """A-rules l.255: with no draw pile left, the first discarded card is shuffled into a new one."""
    state = replace(give(turn_end(3), 1, hand=[Card.CASTLE, Card.FAIR]), deck=(), discard=())
    state, events = play(state, DiscardFromHand(1, Card.CASTLE))
    assert [type(e) for e in events] == [CardDiscarded, DeckReshuffled]
    assert state.deck == (Card.CASTLE,) and state.discard == ()


def test_the_fourth_turn_ends_the_game() -> None:
    """A-rules l.164-165, l.252-253, l.257: four turns, then the final score."""
    state = replace(resolving(2, 0, Card.FARM), turn=4)
    state, events = play(state, ResolveCard(0))
    assert state.phase is Phase.FINISHED and of_type(events, GameEnded)
    assert RULES.to_act(state) == frozenset() and RULES.legal_moves(state, 0) == []
    with pytest.raises(Rejected) as info:
        RULES.decide(state, PassMarket(0), Rng(b"s", "g", state.draws))
    assert info.value.kind is RejectKind.GAME_OVER
