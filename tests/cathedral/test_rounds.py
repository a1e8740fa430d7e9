"""The Bell Tower, the end of rounds 1 and 2, and the shared loss after round 3
(C-rules l.303-342, l.352-356)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from domain.cathedral import RULES
from domain.cathedral import data as D
from domain.cathedral.data import Follower, HourGlass, Item, Place, Space, Workshop
from domain.cathedral.model import (
    FollowerRemoved,
    FollowersReturned,
    GameEnded,
    GoodsLaid,
    HourGlassExpired,
    HourGlassRevealed,
    Outcome,
    PlaceFollower,
    RosetteLaid,
    RoundBegan,
    RoundEnded,
    TurnBegan,
)
from tests.cathedral.helpers import fresh, holding, hour_glass, knapsack, occupy, of_type, play, spots, workshops


def ring(state: object, follower: Follower = Follower.FARMER, seat: int = 0) -> tuple[object, list]:
    """``seat`` draws ``follower`` and puts it on the Bell Tower."""
    return play(holding(state, follower, seat), PlaceFollower(seat, Space.BT))


def test_a_tile_on_the_bell_tower_ends_the_round_at_once() -> None:
    """C-rules l.303-309."""
    state, events = ring(fresh(3))
    assert of_type(events, RoundEnded) == [RoundEnded(1, 0)] and of_type(events, RoundBegan) == [RoundBegan(2)]
    assert state.round == 2


def test_the_bell_tower_tile_leaves_the_game() -> None:
    """C-rules l.314-316: it does not go back into a bag."""
    state, events = ring(fresh(3), Follower.KNIGHT)
    assert of_type(events, FollowerRemoved) == [FollowerRemoved(Follower.KNIGHT)]
    assert state.removed == (Follower.KNIGHT,) and state.spaces[D.SPACE_INDEX[Space.BT]] is None
    assert len(state.red_bag) + len(state.blue_bag) == 27


def test_tiles_go_back_to_the_bag_of_the_area_they_stand_in() -> None:
    """C-rules l.318-325: a red-bag Farmer on a blue-area space goes into the blue bag."""
    state = occupy(fresh(3), Space.R1, follower=Follower.KNIGHT)
    red_farmers = state.red_bag.count(Follower.FARMER)
    state = occupy(state, Space.B3, follower=Follower.FARMER)  # taken from the red bag
    assert state.red_bag.count(Follower.FARMER) == red_farmers - 1
    blue = Counter(state.blue_bag)
    after, events = ring(state, Follower.TRADER)
    assert of_type(events, FollowersReturned) == [FollowersReturned((Follower.KNIGHT,), (Follower.FARMER,))]
    assert Counter(after.blue_bag) - blue == Counter([Follower.FARMER])
    assert all(f is None for f in after.spaces)


def test_an_unfinished_hour_glass_leaves_the_game_and_its_items_go_back_unrewarded() -> None:
    """C-rules l.327-332, l.243-245."""
    state = hour_glass(fresh(3), HourGlass.H6, Item.WOOD, Item.ROSETTE)
    bag, supply = Counter(state.black_bag), state.supply_rosettes
    after, events = ring(state)
    assert of_type(events, HourGlassExpired) == [HourGlassExpired(HourGlass.H6, (Item.WOOD, Item.ROSETTE))]
    assert HourGlass.H6 in after.hour_glass_gone and after.sections == 0
    refilled = sum(len(e.goods) for e in of_type(events, GoodsLaid))
    assert sum(Counter(after.black_bag).values()) == sum(bag.values()) + 1 - refilled
    assert after.supply_rosettes == supply + 1


def test_a_new_hour_glass_is_revealed_for_the_next_round() -> None:
    """C-rules l.334 (and l.226-242: after a fulfilled one too)."""
    state = hour_glass(fresh(3), None)
    state = replace(state, hour_glass_gone=(state.hour_glass_pool[0],),
                    hour_glass_pool=state.hour_glass_pool[1:])
    after, events = ring(state)
    revealed = of_type(events, HourGlassRevealed)
    assert len(revealed) == 1 and after.hour_glass is not None and after.hour_glass.tile is revealed[0].tile
    assert not of_type(events, HourGlassExpired) and RULES.view(after, None)["hour_glass_stack"] == 1


def test_empty_goods_spaces_are_refilled_and_some_stay_empty_when_the_bag_runs_short() -> None:
    """C-rules l.336-342."""
    state = workshops(fresh(4), Workshop.W1, Workshop.W2, Workshop.W3, delivered={
        Place.CHARTRES: (Item.WOOD, Item.WOOD), Place.TOURS: (Item.STONE, Item.STONE),
        Place.SANCERRE: (Item.WOOD, Item.STONE)})
    state = hour_glass(state, None)
    state = spots(state, **{f"s{i}": None for i in D.GOODS_SPOTS[:11]})
    for seat in range(4):
        state = knapsack(state, seat, *state.black_bag[:5])
    assert len(state.black_bag) == 7
    after, events = ring(state)
    laid = of_type(events, GoodsLaid)[0]
    assert laid.spots == D.GOODS_SPOTS[:7] and not after.black_bag
    assert [after.spots[s] is None for s in D.GOODS_SPOTS] == [False] * 7 + [True] * 4 + [False] * 4


def test_the_empty_rosette_space_is_refilled_from_the_supply() -> None:
    """C-rules l.336-342."""
    state = knapsack(fresh(3), 0, Item.ROSETTE)
    state = spots(state, **{f"s{D.ROSETTE_SPOT}": None})
    after, events = ring(state)
    assert of_type(events, RosetteLaid) == [RosetteLaid()] and after.spots[D.ROSETTE_SPOT] is Item.ROSETTE


def test_the_next_round_starts_with_the_seat_after_the_one_that_rang_the_bell() -> None:
    """C§4.8 round_start_player."""
    state, events = ring(fresh(3), seat=2)
    assert events[-1] == TurnBegan(0) and state.active == 0
    state, events = ring(fresh(3), seat=1)
    assert events[-1] == TurnBegan(2)


def test_the_bell_tower_in_round_three_ends_the_game_as_a_shared_loss() -> None:
    """C-rules l.352-356."""
    state = replace(fresh(4), round=3, sections=6)
    after, events = ring(state, seat=1)
    assert events[-2:] == [RoundEnded(3, 1), GameEnded(Outcome.LOST, 6)]
    assert RULES.to_act(after) == frozenset()
    result = RULES.result(after)
    assert result == {"outcome": "lost", "sections_built": 6, "sections_needed": 8, "rounds_played": 3,
                      "scores": [6, 6, 6, 6], "winners": [],
                      "ranking": [{"seat": s, "rank": 1, "score": 6} for s in range(4)]}
