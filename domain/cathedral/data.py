"""The Cathedral of Orléans' rules tables: components, the map, the action spaces and the tiles.

Citations: ``C-rules l.N`` is a line of the rulebook (seed 004); ``C§n`` is a section of the
facts sheet's Game B, mirrored in docs/cathedral-data.md (C§1 identification, C§2 facts found,
C§3 gaps, C§4 the reconstruction). The printed board and tile contents were never found (C§3);
every value marked ``RECONSTRUCTION`` is the facts sheet's proposal (C§4), kept as one named
constant each so that a correction is a data change and nothing else. ``RULING`` marks a decision
of ours where the rule text and the facts sheet are both silent (docs/cathedral-data.md, C§5).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final


class Edition(str, Enum):
    STANDARD = "standard"
    EXPERT = "expert"  # 1 Monk per bag instead of 2 (C-rules l.83-86)


class Follower(str, Enum):
    """The five follower kinds, in the rulebook's order (C-rules l.23-26)."""

    KNIGHT = "knight"  # red
    FISHERMAN = "fisherman"  # blue
    FARMER = "farmer"  # white
    TRADER = "trader"  # black
    MONK = "monk"  # yellow, wild (C-rules l.132-136)


class Bag(str, Enum):
    """The two follower bags (C-rules l.16-17); goods live in the black bag (``black_bag``)."""

    RED = "red"
    BLUE = "blue"


class Item(str, Enum):
    """What a knapsack holds: goods (C-rules l.28-29) and Glass rosettes (C-rules l.31)."""

    WOOD = "wood"
    STONE = "stone"
    BREAD = "bread"
    ROSETTE = "rosette"


GOODS: Final = (Item.WOOD, Item.STONE, Item.BREAD)


class Reward(str, Enum):
    """The reward icons of orders and Blueprint tiles (C-rules l.285-299)."""

    BLUEPRINT = "blueprint"  # turn a Blueprint tile over and take its reward
    SECTION = "section"  # build the next Cathedral section
    ROSETTE = "rosette"  # a Glass rosette into your knapsack or another player's
    MONK = "monk"  # a Monk from the supply into the red or the blue bag


# --- components and counts (C§2 components; all from the rule text) --------------------------------

PLAYERS: Final = range(2, 5)  # 2-4 players, 4 Knapsacks and 4 Master Builders (C-rules l.36-38, C§1)
ROUNDS: Final = 3  # C-rules l.110-115
SECTIONS: Final = 8  # built in order 1..8, section 8 is the roof (C-rules l.35, l.89-92, l.102-106)
KNAPSACK_SLOTS: Final = 5  # C-rules l.173-180
DELIVERIES_PER_MARKET: Final = 2  # 0, 1 or 2 items (C-rules l.189-194)
WORKSHOPS_IN_PLAY: Final = 3  # of 8 tiles (C-rules l.19, l.43-45)
HOUR_GLASSES_IN_PLAY: Final = 3  # of 6 tiles, one face up per round (C-rules l.21, l.62-64)
ROSETTES: Final = 10  # C-rules l.31
GOODS_IN_GAME: Final[Mapping[Item, int]] = MappingProxyType(  # the black bag (C-rules l.28-29)
    {Item.WOOD: 15, Item.STONE: 12, Item.BREAD: 10})
FOLLOWERS_IN_GAME: Final[Mapping[Follower, int]] = MappingProxyType({  # 34 tiles (C-rules l.23-26)
    Follower.KNIGHT: 6, Follower.FISHERMAN: 6, Follower.FARMER: 6, Follower.TRADER: 6, Follower.MONK: 10})


def bag_contents(bag: Bag, edition: Edition) -> Mapping[Follower, int]:
    """A bag at set-up (C-rules l.66-72); the expert variant has 1 Monk each (C-rules l.83-86)."""
    monks = 1 if edition is Edition.EXPERT else 2
    own = Follower.KNIGHT if bag is Bag.RED else Follower.FISHERMAN
    return MappingProxyType({own: 6, Follower.FARMER: 3, Follower.TRADER: 3, Follower.MONK: monks})


