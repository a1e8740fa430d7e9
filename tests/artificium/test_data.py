"""The rules tables: card list, resources, prices and the score board (A§2, A§4)."""
from __future__ import annotations

from collections import Counter

from domain.artificium import RULES
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


def converter_margin(tables: D.Tables, spec: D.CardSpec) -> int:
    """Coins gained by buying a converter's inputs and selling its output (negative: it costs)."""
    return sum(tables.sell[r] for r in spec.gives) - sum(tables.buy[r] for r in spec.takes) - spec.coins


def test_no_converter_is_free_at_the_prices() -> None:
    """A§5.2, for "build efficient production chains" (A-rules l.7): under rules 2 buying a
    converter's input and selling its output loses coins, so its VP are not free. Under rules 1
    six converters netted exactly 0 (the reason for rules 2)."""
    converters = {c: s for c, s in D.CARDS.items() if s.effect is Effect.PRODUCE and s.takes}
    assert all(converter_margin(D.TABLES[2], s) < 0 for s in converters.values())
    free = {D.CARDS[c].name for c, s in converters.items() if converter_margin(D.TABLES[1], s) == 0}
    assert free == {"Charcoal Burner's House", "Mill & Bakery", "Brewery", "Hunter Hut", "Foundry", "Crystal Mine"}


def test_score_board_bonus_spaces_pay_level_one_and_two_resources() -> None:
    """A§4 score_board: 100 spaces; level I-II resources only; rules 1 every 7th space, rules 2
    every 20th (A§5.3)."""
    assert D.SCORE_BOARD_LENGTH == 100 and D.TURN_SPACES == ("I", "II", "III", "IV")
    assert sorted(D.TABLES[1].bonus_spaces) == list(range(7, 100, 7))
    assert sorted(D.TABLES[2].bonus_spaces) == [20, 40, 60, 80] == sorted(D.BONUS_SPACES)
    for t in D.TABLES.values():
        assert all(D.RESOURCE_LEVELS[r] <= 2 for r in t.bonus_spaces.values())
    assert D.TABLES[1].bonus_spaces[7] is Resource.WHEAT and D.TABLES[1].bonus_spaces[98] is Resource.FOOD


def test_every_reconstructed_constant_is_listed_in_the_docs_and_the_reference() -> None:
    """A§4: the constants marked RECONSTRUCTION in the data page's table are exactly
    ``data.RECONSTRUCTED``, and the reference API (GET /api/v1/reference/artificium) lists them."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "artificium-data.md").read_text(encoding="utf-8")
    table = page[page.index("Every reconstructed value, with its constant"):page.index("### Our own rulings")]
    marked = {m.group(1) for m in re.finditer(r"^\| `([A-Z_]+)` \|[^\n]*\*\*RECONSTRUCTION\*\*", table, re.M)}
    assert marked == set(D.RECONSTRUCTED)
    assert all(hasattr(D, name) for name in D.RECONSTRUCTED)
    reference = RULES.reference()
    assert reference["reconstructed"] == sorted(D.RECONSTRUCTED)
    assert reference["prices"]["sword"] == {"buy": D.BUY_PRICES[Resource.SWORD], "sell": D.SELL_PRICES[Resource.SWORD]}
    assert reference["bonus_spaces"] == {str(k): v.value for k, v in D.BONUS_SPACES.items()}


def test_every_view_names_its_reconstructed_keys() -> None:
    """A view shows the tables of its game's rules version and says which of its keys are
    reconstructed, for a player and a spectator alike."""
    from dataclasses import replace

    from tests.artificium.helpers import fresh

    state = fresh(4)
    for seat in (0, None):
        view = RULES.view(state, seat)
        assert view["reconstructed"] == ["bank_limit", "prices", "score_board"]
        assert all(key in view for key in view["reconstructed"])
        assert view["rules_version"] == D.RULES_VERSION and view["bank_limit"] == D.TOKEN_POOL
        assert view["prices"]["sword"]["sell"] == D.SELL_PRICES[Resource.SWORD]
    old = RULES.view(replace(state, config=replace(state.config, rules_version=1)), None)
    assert old["bank_limit"] is None and old["prices"]["sword"]["sell"] == D.TABLES[1].sell[Resource.SWORD]
    assert old["score_board"]["bonus_spaces"]["7"] == "wheat"
