"""Every reconstructed value and every reading of our own is data: changing the one named value in
``domain/artificium/data.py`` changes the behaviour, with no code change (A§3, A§4).

Each test flips one value (``monkeypatch`` on the data module) and replays the scenario that pins
the current value elsewhere, so both branches of each switch are covered.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from domain.artificium import RULES
from domain.artificium import data as D
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    BonusCollected,
    BuyResource,
    CardExplored,
    CommitCard,
    DeclineCard,
    ExchangeCard,
    MarkerPushedBack,
    Produced,
    ResolveCard,
)
from domain.artificium.turn import next_first_player
from tests.artificium.helpers import fresh, give, of_type, play, rejected, resolving, resources
from tests.artificium.test_market import market_state

R = Resource


def patch_tables(monkeypatch: pytest.MonkeyPatch, **changes: object) -> None:
    """Play the current rules version with some reconstructed tables changed."""
    current = replace(D.TABLES[D.RULES_VERSION], **changes)
    monkeypatch.setattr(D, "TABLES", MappingProxyType({**D.TABLES, D.RULES_VERSION: current}))


def test_bonus_spaces_are_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 score_board.bonus_spaces: another layout pays on its own spaces."""
    patch_tables(monkeypatch, bonus_spaces=MappingProxyType({3: R.BEER}))
    state = resolving(3, 0, Card.CHARCOAL_BURNERS_HOUSE, resources=resources(wood=1), vp=1, farthest=1)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, BonusCollected) == [BonusCollected(0, 3, R.BEER)]


def test_a_board_that_does_not_repay_recrossed_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 bonus_repays_on_recross false: a space already reached pays nothing the second time."""
    monkeypatch.setattr(D, "BONUS_REPAYS_ON_RECROSS", False)
    patch_tables(monkeypatch, bonus_spaces=D.TABLES[1].bonus_spaces)  # spaces 7 and 14
    state = resolving(3, 0, Card.SAWMILL, vp=6, farthest=10)
    state, events = play(state, ResolveCard(0))
    assert not of_type(events, BonusCollected) and state.players[0].vp == 7
    state = resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1), vp=6, farthest=10)
    state, events = play(state, ResolveCard(0, target=1))
    assert [e.space for e in of_type(events, BonusCollected)] == [14], "beyond the farthest space it pays again"


def test_a_push_back_that_pays_the_spaces_it_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 bonus_on_forward_move_only false: the Castle's victim collects what it passes backwards."""
    monkeypatch.setattr(D, "BONUS_ON_FORWARD_MOVE_ONLY", False)
    patch_tables(monkeypatch, bonus_spaces=MappingProxyType({14: R.COAL}))
    state = give(resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1)), 2, vp=16, farthest=16)
    state, events = play(state, ResolveCard(0, target=2))
    assert of_type(events, MarkerPushedBack) == [MarkerPushedBack(2, 0, 4)]
    assert [e for e in of_type(events, BonusCollected) if e.seat == 2] == [BonusCollected(2, 14, R.COAL)]


def test_castle_push_back_and_floor_are_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(D, "CASTLE_PUSHBACK", 6)
    monkeypatch.setattr(D, "CASTLE_PUSHBACK_FLOOR", 3)
    state = give(resolving(3, 0, Card.CASTLE, resources=resources(beer=1, sword=1)), 1, vp=20, farthest=20)
    state = give(state, 2, vp=5, farthest=5)
    after, events = play(state, ResolveCard(0, target=1))
    assert of_type(events, MarkerPushedBack) == [MarkerPushedBack(1, 0, 6)]
    after, events = play(state, ResolveCard(0, target=2))
    assert of_type(events, MarkerPushedBack) == [MarkerPushedBack(2, 0, 2)] and after.players[2].vp == 3


