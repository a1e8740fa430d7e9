"""Rewards (C-rules l.285-299): Blueprint, section, rosette, Monk; the immediate shared win
(C-rules l.102-106)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.cathedral import RULES
from domain.cathedral.data import Bag, Follower, Item, Reward
from domain.cathedral.model import (
    BlueprintTurned,
    DrawFollower,
    Forgo,
    GameEnded,
    GiveRosette,
    ItemPutBack,
    MakeRoom,
    Outcome,
    PutMonk,
    Rest,
    RewardForgone,
    RewardLost,
    RosetteGiven,
    SectionBuilt,
)
from domain.cathedral.moves import Stage, stage
from domain.core import RejectKind
from tests.cathedral.helpers import fresh, holding, knapsack, next_blueprints, of_type, play, rejected, under_rules

FULL = (Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.BREAD)


def resting(blueprint: Reward, **changes: object) -> object:
    """Seat 0 with a full knapsack, about to rest for a Blueprint that will show ``blueprint``."""
    state = next_blueprints(knapsack(fresh(3), 0, *FULL), blueprint)
    return replace(state, **changes)


def owed(reward: Reward, *items: Item) -> object:
    """Seat 0 owes itself ``reward`` (as after an Event), holding ``items``."""
    return replace(knapsack(fresh(3), 0, *items), rewards=(reward,))


def test_a_blueprint_is_turned_over_and_pays_what_it_shows() -> None:
    """C-rules l.289-290."""
    state, events = play(resting(Reward.SECTION), Rest(0))
    turned = of_type(events, BlueprintTurned)
    assert [(e.seat, e.blueprint) for e in turned] == [(0, Reward.SECTION)] and turned[0].draws == state.draws
    assert state.sections == 1 and state.blueprints_turned[-1] is Reward.SECTION and not state.blueprint_pool


def test_sections_are_built_in_order() -> None:
    """C-rules l.89-92, l.292: the next section."""
    state, events = play(resting(Reward.SECTION, sections=3), Rest(0))
    assert of_type(events, SectionBuilt) == [SectionBuilt(0, 4)] and state.sections == 4


def test_building_section_eight_wins_at_once_for_everyone() -> None:
    """C-rules l.102-106: the game ends the moment the roof is on, mid-turn."""
    state, events = play(resting(Reward.SECTION, sections=7), Rest(0))
    assert of_type(events, GameEnded) == [GameEnded(Outcome.WON, 8)] and events[-1] == GameEnded(Outcome.WON, 8)
    assert RULES.to_act(state) == frozenset() and RULES.legal_moves(state, 0) == []
    rejected(state, DrawFollower(0, Bag.RED), RejectKind.GAME_OVER)
    result = RULES.result(state)
    assert result is not None and result["outcome"] == "won" and result["sections_built"] == 8
    assert result["winners"] == [0, 1, 2] and result["scores"] == [8, 8, 8]
    assert [r["rank"] for r in result["ranking"]] == [1, 1, 1]


def test_a_win_in_the_middle_of_a_turn_leaves_every_tile_where_it_lies() -> None:
    """C-rules l.102-106: resting with a tile in hand builds the roof; the drawn tile stays drawn."""
    state = holding(resting(Reward.SECTION, sections=7), Follower.KNIGHT)
    after, _ = play(state, Rest(0))
    assert after.outcome is Outcome.WON and after.drawn is Follower.KNIGHT


def test_a_rosette_goes_into_ones_own_knapsack_or_another_players() -> None:
    """C-rules l.294-296."""
    state = owed(Reward.ROSETTE, Item.WOOD)
    assert stage(state) is Stage.REWARD
    assert set(RULES.legal_moves(state, 0)) == {GiveRosette(0, 0), GiveRosette(0, 1), GiveRosette(0, 2)}
    mine, _ = play(state, GiveRosette(0, 0))
    assert mine.knapsacks[0] == (Item.WOOD, Item.ROSETTE) and mine.supply_rosettes == state.supply_rosettes - 1
    theirs, events = play(state, GiveRosette(0, 1))
    assert of_type(events, RosetteGiven) == [RosetteGiven(0, 1)] and Item.ROSETTE in theirs.knapsacks[1]
    assert stage(mine) is Stage.DRAW and mine.active == 0, "the turn goes on where it was"


def test_a_rosette_into_a_full_knapsack_puts_an_item_back_or_is_left() -> None:
    """C-rules l.173-180 apply to rewards too; C§4.8 (rules 1): another seat's full knapsack takes no gift."""
    state = knapsack(owed(Reward.ROSETTE, *FULL), 1, *FULL)
    rejected(state, GiveRosette(0, 0))
    rejected(under_rules(state, 1), GiveRosette(0, 1))
    rejected(state, GiveRosette(0, 2, Item.WOOD))
    after, events = play(state, GiveRosette(0, 0, Item.STONE))
    assert of_type(events, ItemPutBack) == [ItemPutBack(0, Item.STONE)] and Item.ROSETTE in after.knapsacks[0]
    left, events = play(state, Forgo(0))
    assert of_type(events, RewardForgone) == [RewardForgone(0, Reward.ROSETTE)] and left.knapsacks[0] == FULL


