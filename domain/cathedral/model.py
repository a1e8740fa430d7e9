"""The Cathedral of Orléans' state, commands and events: frozen dataclasses of tuples.

Bags, the black bag and the face-down stacks (Events, Hour Glass tiles, Blueprints) are kept as
*sorted* tuples: a blind draw picks an index with the game's rng at the moment of drawing, so no
order exists before the draw and the outcome is recorded in the event that makes it public.
Tiles of one kind are identical, so a follower, a good or a Blueprint is its enum value.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Final, TypeVar

from domain.cathedral.data import (
    KNAPSACK_SLOTS,
    LEGACY_RULES_VERSION,
    Action,
    Bag,
    Edition,
    EventTile,
    Follower,
    HourGlass,
    Item,
    Place,
    Reward,
    Route,
    Space,
    Workshop,
)
from domain.codec import added

SYSTEM: Final = "system"
E = TypeVar("E", bound=Enum)


def sort_tiles(tiles: Iterable[E]) -> tuple[E, ...]:
    """Tiles in their enum's declaration order: the canonical order of every bag and pile."""
    listed = list(tiles)
    if not listed:
        return ()
    kind = type(listed[0])
    order = _TILE_ORDER.get(kind)
    if order is None:  # an enum's members never change, so its order is worked out once
        order = _TILE_ORDER[kind] = {m: i for i, m in enumerate(kind)}
    return tuple(sorted(listed, key=order.__getitem__))


_TILE_ORDER: dict[type[Enum], dict[Enum, int]] = {}


class Step(str, Enum):
    """Where the active seat is in its turn (C-rules l.118-156)."""

    DRAW = "draw"  # draw a tile from the red or the blue bag
    PLACE = "place"  # put the drawn tile on a free action space that shows it
    ACTION = "action"  # carry out (or refuse) the space's action
    END = "end"  # the action is done; a seat with a full knapsack may still rest


class Outcome(str, Enum):
    WON = "won"  # the 8th section was built (C-rules l.102-106)
    LOST = "lost"  # round 3 ended first (C-rules l.352-356)


class Target(str, Enum):
    """Where a Market delivery goes (C-rules l.196-206)."""

    HOUR_GLASS = "hour_glass"
    WORKSHOP = "workshop"  # the Workshop where the seat's Master Builder stands
    PLAYER = "player"  # another seat's knapsack


@dataclass(frozen=True)
class Config:
    players: int
    edition: Edition = Edition.STANDARD
    rules_version: int = added(LEGACY_RULES_VERSION)  # recorded by the engine (data.RULES_VERSION)


@dataclass(frozen=True)
class WorkshopSlot:
    """A Workshop tile face up on its place, with what has been delivered to it."""

    place: Place
    tile: Workshop
    delivered: tuple[Item, ...] = ()  # sorted
    done: bool = False  # fulfilled and turned over (C-rules l.211-222)


@dataclass(frozen=True)
class HourGlassSlot:
    tile: HourGlass
    delivered: tuple[Item, ...] = ()  # sorted


@dataclass(frozen=True)
class Pending:
    """The action of the tile just placed, while the active seat carries it out."""

    space: Space
    action: Action
    route: Route | None = None  # Cart/Boat: the route travelled (then items on it may be taken)
    delivered: int = 0  # Market: items delivered so far


@dataclass(frozen=True)
class State:
    config: Config
    red_bag: tuple[Follower, ...]  # sorted; its order is never fixed before a draw
    blue_bag: tuple[Follower, ...]
    supply_monks: int
    black_bag: tuple[Item, ...]  # goods, sorted
    supply_rosettes: int
    spots: tuple[Item | None, ...]  # what lies on each map spot (data.SPOTS order)
    spaces: tuple[Follower | None, ...]  # the tile on each action space (data.SPACE_LIST order)
    builders: tuple[Place, ...]  # each seat's Master Builder
    knapsacks: tuple[tuple[Item, ...], ...]  # each seat's knapsack, sorted
    event_pool: tuple[EventTile, ...]  # the face-down Event stack, sorted
    hour_glass_pool: tuple[HourGlass, ...]  # the face-down Hour Glass tiles not yet revealed, sorted
    blueprint_pool: tuple[Reward, ...]  # the face-down Blueprint tiles, sorted
    workshops: tuple[WorkshopSlot, ...] = ()  # data.WORKSHOP_PLACES order
    workshop_box: tuple[Workshop, ...] = ()  # the 5 tiles not in play, sorted
    hour_glass: HourGlassSlot | None = None  # this round's face-up Hour Glass tile
    hour_glass_gone: tuple[HourGlass, ...] = ()  # fulfilled or expired: out of the game
    order: EventTile | None = None  # the one active Event order (C-rules l.279-282)
    event_discard: tuple[EventTile, ...] = ()
    blueprints_turned: tuple[Reward, ...] = ()  # used Blueprint tiles, face up
    sections: int = 0  # Cathedral sections built
    removed: tuple[Follower, ...] = ()  # Bell Tower tiles taken out of the game (C-rules l.314-316)
    round: int = 0
    active: int = 0  # the seat whose turn it is
    step: Step = Step.DRAW
    drawn: Follower | None = None  # the tile drawn this turn, not yet placed
    pending: Pending | None = None
    rewards: tuple[Reward, ...] = ()  # rewards the active seat still has to receive, head first
    outcome: Outcome | None = None
    draws: int = 0  # the rng counter

    def bag(self, bag: Bag) -> tuple[Follower, ...]:
        return self.red_bag if bag is Bag.RED else self.blue_bag


