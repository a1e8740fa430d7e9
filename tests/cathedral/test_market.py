"""The Market place, Workshops and the Hour Glass (C-rules l.189-245)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from domain.cathedral import RULES
from domain.cathedral.data import Follower, HourGlass, Item, Place, Reward, Space, Workshop
from domain.cathedral.model import (
    SYSTEM,
    ApplyTimeout,
    Deliver,
    FinishAction,
    HourGlassCompleted,
    ItemPutBack,
    MakeRoom,
    RewardsEarned,
    SectionBuilt,
    Target,
    WorkshopCompleted,
)
from domain.cathedral.moves import Stage, stage
from domain.core import Rejected, RejectKind
from tests.cathedral.helpers import (
    at,
    fresh,
    hour_glass,
    knapsack,
    of_type,
    placed,
    play,
    rejected,
    rng,
    under_rules,
    workshops,
)

MARKET = Space.R4  # a Trader space (C§4.3)
HG, WS, PL = Target.HOUR_GLASS, Target.WORKSHOP, Target.PLAYER


def market(*items: Item, place: Place = Place.ORLEANS, players: int = 3) -> object:
    """Seat 0 on a Market space; Workshops W1 (Chartres), W3 (Tours), W5 (Sancerre); Hour Glass H4."""
    state = workshops(fresh(players), Workshop.W1, Workshop.W3, Workshop.W5)
    state = hour_glass(state, HourGlass.H4)
    state = at(knapsack(state, 0, *items), 0, place)
    return placed(state, MARKET, Follower.TRADER)


def test_up_to_two_items_per_market_action() -> None:
    """C-rules l.189-194: 0, 1 or 2 items; after two the action is over."""
    state = market(Item.WOOD, Item.BREAD, Item.STONE, place=Place.TOURS)
    state, _ = play(state, Deliver(0, Item.WOOD, WS))
    state, _ = play(state, Deliver(0, Item.BREAD, HG))
    assert state.active == 1 and state.knapsacks[0] == (Item.STONE,)


def test_delivering_nothing_is_refusing_the_action() -> None:
    state = market(Item.WOOD)
    after, _ = play(state, FinishAction(0))
    assert after.knapsacks[0] == (Item.WOOD,) and after.active == 1


def test_the_hour_glass_takes_deliveries_wherever_the_builder_stands() -> None:
    """C-rules l.202-206 (H4 needs a wood and a bread, C§4.5)."""
    state = market(Item.WOOD, place=Place.BOURGES)
    after, _ = play(state, Deliver(0, Item.WOOD, HG))
    assert after.hour_glass is not None and after.hour_glass.delivered == (Item.WOOD,)


def test_a_workshop_takes_deliveries_only_from_a_builder_standing_on_it() -> None:
    """C-rules l.202-206, l.223-224."""
    away = market(Item.WOOD, place=Place.ORLEANS)
    rejected(away, Deliver(0, Item.WOOD, WS))
    there = market(Item.WOOD, place=Place.CHARTRES)
    after, _ = play(there, Deliver(0, Item.WOOD, WS))
    assert after.workshops[0].delivered == (Item.WOOD,)


def test_items_may_go_to_other_players_and_to_two_different_places() -> None:
    """C-rules l.196-201: one stone to a Workshop, one rosette to another player."""
    state = market(Item.STONE, Item.ROSETTE, place=Place.CHARTRES)
    state, _ = play(state, Deliver(0, Item.STONE, WS))
    after, _ = play(state, Deliver(0, Item.ROSETTE, PL, 2))
    assert after.workshops[0].delivered == (Item.STONE,) and Item.ROSETTE in after.knapsacks[2]


def test_under_rules_1_a_gift_needs_room_in_the_other_knapsack() -> None:
    """C§4.8 gifts_respect_knapsack_capacity, the rules of games recorded by cathedral-1."""
    state = under_rules(knapsack(market(Item.WOOD), 1, Item.WOOD, Item.WOOD, Item.STONE, Item.STONE, Item.BREAD), 1)
    rejected(state, Deliver(0, Item.WOOD, PL, 1))
    play(state, Deliver(0, Item.WOOD, PL, 2))


def test_a_gift_into_a_full_knapsack_waits_for_its_receiver_to_make_room() -> None:
    """Rules 2, the knapsack rule as written (C-rules l.173-180) for a Market gift (l.196-201): the
    gift goes in, and before anyone else acts the receiver puts one item back: another good (to
    the black bag) or the gift itself."""
    full = (Item.WOOD, Item.WOOD, Item.STONE, Item.STONE, Item.BREAD)
    state = knapsack(market(Item.BREAD, Item.WOOD), 1, *full)
    given, _ = play(state, Deliver(0, Item.BREAD, PL, 1))
    assert len(given.knapsacks[1]) == 6 and RULES.to_act(given) == {1} and stage(given) is Stage.MAKE_ROOM
    assert RULES.legal_moves(given, 0) == [] and RULES.legal_moves(given, 1) == [
        MakeRoom(1, Item.WOOD), MakeRoom(1, Item.STONE), MakeRoom(1, Item.BREAD)]
    rejected(given, MakeRoom(1, Item.ROSETTE))
    with pytest.raises(Rejected) as info:
        RULES.decide(given, Deliver(0, Item.BREAD, PL, 2), rng(given))
    assert info.value.kind is RejectKind.NOT_YOUR_TURN
    bag = len(given.black_bag)
    room, events = play(given, MakeRoom(1, Item.STONE))
    assert of_type(events, ItemPutBack) == [ItemPutBack(1, Item.STONE)]
    assert room.knapsacks[1] == (Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.BREAD)
    assert len(room.black_bag) == bag + 1 and RULES.to_act(room) == {0}, "the giver's turn goes on"
    assert Deliver(0, Item.WOOD, PL, 2) in RULES.legal_moves(room, 0), "with its second delivery"
    refused, _ = play(given, MakeRoom(1, Item.BREAD))
    assert refused.knapsacks[1] == full, "putting the gift itself back is forgoing it"


def test_a_timeout_of_the_receiver_puts_an_item_back() -> None:
    full = (Item.WOOD, Item.WOOD, Item.STONE, Item.STONE, Item.BREAD)
    given, _ = play(knapsack(market(Item.BREAD), 1, *full), Deliver(0, Item.BREAD, PL, 1))
    assert RULES.legal_moves(given, SYSTEM) == [ApplyTimeout(1)]
    after, events = play(given, ApplyTimeout(1))
    assert of_type(events, ItemPutBack) and len(after.knapsacks[1]) == 5


def test_bad_gift_targets_are_refused() -> None:
    state = market(Item.WOOD)
    for bad in (Deliver(0, Item.WOOD, PL, 0), Deliver(0, Item.WOOD, PL, 3), Deliver(0, Item.WOOD, PL, None),
                Deliver(0, Item.WOOD, HG, 1), Deliver(0, Item.BREAD, PL, 1)):
        rejected(state, bad)


def test_an_order_takes_only_what_it_still_lacks() -> None:
    """C§5: H4 needs one wood; a second wood, or a stone, is refused."""
    state = market(Item.WOOD, Item.WOOD, Item.STONE)
    rejected(state, Deliver(0, Item.STONE, HG))
    state, _ = play(state, Deliver(0, Item.WOOD, HG))
    rejected(state, Deliver(0, Item.WOOD, HG))


def test_a_fulfilled_workshop_pays_its_reward_returns_its_goods_and_turns_over() -> None:
    """C-rules l.211-222: W1 needs 2 wood and a stone and builds a section (C§4.4, rules 1 and 2)."""
    state = workshops(under_rules(fresh(3), 2), Workshop.W1, Workshop.W3, Workshop.W5,
                      delivered={Place.CHARTRES: (Item.WOOD, Item.WOOD)})
    state = placed(at(knapsack(state, 0, Item.STONE, Item.BREAD), 0, Place.CHARTRES), MARKET, Follower.TRADER)
    bag = Counter(state.black_bag)
    after, events = play(state, Deliver(0, Item.STONE, WS))
    assert of_type(events, WorkshopCompleted) == [
        WorkshopCompleted(0, Place.CHARTRES, Workshop.W1, (Item.WOOD, Item.WOOD, Item.STONE))]
    assert of_type(events, RewardsEarned)[0].rewards == (Reward.SECTION,)
    assert of_type(events, SectionBuilt) == [SectionBuilt(0, 1)] and after.sections == 1
    assert after.workshops[0].done and not after.workshops[0].delivered
    assert Counter(after.black_bag) - bag == Counter({Item.WOOD: 2, Item.STONE: 1})
    assert after.active == 0 and Deliver(0, Item.BREAD, WS) not in RULES.legal_moves(after, 0)
    rejected(after, Deliver(0, Item.BREAD, WS))


def test_a_workshop_rosette_goes_back_to_the_supply() -> None:
    """C-rules l.211-222: W5 needs 2 bread and a rosette; the rosette returns to the supply (rules 2
    tables: W5 also pays a rosette)."""
    state = workshops(under_rules(fresh(3), 2), Workshop.W1, Workshop.W3, Workshop.W5,
                      delivered={Place.SANCERRE: (Item.BREAD, Item.BREAD)})
    state = placed(at(knapsack(state, 0, Item.ROSETTE), 0, Place.SANCERRE), MARKET, Follower.TRADER)
    supply = state.supply_rosettes
    after, events = play(state, Deliver(0, Item.ROSETTE, WS))
    assert of_type(events, RewardsEarned)[0].rewards == (Reward.SECTION, Reward.ROSETTE)
    assert after.sections == 1 and after.supply_rosettes in (supply, supply + 1)  # +1 back, -1 if taken as reward


def test_a_done_workshop_takes_nothing_more() -> None:
    """C-rules l.211-222: the tile is turned over."""
    state = workshops(fresh(3), Workshop.W1, Workshop.W3, Workshop.W5)
    state = replace(state, workshops=(replace(state.workshops[0], done=True),) + state.workshops[1:])
    state = placed(at(knapsack(state, 0, Item.WOOD), 0, Place.CHARTRES), MARKET, Follower.TRADER)
    rejected(state, Deliver(0, Item.WOOD, WS))


def test_a_fulfilled_hour_glass_pays_and_leaves_the_game_until_the_round_ends() -> None:
    """C-rules l.226-242: H4 pays a Blueprint and a rosette (C§4.5, rules 1 and 2)."""
    state = under_rules(market(Item.WOOD, Item.BREAD), 2)
    state, _ = play(state, Deliver(0, Item.WOOD, HG))
    after, events = play(state, Deliver(0, Item.BREAD, HG))
    assert of_type(events, HourGlassCompleted) == [HourGlassCompleted(0, HourGlass.H4, (Item.WOOD, Item.BREAD))]
    assert of_type(events, RewardsEarned)[0].rewards == (Reward.BLUEPRINT, Reward.ROSETTE)
    assert after.hour_glass is None and HourGlass.H4 in after.hour_glass_gone
    assert RULES.view(after, None)["hour_glass"] is None and RULES.view(after, None)["hour_glass_stack"] == 2


def test_nothing_goes_to_the_hour_glass_once_it_is_gone() -> None:
    state = hour_glass(market(Item.WOOD), None)
    rejected(state, Deliver(0, Item.WOOD, HG))
