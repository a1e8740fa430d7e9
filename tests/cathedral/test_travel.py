"""Cart and Boat: one route to the next place, taking what lies on it (C-rules l.160-180)."""
from __future__ import annotations

from collections import Counter

from domain.cathedral import RULES
from domain.cathedral import data as D
from domain.cathedral.data import Follower, Item, Place, Route, Space
from domain.cathedral.model import FinishAction, ItemPutBack, ItemTaken, Step, TakeItem, Travel
from domain.cathedral.moves import Stage, stage
from tests.cathedral.helpers import at, fresh, knapsack, of_type, placed, play, rejected, spots

CART = Space.R1  # a Knight space (C§4.3)
BOAT = Space.B1  # a Fisherman space (C§4.3)
S_CHARTRES, S_TOURS_BOURGES = D.spots_on(Route.ORLEANS_CHARTRES)[0], D.ROSETTE_SPOT


def test_the_cart_moves_along_one_land_route_to_the_next_place() -> None:
    """C-rules l.160-163."""
    state = placed(fresh(3), CART, Follower.KNIGHT)
    travels = {m.route for m in RULES.legal_moves(state, 0) if isinstance(m, Travel)}
    assert travels == {Route.ORLEANS_CHARTRES, Route.ORLEANS_MONTARGIS, Route.ORLEANS_VIERZON}
    after, _ = play(state, Travel(0, Route.ORLEANS_CHARTRES))
    assert after.builders[0] is Place.CHARTRES and after.builders[1] is Place.ORLEANS
    rejected(state, Travel(0, Route.ORLEANS_BLOIS))  # a river


def test_the_boat_moves_along_one_river_to_the_next_place() -> None:
    """C-rules l.165-168."""
    state = placed(fresh(3), BOAT, Follower.FISHERMAN)
    travels = {m.route for m in RULES.legal_moves(state, 0) if isinstance(m, Travel)}
    assert travels == {Route.ORLEANS_BLOIS, Route.ORLEANS_SANCERRE}
    after, _ = play(state, Travel(0, Route.ORLEANS_SANCERRE))
    assert after.builders[0] is Place.SANCERRE
    rejected(state, Travel(0, Route.ORLEANS_CHARTRES))  # a land route


def test_a_route_must_start_where_the_master_builder_stands() -> None:
    state = placed(at(fresh(3), 0, Place.TOURS), CART, Follower.KNIGHT)
    rejected(state, Travel(0, Route.ORLEANS_CHARTRES))
    play(state, Travel(0, Route.TOURS_BOURGES))


def test_only_one_route_per_action() -> None:
    state = placed(fresh(3), CART, Follower.KNIGHT)
    state, _ = play(state, Travel(0, Route.ORLEANS_CHARTRES))
    rejected(state, Travel(0, Route.CHARTRES_BLOIS))


def test_the_good_on_the_route_may_be_taken() -> None:
    """C-rules l.170-171."""
    state = spots(fresh(3), **{f"s{S_CHARTRES}": Item.STONE})
    state = knapsack(placed(state, CART, Follower.KNIGHT), 0, Item.WOOD)
    state, _ = play(state, Travel(0, Route.ORLEANS_CHARTRES))
    assert RULES.legal_moves(state, 0)[0] == TakeItem(0, S_CHARTRES)
    after, events = play(state, TakeItem(0, S_CHARTRES))
    assert of_type(events, ItemTaken) == [ItemTaken(0, S_CHARTRES, Item.STONE)]
    assert after.spots[S_CHARTRES] is None and after.knapsacks[0] == (Item.WOOD, Item.STONE)
    assert after.active == 1, "nothing left on the route: the action is done"


def test_taking_is_optional() -> None:
    """C-rules l.170-171 'you may take': stopping leaves the good on the route."""
    state = spots(fresh(3), **{f"s{S_CHARTRES}": Item.STONE})
    state, _ = play(placed(state, CART, Follower.KNIGHT), Travel(0, Route.ORLEANS_CHARTRES))
    after, _ = play(state, FinishAction(0))
    assert after.spots[S_CHARTRES] is Item.STONE