# --- commands ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApplyTimeout:
    """A clock ran out: apply ``target``'s default move (issued by the worker)."""

    target: int
    seat: str = SYSTEM


@dataclass(frozen=True)
class DrawFollower:
    seat: int
    bag: Bag


@dataclass(frozen=True)
class PlaceFollower:
    seat: int
    space: Space


@dataclass(frozen=True)
class Travel:
    """Cart or Boat: move the Master Builder along one route of the space's kind."""

    seat: int
    route: Route


@dataclass(frozen=True)
class TakeItem:
    """Take the item lying on a spot of the route just travelled; with a full knapsack,
    ``put_back`` names the item that goes back to make room (C-rules l.170-180)."""

    seat: int
    spot: int
    put_back: Item | None = None


@dataclass(frozen=True)
class Deliver:
    seat: int
    item: Item
    to: Target
    player: int | None = None  # Target.PLAYER: the receiving seat


@dataclass(frozen=True)
class MakeGlass:
    """Glass Foundry: a rosette from the supply into the knapsack."""

    seat: int
    put_back: Item | None = None


@dataclass(frozen=True)
class PaintGlass:
    """Glass Painting: give up a rosette from the knapsack for a Blueprint."""

    seat: int


@dataclass(frozen=True)
class FinishAction:
    """Stop carrying out the action (refusing it entirely when nothing was done yet)."""

    seat: int


@dataclass(frozen=True)
class GiveRosette:
    """A rosette reward: into one's own knapsack (``put_back`` when full) or another seat's."""

    seat: int
    to: int
    put_back: Item | None = None


@dataclass(frozen=True)
class PutMonk:
    """A Monk reward: from the supply into the red or the blue bag."""

    seat: int
    bag: Bag


@dataclass(frozen=True)
class MakeRoom:
    """Rules 2: a gift filled this seat's knapsack past its 5 slots; one item goes back (the gift
    itself, or another), a good to the black bag, a rosette to the supply (C-rules l.173-180)."""

    seat: int
    item: Item


@dataclass(frozen=True)
class Forgo:
    """Leave a rosette reward when the knapsack is full (C-rules l.173-180)."""

    seat: int


@dataclass(frozen=True)
class Rest:
    """With a full knapsack: everything back, one Blueprint in return (C-rules l.182-187)."""

    seat: int


@dataclass(frozen=True)
class EndTurn:
    """End the turn without resting (offered only when the knapsack is full after the action)."""

    seat: int


SYSTEM_COMMANDS: Final = (ApplyTimeout,)
SEAT_COMMANDS: Final = (
    DrawFollower, PlaceFollower, Travel, TakeItem, Deliver, MakeGlass, PaintGlass, FinishAction,
    GiveRosette, PutMonk, Forgo, Rest, EndTurn, MakeRoom,
)
COMMANDS: Final = SYSTEM_COMMANDS + SEAT_COMMANDS


# --- events ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted:
    """Bags, supplies and stacks as the edition sets them up; Master Builders in Orléans."""

    config: Config


@dataclass(frozen=True)
class WorkshopsLaid:
    tiles: tuple[Workshop, ...]  # face up, on data.WORKSHOP_PLACES in order
    draws: int


@dataclass(frozen=True)
class GoodsLaid:
    spots: tuple[int, ...]  # the empty Goods spaces filled, in order
    goods: tuple[Item, ...]  # drawn from the black bag, one per spot
    draws: int


@dataclass(frozen=True)
class RosetteLaid:
    """A rosette from the supply onto the rosette space."""


@dataclass(frozen=True)
class HourGlassRevealed:
    tile: HourGlass
    draws: int


@dataclass(frozen=True)
class GoodPacked:
    """Set-up: a good drawn from the black bag into a seat's knapsack (C-rules l.76-81)."""

    seat: int
    good: Item
    draws: int


@dataclass(frozen=True)
class RoundBegan:
    round: int