def test_prices_are_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 resources buy/sell: another price list is charged as written."""
    patch_tables(monkeypatch, buy=MappingProxyType({**D.BUY_PRICES, R.WHEAT: 4}))
    state = resolving(3, 0, Card.MILL_BAKERY)
    state, _ = play(state, BuyResource(0, R.WHEAT))
    assert state.players[0].coins == 1
    rejected(state, BuyResource(0, R.WHEAT))


def test_theft_levels_are_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 resources level: a resource moved to level III can no longer be stolen."""
    monkeypatch.setattr(D, "RESOURCE_LEVELS", MappingProxyType({**D.RESOURCE_LEVELS, R.BEER: 3}))
    state = give(resolving(3, 0, Card.THEFT), 1, resources=resources(beer=1))
    rejected(state, ResolveCard(0, target=1, resource=R.BEER))


def test_exploration_of_ones_own_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 exploration_may_target_self true: the seat may draw at random from its own hand."""
    monkeypatch.setattr(D, "EXPLORATION_MAY_TARGET_SELF", True)
    state = resolving(3, 0, Card.EXPLORATION, hand=[Card.FARM, Card.FAIR])
    assert ResolveCard(0, target=0) in RULES.legal_moves(state, 0)
    state, events = play(state, ResolveCard(0, target=0))
    assert of_type(events, CardExplored)[0].target == 0 and len(state.players[0].hand) == 3


def test_a_fair_that_does_not_count_replayed_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 fair_counts_replayed_cards false: a card brought back and played again counts once."""
    monkeypatch.setattr(D, "FAIR_COUNTS_REPLAYED_CARDS", False)
    state = resolving(3, 0, Card.RECONSTRUCTION, hand=[Card.FAIR], played=(Card.SAWMILL,), plays=1)
    state, _ = play(state, ResolveCard(0, card=Card.SAWMILL))
    assert state.players[0].plays == 2, "the Reconstruction itself was played from the hand"
    state, _ = play(state, CommitCard(0, Card.SAWMILL))
    state, _ = play(state, ResolveCard(0))
    assert state.players[0].plays == 2, "the replayed Sawmill is not counted again"


def test_a_fair_that_counts_declined_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(D, "FAIR_COUNTS_DECLINED_CARDS", True)
    state, _ = play(resolving(3, 0, Card.CASTLE, hand=[Card.FAIR]), DeclineCard(0))
    assert state.players[0].plays == 1


def test_reconstruction_may_bring_back_a_reconstruction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(D, "RECONSTRUCTION_RETURNS_RECONSTRUCTION", True)
    state = resolving(3, 0, Card.RECONSTRUCTION, played=(Card.RECONSTRUCTION,))
    state, _ = play(state, ResolveCard(0, card=Card.RECONSTRUCTION))
    assert state.players[0].hand == (Card.RECONSTRUCTION,)


def test_same_kind_exchanges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(D, "EXCHANGE_SAME_KIND_ALLOWED", True)
    state = market_state()
    state, _ = play(state, ExchangeCard(0, Card.SAWMILL, Card.SAWMILL))
    assert state.players[0].exchanges == 1 and Card.SAWMILL in state.market


def test_a_tied_previous_first_player_may_be_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """data.FIRST_PLAYER_TIE_INCLUDES_PREVIOUS false: the search starts after him."""
    monkeypatch.setattr(D, "FIRST_PLAYER_TIE_INCLUDES_PREVIOUS", False)
    state = replace(fresh(4), turn=1, first_player=1)
    for seat, vp in enumerate((3, 1, 5, 1)):
        state = give(state, seat, vp=vp)
    assert next_first_player(state) == 3


def test_an_unlimited_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    """A§4 token_pool, rules 1's value: with the bank unlimited a bank of one token pays both Wood
    of a Sawmill and the bonus space, and shows a negative count (stand-in tokens in use)."""
    patch_tables(monkeypatch, bank_is_limited=False, bonus_spaces=MappingProxyType({7: R.WHEAT}))
    state = replace(resolving(3, 0, Card.SAWMILL, vp=6, farthest=6), bank=1)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, Produced)[0].made == (R.WOOD, R.WOOD) and of_type(events, BonusCollected)
    assert state.bank == -2