def supply_monks(edition: Edition) -> int:
    """The Monks in neither bag go to the supply (C-rules l.74): 6, or 8 in the expert variant."""
    in_bags = sum(bag_contents(b, edition)[Follower.MONK] for b in Bag)
    return FOLLOWERS_IN_GAME[Follower.MONK] - in_bags


# --- the map (all RECONSTRUCTION, C§3.1; the facts sheet's proposal C§4.1) --------------------------


class Place(str, Enum):
    ORLEANS = "orleans"
    CHARTRES = "chartres"
    MONTARGIS = "montargis"
    SANCERRE = "sancerre"
    BOURGES = "bourges"
    VIERZON = "vierzon"
    BLOIS = "blois"
    TOURS = "tours"


START_PLACE: Final = Place.ORLEANS  # every Master Builder starts here (C-rules l.76-81)


class RouteKind(str, Enum):
    LAND = "land"  # travelled by Cart (C-rules l.160-163)
    RIVER = "river"  # travelled by Boat (C-rules l.165-168)


class Route(str, Enum):
    ORLEANS_BLOIS = "orleans-blois"
    BLOIS_TOURS = "blois-tours"
    ORLEANS_SANCERRE = "orleans-sancerre"
    TOURS_VIERZON = "tours-vierzon"
    VIERZON_BOURGES = "vierzon-bourges"
    ORLEANS_CHARTRES = "orleans-chartres"
    ORLEANS_MONTARGIS = "orleans-montargis"
    ORLEANS_VIERZON = "orleans-vierzon"
    CHARTRES_BLOIS = "chartres-blois"
    MONTARGIS_SANCERRE = "montargis-sancerre"
    SANCERRE_BOURGES = "sancerre-bourges"
    BLOIS_VIERZON = "blois-vierzon"
    TOURS_BOURGES = "tours-bourges"


@dataclass(frozen=True)
class RouteSpec:
    a: Place
    b: Place
    kind: RouteKind
    goods: int  # Goods spaces on the route
    rosette_space: bool = False  # the Glass rosette space (only between Tours and Bourges)

    def other_end(self, place: Place) -> Place | None:
        return self.b if place is self.a else self.a if place is self.b else None


_L, _W = RouteKind.LAND, RouteKind.RIVER
P = Place
ROUTES: Final[Mapping[Route, RouteSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.1 routes)
    Route.ORLEANS_BLOIS: RouteSpec(P.ORLEANS, P.BLOIS, _W, 1),
    Route.BLOIS_TOURS: RouteSpec(P.BLOIS, P.TOURS, _W, 1),
    Route.ORLEANS_SANCERRE: RouteSpec(P.ORLEANS, P.SANCERRE, _W, 1),
    Route.TOURS_VIERZON: RouteSpec(P.TOURS, P.VIERZON, _W, 2),
    Route.VIERZON_BOURGES: RouteSpec(P.VIERZON, P.BOURGES, _W, 1),
    Route.ORLEANS_CHARTRES: RouteSpec(P.ORLEANS, P.CHARTRES, _L, 1),
    Route.ORLEANS_MONTARGIS: RouteSpec(P.ORLEANS, P.MONTARGIS, _L, 1),
    Route.ORLEANS_VIERZON: RouteSpec(P.ORLEANS, P.VIERZON, _L, 1),
    Route.CHARTRES_BLOIS: RouteSpec(P.CHARTRES, P.BLOIS, _L, 2),
    Route.MONTARGIS_SANCERRE: RouteSpec(P.MONTARGIS, P.SANCERRE, _L, 1),
    Route.SANCERRE_BOURGES: RouteSpec(P.SANCERRE, P.BOURGES, _L, 2),
    Route.BLOIS_VIERZON: RouteSpec(P.BLOIS, P.VIERZON, _L, 1),
    # the rosette space's endpoints are from the rule text (C-rules l.54-55); the land type is not
    Route.TOURS_BOURGES: RouteSpec(P.TOURS, P.BOURGES, _L, 0, rosette_space=True),
})


@dataclass(frozen=True)
class Spot:
    """One space on a route that holds an item: a Goods space or the Glass rosette space."""

    route: Route
    rosette: bool  # the rosette space (refilled from the supply) rather than a Goods space


