"""Scenario tests — phase 6 events (classic and 2023 A/B/C), the Sacristy, torture (D12) and the
coin supply (D11)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.core import SYSTEM
from domain.orleans import RULES
from domain.orleans.data import Char, Event, Good, Hourglass, Item
from domain.orleans.evolve import CHAR_INDEX, with_player
from domain.orleans.model import (
    TECH,
    ApplyTimeout,
    CoinsChanged,
    DueAssigned,
    DueForgiven,
    EventResolved,
    FoodPaid,
    GiveUp,
    ItemLost,
    PassStartPlayer,
    PayFood,
    Phase,
    PlagueDrawn,
    ResolveEvent,
    TimeoutApplied,
)
from tests.domain.scenario_helpers import (
    SB,
    SC,
    SF,
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
    in_event,
    market_good,
    of_type,
    play,
    rejected,
    slots,
    step,
    supply,
    system,
    track,
    with_goods,
    with_place,
    with_track,
)


def event_state(event, edition="classic", players=4):
    return in_event(fresh(edition, players), event)


def resolve(s):
    return system(s, ResolveEvent())


# --- Income (F§8.1; 2023 A/B/C) -----------------------------------------------------------------------


def test_classic_income_equals_development_status():
    s = event_state(Hourglass(Event.INCOME))
    for seat, dev in enumerate((0, 4, 15, 30)):
        s = with_player(s, seat, development=dev)
    s2, events = resolve(s)
    assert [coins(s2, i) for i in range(4)] == [5 + 1, 5 + 2, 5 + 4, 5 + 6]
    assert s2.phase is Phase.START_PLAYER
    assert RULES.legal_moves(s2, SYSTEM) == [PassStartPlayer()]


@pytest.mark.parametrize("level,factor", [("A", 3), ("B", 2), ("C", 1)])
def test_2023_income_levels(level, factor):
    s = event_state(Hourglass(Event.INCOME, level), "2023", 5)
    s = with_player(s, 0, development=9)  # status 3
    s2, _ = resolve(s)
    assert coins(s2, 0) == 5 + 3 * factor  # F§8.1 8th-edition table
    assert coins(s2, 1) == 5 + 1 * factor


# --- Trading Day ----------------------------------------------------------------------------------


STATIONS = (("blois", 0), ("chartres", 0), ("orleans", 0), ("orleans", 1))


def test_classic_trading_day_one_coin_per_built_station():
    s = replace(event_state(Hourglass(Event.TRADING_DAY)), stations=STATIONS)
    s2, _ = resolve(s)
    assert [coins(s2, i) for i in range(4)] == [8, 6, 5, 5]


@pytest.mark.parametrize("level,factor", [("A", 3), ("B", 2), ("C", 1)])
def test_2023_trading_day_levels(level, factor):
    s = replace(event_state(Hourglass(Event.TRADING_DAY, level), "2023", 4), stations=STATIONS)
    s2, _ = resolve(s)
    assert coins(s2, 0) == 5 + 3 * factor and coins(s2, 1) == 5 + factor and coins(s2, 2) == 5


# --- Taxes ----------------------------------------------------------------------------------------


def test_classic_taxes_one_coin_per_three_goods():
    s = event_state(Hourglass(Event.TAXES))
    s = with_goods(s, 0, grain=3, wool=4)  # 7 goods → 2 coins
    s = with_goods(s, 1, brocade=2)  # 2 goods → 0
    s = with_goods(s, 2, cheese=3)  # 3 → 1
    s2, _ = resolve(s)
    assert [coins(s2, i) for i in range(4)] == [3, 5, 4, 5]


@pytest.mark.parametrize("level,goods,paid", [("A", 5, 5), ("B", 5, 2), ("C", 5, 1), ("C", 6, 2)])
def test_2023_taxes_levels(level, goods, paid):
    s = with_goods(event_state(Hourglass(Event.TAXES, level), "2023", 3), 0, wine=goods)
    s2, _ = resolve(s)
    assert coins(s2, 0) == 5 - paid


def test_taxes_unpaid_become_torture():
    s = with_player(with_goods(event_state(Hourglass(Event.TAXES)), 0, grain=9), 0, coins=1)
    s2, events = resolve(s)
    assert CoinsChanged(0, -1, "taxes") in events
    assert DueAssigned(0, "torture", 2, "taxes") in events
    assert RULES.to_act(s2) == frozenset({0})


# --- Harvest --------------------------------------------------------------------------------------


def test_classic_harvest_the_seat_chooses_which_food():
    s = event_state(Hourglass(Event.HARVEST))
    s = with_goods(s, 0, grain=2)  # one kind: paid at once
    s = with_goods(s, 1, grain=1, cheese=1)  # a choice
    s = with_player(s, 2, coins=7)  # no food: 5 coins
    s = with_goods(with_player(s, 3, coins=3), 3, wool=2)  # no food, too few coins: torture
    cheese = market_good(s, Good.CHEESE)
    s, events = resolve(s)
    assert FoodPaid(0, Good.GRAIN) in events and good(s, 0, Good.GRAIN) == 1
    assert DueAssigned(1, "food", 1, "harvest") in events
    assert coins(s, 2) == 2
    assert coins(s, 3) == 0 and DueAssigned(3, "torture", 2, "harvest") in events
    assert RULES.to_act(s) == frozenset({1, 3})
    food = {m.good for m in RULES.legal_moves(s, 1)}
    assert food == {Good.GRAIN, Good.CHEESE}
    rejected(s, PayFood(1, Good.WINE))
    s, _ = play(s, PayFood(1, Good.CHEESE))
    assert good(s, 1, Good.CHEESE) == 0 and good(s, 1, Good.GRAIN) == 1
    assert market_good(s, Good.CHEESE) == cheese + 1  # food goes back to the Goods Market
    assert RULES.to_act(s) == frozenset({3})


def test_2023_harvest_B_two_food_or_five_coins_per_missing_food():
    s = event_state(Hourglass(Event.HARVEST, "B"), "2023", 2)
    s = with_player(with_goods(s, 0, grain=1, wool=1), 0, coins=9)
    s = with_goods(s, 1, grain=1, wine=2)
    s, events = resolve(s)
    assert FoodPaid(0, Good.GRAIN) in events and coins(s, 0) == 4  # 1 food + 5 coins
    assert DueAssigned(1, "food", 2, "harvest") in events
    s, _ = play(s, PayFood(1, Good.WINE))
    s, _ = play(s, PayFood(1, Good.GRAIN))
    assert s.dues == () and s.players[1].goods == (0, 0, 1, 0, 0)


def test_2023_harvest_A_and_C():
    s = event_state(Hourglass(Event.HARVEST, "A"), "2023", 2)
    s = with_goods(s, 0, grain=3)
    s, _ = resolve(s)
    assert good(s, 0, Good.GRAIN) == 2 and coins(s, 1) == 0  # A: 1 food; seat 1: 5 coins
    s = event_state(Hourglass(Event.HARVEST, "C"), "2023", 2)
    s = with_player(with_goods(s, 0, grain=1, cheese=1), 0, coins=20)
    s, _ = resolve(s)
    assert sum(s.players[0].goods) == 0 and coins(s, 0) == 15  # C: 3 food; 1 missing = 5 coins


# --- Plague ----------------------------------------------------------------------------------------


def test_plague_a_starting_follower_means_no_loss():
    s = with_player(event_state(Hourglass(Event.PLAGUE)), 0, bag=(SF, SB, SC, ST))
    s2, events = resolve(s)
    drawn = [e for e in of_type(events, PlagueDrawn) if e.seat == 0]
    assert drawn and drawn[0].lost is False and drawn[0].tile.starting
    assert s2.players[0].bag == s.players[0].bag


def test_plague_loses_a_random_follower_to_the_supply_tracks_stay():
    s = event_state(Hourglass(Event.PLAGUE))
    s = with_track(with_player(s, 0, bag=(K, K)), 0, Char.KNIGHT, 2)
    s2, events = resolve(s)
    assert PlagueDrawn(0, K, True, of_type(events, PlagueDrawn)[0].draws) in events
    assert s2.players[0].bag == (K,)
    assert supply(s2, Char.KNIGHT) == supply(s, Char.KNIGHT) + 1  # back to the board supply
    assert track(s2, 0, Char.KNIGHT) == 2  # the marker does not move back


def test_plague_draw_is_random():
    s = event_state(Hourglass(Event.PLAGUE))
    bag = (F, B, C, T, K, S, M, SF)
    lost = set()
    for counter in range(12):
        s1 = replace(with_player(s, 0, bag=tuple(sorted(bag, key=list(bag).index))), draws=counter * 7)
        _, events = resolve(s1)
        lost.add([e for e in of_type(events, PlagueDrawn) if e.seat == 0][0].tile)
    assert len(lost) > 2


def test_plague_with_an_empty_bag_does_nothing():
    s = with_player(event_state(Hourglass(Event.PLAGUE)), 0, bag=())
    _, events = resolve(s)
    assert not [e for e in of_type(events, PlagueDrawn) if e.seat == 0]


def test_pilgrimage_does_nothing_in_phase_six():
    s = event_state(Hourglass(Event.PILGRIMAGE))
    s2, events = resolve(s)
    assert s2.players == s.players


# --- Sacristy (F§6) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("event", [Hourglass(Event.HARVEST), Hourglass(Event.TAXES), Hourglass(Event.PLAGUE),
                                   Hourglass(Event.HARVEST, "C")])
def test_sacristy_exempts_its_owner_from_negative_events(event):
    edition = "2023" if event.level else "classic"
    s = event_state(event, edition)
    s = with_place(s, 0, "sacristy", (M,))
    s = with_player(with_goods(s, 0, wool=9), 0, coins=0, bag=(K,))
    s = with_player(with_goods(s, 1, wool=9), 1, coins=0, bag=(K,))
    s2, events = resolve(s)
    assert EventResolved(event, (0,)) in events
    assert s2.players[0].goods == s.players[0].goods and s2.players[0].coins == 0
    assert not [d for d in s2.dues if d.seat == 0]
    assert slots(s2, 0, "sacristy") == (None,) and M in s2.players[0].bag  # the Monk goes back
    assert [d for d in s2.dues if d.seat == 1] or s2.players[1].bag == ()  # seat 1 suffers it


def test_sacristy_is_only_used_by_negative_events():
    s = with_place(event_state(Hourglass(Event.INCOME)), 0, "sacristy", (M,))
    s2, events = resolve(s)
    assert coins(s2, 0) == 6 and slots(s2, 0, "sacristy") == ("monk",)
    assert EventResolved(Hourglass(Event.INCOME), ()) in events


def test_an_unactivated_sacristy_protects_nobody():
    s = with_place(event_state(Hourglass(Event.TAXES)), 0, "sacristy", (None,))
    s = with_goods(s, 0, wool=3)
    s2, _ = resolve(s)
    assert coins(s2, 0) == 4


# --- torture (F§8.1, R14 "Torture", D12) -------------------------------------------------------------------


def tortured(owed=1, **player):
    """Seat 0 owes ``owed`` coins it cannot pay (Taxes, A level: 1 coin per good)."""
    s = event_state(Hourglass(Event.TAXES, "A"), "2023", 2)
    s = with_goods(s, 0, grain=owed)
    s = with_player(s, 0, coins=0, **player)
    s, events = resolve(s)
    assert DueAssigned(0, "torture", owed, "taxes") in events
    return s


def test_the_paying_seat_chooses_the_items():
    s = tortured(3, bag=(SF, K), development=10)
    s = with_place(s, 0, "brewery", (M,))
    s = replace(s, stations=(("orleans", 0),))
    options = set(RULES.legal_moves(s, 0))
    assert options == {
        GiveUp(0, Item.GOOD, "grain"), GiveUp(0, Item.DEVELOPMENT, ""), GiveUp(0, Item.PLACE_TILE, "brewery"),
        GiveUp(0, Item.STATION, ""), GiveUp(0, Item.STATION, "orleans"), GiveUp(0, Item.FOLLOWER, ""),
    }
    s, _ = play(s, GiveUp(0, Item.STATION, "orleans"))  # a built station
    assert s.stations == () and s.removed_stations == 1 and s.players[0].stations == 10
    knights_out = s.removed[CHAR_INDEX[Char.KNIGHT]]
    s, _ = play(s, GiveUp(0, Item.FOLLOWER, ""))  # a random follower, never a starting one
    assert s.players[0].bag == (SF,)
    assert s.removed[CHAR_INDEX[Char.KNIGHT]] == knights_out + 1  # out of the game, not to the supply
    s, _ = play(s, GiveUp(0, Item.PLACE_TILE, "brewery"))
    assert slots(s, 0, "brewery") is None and "brewery" in s.lost_place_tiles
    assert M in s.players[0].bag  # its character goes back to the bag
    assert s.dues == ()


def test_torture_goods_development_and_technology():
    s = tortured(3, development=10, techs=1)
    s = with_place(s, 0, "castle", (TECH, None, None))
    s, _ = play(s, GiveUp(0, Item.GOOD, "grain"))
    assert good(s, 0, Good.GRAIN) == 2 and s.removed_goods[0] >= 1
    s, _ = play(s, GiveUp(0, Item.DEVELOPMENT, ""))
    assert s.players[0].development == 9
    s, _ = play(s, GiveUp(0, Item.TECHNOLOGY, "castle"))
    assert slots(s, 0, "castle") == (None, None, None) and s.players[0].techs == 1
    assert s.dues == ()


@pytest.mark.parametrize("development,allowed", [(0, False), (1, True), (8, False), (10, True), (13, False)])
def test_torture_development_never_onto_a_coin_space(development, allowed):
    s = tortured(1, development=development)
    assert (GiveUp(0, Item.DEVELOPMENT, "") in RULES.legal_moves(s, 0)) is allowed  # R14 torture


def test_starting_followers_are_never_lost_to_torture():
    s = tortured(1, bag=(SF, SB, SC, ST))
    assert GiveUp(0, Item.FOLLOWER, "") not in RULES.legal_moves(s, 0)


def test_torture_is_forgiven_when_nothing_is_left():
    s = tortured(2, stations=0, bag=(SF,))
    s, events = play(s, GiveUp(0, Item.GOOD, "grain"))
    assert s.dues != ()
    s, events = play(s, GiveUp(0, Item.GOOD, "grain"))
    assert s.dues == ()


def test_torture_default_order_D12_applies_only_on_timeout():
    s = tortured(30, development=10, techs=1, bag=(SF, K), stations=1)
    s = with_goods(s, 0, grain=1, wool=1)
    s = with_place(s, 0, "brewery", (None,))
    s = replace(s, stations=(("chartres", 0),))
    expected = [
        (Item.GOOD, "grain"), (Item.GOOD, "wool"),  # goods, cheapest first
        (Item.DEVELOPMENT, ""), (Item.DEVELOPMENT, ""),  # 10 → 9 → 8 (not onto 7)
        (Item.PLACE_TILE, "brewery"), (Item.TECHNOLOGY, ""),
        (Item.STATION, ""), (Item.STATION, "chartres"),  # unbuilt first
        (Item.FOLLOWER, ""),
    ]
    lost = []
    while s.dues:
        move = RULES.default_move(s, 0)
        assert isinstance(move, GiveUp)
        assert ApplyTimeout(0) in RULES.legal_moves(s, SYSTEM)
        s, events = step(s, ApplyTimeout(0))
        assert TimeoutApplied(0, "GiveUp") in events
        for e in of_type(events, ItemLost):
            lost.append((e.item, e.target))
        if of_type(events, DueForgiven):
            break
    assert lost == expected
    assert s.dues == ()


def test_a_seat_may_give_up_items_outside_the_default_order():
    s = tortured(1, development=10, bag=(K,))
    assert RULES.default_move(s, 0) == GiveUp(0, Item.GOOD, "grain")
    s, _ = play(s, GiveUp(0, Item.FOLLOWER, ""))
    assert s.dues == () and good(s, 0, Good.GRAIN) == 1


# --- coin supply (D11) ------------------------------------------------------------------------------------


def test_classic_payouts_stop_while_the_47_coin_supply_is_empty():
    s = event_state(Hourglass(Event.INCOME))
    s = with_player(s, 0, coins=31, development=4)  # 31 + 15 = 46: one coin left
    s2, _ = resolve(s)
    assert coins(s2, 0) == 32  # status 2, but only 1 coin was left
    assert [coins(s2, i) for i in (1, 2, 3)] == [5, 5, 5]
    assert RULES.view(s2, 0)["board"]["coin_supply"] == 0


def test_classic_payouts_resume_when_coins_come_back():
    s = event_state(Hourglass(Event.TAXES))
    s = with_goods(with_player(s, 0, coins=32), 0, wool=3)  # 47 in hands; pays 1
    s2, _ = resolve(s)
    assert RULES.view(s2, 0)["board"]["coin_supply"] == 1


def test_2023_coins_are_unlimited():
    s = event_state(Hourglass(Event.INCOME, "A"), "2023", 5)
    for seat in range(5):
        s = with_player(s, seat, coins=100)
    s2, _ = resolve(s)
    assert [coins(s2, i) for i in range(5)] == [103] * 5
    assert RULES.view(s2, 0)["board"]["coin_supply"] is None


# --- events refill the supply (R14 "Running out of tiles") ------------------------------------------------


def test_plague_refills_the_supply_and_reopens_the_action():
    from domain.orleans.model import TakeAction
    from tests.domain.scenario_helpers import in_actions, with_supply
    s = event_state(Hourglass(Event.PLAGUE))
    s = with_supply(with_player(s, 0, bag=(F,)), Char.FARMER, 0)
    s, _ = resolve(s)
    assert supply(s, Char.FARMER) == 1
    a = with_place(in_actions(s), 1, "farm_house", (B, C))
    a = replace(a, turn=1)
    play(a, TakeAction(1, "farm_house"))


def test_harvest_refills_the_goods_market_and_reopens_the_farm_house_D6():
    from domain.orleans.model import TakeAction
    from tests.domain.scenario_helpers import in_actions, with_market_good
    s = with_market_good(event_state(Hourglass(Event.HARVEST)), Good.GRAIN, 0)
    s = with_goods(s, 0, grain=1)
    a = with_place(in_actions(s), 0, "farm_house", (B, C))
    rejected(a, TakeAction(0, "farm_house"))
    s, _ = resolve(s)
    assert market_good(s, Good.GRAIN) == 1
    a = with_place(in_actions(s), 0, "farm_house", (B, C))
    play(a, TakeAction(0, "farm_house"))


def test_losing_the_gunpowder_tower_returns_its_characters_to_the_bag():
    s = tortured(1, bag=())
    s = with_place(s, 0, "gunpowder_tower")
    s = with_player(s, 0, tower=(K, S))
    s, _ = play(s, GiveUp(0, Item.PLACE_TILE, "gunpowder_tower"))
    assert s.players[0].tower == () and sorted(s.players[0].bag) == sorted((K, S))


def test_2023_a_held_farmer_only_technology_tile_is_given_up_first():
    s = tortured(1, techs=2, farmer_tech=True)
    s, _ = play(s, GiveUp(0, Item.TECHNOLOGY, ""))
    assert s.players[0].techs == 1 and not s.players[0].farmer_tech  # the unrestricted tile stays (F§2.3)
    assert s.dues == ()
