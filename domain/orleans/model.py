"""Orléans state and events: frozen dataclasses of tuples (the commands: :mod:`domain.orleans.commands`)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Final, TypeAlias, get_args

from domain.codec import added
from domain.orleans.commands import *  # noqa: F403 (re-exported: the game's modules import them from here)
from domain.orleans.commands import COMMANDS
from domain.orleans.data import Char, Edition, Good, Hourglass, Item, Tile
from domain.orleans.memo import KEYS, derived, one_step_init, shared

# The rules a game is played by, recorded in its config. 3 (engine orleans-3): the expert exclusion
# may be skipped, the census pays in turn order, the Gunpowder Tower is loaded in phase 3, planning
# placements may be taken back until done. 4: at most 10 take-backs per planning phase (D13), one
# timeout ends a tower loading (D14). 5: a placement says which copy it takes, the market's or the
# Gunpowder Tower's, and a take-back returns it there; in phase 3 the tower's characters may go back
# to the market (D15). Games recorded before rules 3 carry no number: rules 2.
RULES_VERSION: Final = 5
LEGACY_RULES_VERSION: Final = 2
TECH = "tech"  # a technology tile on an action space
CHARS = tuple(Char)
TRACKS = (Char.FARMER, Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER, Char.KNIGHT, Char.SCHOLAR)
GOODS = tuple(Good)
TILE_ORDER = {t: i for i, t in enumerate(Tile)}


def sort_tiles(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles, key=TILE_ORDER.__getitem__))


def sort_goods(goods: Iterable[Good]) -> tuple[Good, ...]:
    return tuple(sorted(goods, key=GOODS.index))


class Phase(str, Enum):
    EXCLUSION = "exclusion"
    HOURGLASS = "hourglass"
    CENSUS = "census"
    FOLLOWERS = "followers"
    PLANNING = "planning"
    ACTIONS = "actions"
    EVENT = "event"
    START_PLAYER = "start_player"
    FINISHED = "finished"


class ChoiceKind(str, Enum):
    GOOD = "good"  # take one good from the connection just travelled (or none)
    PLACE_TILE = "place_tile"  # Trader: pick a place tile
    DEEDS = "deeds"  # Town Hall / Gunpowder Tower: send characters to beneficial deeds
    BATHHOUSE = "bathhouse"  # place drawn characters on action spaces
    TECHNOLOGY = "technology"  # after passing: place technology tiles


@dataclass(frozen=True)
class Config:
    edition: Edition
    players: int
    exclusion: bool = False
    start_player: int = 0
    rules_version: int = added(LEGACY_RULES_VERSION)


@dataclass(frozen=True)
class Slots:
    place: str
    slots: tuple[str | None, ...]  # a Tile value, TECH, or None


@dataclass(frozen=True)
class Placement:
    tile: Tile
    place: str
    space: int
    from_tower: bool = added(False)  # rules 5: the Gunpowder Tower's copy, which a take-back returns there


@dataclass(frozen=True)
class Player:
    coins: int
    bag: tuple[Tile, ...]
    market: tuple[Tile, ...]
    tower: tuple[Tile, ...]
    places: tuple[Slots, ...]
    tracks: tuple[int, ...]  # positions on TRACKS
    development: int
    goods: tuple[int, ...]  # counts per GOODS
    techs: int  # technology tiles gained, not yet placed (farmer_tech of them included)
    techs_placed: int
    stations: int  # trading stations not yet built
    citizens: int
    merchant: str
    pending: tuple[Placement, ...] = ()  # this round's sealed planning (D10)
    tower_pending: tuple[Tile, ...] = ()
    drew: bool = False
    recalls: int = 0
    planned: bool = False
    passed: bool = False
    farmer_tech: bool = False  # 2023: holds the first Craftsmen-space tile, which only replaces a Farmer
    loading: bool = added(False)  # rules 3: drew in phase 3 and may now load the Gunpowder Tower
    planned_from_tower: tuple[Tile, ...] = added(())  # rules 3: pending tiles that left the tower
    take_backs: int = added(0)  # rules 4: placements taken back in this planning phase (D13)
    tower_returns: int = added(0)  # rules 5: tower characters put back on the market in this loading (D15)


@derived(Player, depends_on=("places",))
def place_map(p: Player) -> dict[str, int]:
    """Owned place -> its index in ``p.places``."""
    return {s.place: i for i, s in enumerate(p.places)}


PLACE_MAP = KEYS[place_map]  # kept by a fold that changes what stands on the places, not which they are


@dataclass(frozen=True)
class Choice:
    seat: int
    kind: ChoiceKind
    source: str = ""  # the place that caused it
    tiles: tuple[Tile, ...] = ()  # Town Hall / tower / Bathhouse tiles still to handle
    connection: str = ""
    stacks: tuple[int, ...] = ()
    remaining: int = 0  # Bathhouse placements left
    done: int = 0  # deeds sent so far


@dataclass(frozen=True)
class Due:
    """Something a seat still owes: food at a Harvest, or items under torture."""

    seat: int
    kind: str  # "food" or "torture"
    amount: int


@dataclass(frozen=True)
class State:
    config: Config
    players: tuple[Player, ...]
    supply: tuple[int, ...]  # neutral characters per CHARS
    goods_market: tuple[int, ...]  # per GOODS
    roads: tuple[tuple[Good, ...], ...]  # goods on each connection, in CONNECTIONS order
    stations: tuple[tuple[str, int], ...]  # (town, seat), sorted
    deeds: tuple[tuple[int | None, ...], ...]  # seat on each deed space, in DEEDS order
    place_tiles: tuple[str, ...]  # available place tiles (both stacks)
    tech_supply: int
    hourglass: tuple[Hourglass, ...]  # hidden: tiles still to come, top first
    event: Hourglass | None
    round: int
    phase: Phase
    start_player: int
    turn: int | None
    choice: Choice | None
    dues: tuple[Due, ...]
    knights_citizen: int | None  # seat that took it
    boatmen_citizen: int | None
    development_citizens: tuple[int | None, ...]
    bonus_citizen: int | None
    excluded: tuple[str, ...]
    removed: tuple[int, ...]  # characters out of the game per CHARS (set-up removals + torture)
    removed_goods: tuple[int, ...]  # per GOODS
    removed_techs: int
    removed_stations: int
    lost_place_tiles: tuple[str, ...]  # given up under torture
    draws: int  # rng counter
    exclusions_skipped: int = added(0)  # rules 3: seats that excluded no place tile


def rules_at_least(state: State, version: int) -> bool:
    """Is the game played by rules ``version`` or later (see ``RULES_VERSION``)?"""
    return state.config.rules_version >= version



# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted:
    config: Config
    supply: tuple[int, ...]
    removed: tuple[int, ...]
    roads: tuple[tuple[Good, ...], ...]
    goods_market: tuple[int, ...]
    removed_goods: tuple[int, ...]
    tech_supply: int
    removed_techs: int
    hourglass: tuple[Hourglass, ...]  # hidden
    draws: int


@dataclass(frozen=True)
class PhaseBegan:
    phase: Phase
    turn: int | None = None


@dataclass(frozen=True)
class PlaceTileExcluded:
    seat: int
    tile: str


@dataclass(frozen=True)
class ExclusionSkipped:
    seat: int


@dataclass(frozen=True)
class HourglassRevealed:
    round: int
    tile: Hourglass


@dataclass(frozen=True)
class CoinsChanged:
    seat: int
    amount: int  # positive: received from the supply; negative: paid
    reason: str


@dataclass(frozen=True)
class DueAssigned:
    seat: int
    kind: str
    amount: int
    reason: str


@dataclass(frozen=True)
class FollowerRecalled:
    seat: int
    place: str
    space: int
    tile: Tile


@dataclass(frozen=True)
class FollowersDrawn:
    seat: int
    tiles: tuple[Tile, ...]
    draws: int


@dataclass(frozen=True)
class TowerLoadingBegan:
    seat: int


@dataclass(frozen=True)
class TowerLoaded:
    seat: int
    tile: Tile


@dataclass(frozen=True)
class TowerUnloaded:
    """Rules 5 (D15): a character went from the Gunpowder Tower back to the market."""

    seat: int
    tile: Tile


@dataclass(frozen=True)
class TowerLoadingEnded:
    seat: int


@dataclass(frozen=True)
class FollowerPlaced:
    """A sealed planning placement (D10): other seats see only that the seat planned."""

    seat: int
    tile: Tile
    place: str
    space: int
    from_tower: bool = added(False)  # rules 5: the Gunpowder Tower's copy


@dataclass(frozen=True)
class FollowerTakenBack:
    """A sealed planning placement taken back (D10): as hidden as the placement itself."""

    seat: int
    place: str
    space: int
    tile: Tile


@dataclass(frozen=True)
class MovedToTower:
    seat: int
    tile: Tile


@dataclass(frozen=True)
class PlanningFinished:
    seat: int


@dataclass(frozen=True)
class PlansRevealed:
    placements: tuple[tuple[int, Placement], ...]
    tower: tuple[tuple[int, Tile], ...]


@dataclass(frozen=True)
class ActionTaken:
    seat: int
    place: str
    returned: tuple[Tile, ...]  # characters back to the bag


@dataclass(frozen=True)
class CharacterRecruited:
    seat: int
    char: Char


@dataclass(frozen=True)
class GoodTaken:
    seat: int
    good: Good
    connection: str  # "" for the Goods Market


@dataclass(frozen=True)
class DevelopmentMoved:
    seat: int
    to: int


@dataclass(frozen=True)
class CitizenTaken:
    seat: int
    source: str


@dataclass(frozen=True)
class TechnologyGained:
    seat: int
    farmer_only: bool = False  # 2023: the tile of the first Craftsmen space (F§2.3, F§8.2)


@dataclass(frozen=True)
class MerchantMoved:
    seat: int
    connection: str
    to: str


@dataclass(frozen=True)
class StationBuilt:
    seat: int
    town: str


@dataclass(frozen=True)
class PlaceTileTaken:
    seat: int
    tile: str


@dataclass(frozen=True)
class SentToDeed:
    seat: int
    tile: Tile
    deed: str
    space: int
    source: str


@dataclass(frozen=True)
class BathhouseDrawn:
    seat: int
    tiles: tuple[Tile, ...]
    draws: int


@dataclass(frozen=True)
class DrawnPlaced:
    seat: int
    tile: Tile
    place: str
    space: int


@dataclass(frozen=True)
class TilesReturned:
    seat: int
    tiles: tuple[Tile, ...]
    source: str  # where from: "bathhouse", "town_hall", "sacristy", ...


@dataclass(frozen=True)
class ChoiceOffered:
    choice: Choice


@dataclass(frozen=True)
class ChoiceClosed:
    seat: int


@dataclass(frozen=True)
class Passed:
    seat: int


@dataclass(frozen=True)
class TechnologyPlaced:
    seat: int
    place: str
    space: int
    farmer_only: bool = False  # the placed tile is the held Farmer-only one (2023)


@dataclass(frozen=True)
class TurnMoved:
    turn: int


@dataclass(frozen=True)
class EventResolved:
    tile: Hourglass
    exempt: tuple[int, ...]  # seats protected by an activated Sacristy


@dataclass(frozen=True)
class PlagueDrawn:
    seat: int
    tile: Tile
    lost: bool
    draws: int


@dataclass(frozen=True)
class FoodPaid:
    seat: int
    good: Good


@dataclass(frozen=True)
class ItemLost:
    seat: int
    item: Item
    target: str
    tile: Tile | None
    draws: int


@dataclass(frozen=True)
class DueForgiven:
    seat: int
    amount: int


@dataclass(frozen=True)
class StartPlayerPassed:
    seat: int
    round: int


@dataclass(frozen=True)
class TimeoutApplied:
    target: int
    move: str  # the type of the default move applied


@dataclass(frozen=True)
class GameEnded:
    bonus_citizen: int | None
    scores: tuple[int, ...]
    winners: tuple[int, ...]


Event: TypeAlias = (
    GameStarted | PhaseBegan | PlaceTileExcluded | ExclusionSkipped | HourglassRevealed | CoinsChanged
    | DueAssigned | FollowerRecalled | FollowersDrawn | TowerLoadingBegan | TowerLoaded | TowerUnloaded
    | TowerLoadingEnded | FollowerPlaced | FollowerTakenBack | MovedToTower | PlanningFinished | PlansRevealed
    | ActionTaken | CharacterRecruited | GoodTaken | DevelopmentMoved | CitizenTaken | TechnologyGained
    | MerchantMoved | StationBuilt | PlaceTileTaken | SentToDeed | BathhouseDrawn | DrawnPlaced
    | TilesReturned | ChoiceOffered | ChoiceClosed | Passed | TechnologyPlaced | TurnMoved | EventResolved
    | PlagueDrawn | FoodPaid | ItemLost | DueForgiven | StartPlayerPassed | TimeoutApplied | GameEnded
)
EVENTS: tuple[type[Event], ...] = get_args(Event)
HIDDEN_EVENTS = (FollowerPlaced, FollowerTakenBack, MovedToTower)  # sealed planning (D10)

# The events of most decisions (placements, take-backs, recalls, passes, turns and phases) and
# the placements a seat plans
PLACED, TAKEN_BACK, RECALLED = shared(FollowerPlaced), shared(FollowerTakenBack), shared(FollowerRecalled)
PLANNING_FINISHED, PASSED = shared(PlanningFinished), shared(Passed)
TURN_MOVED, PHASE_BEGAN = shared(TurnMoved), shared(PhaseBegan)
PLACEMENT = shared(Placement)


# Records built and read on every decision get a one-step __init__ (memo.one_step_init). Not events and
# placements (PlansRevealed carries them): the log keeps them, and each would keep a separate
# attribute dict with it, more memory and more for the garbage collector to walk in a long run.
for _record in (Config, Slots, Player, Choice, Due, State, *COMMANDS):
    one_step_init(_record)