# Every item space on the map in one fixed order; a spot is named by its index.
SPOTS: Final[tuple[Spot, ...]] = tuple(
    Spot(route, False) for route, spec in ROUTES.items() for _ in range(spec.goods)
) + tuple(Spot(route, True) for route, spec in ROUTES.items() if spec.rosette_space)
GOODS_SPOTS: Final = tuple(i for i, s in enumerate(SPOTS) if not s.rosette)
ROSETTE_SPOT: Final = next(i for i, s in enumerate(SPOTS) if s.rosette)
WORKSHOP_PLACES: Final[tuple[Place, ...]] = (P.CHARTRES, P.TOURS, P.SANCERRE)  # RECONSTRUCTION (C§4.2)


_SPOTS_ON: Final[Mapping[Route, tuple[int, ...]]] = MappingProxyType(
    {route: tuple(i for i, s in enumerate(SPOTS) if s.route is route) for route in Route})


def spots_on(route: Route) -> tuple[int, ...]:
    """The spots of a route, in SPOTS order."""
    return _SPOTS_ON[route]


# --- the action spaces (RECONSTRUCTION, C§3.3; the facts sheet's proposal C§4.3) ------------------


class Action(str, Enum):
    CART = "cart"  # C-rules l.160-163
    BOAT = "boat"  # C-rules l.165-168
    MARKET = "market"  # C-rules l.189-206
    GLASS_FOUNDRY = "glass_foundry"  # Monk only (C-rules l.247-250)
    GLASS_PAINTING = "glass_painting"  # Monk only (C-rules l.252-257)
    FESTIVAL_GROUND = "festival_ground"  # any follower, must be carried out (C-rules l.259-264, l.344-350)
    BELL_TOWER = "bell_tower"  # any follower, ends the round (C-rules l.303-309)


MANDATORY_ACTIONS: Final = frozenset({Action.FESTIVAL_GROUND, Action.BELL_TOWER})  # C-rules l.344-350


class Area(str, Enum):
    """The town's two halves (C-rules l.318-325); the Bell Tower belongs to neither (C§4.3)."""

    RED = "red"  # left; its tiles go back to the red bag
    BLUE = "blue"  # right; its tiles go back to the blue bag
    SHARED = "shared"


class Space(str, Enum):
    R1 = "R1"
    R2 = "R2"
    R3 = "R3"
    R4 = "R4"
    R5 = "R5"
    R6 = "R6"
    R7 = "R7"
    B1 = "B1"
    B2 = "B2"
    B3 = "B3"
    B4 = "B4"
    B5 = "B5"
    B6 = "B6"
    B7 = "B7"
    BT = "BT"


@dataclass(frozen=True)
class SpaceSpec:
    area: Area
    action: Action
    shows: tuple[Follower, ...]  # the follower icons; () = the "any follower" icon (C-rules l.145-146)
    monk_only: bool = False  # Glass Foundry and Glass Painting (C-rules l.247-250, l.252-257)

    def accepts(self, follower: Follower) -> bool:
        """Monks are wild everywhere (C-rules l.132-136); two icons mean either (C-rules l.141-143)."""
        if follower is Follower.MONK:
            return True
        return not self.monk_only and (not self.shows or follower in self.shows)


