"""Resolving cards and the score board (A-rules l.44-140, l.217-223; A§4 score_board)."""
from __future__ import annotations

import pytest

from domain.artificium import RULES
from domain.artificium import data as D
from domain.artificium.data import Card, Effect, Resource
from domain.artificium.model import (
    BonusCollected,
    CardExplored,
    CardsDrawn,
    CoinsTaken,
    DeclineCard,
    DiscardFromHand,
    DiscardsOwed,
    MarkerPushedBack,
    Phase,
    ResolveCard,
    ResourceStolen,
    SellResource,
    State,
    TakeCardBack,
)
from domain.core import RejectKind
from tests.artificium.helpers import give, have, of_type, play, rejected, resolving, resources, under_rules

R = Resource
PRODUCERS = [c for c in Card if D.CARDS[c].effect is Effect.PRODUCE]

SEVEN = D.TABLES[1].bonus_spaces  # rules 1's board, a bonus space every 7th space


def seven(state: State) -> State:
    """The bonus-space scenarios below play on rules 1's board, the same state in a game recorded
    under rules 1 (rules 2 has the same rule, A-rules l.219-223, on every 20th space)."""
    return under_rules(state, 1)



@pytest.mark.parametrize("card", PRODUCERS)
def test_each_building_spends_gains_and_scores(card: Card) -> None:
    """A-rules l.66-126 (and A§2 card list): a Building turns its inputs into its outputs and
    scores its VP at once (A-rules l.217-218)."""
    spec = D.CARDS[card]
    counts = {r.value: spec.takes.count(r) for r in spec.takes}
    state = resolving(3, 0, card, hand=[Card.FAIR], resources=resources(**counts))
    state, _ = play(state, ResolveCard(0))
    p = state.players[0]
    for r in R:
        assert have(state, 0, r) == spec.gives.count(r), (card, r)
    assert p.vp == spec.vp and p.played == (card,)


@pytest.mark.parametrize("card", [c for c in PRODUCERS if D.CARDS[c].takes])
def test_a_building_without_its_inputs_cannot_resolve(card: Card) -> None:
    """A-rules l.204-205: without the resources the card cannot be resolved; decline or take back."""
    state = resolving(3, 0, card)
    rejected(state, ResolveCard(0))
    assert {type(m) for m in RULES.legal_moves(state, 0)} >= {DeclineCard, TakeCardBack}


def test_passing_a_bonus_space_pays_its_resource() -> None:
    """A-rules l.219-221: moving over or stopping on a resource space takes that resource free."""
    state = seven(resolving(3, 0, Card.CHARCOAL_BURNERS_HOUSE, resources=resources(wood=1), vp=5, farthest=5))
    state, events = play(state, ResolveCard(0))
    assert of_type(events, BonusCollected) == [BonusCollected(0, 7, SEVEN[7])]
    assert state.players[0].vp == 7 and have(state, 0, SEVEN[7]) == 1


def test_passing_several_bonus_spaces_pays_each() -> None:
    """A-rules l.221-223: several resource spaces in one move pay one resource each."""
    state = seven(resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1), vp=6, farthest=6))
    state, events = play(state, ResolveCard(0, target=1))
    assert [e.space for e in of_type(events, BonusCollected)] == [7, 14]
    assert state.players[0].vp == 14


def test_the_score_board_wraps_after_space_99() -> None:
    """A§4 score_board: spaces 0-99; a marker past 99 goes on from 0 and keeps its total."""
    state = seven(resolving(3, 0, Card.SAWMILL, vp=97, farthest=97))
    state, events = play(state, ResolveCard(0))
    assert state.players[0].vp == 98 and [e.space for e in of_type(events, BonusCollected)] == [98]
    state = seven(resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1), vp=99, farthest=99))
    state, events = play(state, ResolveCard(0, target=1))
    assert state.players[0].vp == 107 and [e.space for e in of_type(events, BonusCollected)] == [7]
    assert RULES.view(state, None)["seats"][0]["space"] == 7


