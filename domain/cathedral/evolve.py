"""The fold: ``evolve(state, event) -> state``. Total; no validation, no randomness."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Any, TypeVar

from domain.cathedral import data as D
from domain.cathedral.data import Bag, Follower, Item
from domain.cathedral.model import (
    ActionFinished,
    BlueprintTurned,
    BuilderMoved,
    Delivered,
    EventRevealed,
    FollowerDrawn,
    FollowerPlaced,
    FollowerRemoved,
    FollowersReturned,
    GameEnded,
    GameStarted,
    GlassMade,
    GlassPainted,
    GoodPacked,
    GoodsLaid,
    HourGlassCompleted,
    HourGlassExpired,
    HourGlassRevealed,
    HourGlassSlot,
    ItemPutBack,
    ItemTaken,
    MonkAdded,
    OrderFulfilled,
    Pending,
    Rested,
    RewardForgone,
    RewardLost,
    RewardsEarned,
    RosetteGiven,
    RosetteLaid,
    RoundBegan,
    RoundEnded,
    SectionBuilt,
    State,
    Step,
    Target,
    TimeoutApplied,
    TurnBegan,
    WorkshopCompleted,
    WorkshopsLaid,
    WorkshopSlot,
    sort_tiles,
)
from domain.engine import FoldRules

T = TypeVar("T")
R = TypeVar("R", State, Pending, HourGlassSlot, WorkshopSlot)
FIELDS = {cls: frozenset(f.name for f in fields(cls)) for cls in (State, Pending, HourGlassSlot, WorkshopSlot)}


def replace(obj: R, **changes: Any) -> R:
    """``dataclasses.replace`` for the fold's frozen records (no ``__post_init__``, every field in
    ``__init__``): a copy of the instance's dict with ``changes``. The generic one looks every
    field up again and calls ``__init__``; it was a quarter of the greedy bot's lookahead time."""
    kind = type(obj)
    if not changes.keys() <= FIELDS[kind]:
        raise TypeError(f"{kind.__name__} has no field {sorted(changes.keys() - FIELDS[kind])}")
    new = object.__new__(kind)
    object.__setattr__(new, "__dict__", {**obj.__dict__, **changes})  # one merged copy
    return new

# --- small tuple helpers ----------------------------------------------------------------------------


def without(tiles: tuple[Any, ...], removed: Iterable[Any]) -> tuple[Any, ...]:
    """``tiles`` less one copy of each of ``removed`` (each must be there); order is kept."""
    out = list(tiles)
    for tile in removed:
        out.remove(tile)
    return tuple(out)


