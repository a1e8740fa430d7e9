"""Buying and selling with the bank (A-rules l.211-216, l.248-249; A§4 resources for the prices)."""
from __future__ import annotations

from dataclasses import replace

from domain.artificium import data as D
from domain.artificium.data import Card, Resource
from domain.artificium.model import BuyResource, FinishTurn, Phase, ResolveCard, ResourceBought, SellResource
from domain.core import RejectKind
from tests.artificium.helpers import give, have, play, rejected, resolving, resources


def test_buy_at_the_green_price_before_resolving() -> None:
    """A-rules l.211-213: before resolving, buy resources at the green price."""
    state = resolving(3, 0, Card.MILL_BAKERY)
    state, events = play(state, BuyResource(0, Resource.WHEAT))
    assert events == [ResourceBought(0, Resource.WHEAT, D.BUY_PRICES[Resource.WHEAT])]
    assert state.players[0].coins == 5 - 2 and have(state, 0, Resource.WHEAT) == 1
    state, _ = play(state, ResolveCard(0))
    assert have(state, 0, Resource.FOOD) == 1 and state.players[0].vp == 2


def test_sell_at_the_brown_price_before_resolving() -> None:
    state = resolving(3, 0, Card.FARM, resources=resources(sword=1))
    bank = state.bank
    state, _ = play(state, SellResource(0, Resource.SWORD))
    assert state.players[0].coins == 5 + D.SELL_PRICES[Resource.SWORD] and have(state, 0, Resource.SWORD) == 0
    assert state.bank == bank + 1 - D.SELL_PRICES[Resource.SWORD], "the token goes back, the coins come out"


def test_no_buying_without_the_coins_and_no_selling_what_is_not_there() -> None:
    state = resolving(3, 0, Card.FARM, coins=1)
    rejected(state, BuyResource(0, Resource.WHEAT))
    rejected(state, SellResource(0, Resource.WHEAT))


def test_trading_only_by_the_resolving_seat_and_never_after_resolving() -> None:
    """A-rules l.211, l.214-216: trade before resolving your card; not after it; only with the bank."""
    state = resolving(3, 0, Card.FARM)
    state = replace(state, players=tuple(replace(p, passed=False) for p in state.players))
    state = give(state, 1, revealed=Card.SAWMILL)
    state = replace(state, queue=(0, 1))
    rejected(state, BuyResource(1, Resource.WOOD), RejectKind.NOT_YOUR_TURN)
    state, _ = play(state, ResolveCard(0))
    rejected(state, BuyResource(0, Resource.WHEAT), RejectKind.NOT_YOUR_TURN)


def test_selling_but_not_buying_at_turn_end() -> None:
    """A-rules l.248-249: at turn end players may sell any number of resources."""
    state = resolving(2, 0, Card.FARM, resources=resources(coal=2))
    state, _ = play(state, ResolveCard(0))
    assert state.phase is Phase.TURN_END
    state, _ = play(state, SellResource(0, Resource.COAL))
    state, _ = play(state, SellResource(0, Resource.COAL))
    assert state.players[0].coins == 5 + 2 * D.SELL_PRICES[Resource.COAL]
    rejected(state, BuyResource(0, Resource.COAL), RejectKind.WRONG_PHASE)
    state, _ = play(state, FinishTurn(0))
    rejected(state, SellResource(0, Resource.WHEAT), RejectKind.NOT_YOUR_TURN)