def test_castle_makes_a_knight_and_pushes_an_opponent_back_four_without_bonus() -> None:
    """A-rules l.61-64, l.239-244: 1 Beer, 1 Sword, 1 Coin -> 8 VP and an opponent 4 spaces back;
    A§4 bonus_on_forward_move_only: the push-back pays nothing."""
    state = seven(resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1)))
    state = give(state, 2, vp=16, farthest=16)
    state, events = play(state, ResolveCard(0, target=2))
    assert of_type(events, MarkerPushedBack) == [MarkerPushedBack(2, 0, 4)]
    assert state.players[2].vp == 12 and not any(e.seat == 2 for e in of_type(events, BonusCollected))
    p = state.players[0]
    assert p.vp == 8 and p.coins == 4 and p.knights == 1
    assert p.resources == resources(wheat=1), "Beer and Sword spent; the wheat of space 7 gained"


def test_castle_push_back_stops_at_zero() -> None:
    """A§4 castle_pushback floor 0: VP never go below zero."""
    state = resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1))
    state = give(state, 1, vp=2, farthest=2)
    state, events = play(state, ResolveCard(0, target=1))
    assert of_type(events, MarkerPushedBack) == [MarkerPushedBack(1, 0, 2)] and state.players[1].vp == 0


def test_castle_needs_an_opponent_and_its_coin() -> None:
    state = resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1))
    rejected(state, ResolveCard(0))
    rejected(state, ResolveCard(0, target=0))
    rejected(state, ResolveCard(0, target=3))
    rejected(give(state, 0, coins=0), ResolveCard(0, target=1))


def test_recrossing_a_bonus_space_after_a_push_back_pays_again() -> None:
    """A§4 bonus_repays_on_recross: moving over the space again pays again."""
    state = seven(resolving(3, 0, Card.SAWMILL, vp=6, farthest=10))
    state, events = play(state, ResolveCard(0))
    assert [e.space for e in of_type(events, BonusCollected)] == [7]


def test_wizards_tower_scores_draws_five_and_discards_three() -> None:
    """A-rules l.128-133: 1 Beer, 1 Potion, 1 Coin -> 8 VP, draw 5, then discard 3 of your choice."""
    state = resolving(3, 0, Card.WIZARDS_TOWER, hand=[Card.FARM], resources=resources(beer=1, potion=1))
    state, events = play(state, ResolveCard(0))
    assert len(of_type(events, CardsDrawn)[0].cards) == 5 and of_type(events, DiscardsOwed) == [DiscardsOwed(0, 3)]
    assert state.players[0].vp == 8 and state.players[0].wizards == 1 and len(state.players[0].hand) == 6
    assert RULES.to_act(state) == {0}
    assert all(isinstance(m, DiscardFromHand) for m in RULES.legal_moves(state, 0))
    rejected(state, SellResource(0, R.WHEAT), RejectKind.WRONG_PHASE)
    for _ in range(3):
        state, _ = play(state, DiscardFromHand(0, state.players[0].hand[-1]))
    assert len(state.players[0].hand) == 3 and state.phase is Phase.COMMIT, "the discards end the resolution"


def test_exploration_takes_a_random_card_and_the_victim_draws_a_new_one() -> None:
    """A-rules l.44-49: pick a random card from a player's hand; that player draws a replacement."""
    state = resolving(3, 0, Card.EXPLORATION)
    state = give(state, 2, hand=[Card.CASTLE, Card.FAIR])
    state, events = play(state, ResolveCard(0, target=2))
    explored = of_type(events, CardExplored)[0]
    assert explored.card in (Card.CASTLE, Card.FAIR) and explored.target == 2
    assert state.players[0].hand == (explored.card,) and len(state.players[2].hand) == 2
    assert of_type(events, CardsDrawn)[0].seat == 2


def test_exploration_needs_another_seat_with_cards() -> None:
    """A§4 exploration_may_target_self: false."""
    state = resolving(3, 0, Card.EXPLORATION, hand=[Card.FARM])
    state = give(state, 1, hand=[])
    state = give(state, 2, hand=[Card.FAIR])
    rejected(state, ResolveCard(0, target=0))
    rejected(state, ResolveCard(0, target=1))
    assert [m for m in RULES.legal_moves(state, 0) if isinstance(m, ResolveCard)] == [ResolveCard(0, target=2)]