def test_a_rosette_reward_with_room_is_taken_not_left() -> None:
    rejected(owed(Reward.ROSETTE, Item.WOOD), Forgo(0))


@pytest.mark.parametrize("bag", list(Bag))
def test_a_monk_goes_from_the_supply_into_the_red_or_the_blue_bag(bag: Bag) -> None:
    """C-rules l.298-299."""
    state = owed(Reward.MONK)
    after, _ = play(state, PutMonk(0, bag))
    assert after.bag(bag).count(Follower.MONK) == state.bag(bag).count(Follower.MONK) + 1
    assert after.supply_monks == state.supply_monks - 1 and not after.rewards


def test_rewards_are_received_one_at_a_time_in_order() -> None:
    """A Workshop's row of icons (C-rules l.211-222): the choice comes when its icon is reached."""
    state = replace(fresh(3), rewards=(Reward.MONK, Reward.ROSETTE))
    assert {type(m) for m in RULES.legal_moves(state, 0)} == {PutMonk}
    state, _ = play(state, PutMonk(0, Bag.RED))
    assert {type(m) for m in RULES.legal_moves(state, 0)} == {GiveRosette}


def test_a_reward_with_nothing_left_in_the_supply_is_lost() -> None:
    """C§4.8 empty_supply_reward: no rosette left."""
    state = knapsack(knapsack(fresh(3), 1, *(Item.ROSETTE,) * 5), 2, *(Item.ROSETTE,) * 4)
    state = next_blueprints(knapsack(state, 0, *FULL), Reward.ROSETTE)
    after, events = play(state, Rest(0))
    assert of_type(events, RewardLost) == [RewardLost(Reward.ROSETTE)] and not after.rewards


def test_a_blueprint_with_none_left_is_lost() -> None:
    """C§4.8 empty_supply_reward."""
    state = knapsack(fresh(3), 0, *FULL)
    state = replace(state, blueprint_pool=(), blueprints_turned=state.blueprint_pool)
    after, events = play(state, Rest(0))
    assert of_type(events, RewardLost) == [RewardLost(Reward.BLUEPRINT)] and after.sections == 0


def test_a_rosette_given_to_a_full_knapsack_waits_for_its_receiver() -> None:
    """Rules 2 (C-rules l.173-180, l.294-296): the rosette goes into the other seat's full knapsack,
    and that seat puts one item back (a rosette goes to the supply) before the turn goes on."""
    state = knapsack(owed(Reward.ROSETTE, *FULL), 1, *FULL)
    given, events = play(state, GiveRosette(0, 1))
    assert of_type(events, RosetteGiven) == [RosetteGiven(0, 1)] and RULES.to_act(given) == {1}
    supply = given.supply_rosettes
    back, events = play(given, MakeRoom(1, Item.ROSETTE))
    assert of_type(events, ItemPutBack) == [ItemPutBack(1, Item.ROSETTE)]
    assert back.knapsacks[1] == FULL and back.supply_rosettes == supply + 1 and RULES.to_act(back) == {0}
