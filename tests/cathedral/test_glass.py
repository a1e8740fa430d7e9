"""Glass Foundry and Glass Painting, Monks only (C-rules l.247-257)."""
from __future__ import annotations

from dataclasses import replace

from domain.cathedral.data import Follower, Item, Reward, Space
from domain.cathedral.model import (
    BlueprintTurned,
    GlassMade,
    GlassPainted,
    ItemPutBack,
    MakeGlass,
    PaintGlass,
    RewardsEarned,
)
from tests.cathedral.helpers import fresh, knapsack, next_blueprints, of_type, placed, play, rejected

FOUNDRY, PAINTING = Space.R6, Space.B6
FULL = (Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.BREAD)


def test_the_glass_foundry_gives_a_rosette_from_the_supply() -> None:
    """C-rules l.247-250."""
    state = placed(fresh(3), FOUNDRY, Follower.MONK)
    supply = state.supply_rosettes
    after, events = play(state, MakeGlass(0))
    assert of_type(events, GlassMade) == [GlassMade(0)] and Item.ROSETTE in after.knapsacks[0]
    assert after.supply_rosettes == supply - 1 and after.active == 1


def test_a_full_knapsack_puts_an_item_back_for_the_foundry_rosette() -> None:
    """C-rules l.173-180 apply to every item gained."""
    state = knapsack(placed(fresh(3), FOUNDRY, Follower.MONK), 0, *FULL)
    rejected(state, MakeGlass(0))
    after, events = play(state, MakeGlass(0, Item.BREAD))
    assert of_type(events, ItemPutBack) == [ItemPutBack(0, Item.BREAD)] and Item.ROSETTE in after.knapsacks[0]


def test_no_rosette_left_means_the_foundry_has_nothing_to_give() -> None:
    """C§4.8 empty_supply_reward: with all 9 supply rosettes in knapsacks the action ends as placed."""
    state = knapsack(knapsack(fresh(3), 1, *(Item.ROSETTE,) * 5), 2, *(Item.ROSETTE,) * 4)
    assert state.supply_rosettes == 0
    after = placed(state, FOUNDRY, Follower.MONK)
    assert after.active == 1 and Item.ROSETTE not in after.knapsacks[0]


def test_glass_painting_turns_a_rosette_into_a_blueprint() -> None:
    """C-rules l.252-257."""
    state = next_blueprints(knapsack(fresh(3), 0, Item.ROSETTE, Item.WOOD), Reward.MONK)
    state = placed(state, PAINTING, Follower.MONK)
    supply = state.supply_rosettes
    after, events = play(state, PaintGlass(0))
    assert of_type(events, GlassPainted) == [GlassPainted(0)]
    assert of_type(events, RewardsEarned)[0].rewards == (Reward.BLUEPRINT,)
    assert of_type(events, BlueprintTurned)[0].blueprint is Reward.MONK
    assert after.knapsacks[0] == (Item.WOOD,) and after.supply_rosettes == supply + 1


def test_glass_painting_needs_a_rosette_and_a_blueprint_left() -> None:
    """C-rules l.252-257; C§5: no rosette is traded for nothing."""
    state = knapsack(placed(fresh(3), PAINTING, Follower.MONK), 0, Item.WOOD)
    assert state.active == 1, "no rosette: nothing to paint, the action ends as placed"
    state = knapsack(fresh(3), 0, Item.ROSETTE)
    state = placed(state, PAINTING, Follower.MONK)
    rejected(replace(state, knapsacks=((), *state.knapsacks[1:]), supply_rosettes=state.supply_rosettes + 1),
             PaintGlass(0))
    rejected(replace(state, blueprint_pool=(), blueprints_turned=state.blueprint_pool), PaintGlass(0))
