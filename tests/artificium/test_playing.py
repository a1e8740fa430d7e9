"""Playing cards: sealed steps, the reveal, the resolution order, declining (A-rules l.195-227)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from domain.artificium import RULES
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    CardCommitted,
    CardDeclined,
    CardsRevealed,
    CardTakenBack,
    CommitCard,
    DeclineCard,
    PassMarket,
    Phase,
    PlayedCardsDiscarded,
    PlayPassed,
    ResolveCard,
    State,
    TakeCardBack,
    VictoryPointsScored,
)
from domain.core import RejectKind
from tests.artificium.helpers import give, of_type, play, rejected, resources, started

S, F, C, X, E, T = Card.SAWMILL, Card.FARM, Card.CASTLE, Card.FAIR, Card.EXPLORATION, Card.THEFT


def commit_state(hands: Iterable[Iterable[Card]], first: int = 0) -> State:
    """Turn 1, step 1 of card play, after everyone passed the market, with the given hands."""
    hands = list(hands)
    state = replace(started(len(hands)), first_player=first, market_turn=first)
    for seat, hand in enumerate(hands):
        state = give(state, seat, hand=hand)
    for i in range(len(hands)):
        state, _ = play(state, PassMarket((first + i) % len(hands)))
    assert state.phase is Phase.COMMIT
    return state


def test_every_seat_seals_a_card_at_the_same_time() -> None:
    """A-rules l.196-197: all players choose a card at once and place it face down."""
    state = commit_state([[S, F], [S, F], [S, F]])
    assert RULES.to_act(state) == {0, 1, 2}
    state, events = play(state, CommitCard(1, F))
    assert events == [CardCommitted(1, F)] and RULES.to_act(state) == {0, 2}
    assert state.players[1].hand == (S,) and state.players[1].committed is F
    rejected(state, CommitCard(1, S), RejectKind.NOT_YOUR_TURN)
    rejected(state, CommitCard(0, C))  # not in hand


def test_the_last_commitment_reveals_every_card_together() -> None:
    """A-rules l.197-198: once all have chosen, the cards are revealed immediately."""
    state = commit_state([[S], [F]])
    state, _ = play(state, CommitCard(0, S))
    state, events = play(state, CommitCard(1, F))
    assert of_type(events, CardsRevealed) == [CardsRevealed((0, 1), (S, F))]
    assert state.phase is Phase.RESOLVE and RULES.to_act(state) == {0}


def test_actions_resolve_first_in_turn_order_then_buildings() -> None:
    """A-rules l.198-199: Action cards first, from the first player clockwise, then Buildings
    (A§4 building_resolution_order: also turn order from the first player)."""
    state = commit_state([[S], [X], [F], [E]], first=2)
    for seat, card in ((0, S), (1, X), (2, F), (3, E)):
        state, events = play(state, CommitCard(seat, card))
    reveal = of_type(events, CardsRevealed)[0]
    assert reveal.order == (3, 1, 2, 0) and reveal.cards == (E, X, F, S)


def test_an_action_resolves_before_the_building_it_spoils() -> None:
    """A-rules l.198-199: in one step the Theft of a later seat still resolves before the first
    player's Building, and can take the Wheat that Building needed."""
    state = commit_state([[Card.MILL_BAKERY], [T]], first=0)
    state = give(state, 0, resources=resources(wheat=1))
    state, _ = play(state, CommitCard(0, Card.MILL_BAKERY))
    state, events = play(state, CommitCard(1, T))
    assert of_type(events, CardsRevealed)[0].order == (1, 0) and RULES.to_act(state) == {1}
    state, _ = play(state, ResolveCard(1, target=0, resource=Resource.WHEAT))
    assert RULES.to_act(state) == {0}
    rejected(state, ResolveCard(0))  # the Wheat is gone
    assert DeclineCard(0) in RULES.legal_moves(state, 0)


def test_a_declined_card_is_discarded_without_vp_and_the_seat_plays_on() -> None:
    """A-rules l.204-207, l.210: discard it and keep taking steps; no victory points."""
    state = commit_state([[C, S], [F]])
    state, _ = play(state, CommitCard(0, C))
    state, _ = play(state, CommitCard(1, F))
    rejected(state, ResolveCard(0, target=1))  # no Beer and no Sword
    state, events = play(state, DeclineCard(0))
    assert of_type(events, CardDeclined) == [CardDeclined(0, C, False)]
    assert C in state.discard and state.players[0].vp == 0 and not state.players[0].passed
    state, _ = play(state, ResolveCard(1))
    assert state.phase is Phase.COMMIT and RULES.to_act(state) == {0}, "seat 1's hand is empty: it is out"


def test_a_card_taken_back_returns_to_hand_and_the_seat_passes() -> None:
    """A-rules l.208, l.210: take it back into the hand, take no further part this round; no VP."""
    state = commit_state([[C, S], [F, F]])
    state, _ = play(state, CommitCard(0, C))
    state, _ = play(state, CommitCard(1, F))
    state, events = play(state, TakeCardBack(0))
    assert of_type(events, CardTakenBack) == [CardTakenBack(0, C)] and PlayPassed(0) in events
    assert sorted(state.players[0].hand) == sorted((S, C))
    assert state.players[0].passed and state.players[0].vp == 0
    state, _ = play(state, ResolveCard(1))
    assert RULES.to_act(state) == {1}, "only seat 1 is still playing"


def test_resolved_cards_stay_in_front_until_turn_end_then_are_discarded() -> None:
    """A-rules l.224 and l.246-247: resolved cards stay in front; at turn end they are discarded."""
    state = commit_state([[S], [F]])
    state, _ = play(state, CommitCard(0, S))
    state, _ = play(state, CommitCard(1, F))
    state, events = play(state, ResolveCard(0))
    assert state.players[0].played == (S,) and of_type(events, VictoryPointsScored) == [VictoryPointsScored(0, 1)]
    state, events = play(state, ResolveCard(1))
    assert of_type(events, PlayedCardsDiscarded) == [PlayedCardsDiscarded((S, F))]
    assert state.phase is Phase.TURN_END and all(not p.played for p in state.players)


def test_a_seat_without_cards_is_out_of_the_round() -> None:
    """A-rules l.225-226: a seat plays as many cards as it can; with an empty hand it stops."""
    state = commit_state([[S, S, S], [F]])
    state, _ = play(state, CommitCard(0, S))
    state, _ = play(state, CommitCard(1, F))
    state, _ = play(state, ResolveCard(0))
    state, events = play(state, ResolveCard(1))
    assert PlayPassed(1) in events and RULES.to_act(state) == {0} and state.step == 2


def test_only_the_resolving_seat_acts_during_resolution() -> None:
    state = commit_state([[S], [F]])
    state, _ = play(state, CommitCard(0, S))
    state, _ = play(state, CommitCard(1, F))
    state = give(state, 1, resources=resources(wheat=1))
    rejected(state, ResolveCard(1), RejectKind.NOT_YOUR_TURN)
    rejected(state, DeclineCard(1), RejectKind.NOT_YOUR_TURN)
