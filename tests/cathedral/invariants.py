"""Invariants every reachable Cathedral state keeps (checked after every event of the playouts)."""
from __future__ import annotations

from collections import Counter

from domain.cathedral import data as D
from domain.cathedral.data import Follower, Item
from domain.cathedral.model import Outcome, State, Step, sort_tiles

FOLLOWERS = Counter(D.FOLLOWERS_IN_GAME)
ITEMS = Counter(D.GOODS_IN_GAME) + Counter({Item.ROSETTE: D.ROSETTES})


def followers_everywhere(state: State) -> Counter[Follower]:
    places = Counter(state.red_bag) + Counter(state.blue_bag) + Counter(state.removed)
    places += Counter(f for f in state.spaces if f is not None)
    places += Counter(f for f in (state.drawn,) if f is not None)
    places[Follower.MONK] += state.supply_monks
    return places


def items_everywhere(state: State) -> Counter[Item]:
    places = Counter(state.black_bag) + Counter(i for i in state.spots if i is not None)
    for knapsack in state.knapsacks:
        places += Counter(knapsack)
    for w in state.workshops:
        places += Counter(w.delivered)
    if state.hour_glass is not None:
        places += Counter(state.hour_glass.delivered)
    places[Item.ROSETTE] += state.supply_rosettes
    return places


def check(state: State) -> None:
    assert followers_everywhere(state) == FOLLOWERS, "every follower is in exactly one place"
    assert items_everywhere(state) == ITEMS, "every good and rosette is in exactly one place"
    blueprints = Counter(D.tables(state.config.rules_version).blueprints)  # the game's own tables (rules 3 re-tuned)
    assert Counter(state.blueprint_pool) + Counter(state.blueprints_turned) == blueprints, "every Blueprint"
    assert 0 <= state.sections <= D.SECTIONS, "sections built plus those beside the board make 8"
    events = list(state.event_pool) + list(state.event_discard) + ([state.order] if state.order else [])
    assert sorted(events) == sorted(D.EventTile), "every Event tile is in exactly one place"
    glasses = list(state.hour_glass_pool) + list(state.hour_glass_gone)
    glasses += [state.hour_glass.tile] if state.hour_glass else []
    assert sorted(glasses) == sorted(D.HourGlass), "every Hour Glass tile is in exactly one place"
    assert len(state.hour_glass_gone) + (state.hour_glass is not None) <= D.HOUR_GLASSES_IN_PLAY
    workshops = [w.tile for w in state.workshops] + list(state.workshop_box)
    assert sorted(workshops) == sorted(D.Workshop), "every Workshop tile is in exactly one place"
    over = [len(k) - D.KNAPSACK_SLOTS for k in state.knapsacks if len(k) > D.KNAPSACK_SLOTS]
    assert not over or (over == [1] and state.config.rules_version >= 2), \
        "knapsacks hold at most 5; under rules 2 one gift may fill one knapsack to 6 until its owner makes room"
    for pile in (state.red_bag, state.blue_bag, state.black_bag, state.event_pool, state.hour_glass_pool,
                 state.blueprint_pool, *state.knapsacks):
        assert pile == sort_tiles(pile), "bags, piles and knapsacks are kept sorted"
    assert all(i is None or i is Item.ROSETTE for s, i in zip(D.SPOTS, state.spots) if s.rosette)
    assert all(i is not Item.ROSETTE for s, i in zip(D.SPOTS, state.spots) if not s.rosette)
    assert 0 <= state.round <= D.ROUNDS, "3 rounds at most"
    assert 0 <= state.active < state.config.players
    assert len(state.builders) == len(state.knapsacks) == state.config.players
    assert state.supply_monks >= 0 and state.supply_rosettes >= 0


def check_decision_point(state: State) -> None:
    """Between two commands (after the automatic steps) the state is also consistent as a whole."""
    check(state)
    if state.outcome is Outcome.WON:
        assert state.sections == D.SECTIONS
    elif state.outcome is Outcome.LOST:
        assert state.round == D.ROUNDS and state.sections < D.SECTIONS
    else:
        assert state.round >= 1
        assert (state.step is Step.PLACE) == (state.drawn is not None)
        assert (state.step is Step.ACTION) == (state.pending is not None)
        assert state.spaces[D.SPACE_INDEX[D.Space.BT]] is None, "a tile on the Bell Tower ends the round at once"
        assert not state.rewards or state.rewards[0] in (D.Reward.ROSETTE, D.Reward.MONK), "only choices wait"