F = Follower
_R, _B, _S = Area.RED, Area.BLUE, Area.SHARED
SPACES: Final[Mapping[Space, SpaceSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.3 action_spaces)
    Space.R1: SpaceSpec(_R, Action.CART, (F.KNIGHT,)),
    Space.R2: SpaceSpec(_R, Action.CART, (F.KNIGHT, F.FARMER)),
    Space.R3: SpaceSpec(_R, Action.BOAT, (F.FARMER,)),
    Space.R4: SpaceSpec(_R, Action.MARKET, (F.TRADER,)),
    Space.R5: SpaceSpec(_R, Action.MARKET, (F.KNIGHT, F.TRADER)),
    Space.R6: SpaceSpec(_R, Action.GLASS_FOUNDRY, (F.MONK,), monk_only=True),
    Space.R7: SpaceSpec(_R, Action.FESTIVAL_GROUND, ()),
    Space.B1: SpaceSpec(_B, Action.BOAT, (F.FISHERMAN,)),
    Space.B2: SpaceSpec(_B, Action.BOAT, (F.FISHERMAN, F.FARMER)),
    Space.B3: SpaceSpec(_B, Action.CART, (F.FARMER,)),
    Space.B4: SpaceSpec(_B, Action.MARKET, (F.TRADER,)),
    Space.B5: SpaceSpec(_B, Action.MARKET, (F.FISHERMAN, F.TRADER)),
    Space.B6: SpaceSpec(_B, Action.GLASS_PAINTING, (F.MONK,), monk_only=True),
    Space.B7: SpaceSpec(_B, Action.FESTIVAL_GROUND, ()),
    Space.BT: SpaceSpec(_S, Action.BELL_TOWER, ()),
})
SPACE_LIST: Final[tuple[Space, ...]] = tuple(Space)
SPACE_INDEX: Final[Mapping[Space, int]] = MappingProxyType({s: i for i, s in enumerate(SPACE_LIST)})


# --- the tiles (all RECONSTRUCTION, C§3; the facts sheet's proposals C§4.4, C§4.5, C§4.6, C§4.7) -----------------

@dataclass(frozen=True)
class OrderSpec:
    """An order to fill by delivery and what it pays (C-rules l.211-222, l.226-242)."""

    needs: tuple[Item, ...]
    rewards: tuple[Reward, ...]


class Workshop(str, Enum):
    W1 = "W1"
    W2 = "W2"
    W3 = "W3"
    W4 = "W4"
    W5 = "W5"
    W6 = "W6"
    W7 = "W7"
    W8 = "W8"


It, Rw = Item, Reward
WORKSHOPS: Final[Mapping[Workshop, OrderSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.4 workshops)
    Workshop.W1: OrderSpec((It.WOOD, It.WOOD, It.STONE), (Rw.SECTION,)),
    Workshop.W2: OrderSpec((It.STONE, It.STONE, It.BREAD), (Rw.SECTION,)),
    Workshop.W3: OrderSpec((It.WOOD, It.STONE, It.BREAD), (Rw.SECTION,)),
    Workshop.W4: OrderSpec((It.WOOD, It.WOOD, It.ROSETTE), (Rw.SECTION, Rw.MONK)),
    Workshop.W5: OrderSpec((It.BREAD, It.BREAD, It.ROSETTE), (Rw.SECTION, Rw.ROSETTE)),
    Workshop.W6: OrderSpec((It.WOOD, It.STONE, It.STONE), (Rw.BLUEPRINT, Rw.BLUEPRINT)),
    Workshop.W7: OrderSpec((It.WOOD, It.WOOD, It.WOOD), (Rw.BLUEPRINT, Rw.MONK)),
    Workshop.W8: OrderSpec((It.STONE, It.BREAD, It.ROSETTE), (Rw.SECTION, Rw.BLUEPRINT)),
})


class HourGlass(str, Enum):
    H1 = "H1"
    H2 = "H2"
    H3 = "H3"
    H4 = "H4"
    H5 = "H5"
    H6 = "H6"


HOUR_GLASSES: Final[Mapping[HourGlass, OrderSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.5 hour_glass)
    HourGlass.H1: OrderSpec((It.WOOD, It.WOOD), (Rw.SECTION,)),
    HourGlass.H2: OrderSpec((It.STONE, It.STONE), (Rw.SECTION,)),
    HourGlass.H3: OrderSpec((It.BREAD, It.BREAD), (Rw.SECTION,)),
    HourGlass.H4: OrderSpec((It.WOOD, It.BREAD), (Rw.BLUEPRINT, Rw.ROSETTE)),
    HourGlass.H5: OrderSpec((It.STONE, It.ROSETTE), (Rw.SECTION,)),
    HourGlass.H6: OrderSpec((It.WOOD, It.STONE, It.BREAD), (Rw.SECTION, Rw.MONK)),
})


class EventTile(str, Enum):
    E1 = "E1"
    E2 = "E2"
    E3 = "E3"
    E4 = "E4"
    E5 = "E5"
    E6 = "E6"
    E7 = "E7"
    E8 = "E8"
    E9 = "E9"
    E10 = "E10"


