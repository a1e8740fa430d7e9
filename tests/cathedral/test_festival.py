"""The Festival Ground: Events, orders and who chooses their Blueprint
(C-rules l.259-282, l.358-369)."""
from __future__ import annotations

from domain.cathedral import RULES
from domain.cathedral.data import Bag, EventTile, Follower, Item, Place, Reward, Route, Space
from domain.cathedral.model import (
    BlueprintTurned,
    Deliver,
    EventRevealed,
    GiveRosette,
    MonkAdded,
    OrderFulfilled,
    PlaceFollower,
    PutMonk,
    RewardsEarned,
    Target,
    Travel,
)
from tests.cathedral.helpers import (
    active_order,
    at,
    fresh,
    holding,
    knapsack,
    next_blueprints,
    next_event,
    of_type,
    placed,
    play,
)

FESTIVAL = Space.R7


def apart(players: int = 3) -> object:
    """Every Master Builder somewhere else, so 'two together' is not met."""
    state = fresh(players)
    for seat, place in enumerate((Place.CHARTRES, Place.TOURS, Place.SANCERRE, Place.BLOIS)[:players]):
        state = at(state, seat, place)
    return state


def reveal(state: object, tile: EventTile, follower: Follower = Follower.TRADER) -> tuple[object, list]:
    state = holding(next_event(state, tile), follower)
    return play(state, PlaceFollower(state.active, FESTIVAL))


def test_any_follower_reveals_the_top_event_at_once() -> None:
    """C-rules l.259-264, l.344-350: the action is carried out as the tile is placed."""
    state, events = reveal(apart(), EventTile.E7, Follower.KNIGHT)
    assert [(e.seat, e.tile, e.replaced) for e in of_type(events, EventRevealed)] == [(0, EventTile.E7, None)]
    assert state.order is EventTile.E7 and EventTile.E7 not in state.event_pool


def test_a_rosette_event_gives_a_rosette_and_is_discarded() -> None:
    """C-rules l.266-267 (as the reward icon, l.294-296: into one's own knapsack or another's)."""
    state, events = reveal(apart(), EventTile.E1)
    assert of_type(events, RewardsEarned)[0].rewards == (Reward.ROSETTE,)
    assert EventTile.E1 in state.event_discard and state.order is None
    assert {m.to for m in RULES.legal_moves(state, 0) if isinstance(m, GiveRosette)} == {0, 1, 2}
    after, _ = play(state, GiveRosette(0, 2))
    assert Item.ROSETTE in after.knapsacks[2] and after.active == 1


def test_a_monk_event_puts_a_monk_from_the_supply_into_a_bag() -> None:
    """C-rules l.266-267 (as the reward icon, l.298-299)."""
    state, _ = reveal(apart(), EventTile.E4)
    assert set(RULES.legal_moves(state, 0)) == {PutMonk(0, Bag.RED), PutMonk(0, Bag.BLUE)}
    monks = state.blue_bag.count(Follower.MONK)
    after, events = play(state, PutMonk(0, Bag.BLUE))
    assert of_type(events, MonkAdded) == [MonkAdded(0, Bag.BLUE)]
    assert after.blue_bag.count(Follower.MONK) == monks + 1 and after.supply_monks == state.supply_monks - 1


def test_an_order_waits_on_the_order_space_until_fulfilled_by_the_seat_whose_turn_it_is() -> None:
    """C-rules l.268-271, l.273-278: E6 wants a Master Builder in Bourges (C§4.6); seat 1 gets there
    on its own turn and chooses the Blueprint."""
    state, _ = reveal(at(apart(), 1, Place.TOURS), EventTile.E6)
    assert state.order is EventTile.E6 and state.active == 1
    state = next_blueprints(state, Reward.SECTION)
    state = placed(state, Space.R1, Follower.KNIGHT)
    after, events = play(state, Travel(1, Route.TOURS_BOURGES))
    assert of_type(events, OrderFulfilled) == [OrderFulfilled(1, EventTile.E6)]
    assert of_type(events, BlueprintTurned)[0].seat == 1 and after.sections == 1
    assert after.order is None and EventTile.E6 in after.event_discard


def test_an_order_already_met_when_revealed_pays_the_revealer_at_once() -> None:
    """C-rules l.273-278: E9, two Master Builders together; all still stand in Orléans."""
    state = next_blueprints(fresh(3), Reward.SECTION)
    state, events = reveal(state, EventTile.E9)
    assert of_type(events, OrderFulfilled) == [OrderFulfilled(0, EventTile.E9)]
    assert of_type(events, BlueprintTurned)[0].seat == 0 and state.sections == 1 and state.order is None


def test_a_new_order_replaces_the_active_one_fulfilled_or_not() -> None:
    """C-rules l.279-282."""
    state = active_order(apart(), EventTile.E7)
    state, events = reveal(state, EventTile.E8)
    assert of_type(events, EventRevealed)[0].replaced is EventTile.E7
    assert state.order is EventTile.E8 and EventTile.E7 in state.event_discard


def test_an_immediate_event_leaves_the_active_order_alone() -> None:
    state = active_order(apart(), EventTile.E7)
    state, _ = reveal(state, EventTile.E2)
    assert state.order is EventTile.E7


def test_builder_at_place_order() -> None:
    """C-rules l.358-361: met as soon as one of the team's Master Builders stands there (E7: Montargis)."""
    state = active_order(at(apart(), 0, Place.ORLEANS), EventTile.E7)
    state = placed(state, Space.R1, Follower.KNIGHT)
    elsewhere, events = play(state, Travel(0, Route.ORLEANS_CHARTRES))
    assert not of_type(events, OrderFulfilled) and elsewhere.order is EventTile.E7
    there, events = play(state, Travel(0, Route.ORLEANS_MONTARGIS))
    assert of_type(events, OrderFulfilled) == [OrderFulfilled(0, EventTile.E7)] and there.order is None


def test_two_builders_together_order() -> None:
    """C-rules l.363-364: any place will do."""
    state = active_order(apart(), EventTile.E9)
    state = at(state, 1, Place.TOURS)
    state = placed(state, Space.R1, Follower.KNIGHT, seat=0)
    after, events = play(state, Travel(0, Route.CHARTRES_BLOIS))
    assert not of_type(events, OrderFulfilled), "Blois is empty"
    state = at(state, 2, Place.BLOIS)
    after, events = play(state, Travel(0, Route.CHARTRES_BLOIS))
    assert of_type(events, OrderFulfilled)[0].tile is EventTile.E9


def test_two_rosettes_order_keeps_the_rosettes() -> None:
    """C-rules l.366-369: a seat holding 2 rosettes meets it and keeps them."""
    state = active_order(knapsack(apart(), 1, Item.ROSETTE), EventTile.E10)
    state = knapsack(state, 0, Item.ROSETTE)
    state = placed(state, Space.R4, Follower.TRADER)
    after, events = play(state, Deliver(0, Item.ROSETTE, Target.PLAYER, 1))
    assert of_type(events, OrderFulfilled)[0].tile is EventTile.E10
    assert after.knapsacks[1].count(Item.ROSETTE) == 2