def put(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return values[:index] + (value,) + values[index + 1:]


def expand(counts: Any) -> tuple[Any, ...]:
    """A {tile: count} table as a sorted tuple of tiles."""
    return sort_tiles(tile for tile, n in counts.items() for _ in range(n))


def with_knapsack(state: State, seat: int, add: Iterable[Item] = (), remove: Iterable[Item] = ()) -> State:
    knapsack = sort_tiles(without(state.knapsacks[seat], remove) + tuple(add))
    return replace(state, knapsacks=put(state.knapsacks, seat, knapsack))


def to_supplies(state: State, items: Iterable[Item]) -> State:
    """Goods go back into the black bag, rosettes into the supply."""
    items = tuple(items)
    goods = tuple(i for i in items if i is not Item.ROSETTE)
    return replace(state, black_bag=sort_tiles(state.black_bag + goods),
                   supply_rosettes=state.supply_rosettes + items.count(Item.ROSETTE))


def with_bag(state: State, bag: Bag, tiles: tuple[Follower, ...]) -> State:
    return replace(state, red_bag=tiles) if bag is Bag.RED else replace(state, blue_bag=tiles)


def pop_reward(state: State) -> State:
    return replace(state, rewards=state.rewards[1:])


# --- the fold -----------------------------------------------------------------------------------------------


def evolve(state: State | None, event: Any) -> State:
    rule = _RULES.get(type(event))
    if rule is not None and state is not None:  # the common case, one lookup (FOLD.fold does the same)
        return rule(state, event)
    if isinstance(event, GameStarted):
        return _started(event)
    if state is None:
        raise TypeError(f"a game starts with GameStarted, not {event!r}")
    return FOLD.fold(state, event)


def _started(e: GameStarted) -> State:
    n, edition = e.config.players, e.config.edition
    return State(
        config=e.config,
        red_bag=expand(D.bag_contents(Bag.RED, edition)),
        blue_bag=expand(D.bag_contents(Bag.BLUE, edition)),
        supply_monks=D.supply_monks(edition),
        black_bag=expand(D.GOODS_IN_GAME),
        supply_rosettes=D.ROSETTES,
        spots=(None,) * len(D.SPOTS),
        spaces=(None,) * len(D.SPACE_LIST),
        builders=(D.START_PLACE,) * n,
        knapsacks=((),) * n,
        event_pool=tuple(D.EventTile),
        hour_glass_pool=tuple(D.HourGlass),
        blueprint_pool=expand(D.tables(e.config.rules_version).blueprints),
        workshop_box=tuple(D.Workshop),
        active=D.FIRST_SEAT,
    )


def _workshops_laid(s: State, e: WorkshopsLaid) -> State:
    slots = tuple(WorkshopSlot(place, tile) for place, tile in zip(D.WORKSHOP_PLACES, e.tiles))
    return replace(s, workshops=slots, workshop_box=without(s.workshop_box, e.tiles), draws=e.draws)


def _goods_laid(s: State, e: GoodsLaid) -> State:
    spots = s.spots
    for spot, good in zip(e.spots, e.goods):
        spots = put(spots, spot, good)
    return replace(s, spots=spots, black_bag=without(s.black_bag, e.goods), draws=e.draws)


def _rosette_laid(s: State, e: RosetteLaid) -> State:
    return replace(s, spots=put(s.spots, D.ROSETTE_SPOT, Item.ROSETTE), supply_rosettes=s.supply_rosettes - 1)


def _hour_glass_revealed(s: State, e: HourGlassRevealed) -> State:
    return replace(s, hour_glass_pool=without(s.hour_glass_pool, (e.tile,)), hour_glass=HourGlassSlot(e.tile),
                   draws=e.draws)


def _good_packed(s: State, e: GoodPacked) -> State:
    s = replace(s, black_bag=without(s.black_bag, (e.good,)), draws=e.draws)
    return with_knapsack(s, e.seat, add=(e.good,))


def _round_began(s: State, e: RoundBegan) -> State:
    return replace(s, round=e.round)


def _turn_began(s: State, e: TurnBegan) -> State:
    return replace(s, active=e.seat, step=Step.DRAW, drawn=None, pending=None)


def _drawn(s: State, e: FollowerDrawn) -> State:
    s = with_bag(s, e.bag, without(s.bag(e.bag), (e.follower,)))
    return replace(s, drawn=e.follower, step=Step.PLACE, draws=e.draws)


def _placed(s: State, e: FollowerPlaced) -> State:
    spaces = put(s.spaces, D.SPACE_INDEX[e.space], e.follower)
    return replace(s, spaces=spaces, drawn=None, step=Step.ACTION, pending=Pending(e.space, D.SPACES[e.space].action))


def _moved(s: State, e: BuilderMoved) -> State:
    pending = None if s.pending is None else replace(s.pending, route=e.route)
    return replace(s, builders=put(s.builders, e.seat, e.to), pending=pending)


def _taken(s: State, e: ItemTaken) -> State:
    return with_knapsack(replace(s, spots=put(s.spots, e.spot, None)), e.seat, add=(e.item,))


def _put_back(s: State, e: ItemPutBack) -> State:
    return to_supplies(with_knapsack(s, e.seat, remove=(e.item,)), (e.item,))


def _delivered(s: State, e: Delivered) -> State:
    s = with_knapsack(s, e.seat, remove=(e.item,))
    if s.pending is not None:
        s = replace(s, pending=replace(s.pending, delivered=s.pending.delivered + 1))
    if e.to is Target.PLAYER and e.player is not None:
        return with_knapsack(s, e.player, add=(e.item,))
    if e.to is Target.HOUR_GLASS and s.hour_glass is not None:
        glass = s.hour_glass
        return replace(s, hour_glass=replace(glass, delivered=sort_tiles(glass.delivered + (e.item,))))
    place = s.builders[e.seat]
    slots = tuple(replace(w, delivered=sort_tiles(w.delivered + (e.item,))) if w.place is place else w
                  for w in s.workshops)
    return replace(s, workshops=slots)


def _workshop_completed(s: State, e: WorkshopCompleted) -> State:
    slots = tuple(replace(w, delivered=(), done=True) if w.place is e.place else w for w in s.workshops)
    return to_supplies(replace(s, workshops=slots), e.returned)


def _hour_glass_completed(s: State, e: HourGlassCompleted) -> State:
    s = replace(s, hour_glass=None, hour_glass_gone=s.hour_glass_gone + (e.tile,))
    return to_supplies(s, e.returned)


def _glass_made(s: State, e: GlassMade) -> State:
    return with_knapsack(replace(s, supply_rosettes=s.supply_rosettes - 1), e.seat, add=(Item.ROSETTE,))


def _glass_painted(s: State, e: GlassPainted) -> State:
    return to_supplies(with_knapsack(s, e.seat, remove=(Item.ROSETTE,)), (Item.ROSETTE,))


def _event_revealed(s: State, e: EventRevealed) -> State:
    s = replace(s, event_pool=without(s.event_pool, (e.tile,)), draws=e.draws)
    if not D.tables(s.config.rules_version).events[e.tile].is_order:
        return replace(s, event_discard=s.event_discard + (e.tile,))
    discard = s.event_discard + ((e.replaced,) if e.replaced is not None else ())
    return replace(s, order=e.tile, event_discard=discard)


def _order_fulfilled(s: State, e: OrderFulfilled) -> State:
    return replace(s, order=None, event_discard=s.event_discard + (e.tile,))


def _rewards_earned(s: State, e: RewardsEarned) -> State:
    return replace(s, rewards=s.rewards + e.rewards)


def _blueprint_turned(s: State, e: BlueprintTurned) -> State:
    return replace(s, blueprint_pool=without(s.blueprint_pool, (e.blueprint,)), draws=e.draws,
                   blueprints_turned=s.blueprints_turned + (e.blueprint,), rewards=(e.blueprint,) + s.rewards[1:])


def _section_built(s: State, e: SectionBuilt) -> State:
    return pop_reward(replace(s, sections=e.number))


def _rosette_given(s: State, e: RosetteGiven) -> State:
    s = replace(s, supply_rosettes=s.supply_rosettes - 1)
    return pop_reward(with_knapsack(s, e.to, add=(Item.ROSETTE,)))


def _monk_added(s: State, e: MonkAdded) -> State:
    s = with_bag(s, e.bag, sort_tiles(s.bag(e.bag) + (Follower.MONK,)))
    return pop_reward(replace(s, supply_monks=s.supply_monks - 1))


def _forgone(s: State, e: RewardForgone) -> State:
    return pop_reward(s)


def _lost(s: State, e: RewardLost) -> State:
    return pop_reward(s)


def _rested(s: State, e: Rested) -> State:
    return to_supplies(with_knapsack(s, e.seat, remove=e.returned), e.returned)


def _action_finished(s: State, e: ActionFinished) -> State:
    return replace(s, pending=None, step=Step.END)


def _round_ended(s: State, e: RoundEnded) -> State:
    return replace(s, pending=None, step=Step.END)


def _follower_removed(s: State, e: FollowerRemoved) -> State:
    return replace(s, spaces=put(s.spaces, D.SPACE_INDEX[D.Space.BT], None), removed=s.removed + (e.follower,))


def _followers_returned(s: State, e: FollowersReturned) -> State:
    s = replace(s, spaces=(None,) * len(D.SPACE_LIST))
    s = with_bag(s, Bag.RED, sort_tiles(s.red_bag + e.red))
    return with_bag(s, Bag.BLUE, sort_tiles(s.blue_bag + e.blue))


def _hour_glass_expired(s: State, e: HourGlassExpired) -> State:
    s = replace(s, hour_glass=None, hour_glass_gone=s.hour_glass_gone + (e.tile,))
    return to_supplies(s, e.returned)


def _timeout(s: State, e: TimeoutApplied) -> State:
    return s


def _ended(s: State, e: GameEnded) -> State:
    """Everything stays where it lies (a tile drawn but not yet placed too); owed rewards lapse."""
    return replace(s, outcome=e.outcome, rewards=())


FOLD = FoldRules[State]("a Cathedral", {
    WorkshopsLaid: _workshops_laid, GoodsLaid: _goods_laid, RosetteLaid: _rosette_laid,
    HourGlassRevealed: _hour_glass_revealed, GoodPacked: _good_packed, RoundBegan: _round_began,
    TurnBegan: _turn_began, FollowerDrawn: _drawn, FollowerPlaced: _placed, BuilderMoved: _moved,
    ItemTaken: _taken, ItemPutBack: _put_back, Delivered: _delivered, WorkshopCompleted: _workshop_completed,
    HourGlassCompleted: _hour_glass_completed, GlassMade: _glass_made, GlassPainted: _glass_painted,
    EventRevealed: _event_revealed, OrderFulfilled: _order_fulfilled, RewardsEarned: _rewards_earned,
    BlueprintTurned: _blueprint_turned, SectionBuilt: _section_built, RosetteGiven: _rosette_given,
    MonkAdded: _monk_added, RewardForgone: _forgone, RewardLost: _lost, Rested: _rested,
    ActionFinished: _action_finished, RoundEnded: _round_ended, FollowerRemoved: _follower_removed,
    FollowersReturned: _followers_returned, HourGlassExpired: _hour_glass_expired, TimeoutApplied: _timeout,
    GameEnded: _ended,
})
_RULES = dict(FOLD)