class Condition(str, Enum):
    """The three kinds of Event order (C-rules l.358-369)."""

    BUILDER_AT = "builder_at"  # one of the Master Builders stands at the place shown
    TWO_BUILDERS = "two_builders"  # two Master Builders stand together at any place
    ROSETTES = "rosettes"  # one player holds at least this many Glass rosettes (and keeps them)


@dataclass(frozen=True)
class EventSpec:
    """An Event: an immediate reward (C-rules l.266-267) or an order worth 1 Blueprint (l.268-271)."""

    reward: Reward | None = None  # immediate: a rosette or a Monk
    condition: Condition | None = None  # an order
    place: Place | None = None  # BUILDER_AT: where
    count: int = 0  # ROSETTES: how many

    @property
    def is_order(self) -> bool:
        return self.condition is not None


ORDER_REWARD: Final = (Reward.BLUEPRINT,)  # a fulfilled Event order pays 1 Blueprint (C-rules l.268-271)
ROSETTE_ORDER_COUNT: Final = 2  # C-rules l.366-369
E = EventTile
EVENTS: Final[Mapping[EventTile, EventSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.6 events)
    E.E1: EventSpec(reward=Rw.ROSETTE),
    E.E2: EventSpec(reward=Rw.ROSETTE),
    E.E3: EventSpec(reward=Rw.ROSETTE),
    E.E4: EventSpec(reward=Rw.MONK),
    E.E5: EventSpec(reward=Rw.MONK),
    E.E6: EventSpec(condition=Condition.BUILDER_AT, place=P.BOURGES),
    E.E7: EventSpec(condition=Condition.BUILDER_AT, place=P.MONTARGIS),
    E.E8: EventSpec(condition=Condition.BUILDER_AT, place=P.VIERZON),
    E.E9: EventSpec(condition=Condition.TWO_BUILDERS),
    E.E10: EventSpec(condition=Condition.ROSETTES, count=ROSETTE_ORDER_COUNT),
})

# The 12 Blueprint tiles by the reward each shows (C-rules l.33, l.289-290).
BLUEPRINTS: Final[Mapping[Reward, int]] = MappingProxyType({  # RECONSTRUCTION (C§4.7 blueprints)
    Rw.SECTION: 7, Rw.ROSETTE: 3, Rw.MONK: 2})
BLUEPRINT_COUNT: Final = 12  # C-rules l.33

# Rules 3 (engine cathedral-3): the tables re-tuned so that the expert variant is harder (issue 28;
# docs/cathedral-data.md, "Rules 3"). The expert variant takes one Monk out of each bag and nothing
# else (C-rules l.83-86); with the tables above, Monk rewards on orders and tiles refilled the bags
# and rosettes came from everywhere, so two Monks fewer changed nothing measurable. Here the Monks
# stay scarce (no order pays a Monk; one Event and one Blueprint still do, as the rulebook's Events
# and reward icons show Monks, C-rules l.266-267, l.298-299), no order pays a rosette, and 8 of the
# 14 orders need one, so the Glass Foundry (Monk only, C-rules l.247-250) is the steady source.
WORKSHOPS_3: Final[Mapping[Workshop, OrderSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.4, rules 3)
    **WORKSHOPS,
    Workshop.W1: OrderSpec((It.WOOD, It.STONE, It.ROSETTE), (Rw.SECTION,)),
    Workshop.W2: OrderSpec((It.STONE, It.STONE, It.ROSETTE), (Rw.SECTION,)),
    Workshop.W4: OrderSpec((It.WOOD, It.WOOD, It.ROSETTE), (Rw.SECTION,)),
    Workshop.W5: OrderSpec((It.BREAD, It.BREAD, It.ROSETTE), (Rw.SECTION,)),
    Workshop.W7: OrderSpec((It.WOOD, It.WOOD, It.WOOD), (Rw.BLUEPRINT,)),
})
HOUR_GLASSES_3: Final[Mapping[HourGlass, OrderSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.5, rules 3)
    **HOUR_GLASSES,
    HourGlass.H1: OrderSpec((It.WOOD, It.ROSETTE), (Rw.SECTION,)),
    HourGlass.H3: OrderSpec((It.BREAD, It.ROSETTE), (Rw.SECTION,)),
    HourGlass.H4: OrderSpec((It.WOOD, It.BREAD), (Rw.BLUEPRINT,)),
    HourGlass.H6: OrderSpec((It.WOOD, It.STONE, It.BREAD), (Rw.SECTION,)),
})
EVENTS_3: Final[Mapping[EventTile, EventSpec]] = MappingProxyType({  # RECONSTRUCTION (C§4.6, rules 3)
    **EVENTS, E.E5: EventSpec(reward=Rw.ROSETTE)})
