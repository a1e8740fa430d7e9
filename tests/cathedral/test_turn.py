"""A turn: draw blindly, place on a matching free space, carry out or refuse, rest
(C-rules l.118-156, l.182-187, l.344-350)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from domain.cathedral import RULES
from domain.cathedral import data as D
from domain.cathedral.data import Action, Bag, Follower, Item, Reward, Space
from domain.cathedral.model import (
    DrawFollower,
    EndTurn,
    FinishAction,
    FollowerDrawn,
    PlaceFollower,
    Rest,
    Rested,
    RewardsEarned,
    Step,
    TurnBegan,
)
from domain.core import RejectKind
from domain.rng import Rng
from tests.cathedral.helpers import fresh, holding, knapsack, occupy, of_type, placed, play, rejected

ALL_SPACES = tuple(Space)


def placeable(follower: Follower) -> set[Space]:
    base = holding(fresh(3), follower)
    return {m.space for m in RULES.legal_moves(base, 0) if isinstance(m, PlaceFollower)}


@pytest.mark.parametrize("bag", list(Bag))
def test_a_turn_starts_with_a_blind_draw_from_the_red_or_the_blue_bag(bag: Bag) -> None:
    """C-rules l.118-120: draw from either bag; l.121-122: nobody sees inside (the draw is the rng's)."""
    state = fresh(3)
    assert set(RULES.legal_moves(state, 0)) == {DrawFollower(0, Bag.RED), DrawFollower(0, Bag.BLUE)}
    after, events = play(state, DrawFollower(0, bag))
    drawn = of_type(events, FollowerDrawn)[0]
    assert drawn.bag is bag and drawn.follower in state.bag(bag) and after.drawn is drawn.follower
    assert Counter(after.bag(bag)) == Counter(state.bag(bag)) - Counter([drawn.follower])
    assert after.step is Step.PLACE and after.draws > state.draws


def test_draws_follow_the_bag_contents() -> None:
    """A red draw never yields a Fisherman at the start (C-rules l.66-72): only what the bag holds."""
    seen: Counter[Follower] = Counter()
    state = fresh(3)
    for i in range(60):
        events = RULES.decide(state, DrawFollower(0, Bag.RED), Rng(f"d{i}".encode(), "g", state.draws))
        seen[of_type(events, FollowerDrawn)[0].follower] += 1
    assert Follower.FISHERMAN not in seen and seen[Follower.KNIGHT] > seen[Follower.MONK]


def test_an_empty_bag_cannot_be_drawn_from() -> None:
    state = fresh(3)
    state = replace(state, red_bag=(), blue_bag=state.blue_bag + state.red_bag)
    rejected(state, DrawFollower(0, Bag.RED))


def test_only_the_seat_whose_turn_it_is_acts() -> None:
    """C-rules l.148-150: one seat at a time."""
    state = fresh(3)
    rejected(state, DrawFollower(1, Bag.RED), RejectKind.NOT_YOUR_TURN)
    assert RULES.legal_moves(state, 1) == [] and RULES.legal_moves(state, 2) == []


def test_a_tile_goes_only_on_a_space_that_shows_it() -> None:
    """C-rules l.124-136: a Trader only where a Trader is shown (plus the 'any follower' spaces)."""
    assert placeable(Follower.TRADER) == {Space.R4, Space.R5, Space.B4, Space.B5, Space.R7, Space.B7, Space.BT}
    rejected(holding(fresh(3), Follower.TRADER), PlaceFollower(0, Space.R1))


def test_spaces_with_two_icons_take_either_follower() -> None:
    """C-rules l.141-143: R2 shows a Knight and a Farmer (C§4.3)."""
    assert Space.R2 in placeable(Follower.KNIGHT) and Space.R2 in placeable(Follower.FARMER)
    assert Space.R2 not in placeable(Follower.FISHERMAN)


def test_any_follower_spaces_take_every_tile() -> None:
    """C-rules l.145-146 and l.259-264, l.303-309: the Festival Grounds and the Bell Tower."""
    for follower in Follower:
        assert {Space.R7, Space.B7, Space.BT} <= placeable(follower)


def test_monks_are_wild_and_the_only_ones_for_the_glass_spaces() -> None:
    """C-rules l.132-136 (Monks go anywhere), l.247-250 and l.252-257 (Monk only)."""
    assert placeable(Follower.MONK) == set(ALL_SPACES)
    for follower in (Follower.KNIGHT, Follower.FISHERMAN, Follower.FARMER, Follower.TRADER):
        assert not {Space.R6, Space.B6} & placeable(follower)


def test_the_colour_of_the_area_does_not_matter() -> None:
    """C-rules l.138-139: a red-bag Farmer may use the blue area's Cart."""
    state = fresh(3)
    state = holding(state, Follower.FARMER)
    assert Follower.FARMER in fresh(3).red_bag
    play(state, PlaceFollower(0, Space.B3))


def test_a_taken_space_forces_another() -> None:
    """C-rules l.152-156."""
    state = holding(occupy(fresh(3), Space.R4), Follower.TRADER)
    rejected(state, PlaceFollower(0, Space.R4))
    play(state, PlaceFollower(0, Space.B4))


def test_a_tile_that_fits_nowhere_else_goes_on_the_bell_tower() -> None:
    """C-rules l.152-156: every Knight space and both Festival Grounds are taken."""
    state = occupy(fresh(3), Space.R1, Space.R2, Space.R5, Space.R7, Space.B7)
    state = holding(state, Follower.KNIGHT)
    assert RULES.legal_moves(state, 0) == [PlaceFollower(0, Space.BT)]


def test_the_bell_tower_takes_a_tile_at_any_time() -> None:
    """C-rules l.303-309: 'as late as possible' is advice, not a rule (C§5)."""
    assert Space.BT in placeable(Follower.KNIGHT)


def test_an_action_may_be_refused_and_the_tile_stays() -> None:
    """C-rules l.344-347: the tile is just placed there."""
    state = placed(fresh(3), Space.R1, Follower.KNIGHT)
    assert state.step is Step.ACTION and FinishAction(0) in RULES.legal_moves(state, 0)
    after, events = play(state, FinishAction(0))
    assert after.spaces[D.SPACE_INDEX[Space.R1]] is Follower.KNIGHT and after.builders == state.builders
    assert of_type(events, TurnBegan) == [TurnBegan(1)], "the next seat clockwise (C-rules l.148-150)"


@pytest.mark.parametrize("space", [Space.R7, Space.BT])
def test_festival_ground_and_bell_tower_actions_cannot_be_refused(space: Space) -> None:
    """C-rules l.344-350: the action happens as the tile is placed; nothing is left to refuse."""
    state = placed(fresh(3), space, Follower.TRADER)
    assert state.step is not Step.ACTION and FinishAction(state.active) not in RULES.legal_moves(state, state.active)


@pytest.mark.parametrize("moment", ["draw", "place", "action"])
def test_a_full_knapsack_may_rest_at_any_moment_of_the_turn(moment: str) -> None:
    """C-rules l.182-187: everything back to the black bag / the supply, 1 Blueprint in return."""
    state = knapsack(fresh(3), 0, Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.ROSETTE)
    if moment == "place":
        state = holding(state, Follower.KNIGHT)
    elif moment == "action":
        state = placed(state, Space.R4, Follower.TRADER)
    bag, supply = Counter(state.black_bag), state.supply_rosettes
    after, events = play(state, Rest(0))
    assert of_type(events, Rested)[0].returned == state.knapsacks[0]
    assert of_type(events, RewardsEarned)[0].rewards == (Reward.BLUEPRINT,)
    assert len(after.blueprints_turned) == 1
    assert Counter(after.black_bag) - bag == Counter({Item.WOOD: 2, Item.STONE: 1, Item.BREAD: 1})
    assert after.supply_rosettes >= supply + 1 - (after.blueprints_turned[0] is Reward.ROSETTE)
    assert not after.knapsacks[0] or after.knapsacks[0] == (Item.ROSETTE,)


def test_no_rest_without_a_full_knapsack() -> None:
    """C-rules l.182-187: only when the knapsack is full."""
    state = knapsack(fresh(3), 0, Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD)
    rejected(state, Rest(0))


def test_a_seat_whose_knapsack_fills_during_its_action_may_still_rest_before_passing() -> None:
    """C-rules l.182-187 'anytime during your turn': after the action the seat chooses Rest or EndTurn."""
    state = knapsack(fresh(3), 0, Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.BREAD)
    state = placed(state, Space.R4, Follower.TRADER)
    ended, _ = play(state, FinishAction(0))
    assert ended.step is Step.END and set(RULES.legal_moves(ended, 0)) == {EndTurn(0), Rest(0)}
    passed, events = play(ended, EndTurn(0))
    assert passed.active == 1 and of_type(events, TurnBegan) == [TurnBegan(1)]
    rested, events = play(ended, Rest(0))
    assert rested.active == 1 and of_type(events, TurnBegan) == [TurnBegan(1)]


def test_a_knapsack_with_room_passes_the_turn_at_once() -> None:
    state = placed(fresh(3), Space.R4, Follower.TRADER)
    after, _ = play(state, FinishAction(0))
    assert after.active == 1 and after.step is Step.DRAW


def test_a_space_with_nothing_to_do_ends_its_action_by_itself() -> None:
    """Refusing is all that is left (C-rules l.344-347): a Market with an empty knapsack."""
    state = knapsack(fresh(3), 0)
    after = placed(state, Space.R4, Follower.TRADER)
    assert after.active == 1 and after.spaces[D.SPACE_INDEX[Space.R4]] is Follower.TRADER
    assert D.SPACES[Space.R4].action is Action.MARKET
