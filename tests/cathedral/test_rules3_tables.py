"""Rules 3 (engine cathedral-3): the re-tuned tile tables under which expert is harder (issue 28,
docs/cathedral-data.md "Rules 3"). Only reconstructed values change; the rulebook's own rules, the
expert variant's one Monk per bag (C-rules l.83-86) first, are the same under every version."""
from __future__ import annotations

from collections import Counter

import pytest

from domain.cathedral import LEGACY_RULES, RULES, RULES_2
from domain.cathedral import data as D
from domain.cathedral.data import Follower, Item, Place, Reward, Space, Workshop
from domain.cathedral.model import Deliver, Target, WorkshopCompleted
from domain.games import fold, get_game
from domain.rng import Rng
from tests.cathedral.helpers import at, fresh, knapsack, of_type, placed, play, rejected, under_rules, workshops

MONK_REWARDS = Reward.MONK


def monk_rewards(t: D.Tables) -> int:
    """Monks the tiles can put into the bags: order rewards, Events and Blueprints."""
    orders = [*t.workshops.values(), *t.hour_glasses.values()]
    return (sum(r is MONK_REWARDS for o in orders for r in o.rewards)
            + sum(e.reward is MONK_REWARDS for e in t.events.values()) + t.blueprints.get(MONK_REWARDS, 0))


def rosette_orders(t: D.Tables) -> int:
    return sum(Item.ROSETTE in o.needs for o in [*t.workshops.values(), *t.hour_glasses.values()])


def test_new_games_play_rules_3_and_old_engines_keep_their_tables() -> None:
    assert RULES.engine_version == "cathedral-3" and RULES.config_from_json({"players": 3}).rules_version == 3
    assert get_game("cathedral", "cathedral-2") is RULES_2 and get_game("cathedral", "cathedral-1") is LEGACY_RULES
    assert D.tables(1) is D.tables(2) is D.TABLES_1 and D.tables(3) is D.TABLES_3


def test_rules_3_keeps_monks_scarce_and_makes_rosettes_needed() -> None:
    """The lever: fewer Monks come back into the bags from the tiles, more orders need a rosette,
    which only the Glass Foundry (Monk only, C-rules l.247-250) makes at will."""
    old, new = D.TABLES_1, D.TABLES_3
    assert monk_rewards(old) == 7 and 1 <= monk_rewards(new) <= 2  # Events and reward icons show Monks
    assert rosette_orders(new) == 8 and rosette_orders(old) == 4
    rewards = [r for o in [*new.workshops.values(), *new.hour_glasses.values()] for r in o.rewards]
    assert Reward.ROSETTE not in rewards and Reward.MONK not in rewards  # only Events and Blueprints still pay them
    assert sum(new.blueprints.values()) == D.BLUEPRINT_COUNT == 12  # C-rules l.33
    assert set(new.workshops) == set(Workshop) and set(new.events) == set(D.EventTile)
    assert sum(e.is_order for e in new.events.values()) == 5  # about half are orders (C§2 reviews)


@pytest.mark.parametrize("rules", [RULES_2, RULES])
def test_the_expert_variant_is_the_rulebooks_under_every_version(rules: object) -> None:
    """C-rules l.83-86: experts put 1 Monk (instead of 2) into each bag; the other 8 wait."""
    config = rules.config_from_json({"players": 3, "edition": "expert"})  # type: ignore[attr-defined]
    state = fold(rules, rules.setup(config, Rng(b"x", "x", 0)))  # type: ignore[attr-defined,arg-type]
    assert state.red_bag.count(Follower.MONK) == state.blue_bag.count(Follower.MONK) == 1
    assert state.supply_monks == 8
    tables = D.tables(config.rules_version)
    assert Counter(state.blueprint_pool) == Counter(tables.blueprints)


def test_under_rules_3_workshop_w1_needs_a_rosette() -> None:
    """C§4.4, rules 3: W1 needs 1 wood, 1 stone and a rosette (rules 2: 2 wood and a stone)."""
    assert D.TABLES_3.workshops[Workshop.W1].needs == (Item.WOOD, Item.STONE, Item.ROSETTE)
    state = workshops(fresh(3), Workshop.W1, Workshop.W3, Workshop.W5, delivered={Place.CHARTRES: (Item.WOOD,)})
    state = placed(at(knapsack(state, 0, Item.WOOD, Item.STONE, Item.ROSETTE), 0, Place.CHARTRES), Space.R4,
                   Follower.TRADER)
    rejected(state, Deliver(0, Item.WOOD, Target.WORKSHOP))
    state, events = play(state, Deliver(0, Item.STONE, Target.WORKSHOP))
    assert not of_type(events, WorkshopCompleted)
    state, events = play(state, Deliver(0, Item.ROSETTE, Target.WORKSHOP))
    assert of_type(events, WorkshopCompleted)
    old = under_rules(workshops(fresh(3), Workshop.W1, Workshop.W3, Workshop.W5,
                                delivered={Place.CHARTRES: (Item.WOOD,)}), 2)
    old = placed(at(knapsack(old, 0, Item.WOOD, Item.STONE), 0, Place.CHARTRES), Space.R4, Follower.TRADER)
    old, _ = play(old, Deliver(0, Item.WOOD, Target.WORKSHOP))  # rules 2: a second wood is wanted
    old, events = play(old, Deliver(0, Item.STONE, Target.WORKSHOP))
    assert of_type(events, WorkshopCompleted)


def test_the_view_and_the_reference_show_the_games_own_tables() -> None:
    state = workshops(fresh(3), Workshop.W1, Workshop.W3, Workshop.W5)
    shown = RULES.view(state, 0)["workshops"][0]
    assert shown["needs"] == [i.value for i in D.TABLES_3.workshops[Workshop.W1].needs]
    old = RULES.view(under_rules(state, 2), 0)["workshops"][0]
    assert old["needs"] == ["wood", "wood", "stone"]
    ref = RULES.reference()
    assert ref["tiles"] == ref["tiles_by_rules"]["3"] and ref["tiles_by_rules"]["1"] == ref["tiles_by_rules"]["2"]
    assert ref["tiles_by_rules"]["2"]["workshops"]["W1"]["needs"] == ["wood", "wood", "stone"]
    assert {"WORKSHOPS_3", "HOUR_GLASSES_3", "EVENTS_3", "BLUEPRINTS_3"} <= set(ref["reconstructed"])