BLUEPRINTS_3: Final[Mapping[Reward, int]] = MappingProxyType({  # RECONSTRUCTION (C§4.7, rules 3)
    Rw.SECTION: 8, Rw.ROSETTE: 3, Rw.MONK: 1})


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per table set
class Tables:
    """The reconstructed tile tables a rules version plays with (C§4.4-C§4.7)."""

    workshops: Mapping[Workshop, OrderSpec]
    hour_glasses: Mapping[HourGlass, OrderSpec]
    events: Mapping[EventTile, EventSpec]
    blueprints: Mapping[Reward, int]


TABLES_1: Final = Tables(WORKSHOPS, HOUR_GLASSES, EVENTS, BLUEPRINTS)  # rules 1 and 2
TABLES_3: Final = Tables(WORKSHOPS_3, HOUR_GLASSES_3, EVENTS_3, BLUEPRINTS_3)
TABLES_FROM: Final = 3  # the rules version that plays TABLES_3


def tables(rules_version: int) -> Tables:
    """The tile tables of a game played by ``rules_version``."""
    return TABLES_3 if rules_version >= TABLES_FROM else TABLES_1

# --- rulings the texts leave open (C§3.8; the facts sheet's proposal C§4.8, and ours C§5) ----------


class RoundStart(str, Enum):
    AFTER_BELL_TOWER_PLAYER = "after_bell_tower_player"  # the next seat clockwise after it
    FIRST_SEAT = "first_seat"  # the youngest player again


ROUND_START: Final = RoundStart.AFTER_BELL_TOWER_PLAYER  # RECONSTRUCTION (C§4.8 round_start_player)
# Rules 1 only; rules 2 follows the knapsack rule as written (C-rules l.173-180): the gift goes in, and
# the receiver puts one item back (the gift itself, if they would rather forgo it) before play goes on.
GIFT_NEEDS_ROOM: Final = True  # RECONSTRUCTION (C§4.8 gifts_respect_knapsack_capacity): no gift into a full knapsack
# The rules a game is played by, recorded in its config (``Config.rules_version``): 1 (engine
# cathedral-1, games recorded without a number) refused gifts into a full knapsack; 2 lets the
# receiver make room; 3 plays the re-tuned tile tables (TABLES_3), under which expert is harder.
RULES_VERSION: Final = 3
LEGACY_RULES_VERSION: Final = 1


class EmptySupply(str, Enum):
    NO_REWARD = "no_reward"


# RECONSTRUCTION (C§4.8 empty_supply_reward): a rosette, Monk or Blueprint reward with none left is lost.
EMPTY_SUPPLY_REWARD: Final = EmptySupply.NO_REWARD
# RULING (C§5): the service cannot know ages; the seat list is ordered youngest first (C-rules l.118-120).
FIRST_SEAT: Final = 0

# Every named value above that is a reconstruction rather than the rule text (docs/cathedral-data.md
# lists each one with its reason; a test checks the two agree).
RECONSTRUCTED: Final = frozenset({
    "ROUTES", "SPOTS", "WORKSHOP_PLACES", "SPACES", "WORKSHOPS", "HOUR_GLASSES", "EVENTS", "BLUEPRINTS",
    "WORKSHOPS_3", "HOUR_GLASSES_3", "EVENTS_3", "BLUEPRINTS_3", "ROUND_START", "GIFT_NEEDS_ROOM",
    "EMPTY_SUPPLY_REWARD",
})
