"""Scenario tests — the 20 place tiles (F§6, D4, D5) used in phase 5."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.data import Good
from domain.orleans.evolve import with_player
from domain.orleans.model import (
    TECH,
    ActionTaken,
    BathhouseDrawn,
    ChoiceKind,
    Pass,
    PlaceDrawn,
    PlaceFollower,
    PlaceTechnology,
    TakeAction,
    TakeGood,
    TilesReturned,
    Travel,
    UsePharmacy,
)
from tests.domain.scenario_helpers import (
    SB,
    SF,
    B,
    C,
    F,
    K,
    M,
    S,
    T,
    coins,
    fresh,
    good,
    in_actions,
    in_planning,
    market_good,
    of_type,
    play,
    rejected,
    slots,
    with_market_good,
    with_place,
)


def actions(edition="classic", players=4):
    return in_actions(fresh(edition, players))


def use(place, tiles, s=None, **player):
    s = s if s is not None else actions()
    s = with_place(s, 0, place, tiles)
    if player:
        s = with_player(s, 0, **player)
    return s, play(s, TakeAction(0, place))


# --- goods from the Goods Market ---------------------------------------------------------------------


@pytest.mark.parametrize("place,tiles,g", [
    ("hayrick", (F,), Good.GRAIN), ("cheese_factory", (F, F), Good.CHEESE), ("winery", (F, T), Good.WINE),
    ("wool_manufacturer", (B, T), Good.WOOL), ("tailor_shop", (T, S), Good.BROCADE),
])
def test_goods_places(place, tiles, g):
    s, (s2, events) = use(place, tiles)
    assert good(s2, 0, g) == 1 and market_good(s2, g) == market_good(s, g) - 1  # F§6
    assert ActionTaken(0, place, tuple(tiles)) in events
    assert slots(s2, 0, place) == (None,) * len(tiles)


@pytest.mark.parametrize("place,tiles,g", [("hayrick", (F,), Good.GRAIN), ("tailor_shop", (T, S), Good.BROCADE)])
def test_goods_places_closed_when_the_good_ran_out(place, tiles, g):
    s = with_place(with_market_good(actions(), g, 0), 0, place, tiles)
    rejected(s, TakeAction(0, place))  # R14: not possible if none is left


# F§6 requirement column (D5), restated here independently of data.py
REQUIREMENTS = {
    "hayrick": (F,), "cheese_factory": (F, F), "winery": (F, T), "wool_manufacturer": (B, T),
    "tailor_shop": (T, S), "brewery": (M,), "windmill": (C, C), "library": (K, S), "hospital": (B, S),
    "sacristy": (M,), "shipping_line": (B,), "cellar": (M, S), "office": (S, S), "laboratory": (C, S),
    "horse_wagon": (K, T), "pharmacy": (K,), "bathhouse": (K,),
}


@pytest.mark.parametrize("place", sorted(REQUIREMENTS))
def test_place_tile_requirements_D5(place):
    need = REQUIREMENTS[place]
    s = with_place(in_planning(fresh()), 0, place)
    s = with_player(s, 0, market=tuple(need) + (F, K))
    for i, tile in enumerate(need):
        assert PlaceFollower(0, tile, place, i) in RULES.legal_moves(s, 0)
        wrong = K if tile is not K else F
        if place not in ("pharmacy", "bathhouse"):  # any character activates those (R14, D4)
            rejected(s, PlaceFollower(0, wrong, place, i))


# --- coins and development ---------------------------------------------------------------------------


def test_brewery_two_coins():
    _, (s2, _) = use("brewery", (M,))
    assert coins(s2, 0) == 7


def test_cellar_four_coins():
    _, (s2, _) = use("cellar", (M, S))
    assert coins(s2, 0) == 9


def test_windmill_two_coins_and_one_development_point():
    _, (s2, _) = use("windmill", (C, C))
    assert coins(s2, 0) == 7 and s2.players[0].development == 1


def test_library_two_development_points():
    _, (s2, _) = use("library", (K, S))
    assert s2.players[0].development == 2


def test_shipping_line_one_development_point():
    _, (s2, _) = use("shipping_line", (B,))
    assert s2.players[0].development == 1


@pytest.mark.parametrize("development,paid", [(0, 1), (4, 2), (16, 4), (30, 6)])
def test_hospital_coins_equal_development_status(development, paid):
    _, (s2, _) = use("hospital", (B, S), development=development)
    assert coins(s2, 0) == 5 + paid


def test_office_one_coin_per_built_station():
    s = replace(actions(), stations=(("blois", 0), ("chartres", 1), ("orleans", 0), ("tours", 0)))
    _, (s2, _) = use("office", (S, S), s=s)
    assert coins(s2, 0) == 8


@pytest.mark.parametrize("paid", [1, 2, 3])
def test_pharmacy_pays_one_to_three_coins_for_development(paid):
    s = with_place(actions(), 0, "pharmacy", (K,))  # D4-like: any one character (R14 Pharmacy)
    s2, _ = play(s, UsePharmacy(0, paid))
    assert coins(s2, 0) == 5 - paid and s2.players[0].development == paid


def test_pharmacy_limits():
    s = with_place(actions(), 0, "pharmacy", (SF,))
    rejected(s, UsePharmacy(0, 0))
    rejected(s, UsePharmacy(0, 4))  # at most 3
    rejected(with_player(s, 0, coins=2), UsePharmacy(0, 3))  # not more than you have
    rejected(s, TakeAction(0, "pharmacy"))  # the Pharmacy is used with UsePharmacy
    assert {m.coins for m in RULES.legal_moves(s, 0) if isinstance(m, UsePharmacy)} == {1, 2, 3}


def test_pharmacy_pays_no_more_coins_than_development_spaces_left():
    s = with_player(with_place(actions(), 0, "pharmacy", (K,)), 0, development=29, coins=10)
    assert {m.coins for m in RULES.legal_moves(s, 0) if isinstance(m, UsePharmacy)} == {1}
    rejected(s, UsePharmacy(0, 2))  # one coin per space; the track ends at 30 (F§3)
    s2, _ = play(s, UsePharmacy(0, 1))
    assert s2.players[0].development == 30 and coins(s2, 0) == 9
    at_end = with_player(s, 0, development=30)
    rejected(at_end, UsePharmacy(0, 1))  # the track end closes the Pharmacy
    assert not [m for m in RULES.legal_moves(at_end, 0) if isinstance(m, UsePharmacy)]


def test_pharmacy_reaching_a_coin_space_pays_it():
    s = with_player(with_place(actions(), 0, "pharmacy", (K,)), 0, development=5)
    s2, _ = play(s, UsePharmacy(0, 3))  # 5 → 8 passes 7
    assert s2.players[0].development == 8 and coins(s2, 0) == 5 - 3 + 3


# --- Laboratory, Horse Wagon -------------------------------------------------------------------------


def test_laboratory_gives_a_technology_tile_that_may_go_on_the_laboratory():
    s, (s2, _) = use("laboratory", (C, S), techs_placed=1)
    assert s2.players[0].techs == 1 and s2.tech_supply == s.tech_supply - 1
    s2 = replace(s2, turn=0)
    s3, _ = play(s2, Pass(0))
    s4, _ = play(s3, PlaceTechnology(0, "laboratory", 0))
    assert slots(s4, 0, "laboratory") == (TECH, None)


def test_laboratory_closed_without_technology_tiles():
    s = replace(with_place(actions(), 0, "laboratory", (C, S)), tech_supply=0)
    rejected(s, TakeAction(0, "laboratory"))


def test_horse_wagon_moves_along_a_road_with_a_good():
    s = with_place(actions(), 0, "horse_wagon", (K, T))
    rejected(s, Travel(0, "horse_wagon", "blois"))  # waterway
    s, _ = play(s, Travel(0, "horse_wagon", "chateaudun"))
    i = D.CONNECTIONS.index(D.CONNECTION_BY_ID["R09"])
    (g,) = s.roads[i]
    assert s.choice.kind is ChoiceKind.GOOD
    s, _ = play(s, TakeGood(0, g))
    assert good(s, 0, g) == 1 and s.roads[i] == () and s.players[0].merchant == "chateaudun"


# --- passive places --------------------------------------------------------------------------------


@pytest.mark.parametrize("place", ["sacristy", "herb_garden", "school", "gunpowder_tower"])
def test_passive_places_are_not_actions(place):
    # the Sacristy works in phase 6, the others are passive (F§6); an empty tower sends nothing
    s = with_place(actions(), 0, place, (M,) if place == "sacristy" else None)
    rejected(s, TakeAction(0, place))


# --- Bathhouse (F§6, D4, F§8.2) ---------------------------------------------------------------------------


def bathhouse(edition, bag, activator=K):
    s = in_actions(fresh(edition, 4))
    s = with_place(s, 0, "bathhouse", (activator,))
    return with_player(s, 0, bag=tuple(sorted(bag)))


def test_bathhouse_activated_by_any_one_character_D4():
    for tile in (F, K, M, SB):
        s = bathhouse("classic", (F, F, F), activator=tile)
        assert TakeAction(0, "bathhouse") in RULES.legal_moves(s, 0)


def test_bathhouse_classic_draws_three_and_places_two():
    s = bathhouse("classic", (K, K, K, K))
    s, events = play(s, TakeAction(0, "bathhouse"))
    (drawn,) = of_type(events, BathhouseDrawn)
    assert drawn.tiles == (K, K, K)  # draw 3
    assert s.players[0].bag.count(K) == 2  # 1 never drawn + the activator back
    assert s.choice.kind is ChoiceKind.BATHHOUSE and s.choice.remaining == 2
    rejected(s, PlaceDrawn(0, K, "bathhouse", 0))  # never on the Bathhouse itself
    rejected(s, PlaceDrawn(0, K, "castle", 0))  # appropriate spaces only
    s, _ = play(s, PlaceDrawn(0, K, "ship", 2))
    s, events = play(s, PlaceDrawn(0, K, "guildhall", 2))
    assert of_type(events, TilesReturned)[0].tiles == (K,)  # the third goes back to the bag
    assert s.choice is None and s.turn == 1
    assert slots(s, 0, "ship")[2] == "knight" and slots(s, 0, "guildhall")[2] == "knight"
    assert s.players[0].bag.count(K) == 3  # 1 never drawn + activator + the third
    assert slots(s, 0, "bathhouse") == (None,)


def test_bathhouse_2023_draws_two_and_places_one():
    s = bathhouse("2023", (K, K, K, K))
    s, events = play(s, TakeAction(0, "bathhouse"))
    (drawn,) = of_type(events, BathhouseDrawn)
    assert len(drawn.tiles) == 2 and s.choice.remaining == 1  # F§8.2 draw 2, place 1
    s, _ = play(s, PlaceDrawn(0, K, "ship", 2))
    assert s.choice is None
    assert s.players[0].bag == (K, K, K, K)  # 5 knights with the activator, one placed


def test_bathhouse_placement_is_compulsory_while_a_drawn_tile_fits():
    s = bathhouse("classic", (M, K, K))
    s, _ = play(s, TakeAction(0, "bathhouse"))
    s, _ = play(s, PlaceDrawn(0, M, "scriptorium", 0))
    assert s.choice is not None and s.choice.remaining == 1  # "immediately place the chosen tiles" (R14)
    assert {type(m) for m in RULES.legal_moves(s, 0)} == {PlaceDrawn}  # no stopping early
    s, _ = play(s, PlaceDrawn(0, K, "ship", 2))
    assert s.choice is None and sorted(s.players[0].bag) == sorted((K, K))


def test_bathhouse_places_only_what_fits():
    s = bathhouse("classic", (S, S, S))
    keep = ("bathhouse", "scriptorium")  # one Scholar space left anywhere
    s = with_player(s, 0, places=tuple(x for x in s.players[0].places if x.place in keep))
    s, events = play(s, TakeAction(0, "bathhouse"))
    s, events = play(s, PlaceDrawn(0, S, "scriptorium", 1))
    assert s.choice is None  # "if you cannot place 2 … only place one or none" (R14)
    assert of_type(events, TilesReturned)[0].tiles == (S, S)
    assert sorted(s.players[0].bag) == sorted((K, S, S))


def test_bathhouse_with_nothing_placeable_returns_everything():
    s = bathhouse("classic", (SF, SF))
    s = with_player(s, 0, places=tuple(x for x in s.players[0].places if x.place == "bathhouse"))
    s, events = play(s, TakeAction(0, "bathhouse"))
    assert s.choice is None and len(s.players[0].bag) == 3


def test_bathhouse_closed_with_an_empty_bag():
    s = bathhouse("classic", ())
    rejected(s, TakeAction(0, "bathhouse"))