@dataclass(frozen=True)
class TurnBegan:
    seat: int


@dataclass(frozen=True)
class FollowerDrawn:
    seat: int
    bag: Bag
    follower: Follower
    draws: int


@dataclass(frozen=True)
class FollowerPlaced:
    seat: int
    space: Space
    follower: Follower


@dataclass(frozen=True)
class BuilderMoved:
    seat: int
    route: Route
    to: Place


@dataclass(frozen=True)
class ItemTaken:
    seat: int
    spot: int
    item: Item


@dataclass(frozen=True)
class ItemPutBack:
    """An item leaves a knapsack: a good to the black bag, a rosette to the supply."""

    seat: int
    item: Item


@dataclass(frozen=True)
class Delivered:
    seat: int
    item: Item
    to: Target
    player: int | None = None


@dataclass(frozen=True)
class WorkshopCompleted:
    seat: int
    place: Place
    tile: Workshop
    returned: tuple[Item, ...]  # goods to the black bag, rosettes to the supply


@dataclass(frozen=True)
class HourGlassCompleted:
    seat: int
    tile: HourGlass
    returned: tuple[Item, ...]


@dataclass(frozen=True)
class GlassMade:
    seat: int


@dataclass(frozen=True)
class GlassPainted:
    seat: int


@dataclass(frozen=True)
class EventRevealed:
    """The top Event: an immediate one goes to the discard pile; an order becomes the active
    order and the one it replaces (if any) goes to the discard pile (C-rules l.259-282)."""

    seat: int
    tile: EventTile
    replaced: EventTile | None
    draws: int


@dataclass(frozen=True)
class OrderFulfilled:
    seat: int  # the seat that chooses the Blueprint (C-rules l.273-278)
    tile: EventTile


@dataclass(frozen=True)
class RewardsEarned:
    seat: int
    rewards: tuple[Reward, ...]  # queued after any rewards still owed


@dataclass(frozen=True)
class BlueprintTurned:
    """The head reward (a Blueprint) is replaced by the reward the turned tile shows."""

    seat: int
    blueprint: Reward
    draws: int


@dataclass(frozen=True)
class SectionBuilt:
    seat: int
    number: int


@dataclass(frozen=True)
class RosetteGiven:
    seat: int
    to: int


@dataclass(frozen=True)
class MonkAdded:
    seat: int
    bag: Bag


@dataclass(frozen=True)
class RewardForgone:
    seat: int
    reward: Reward


@dataclass(frozen=True)
class RewardLost:
    """Nothing of the kind is left in the supply (C§4.8 empty_supply_reward)."""

    reward: Reward


@dataclass(frozen=True)
class Rested:
    seat: int
    returned: tuple[Item, ...]


@dataclass(frozen=True)
class ActionFinished:
    seat: int


@dataclass(frozen=True)
class RoundEnded:
    round: int
    seat: int  # who put a tile on the Bell Tower


@dataclass(frozen=True)
class FollowerRemoved:
    """The Bell Tower tile leaves the game (C-rules l.314-316)."""

    follower: Follower


@dataclass(frozen=True)
class FollowersReturned:
    red: tuple[Follower, ...]  # from the red area into the red bag
    blue: tuple[Follower, ...]


@dataclass(frozen=True)
class HourGlassExpired:
    tile: HourGlass
    returned: tuple[Item, ...]


@dataclass(frozen=True)
class TimeoutApplied:
    target: int
    move: str  # the type of the default move applied


@dataclass(frozen=True)
class GameEnded:
    outcome: Outcome
    sections: int


EVENTS: Final = (
    GameStarted, WorkshopsLaid, GoodsLaid, RosetteLaid, HourGlassRevealed, GoodPacked, RoundBegan, TurnBegan,
    FollowerDrawn, FollowerPlaced, BuilderMoved, ItemTaken, ItemPutBack, Delivered, WorkshopCompleted,
    HourGlassCompleted, GlassMade, GlassPainted, EventRevealed, OrderFulfilled, RewardsEarned, BlueprintTurned,
    SectionBuilt, RosetteGiven, MonkAdded, RewardForgone, RewardLost, Rested, ActionFinished, RoundEnded,
    FollowerRemoved, FollowersReturned, HourGlassExpired, TimeoutApplied, GameEnded,
)


def owing_room(state: State) -> int | None:
    """Rules 2: the seat whose knapsack a gift filled past its slots, which must put an item back
    before anyone else acts (C-rules l.173-180); None when every knapsack fits."""
    knapsacks = state.knapsacks
    if max(map(len, knapsacks)) <= KNAPSACK_SLOTS:  # the usual case, asked at every automatic step
        return None
    for seat, knapsack in enumerate(knapsacks):
        if len(knapsack) > KNAPSACK_SLOTS:
            return seat
    return None
