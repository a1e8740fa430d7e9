"""Scenario tests — phase 5 actions on the ten player-board places, the tracks, technology,
movement, the Guildhall, the Town Hall and deeds, and the development track."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.core import RejectKind
from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.data import Char, Event, Good, Hourglass, Reward
from domain.orleans.evolve import with_player
from domain.orleans.model import (
    TECH,
    ActionTaken,
    ChoiceKind,
    ChoiceOffered,
    ChoosePlaceTile,
    CitizenTaken,
    FinishSending,
    KeepTechnology,
    MerchantMoved,
    Pass,
    Phase,
    PhaseBegan,
    PlaceTechnology,
    SendToDeed,
    StationBuilt,
    TakeAction,
    TakeGood,
    TechnologyGained,
    TechnologyPlaced,
    Travel,
    TurnMoved,
    UseVillage,
)
from tests.domain.scenario_helpers import (
    SB,
    ST,
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
    market_good,
    of_type,
    play,
    rejected,
    slots,
    supply,
    track,
    with_market_good,
    with_place,
    with_supply,
    with_track,
)

VILLAGE = (F, B, C)


def actions(edition="classic", players=4, seat=0, event=None):
    return in_actions(fresh(edition, players), seat, event)


# --- turn order (R14 phase 5) -------------------------------------------------------------------------


def test_one_action_per_turn_clockwise_then_pass():
    s = in_actions(fresh("classic", 4, start_player=2), seat=2)
    s = with_place(s, 2, "scriptorium", (K, S))
    s = with_place(s, 2, "castle", (F, B, T))
    s, events = play(s, TakeAction(2, "scriptorium"))
    assert TurnMoved(3) in events and s.turn == 3  # one action, then the next seat clockwise
    rejected(s, TakeAction(2, "castle"), RejectKind.NOT_YOUR_TURN, listed_check=False)
    s, _ = play(s, Pass(3))
    assert s.turn == 0
    s, _ = play(s, Pass(0))
    s, _ = play(s, Pass(1))
    assert s.turn == 2
    s, _ = play(s, TakeAction(2, "castle"))
    assert s.turn == 2  # everyone else has passed: seat 2 keeps acting
    s, events = play(s, Pass(2))
    assert PhaseBegan(Phase.EVENT) in events and s.phase is Phase.EVENT


def test_a_place_that_is_not_activated_cannot_be_used():
    s = actions()
    s = with_place(s, 0, "castle", (F, B, None))
    rejected(s, TakeAction(0, "castle"))


def test_unused_activated_places_stay_filled():
    s = actions()
    s = with_place(s, 0, "castle", (F, B, T))
    s, _ = play(s, Pass(0))
    assert slots(s, 0, "castle") == ("farmer", "boatman", "trader")


# --- Farm House (F§2.1, F§5, D6) ---------------------------------------------------------------------


def test_farm_house_recruits_a_farmer_and_gives_the_track_good():
    s = actions()
    s = with_place(s, 0, "farm_house", (B, C))
    grain = market_good(s, Good.GRAIN)
    s2, events = play(s, TakeAction(0, "farm_house"))
    assert ActionTaken(0, "farm_house", (B, C)) in events
    assert track(s2, 0, Char.FARMER) == 1
    assert good(s2, 0, Good.GRAIN) == 1 and market_good(s2, Good.GRAIN) == grain - 1  # space 1: grain
    assert supply(s2, Char.FARMER) == 15
    assert sorted(s2.players[0].bag) == sorted((F, B, C))  # the farmer and the two users
    assert slots(s2, 0, "farm_house") == (None, None)


@pytest.mark.parametrize("pos,expected", [(0, Good.GRAIN), (1, Good.GRAIN), (2, Good.CHEESE), (3, Good.CHEESE),
                                          (4, Good.WINE), (5, Good.WINE), (6, Good.WOOL), (7, Good.BROCADE)])
def test_farmers_track_goods(pos, expected):
    s = with_track(actions(), 0, Char.FARMER, pos)
    s = with_place(s, 0, "farm_house", (B, C))
    s2, _ = play(s, TakeAction(0, "farm_house"))
    assert good(s2, 0, expected) == 1  # F§2.1 space pos+1


def test_farm_house_closed_at_the_track_end():
    s = with_track(actions(), 0, Char.FARMER, 8)
    s = with_place(s, 0, "farm_house", (B, C))
    rejected(s, TakeAction(0, "farm_house"))  # F§2: last space closes the action


def test_farm_house_closed_when_the_tracks_good_ran_out_D6():
    s = with_track(actions(), 0, Char.FARMER, 4)  # next space 5: wine
    s = with_place(s, 0, "farm_house", (B, C))
    s = with_market_good(s, Good.WINE, 0)
    rejected(s, TakeAction(0, "farm_house"))  # D6
    play(with_market_good(s, Good.WINE, 1), TakeAction(0, "farm_house"))


def test_farm_house_closed_when_no_farmer_is_left():
    s = with_place(actions(), 0, "farm_house", (B, C))
    rejected(with_supply(s, Char.FARMER, 0), TakeAction(0, "farm_house"))  # R14 running out of tiles


# --- Village (F§2.2–2.4) -----------------------------------------------------------------------------


def village(pos=None, char=None, **kw):
    s = with_place(actions(**kw), 0, "village", VILLAGE)
    if char is not None:
        s = with_track(s, 0, char, pos)
    return s


@pytest.mark.parametrize("pos,paid", [(0, 2), (1, 3), (2, 4), (3, 5)])
def test_village_boatman_coins(pos, paid):
    s = village(pos, Char.BOATMAN)
    s2, _ = play(s, UseVillage(0, Char.BOATMAN))
    assert coins(s2, 0) == 5 + paid  # F§2.2
    assert track(s2, 0, Char.BOATMAN) == pos + 1 and supply(s2, Char.BOATMAN) == 9
    assert B in s2.players[0].bag


def test_boatmen_last_space_citizen_first_then_coins_D3():
    s = village(4, Char.BOATMAN)
    s = with_track(with_place(s, 1, "village", VILLAGE), 1, Char.BOATMAN, 4)
    s, events = play(s, UseVillage(0, Char.BOATMAN))
    assert CitizenTaken(0, "boatmen") in events
    assert coins(s, 0) == 5 and s.players[0].citizens == 1  # the citizen instead of coins
    s, events = play(s, UseVillage(1, Char.BOATMAN))
    assert not of_type(events, CitizenTaken)
    assert coins(s, 1) == 5 + 6  # D3: 6 coins for later arrivals


def test_boatmen_track_end_closes_the_choice():
    s = village(5, Char.BOATMAN)
    rejected(s, UseVillage(0, Char.BOATMAN))
    play(s, UseVillage(0, Char.CRAFTSMAN))


def test_village_craftsman_gives_a_technology_tile():
    s = village()
    s2, _ = play(s, UseVillage(0, Char.CRAFTSMAN))
    assert s2.players[0].techs == 1 and s2.tech_supply == 15  # F§2.3
    assert track(s2, 0, Char.CRAFTSMAN) == 1


def test_village_craftsman_closed_without_technology_tiles_D6():
    s = replace(village(), tech_supply=0)
    rejected(s, UseVillage(0, Char.CRAFTSMAN))  # R14: no tile, no action
    rejected(with_track(village(), 0, Char.CRAFTSMAN, 5), UseVillage(0, Char.CRAFTSMAN))


def test_village_choice_is_boatman_craftsman_or_trader():
    s = village()
    listed = {m.recruit for m in RULES.legal_moves(s, 0) if isinstance(m, UseVillage)}
    assert listed == {Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER}
    for char in (Char.FARMER, Char.KNIGHT, Char.MONK):
        rejected(s, UseVillage(0, char))


def test_trader_first_place_tile_from_stack_I_only():
    s = village()
    s, events = play(s, UseVillage(0, Char.TRADER))
    (offer,) = of_type(events, ChoiceOffered)
    assert offer.choice.kind is ChoiceKind.PLACE_TILE and offer.choice.stacks == (1,)  # F§2.4 space 1
    rejected(s, ChoosePlaceTile(0, "school"))  # stack II
    listed = {m.tile for m in RULES.legal_moves(s, 0)}
    assert listed == {t for t in s.place_tiles if D.PLACES[t].stack == 1}
    s, _ = play(s, ChoosePlaceTile(0, "windmill"))
    assert slots(s, 0, "windmill") == (None, None) and "windmill" not in s.place_tiles
    assert s.turn == 1


def test_trader_later_place_tiles_from_stack_I_or_II():
    s = village(1, Char.TRADER)
    s, _ = play(s, UseVillage(0, Char.TRADER))
    assert s.choice.stacks == (1, 2)
    play(s, ChoosePlaceTile(0, "school"))
    play(s, ChoosePlaceTile(0, "hayrick"))


def test_trader_closed_when_no_tile_in_its_stacks():
    s = village()
    s = replace(s, place_tiles=tuple(t for t in s.place_tiles if D.PLACES[t].stack == 2))
    rejected(s, UseVillage(0, Char.TRADER))  # first trader: stack I is empty
    play(with_track(s, 0, Char.TRADER, 1), UseVillage(0, Char.TRADER))


# --- University, Castle, Monastery, Scriptorium -----------------------------------------------------


@pytest.mark.parametrize("pos,points", [(0, 2), (1, 3), (2, 4), (3, 5), (4, 6)])
def test_university_development_points(pos, points):
    s = with_track(actions(), 0, Char.SCHOLAR, pos)
    s = with_place(s, 0, "university", (F, C, T))
    s = with_player(s, 0, development=20)
    s2, _ = play(s, TakeAction(0, "university"))
    assert s2.players[0].development == 20 + points  # F§2.5
    assert S in s2.players[0].bag and supply(s2, Char.SCHOLAR) == 13


def test_university_closed_at_the_track_end():
    s = with_track(with_place(actions(), 0, "university", (F, C, T)), 0, Char.SCHOLAR, 5)
    rejected(s, TakeAction(0, "university"))


def test_castle_raises_the_draw_limit_and_the_fourth_knight_takes_the_citizen():
    s = with_place(actions(), 0, "castle", (F, B, T))
    s = with_track(s, 0, Char.KNIGHT, 3)
    s = with_track(with_place(s, 1, "castle", (F, B, T)), 1, Char.KNIGHT, 3)
    s, events = play(s, TakeAction(0, "castle"))
    assert CitizenTaken(0, "knights") in events and s.knights_citizen == 0  # F§2.6 space 4
    assert RULES.view(s, 0)["seats"][0]["followers_per_round"] == 7
    s, events = play(s, TakeAction(1, "castle"))
    assert not of_type(events, CitizenTaken) and s.players[1].citizens == 0


def test_castle_closed_at_the_track_end():
    s = with_track(with_place(actions(), 0, "castle", (F, B, T)), 0, Char.KNIGHT, 5)
    rejected(s, TakeAction(0, "castle"))
    assert RULES.view(s, 0)["seats"][0]["followers_per_round"] == 8  # F§2.6 space 5


def test_monastery_adds_a_monk():
    s = with_place(actions(), 0, "monastery", (S, T))
    s2, _ = play(s, TakeAction(0, "monastery"))
    assert M in s2.players[0].bag and supply(s2, Char.MONK) == 13
    assert s2.players[0].tracks == s.players[0].tracks  # no track


def test_pilgrimage_closes_the_monastery():
    s = with_place(actions(event=Hourglass(Event.PILGRIMAGE)), 0, "monastery", (S, T))
    rejected(s, TakeAction(0, "monastery"))  # R14 Pilgrimage
    s23 = with_place(actions("2023", 5, event=Hourglass(Event.PILGRIMAGE)), 0, "monastery", (S, T))
    rejected(s23, TakeAction(0, "monastery"))


def test_scriptorium_gives_one_development_point():
    s = with_place(actions(), 0, "scriptorium", (K, S))
    s2, _ = play(s, TakeAction(0, "scriptorium"))
    assert s2.players[0].development == 1


# --- Ship and Wagon (F§1.2, R14) ------------------------------------------------------------------------


def test_ship_moves_along_a_waterway_and_takes_one_chosen_good():
    s = with_place(actions(), 0, "ship", (F, B, K))
    conn = D.CONNECTION_BY_ID["W02"]  # Orléans–Briare, two goods with 4 players
    i = D.CONNECTIONS.index(conn)
    s = replace(s, roads=s.roads[:i] + ((Good.GRAIN, Good.WOOL),) + s.roads[i + 1:])
    rejected(s, Travel(0, "ship", "chartres"))  # a road, not a waterway
    s, events = play(s, Travel(0, "ship", "briare"))
    assert MerchantMoved(0, "W02", "briare") in events and s.players[0].merchant == "briare"
    assert s.choice.kind is ChoiceKind.GOOD
    goods = [m.good for m in RULES.legal_moves(s, 0)]
    assert set(goods) == {Good.GRAIN, Good.WOOL, None}
    rejected(s, TakeGood(0, Good.BROCADE))
    s, _ = play(s, TakeGood(0, Good.GRAIN))
    assert good(s, 0, Good.GRAIN) == 1 and s.roads[i] == (Good.WOOL,)
    assert s.turn == 1


def test_wagon_moves_along_a_road_and_may_decline_the_good():
    s = with_place(actions(), 0, "wagon", (F, T, K))
    rejected(s, Travel(0, "wagon", "blois"))  # Orléans–Blois is a waterway
    rejected(s, Travel(0, "wagon", "tours"))  # not adjacent
    s, _ = play(s, Travel(0, "wagon", "chartres"))
    i = D.CONNECTIONS.index(D.CONNECTION_BY_ID["R02"])
    before = s.roads[i]
    s, _ = play(s, TakeGood(0, None))
    assert s.roads[i] == before and sum(s.players[0].goods) == 0


def test_empty_connections_may_still_be_used():
    s = with_place(actions(), 0, "wagon", (F, T, K))
    i = D.CONNECTIONS.index(D.CONNECTION_BY_ID["R10"])
    s = replace(s, roads=s.roads[:i] + ((),) + s.roads[i + 1:])
    s, events = play(s, Travel(0, "wagon", "montargis"))
    assert s.players[0].merchant == "montargis" and s.choice is None and s.turn == 1


# --- Guildhall (F§8.1) --------------------------------------------------------------------------------


def guildhall(seat=0, town="orleans", s=None):
    s = s if s is not None else actions(seat=seat)
    s = with_place(s, seat, "guildhall", (F, C, K))
    return with_player(s, seat, merchant=town)


def test_guildhall_one_station_per_town():
    s = guildhall(town="chartres")
    s, events = play(s, TakeAction(0, "guildhall"))
    assert StationBuilt(0, "chartres") in events and s.players[0].stations == 9
    s = replace(guildhall(1, "chartres", s), turn=1)
    rejected(s, TakeAction(1, "guildhall"))  # the town has a station, whoever owns it


def test_guildhall_one_station_per_player_in_orleans():
    s = guildhall()
    s, _ = play(s, TakeAction(0, "guildhall"))
    s = guildhall(1, s=s)
    s, _ = play(s, TakeAction(1, "guildhall"))  # every player may have one in Orléans
    assert ("orleans", 0) in s.stations and ("orleans", 1) in s.stations
    s = replace(guildhall(0, s=s), turn=0)
    rejected(s, TakeAction(0, "guildhall"))  # but only one each


def test_guildhall_at_most_ten_stations():
    s = with_player(guildhall(town="tours"), 0, stations=0)
    rejected(s, TakeAction(0, "guildhall"))  # F§7.4: 10 per player


# --- Town Hall and beneficial deeds (F§4.1) --------------------------------------------------------------


def town_hall(tiles, s=None):
    s = s if s is not None else actions()
    return with_place(s, 0, "town_hall", tuple(tiles) + (None,) * (2 - len(tiles)))


def test_town_hall_sends_characters_to_deeds_with_their_rewards():
    s = town_hall((K, M))
    s, events = play(s, TakeAction(0, "town_hall"))
    assert s.choice.kind is ChoiceKind.DEEDS and s.turn == 0
    rejected(s, SendToDeed(0, K, "astronomy", Reward.COIN))  # no Knight space there
    rejected(s, SendToDeed(0, M, "city_wall", Reward.COIN))  # a Monk never stands in
    rejected(s, SendToDeed(0, K, "city_wall", Reward.DEVELOPMENT))  # only Canalisation offers that
    s, _ = play(s, SendToDeed(0, K, "city_wall", Reward.COIN))
    assert coins(s, 0) == 6  # City Wall: 1 coin
    s, _ = play(s, SendToDeed(0, M, "papal_conclave", Reward.COIN))
    assert coins(s, 0) == 9  # Papal Conclave: 3 coins
    assert s.choice is None and s.turn == 1  # both sent: the action is over
    assert slots(s, 0, "town_hall") == (None, None)
    assert s.deeds[0][0] == 0 and s.deeds[1][1] == 0  # characters stay on the deeds


@pytest.mark.parametrize("deed,tile,reward", [
    ("city_wall", K, 1), ("papal_conclave", K, 3), ("defeating_plague", S, 2), ("astronomy", T, 1),
    ("boatmens_guild", B, 1), ("cathedral", C, 2), ("peace_treaty", K, 2), ("canalisation", F, 1),
])
def test_deed_rewards(deed, tile, reward):
    s, _ = play(town_hall((tile,)), TakeAction(0, "town_hall"))
    s, _ = play(s, SendToDeed(0, tile, deed, Reward.COIN))
    assert coins(s, 0) == 5 + reward  # F§4.1 reward per character


def test_canalisation_coin_or_development():
    s, _ = play(town_hall((B, F)), TakeAction(0, "town_hall"))
    s, _ = play(s, SendToDeed(0, B, "canalisation", Reward.DEVELOPMENT))
    assert s.players[0].development == 1 and coins(s, 0) == 5
    s, _ = play(s, SendToDeed(0, F, "canalisation", Reward.COIN))
    assert s.players[0].development == 1 and coins(s, 0) == 6


def test_the_last_deed_space_gives_the_citizen():
    s = town_hall((M,))
    i = [d.id for d in D.DEEDS].index("papal_conclave")
    s = replace(s, deeds=s.deeds[:i] + ((2, 1, None),) + s.deeds[i + 1:])  # knight + monk taken
    s, _ = play(s, TakeAction(0, "town_hall"))
    s, events = play(s, SendToDeed(0, M, "papal_conclave", Reward.COIN))
    assert CitizenTaken(0, "deed:papal_conclave") in events and s.players[0].citizens == 1
    assert RULES.view(s, 0)["board"]["deeds"][i]["citizen_available"] is False


def test_town_hall_may_send_only_one_and_the_other_returns():
    s = town_hall((K, S))
    s, _ = play(s, TakeAction(0, "town_hall"))
    rejected(s, FinishSending(0))  # at least one first
    s, _ = play(s, SendToDeed(0, K, "city_wall", Reward.COIN))
    s, _ = play(s, FinishSending(0))
    assert s.choice is None and S in s.players[0].bag and slots(s, 0, "town_hall") == (None, None)


def test_town_hall_closed_when_no_deed_space_fits():
    s = town_hall((M,))
    full = tuple(tuple(9 if need is Char.MONK else None for need in d.spaces) for d in D.DEEDS)
    rejected(replace(s, deeds=full), TakeAction(0, "town_hall"))


def test_gunpowder_tower_sends_both_characters_to_deeds_in_one_action():
    s = with_place(actions(), 0, "gunpowder_tower")
    s = with_player(s, 0, tower=(K, S))
    s, _ = play(s, TakeAction(0, "gunpowder_tower"))
    s, _ = play(s, SendToDeed(0, K, "peace_treaty", Reward.COIN))
    assert s.turn == 0
    s, _ = play(s, SendToDeed(0, S, "astronomy", Reward.COIN))
    assert coins(s, 0) == 5 + 2 + 1 and s.players[0].tower == () and s.turn == 1


def test_gunpowder_tower_never_sends_starting_followers():
    s = with_place(actions(), 0, "gunpowder_tower")
    s = with_player(s, 0, tower=(SB, ST))
    rejected(s, TakeAction(0, "gunpowder_tower"))
    s = with_player(s, 0, tower=(SB, T))
    s, _ = play(s, TakeAction(0, "gunpowder_tower"))
    rejected(s, SendToDeed(0, SB, "boatmens_guild", Reward.COIN))


# --- development track (F§3, D2) ----------------------------------------------------------------------


def develop(start, points, seat=0, s=None):
    s = s if s is not None else actions(seat=seat)
    s = with_player(s, seat, development=start)
    place = {1: "scriptorium", 2: "library"}[points]
    s = with_place(s, seat, place, (K, S))
    return play(s, TakeAction(seat, place))


@pytest.mark.parametrize("start,points,coins_gained", [(6, 1, 3), (5, 2, 3), (11, 1, 4), (24, 1, 5), (7, 1, 0)])
def test_development_coin_spaces(start, points, coins_gained):
    s, _ = develop(start, points)
    assert coins(s, 0) == 5 + coins_gained  # F§3: 7 → 3, 12 → 4, 25 → 5, on or past


def test_development_coins_go_to_every_player():
    s, _ = develop(6, 1)
    s, _ = develop(6, 1, seat=1, s=s)
    assert coins(s, 0) == 8 and coins(s, 1) == 8


def test_development_citizens_go_to_the_first_player_only_D2():
    s, events = develop(1, 2)  # 1 → 3: passes onto space 3
    assert CitizenTaken(0, "development:0") in events
    s, events = develop(2, 2, seat=1, s=s)  # 2 → 4: passes 3, citizen already gone
    assert not of_type(events, CitizenTaken) and s.players[1].citizens == 0
    s, events = develop(17, 1, seat=2, s=s)
    assert CitizenTaken(2, "development:1") in events
    s, events = develop(27, 2, seat=3, s=s)
    assert CitizenTaken(3, "development:2") in events


@pytest.mark.parametrize("position,status", [(0, 1), (3, 1), (4, 2), (8, 2), (9, 3), (15, 4), (22, 5), (29, 5), (30, 6)])
def test_development_status(position, status):
    s = with_player(actions(), 0, development=position)
    assert RULES.view(s, 0)["seats"][0]["development_status"] == status  # F§3 status rows


def test_development_stops_at_30():
    s, _ = develop(29, 2)
    assert s.players[0].development == 30


# --- technology tiles (F§2.3) -------------------------------------------------------------------------


def with_techs(n=1, placed=0, s=None):
    s = s if s is not None else actions()
    return with_player(s, 0, techs=n, techs_placed=placed)


def test_technology_only_after_passing():
    s = with_techs()
    assert not [m for m in RULES.legal_moves(s, 0) if isinstance(m, PlaceTechnology)]
    rejected(s, PlaceTechnology(0, "castle", 0), RejectKind.WRONG_PHASE, listed_check=False)
    s, events = play(s, Pass(0))
    assert s.choice.kind is ChoiceKind.TECHNOLOGY and s.turn == 0
    s, _ = play(s, PlaceTechnology(0, "castle", 0))
    assert slots(s, 0, "castle")[0] == TECH and s.players[0].techs == 0
    assert s.choice is None and s.turn == 1


def test_first_technology_tile_replaces_a_farmer():
    s, _ = play(with_techs(), Pass(0))
    rejected(s, PlaceTechnology(0, "castle", 1))  # a Boatman space
    rejected(s, PlaceTechnology(0, "farm_house", 0))
    listed = [m for m in RULES.legal_moves(s, 0) if isinstance(m, PlaceTechnology)]
    assert listed and all(D.PLACES[m.place].spaces[m.space] is Char.FARMER for m in listed)


def test_later_technology_tiles_replace_anything_but_monks():
    s = with_place(with_techs(placed=1), 0, "cellar")
    s, _ = play(s, Pass(0))
    play(s, PlaceTechnology(0, "castle", 1))
    rejected(s, PlaceTechnology(0, "cellar", 0))  # Monk space: never
    play(s, PlaceTechnology(0, "cellar", 1))


def test_no_technology_on_single_space_places_or_the_town_hall():
    s = with_techs(placed=1)
    for place in ("hayrick", "shipping_line", "pharmacy", "bathhouse"):
        s = with_place(s, 0, place)
    s, _ = play(s, Pass(0))
    for place in ("hayrick", "shipping_line", "pharmacy", "bathhouse", "town_hall"):
        rejected(s, PlaceTechnology(0, place, 0))


def test_at_most_one_technology_tile_per_place_and_it_never_moves():
    s = with_techs(n=2, placed=1)
    s = with_place(s, 0, "castle", (TECH, None, None))
    s, _ = play(s, Pass(0))
    rejected(s, PlaceTechnology(0, "castle", 1))
    rejected(s, PlaceTechnology(0, "castle", 0))
    s, _ = play(s, PlaceTechnology(0, "ship", 0))
    assert s.choice is not None  # a second tile to place
    rejected(s, PlaceTechnology(0, "ship", 1))
    s, _ = play(s, KeepTechnology(0))
    assert s.players[0].techs == 1  # kept for later


def test_a_technology_tile_stays_after_the_action():
    s = with_place(actions(), 0, "castle", (TECH, B, T))
    s, events = play(s, TakeAction(0, "castle"))
    assert ActionTaken(0, "castle", (B, T)) in events
    assert slots(s, 0, "castle") == (TECH, None, None)


def test_technology_tile_fills_its_space_for_every_later_use():
    s = with_place(actions(), 0, "windmill", (TECH, C))
    s, _ = play(s, TakeAction(0, "windmill"))
    assert slots(s, 0, "windmill") == (TECH, None)


# --- running out of characters closes the actions that give them (R14, D6) ------------------------------


@pytest.mark.parametrize("place,tiles,char", [
    ("castle", (F, B, T), Char.KNIGHT), ("university", (F, C, T), Char.SCHOLAR), ("monastery", (S, T), Char.MONK),
])
def test_no_character_left_closes_the_recruiting_place(place, tiles, char):
    s = with_place(actions(), 0, place, tiles)
    rejected(with_supply(s, char, 0), TakeAction(0, place))
    play(with_supply(s, char, 1), TakeAction(0, place))


@pytest.mark.parametrize("char", [Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER])
def test_no_character_left_closes_that_village_choice(char):
    s = with_supply(village(), char, 0)
    rejected(s, UseVillage(0, char))
    assert {m.recruit for m in RULES.legal_moves(s, 0) if isinstance(m, UseVillage)} == (
        {Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER} - {char})


def test_traders_track_end_closes_the_choice():
    rejected(village(5, Char.TRADER), UseVillage(0, Char.TRADER))


def test_the_laboratory_tile_follows_the_first_tile_on_a_farmer_rule():
    s = with_place(actions(), 0, "laboratory", (C, S))
    s, _ = play(s, TakeAction(0, "laboratory"))
    s = replace(s, turn=0)
    s, _ = play(s, Pass(0))
    rejected(s, PlaceTechnology(0, "laboratory", 0))  # the first placed tile goes on a Farmer
    play(s, PlaceTechnology(0, "wagon", 0))


# --- 2023 edition: the Farmer-only tile is the one from the first Craftsmen space (F§2.3, F§8.2) -------


def test_classic_craftsman_tiles_carry_no_farmer_mark():
    s, events = play(village(0, Char.CRAFTSMAN), UseVillage(0, Char.CRAFTSMAN))
    assert of_type(events, TechnologyGained) == [TechnologyGained(0, farmer_only=False)]
    assert not s.players[0].farmer_tech  # classic: the first *placed* tile goes on a Farmer (R14)


def test_2023_the_first_craftsmen_space_tile_only_replaces_a_farmer():
    s, events = play(village(0, Char.CRAFTSMAN, edition="2023"), UseVillage(0, Char.CRAFTSMAN))
    assert of_type(events, TechnologyGained) == [TechnologyGained(0, farmer_only=True)]
    assert s.players[0].farmer_tech and s.players[0].techs == 1
    assert RULES.view(s, 0)["seats"][0]["farmer_only_technology"] is True
    s, _ = play(replace(s, turn=0), Pass(0))
    rejected(s, PlaceTechnology(0, "castle", 1))  # a Boatman space
    listed = [m for m in RULES.legal_moves(s, 0) if isinstance(m, PlaceTechnology)]
    assert listed and all(D.PLACES[m.place].spaces[m.space] is Char.FARMER for m in listed)
    s, events = play(s, PlaceTechnology(0, "castle", 0))
    assert of_type(events, TechnologyPlaced) == [TechnologyPlaced(0, "castle", 0, farmer_only=True)]
    assert not s.players[0].farmer_tech and s.players[0].techs == 0


def test_2023_a_tile_from_the_second_craftsmen_space_on_replaces_anything_but_a_monk():
    s, events = play(village(1, Char.CRAFTSMAN, edition="2023"), UseVillage(0, Char.CRAFTSMAN))
    assert of_type(events, TechnologyGained) == [TechnologyGained(0, farmer_only=False)]
    s = with_place(s, 0, "cellar")
    s, _ = play(replace(s, turn=0), Pass(0))
    rejected(s, PlaceTechnology(0, "cellar", 0))  # a Monk space: never
    play(s, PlaceTechnology(0, "castle", 1))  # the first placed tile, on a Boatman space


def test_2023_the_laboratory_tile_is_unrestricted():
    s = with_place(actions("2023"), 0, "laboratory", (C, S))
    s, events = play(s, TakeAction(0, "laboratory"))
    assert of_type(events, TechnologyGained) == [TechnologyGained(0, farmer_only=False)]
    s = replace(s, turn=0)
    s, _ = play(s, Pass(0))
    play(s, PlaceTechnology(0, "laboratory", 0))  # classic forbids this (first placed tile), 2023 allows it


def test_2023_with_both_tiles_a_farmer_space_takes_the_farmer_only_tile():
    s = with_player(actions("2023"), 0, techs=2, farmer_tech=True)
    s, _ = play(replace(s, turn=0), Pass(0))
    s, events = play(s, PlaceTechnology(0, "castle", 0))  # a Farmer space
    assert of_type(events, TechnologyPlaced) == [TechnologyPlaced(0, "castle", 0, farmer_only=True)]
    assert not s.players[0].farmer_tech and s.players[0].techs == 1
    play(s, PlaceTechnology(0, "ship", 1))  # the unrestricted tile is left: a Boatman space is fine


def test_2023_with_both_tiles_the_unrestricted_one_goes_elsewhere_first():
    s = with_player(actions("2023"), 0, techs=2, farmer_tech=True)
    s, _ = play(replace(s, turn=0), Pass(0))
    s, events = play(s, PlaceTechnology(0, "castle", 1))  # a Boatman space
    assert of_type(events, TechnologyPlaced) == [TechnologyPlaced(0, "castle", 1, farmer_only=False)]
    assert s.players[0].farmer_tech and s.players[0].techs == 1
    rejected(s, PlaceTechnology(0, "ship", 1))  # only the Farmer-only tile is left
    play(s, PlaceTechnology(0, "wagon", 0))


def test_events_logged_before_the_farmer_only_field_still_decode():
    assert RULES.event_from_json({"type": "TechnologyGained", "seat": 2}) == TechnologyGained(2)
    assert RULES.event_from_json({"type": "TechnologyPlaced", "seat": 1, "place": "ship", "space": 0}) == (
        TechnologyPlaced(1, "ship", 0))