def test_both_goods_of_a_two_space_route_may_be_taken() -> None:
    """C§4.1: Chartres–Blois has 2 Goods spaces."""
    a, b = D.spots_on(Route.CHARTRES_BLOIS)
    state = spots(at(fresh(3), 0, Place.CHARTRES), **{f"s{a}": Item.WOOD, f"s{b}": Item.BREAD})
    state, _ = play(placed(state, CART, Follower.KNIGHT), Travel(0, Route.CHARTRES_BLOIS))
    state, _ = play(state, TakeItem(0, b))
    assert state.step is Step.ACTION
    state, _ = play(state, TakeItem(0, a))
    assert Counter(state.knapsacks[0]) >= Counter([Item.WOOD, Item.BREAD]) and state.active == 1


def test_the_glass_rosette_on_its_route_may_be_taken() -> None:
    """C-rules l.170-171: a good or the Glass rosette."""
    state = placed(at(fresh(3), 0, Place.TOURS), CART, Follower.KNIGHT)
    state, _ = play(state, Travel(0, Route.TOURS_BOURGES))
    after, _ = play(state, TakeItem(0, S_TOURS_BOURGES))
    assert Item.ROSETTE in after.knapsacks[0] and after.spots[S_TOURS_BOURGES] is None


def test_a_full_knapsack_forgoes_the_item_or_puts_another_back() -> None:
    """C-rules l.173-180: 5 items at most; to take a sixth, a good goes back to the black bag,
    a rosette to the supply."""
    full = (Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.ROSETTE)
    state = spots(fresh(3), **{f"s{S_CHARTRES}": Item.STONE})
    state = knapsack(placed(state, CART, Follower.KNIGHT), 0, *full)
    state, _ = play(state, Travel(0, Route.ORLEANS_CHARTRES))
    rejected(state, TakeItem(0, S_CHARTRES))
    takes = {m.put_back for m in RULES.legal_moves(state, 0) if isinstance(m, TakeItem)}
    assert takes == {Item.WOOD, Item.STONE, Item.BREAD, Item.ROSETTE}
    bag = Counter(state.black_bag)
    after, events = play(state, TakeItem(0, S_CHARTRES, Item.WOOD))
    assert of_type(events, ItemPutBack) == [ItemPutBack(0, Item.WOOD)]
    assert len(after.knapsacks[0]) == 5 and Counter(after.black_bag) - bag == Counter([Item.WOOD])
    supply = state.supply_rosettes
    after, _ = play(state, TakeItem(0, S_CHARTRES, Item.ROSETTE))
    assert after.supply_rosettes == supply + 1 and Item.ROSETTE not in after.knapsacks[0]


def test_a_put_back_needs_a_full_knapsack_and_an_item_held() -> None:
    state = spots(fresh(3), **{f"s{S_CHARTRES}": Item.STONE})
    state, _ = play(placed(state, CART, Follower.KNIGHT), Travel(0, Route.ORLEANS_CHARTRES))
    rejected(state, TakeItem(0, S_CHARTRES, Item.WOOD))
    full = knapsack(state, 0, Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.BREAD)
    rejected(full, TakeItem(0, S_CHARTRES, Item.ROSETTE))


def test_only_items_on_the_route_travelled_may_be_taken() -> None:
    state, _ = play(placed(fresh(3), CART, Follower.KNIGHT), Travel(0, Route.ORLEANS_CHARTRES))
    rejected(state, TakeItem(0, D.spots_on(Route.ORLEANS_BLOIS)[0]))


def test_a_boat_where_no_river_starts_has_nothing_to_do() -> None:
    """Chartres has only land routes (C§4.1): the Boat action ends as placed (a refusal, C-rules l.344-347)."""
    state = placed(at(fresh(3), 0, Place.CHARTRES), BOAT, Follower.FISHERMAN)
    assert state.active == 1 and stage(state) is Stage.DRAW