def test_reconstruction_returns_a_card_played_this_turn() -> None:
    """A-rules l.51-54: return one of the cards you played this turn to your hand."""
    state = resolving(3, 0, Card.RECONSTRUCTION, played=(Card.SAWMILL, Card.FAIR))
    rejected(state, ResolveCard(0, card=Card.CASTLE))
    rejected(state, ResolveCard(0))
    state, _ = play(state, ResolveCard(0, card=Card.SAWMILL))
    p = state.players[0]
    assert p.hand == (Card.SAWMILL,) and p.played == (Card.FAIR, Card.RECONSTRUCTION)


def test_reconstruction_cannot_bring_back_a_reconstruction() -> None:
    """Our reading (data.RECONSTRUCTION_RETURNS_RECONSTRUCTION): two Reconstructions returning each
    other would make a turn endless; with nothing else to return it cannot resolve."""
    state = resolving(3, 0, Card.RECONSTRUCTION, played=(Card.RECONSTRUCTION,))
    rejected(state, ResolveCard(0, card=Card.RECONSTRUCTION))
    assert not [m for m in RULES.legal_moves(state, 0) if isinstance(m, ResolveCard)]


def test_fair_pays_two_coins_per_card_played_this_turn_not_counting_itself() -> None:
    """A-rules l.56-59: 2 coins for each card played from the hand this turn, this Fair excluded."""
    state = resolving(3, 0, Card.FAIR, played=(Card.SAWMILL, Card.FARM, Card.FAIR), plays=3)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, CoinsTaken) == [CoinsTaken(0, 6)] and state.players[0].coins == 11
    assert state.players[0].plays == 4


def test_fair_counts_a_replayed_card_twice() -> None:
    """A§4 fair_counts_replayed_cards: a card returned by Reconstruction and played again counts again."""
    state = resolving(3, 0, Card.RECONSTRUCTION, hand=[Card.FAIR], played=(Card.SAWMILL,), plays=1)
    state, _ = play(state, ResolveCard(0, card=Card.SAWMILL))
    assert state.players[0].plays == 2 and state.players[0].returned == (Card.SAWMILL,)


def test_a_declined_card_does_not_count_for_the_fair() -> None:
    """Our reading (data.FAIR_COUNTS_DECLINED_CARDS): only resolved cards were played for the Fair."""
    state = resolving(3, 0, Card.CASTLE, hand=[Card.FAIR])
    state, _ = play(state, DeclineCard(0))
    assert state.players[0].plays == 0


@pytest.mark.parametrize("resource,cost", [(R.WHEAT, 1), (R.WOOD, 1), (R.COAL, 2), (R.FOOD, 2), (R.BEER, 2)])
def test_theft_takes_a_level_one_or_two_resource_for_one_or_two_coins(resource: Resource, cost: int) -> None:
    """A-rules l.135-140: pay 1 coin for a level I, 2 coins for a level II resource of an opponent;
    it keeps its type (A§4 resources: levels)."""
    state = resolving(3, 0, Card.THEFT)
    state = give(state, 1, resources=resources(**{resource.value: 1}))
    bank = state.bank
    state, events = play(state, ResolveCard(0, target=1, resource=resource))
    assert of_type(events, ResourceStolen) == [ResourceStolen(0, 1, resource, cost)]
    assert have(state, 0, resource) == 1 and have(state, 1, resource) == 0
    assert state.players[0].coins == 5 - cost and state.bank == bank + cost


def test_theft_cannot_take_higher_levels_from_yourself_or_what_is_not_there() -> None:
    state = resolving(3, 0, Card.THEFT, resources=resources(wheat=1))
    state = give(state, 1, resources=resources(metal=1, sword=1, wheat=1))
    rejected(state, ResolveCard(0, target=1, resource=R.METAL))
    rejected(state, ResolveCard(0, target=1, resource=R.SWORD))
    rejected(state, ResolveCard(0, target=0, resource=R.WHEAT))
    rejected(state, ResolveCard(0, target=2, resource=R.WHEAT))
    rejected(state, ResolveCard(0, target=1))
    rejected(give(state, 0, coins=0), ResolveCard(0, target=1, resource=R.WHEAT))


def test_choices_a_card_does_not_ask_for_are_refused() -> None:
    state = resolving(3, 0, Card.SAWMILL)
    rejected(state, ResolveCard(0, target=1))
    rejected(state, ResolveCard(0, resource=R.WOOD))
    rejected(state, ResolveCard(0, card=Card.SAWMILL))
