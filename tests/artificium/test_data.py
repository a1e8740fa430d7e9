"""The rules tables: card list, resources, prices and the score board (A§2, A§4)."""
from __future__ import annotations

from collections import Counter

from domain.artificium import data as D
from domain.artificium.data import Card, CardKind, Effect, Resource


def test_108_cards_88_buildings_and_20_actions() -> None:
    """A-rules l.10, l.16: 88 Building cards and 20 Action cards, shuffled together (l.154-156)."""
    kinds = Counter(D.CARDS[c].kind for c in D.FULL_DECK)
    assert kinds[CardKind.BUILDING] == D.BUILDING_CARDS == 88
    assert kinds[CardKind.ACTION] == D.ACTION_CARDS == 20
    assert len(D.FULL_DECK) == 108


def test_card_table_matches_the_card_list() -> None:
    """A§2 card list: copies, VP and what each card spends and gains (A-rules l.44-140)."""
    expected = {
        Card.SAWMILL: (8, 1, (), (Resource.WOOD, Resource.WOOD)),
        Card.FARM: (8, 1, (), (Resource.WHEAT, Resource.WHEAT)),
        Card.CHARCOAL_BURNERS_HOUSE: (8, 2, (Resource.WOOD,), (Resource.COAL,)),
        Card.MILL_BAKERY: (8, 2, (Resource.WHEAT,), (Resource.FOOD,)),
        Card.BREWERY: (8, 2, (Resource.WHEAT,), (Resource.BEER,)),
        Card.HUNTER_HUT: (8, 2, (Resource.WOOD,), (Resource.FOOD,)),
        Card.FOUNDRY: (8, 3, (Resource.FOOD,), (Resource.METAL,)),
        Card.CRYSTAL_MINE: (8, 3, (Resource.FOOD,), (Resource.CRYSTAL,)),
        Card.SWORDSMITH: (6, 5, (Resource.COAL, Resource.METAL), (Resource.SWORD,)),
        Card.LABORATORY: (6, 5, (Resource.COAL, Resource.CRYSTAL), (Resource.POTION,)),
        Card.CASTLE: (6, 8, (Resource.BEER, Resource.SWORD), ()),
        Card.WIZARDS_TOWER: (6, 8, (Resource.BEER, Resource.POTION), ()),
    }
    for card, (count, vp, takes, gives) in expected.items():
        spec = D.CARDS[card]
        assert (spec.count, spec.vp, spec.takes, spec.gives) == (count, vp, takes, gives), card
    assert D.CARDS[Card.CASTLE].coins == D.CARDS[Card.WIZARDS_TOWER].coins == 1


def test_action_cards_score_nothing() -> None:
    """A-rules l.10-12: five of each Action card, none gives victory points."""
    for card in (Card.EXPLORATION, Card.RECONSTRUCTION, Card.FAIR, Card.THEFT):
        assert D.CARDS[card].kind is CardKind.ACTION and D.CARDS[card].vp == 0 and D.CARDS[card].count == 5
    assert {D.CARDS[c].effect for c in Card if D.CARDS[c].kind is CardKind.ACTION} == {
        Effect.EXPLORATION, Effect.RECONSTRUCTION, Effect.FAIR, Effect.THEFT}


def test_nine_resources_on_four_levels() -> None:
    """A§2: nine resources; A§4 resources: levels follow the VP ladder I-IV."""
    assert len(Resource) == 9
    by_level = {lvl: {r for r in Resource if D.RESOURCE_LEVELS[r] == lvl} for lvl in (1, 2, 3, 4)}
    assert by_level[1] == {Resource.WHEAT, Resource.WOOD}
    assert by_level[2] == {Resource.COAL, Resource.FOOD, Resource.BEER}
    assert by_level[3] == {Resource.METAL, Resource.CRYSTAL}
    assert by_level[4] == {Resource.SWORD, Resource.POTION}


def test_reconstructed_prices_keep_the_economy_unloopable() -> None:
    """A§4 design rules: buy above sell; Theft cheaper than buying; no buy -> convert -> sell profit."""
    for r in Resource:
        assert D.BUY_PRICES[r] > D.SELL_PRICES[r] > 0
    for r in Resource:
        cost = D.THEFT_COST_BY_LEVEL.get(D.RESOURCE_LEVELS[r])
        assert cost is None or cost < D.BUY_PRICES[r]
    for spec in D.CARDS.values():
        if spec.effect is Effect.PRODUCE and spec.takes:
            spent = sum(D.BUY_PRICES[r] for r in spec.takes)
            assert spent >= sum(D.SELL_PRICES[r] for r in spec.gives), spec.name


def test_score_board_bonus_spaces_pay_level_one_and_two_resources() -> None:
    """A§4 score_board: 100 spaces; bonus spaces every 7th, level I-II resources only."""
    assert D.SCORE_BOARD_LENGTH == 100 and D.TURN_SPACES == ("I", "II", "III", "IV")
    assert sorted(D.BONUS_SPACES) == list(range(7, 100, 7))
    assert all(D.RESOURCE_LEVELS[r] <= 2 for r in D.BONUS_SPACES.values())
