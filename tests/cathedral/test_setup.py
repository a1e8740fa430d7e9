"""Config and set-up (C-rules l.41-86)."""
from __future__ import annotations

from collections import Counter

import pytest

from domain.cathedral import RULES
from domain.cathedral import data as D
from domain.cathedral.data import Follower, Item, Place
from domain.cathedral.model import GameStarted, GoodPacked, GoodsLaid, HourGlassRevealed, Step, TurnBegan, WorkshopsLaid
from domain.core import SYSTEM, Rejected, RejectKind
from domain.games import fold
from domain.rng import Rng
from tests.cathedral.helpers import fresh, of_type
from tests.cathedral.invariants import check


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("edition", ["standard", "expert"])
def test_two_to_four_players_in_either_variant(players: int, edition: str) -> None:
    """C-rules l.36-38 (4 Knapsacks and Master Builders), C§1 (2-4 players), l.83-86 (experts)."""
    config = RULES.config_from_json({"edition": edition, "players": players})
    assert RULES.config_to_json(config) == {"edition": edition, "players": players, "rules_version": D.RULES_VERSION}
    check(fresh(players, edition))


@pytest.mark.parametrize("bad", [
    {"players": 1}, {"players": 5}, {"players": True}, {"players": "3"}, {"edition": "classic", "players": 3},
    {"players": 3, "monks": 4}, [],
])
def test_bad_configs_are_rejected(bad: object) -> None:
    with pytest.raises(Rejected) as info:
        RULES.config_from_json(bad)  # type: ignore[arg-type]
    assert info.value.kind is RejectKind.INVALID_CONFIG


def test_the_bags_hold_their_followers_and_the_other_monks_wait_in_the_supply() -> None:
    """C-rules l.66-72: red 6 Knights, 3 Farmers, 3 Traders, 2 Monks; blue the same with 6
    Fishermen; C-rules l.74: the remaining 6 Monks go to the supply."""
    state = fresh(3)
    assert Counter(state.red_bag) == {Follower.KNIGHT: 6, Follower.FARMER: 3, Follower.TRADER: 3, Follower.MONK: 2}
    assert Counter(state.blue_bag) == {Follower.FISHERMAN: 6, Follower.FARMER: 3, Follower.TRADER: 3, Follower.MONK: 2}
    assert state.supply_monks == 6


def test_experts_put_only_one_monk_in_each_bag() -> None:
    """C-rules l.83-86: 1 Monk each instead of 2, so 8 stay in the supply."""
    state = fresh(3, "expert")
    assert state.red_bag.count(Follower.MONK) == state.blue_bag.count(Follower.MONK) == 1
    assert state.supply_monks == 8
    assert len(state.red_bag) == len(state.blue_bag) == 13


@pytest.mark.parametrize("players", [2, 4])
def test_goods_are_drawn_onto_every_goods_space_and_one_into_each_knapsack(players: int) -> None:
    """C-rules l.50-52 (every Goods space from the black bag), l.76-81 (1 good each, in turn)."""
    config = RULES.config_from_json({"players": players})
    events = RULES.setup(config, Rng(b"seed", "g", 0))
    laid = of_type(events, GoodsLaid)[0]
    assert laid.spots == D.GOODS_SPOTS and len(laid.goods) == 15
    assert [e.seat for e in of_type(events, GoodPacked)] == list(range(players))
    state = fold(RULES, events)
    assert all(state.spots[s] in D.GOODS for s in D.GOODS_SPOTS)
    assert all(len(k) == 1 and k[0] in D.GOODS for k in state.knapsacks)
    assert len(state.black_bag) == 37 - 15 - players


def test_one_rosette_lies_between_bourges_and_tours_and_nine_wait_in_the_supply() -> None:
    """C-rules l.54-55."""
    state = fresh(3)
    spot = D.SPOTS[D.ROSETTE_SPOT]
    assert {D.ROUTES[spot.route].a, D.ROUTES[spot.route].b} == {Place.TOURS, Place.BOURGES}
    assert state.spots[D.ROSETTE_SPOT] is Item.ROSETTE and state.supply_rosettes == 9


def test_three_of_eight_workshops_lie_face_up_on_their_places() -> None:
    """C-rules l.43-45: 3 drawn at random, the other 5 back in the box (which 3 varies by seed)."""
    seen = set()
    for i in range(12):
        state = fresh(3, seed=f"w{i}".encode())
        assert [w.place for w in state.workshops] == list(D.WORKSHOP_PLACES)
        assert len(state.workshop_box) == 5 and not any(w.delivered or w.done for w in state.workshops)
        seen.update(w.tile for w in state.workshops)
    assert len(seen) >= 6


def test_one_hour_glass_is_face_up_and_two_wait_face_down() -> None:
    """C-rules l.62-64: 3 of the 6 tiles in play, the top one revealed."""
    state = fresh(3)
    assert state.hour_glass is not None and not state.hour_glass.delivered
    assert RULES.view(state, None)["hour_glass_stack"] == 2


def test_events_blueprints_and_sections_wait_beside_the_board() -> None:
    """C-rules l.47-48 (10 Events face down), l.57-58 (12 Blueprints face down), l.60 (8 sections)."""
    state = fresh(4)
    assert sorted(state.event_pool) == sorted(D.EventTile) and state.order is None
    assert len(state.blueprint_pool) == 12 and state.sections == 0


def test_master_builders_start_in_orleans_and_the_youngest_begins() -> None:
    """C-rules l.76-81 (Master Builders in Orléans), l.118-120 (the youngest begins: seat 0, C§5)."""
    state = fresh(4)
    assert state.builders == (Place.ORLEANS,) * 4
    assert state.round == 1 and state.active == 0 and state.step is Step.DRAW
    assert RULES.to_act(state) == {0} and SYSTEM not in RULES.to_act(state)


def test_every_setup_draw_is_recorded_so_the_fold_needs_no_seed() -> None:
    """design.md: outcomes go into events; the rng counter travels with them."""
    events = RULES.setup(RULES.config_from_json({"players": 3}), Rng(b"s", "g", 0))
    assert isinstance(events[0], GameStarted) and isinstance(events[-1], TurnBegan)
    counters = [e.draws for e in events if isinstance(e, (WorkshopsLaid, GoodsLaid, HourGlassRevealed, GoodPacked))]
    assert counters == sorted(counters) and fold(RULES, events).draws == counters[-1]
    assert fold(RULES, events) == fold(RULES, RULES.setup(RULES.config_from_json({"players": 3}), Rng(b"s", "g", 0)))
