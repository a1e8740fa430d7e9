"""Orléans commands: what a seat or the system asks for, one frozen dataclass each (the events
they decide are in :mod:`domain.orleans.model`, which re-exports these names)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, get_args

from domain.codec import added
from domain.orleans.data import Char, Good, Item, Reward, Tile

__all__ = [
    "COMMANDS", "SEAT_COMMANDS", "SYSTEM", "SYSTEM_COMMANDS", "ApplyTimeout", "ChoosePlaceTile",
    "Command", "DrawFollowers", "EndGame", "ExcludePlaceTile", "FinishLoading", "FinishPlanning",
    "FinishSending", "GiveUp", "KeepTechnology", "LoadTower", "MoveToTower", "Pass", "PassStartPlayer",
    "PayFood", "PlaceDrawn", "PlaceFollower", "PlaceTechnology", "RecallFollower", "ResolveEvent",
    "RevealHourglass", "SeatCommand", "SendToDeed", "SkipExclusion", "SystemCommand", "TakeAction",
    "TakeBackFollower", "TakeCensus", "TakeGood", "Travel", "UnloadTower", "UsePharmacy", "UseVillage",
]

SYSTEM = "system"


@dataclass(frozen=True)
class RevealHourglass:
    seat: str = SYSTEM


@dataclass(frozen=True)
class TakeCensus:
    seat: str = SYSTEM


@dataclass(frozen=True)
class ResolveEvent:
    seat: str = SYSTEM


@dataclass(frozen=True)
class PassStartPlayer:
    seat: str = SYSTEM


@dataclass(frozen=True)
class EndGame:
    seat: str = SYSTEM


@dataclass(frozen=True)
class ApplyTimeout:
    """A clock ran out: apply ``target``'s default move (issued by the worker)."""

    target: int
    seat: str = SYSTEM


@dataclass(frozen=True)
class ExcludePlaceTile:
    seat: int
    tile: str


@dataclass(frozen=True)
class SkipExclusion:
    seat: int


@dataclass(frozen=True)
class RecallFollower:
    seat: int
    place: str
    space: int


@dataclass(frozen=True)
class DrawFollowers:
    seat: int
    count: int


@dataclass(frozen=True)
class LoadTower:
    """Phase 3 (rules 3): put a character from the market on the Gunpowder Tower."""

    seat: int
    tile: Tile


@dataclass(frozen=True)
class UnloadTower:
    """Phase 3 (rules 5, D15): put a character from the Gunpowder Tower back on the market."""

    seat: int
    tile: Tile


@dataclass(frozen=True)
class FinishLoading:
    seat: int


@dataclass(frozen=True)
class PlaceFollower:
    """Planning: put a character on an action space; rules 5: ``from_tower`` takes the Gunpowder
    Tower's copy of the tile, otherwise the market's."""

    seat: int
    tile: Tile
    place: str
    space: int
    from_tower: bool = added(False)


@dataclass(frozen=True)
class TakeBackFollower:
    """Planning (rules 3): take a placement of this round back before declaring done (D13)."""

    seat: int
    place: str
    space: int


@dataclass(frozen=True)
class MoveToTower:
    """Planning, rules 2 only: the Gunpowder Tower was loaded here (revealed with the plans)."""

    seat: int
    tile: Tile


@dataclass(frozen=True)
class FinishPlanning:
    seat: int


@dataclass(frozen=True)
class TakeAction:
    seat: int
    place: str


@dataclass(frozen=True)
class UseVillage:
    seat: int
    recruit: Char


@dataclass(frozen=True)
class Travel:
    seat: int
    place: str
    to: str


@dataclass(frozen=True)
class UsePharmacy:
    seat: int
    coins: int


@dataclass(frozen=True)
class Pass:
    seat: int


@dataclass(frozen=True)
class TakeGood:
    seat: int
    good: Good | None


@dataclass(frozen=True)
class ChoosePlaceTile:
    seat: int
    tile: str


@dataclass(frozen=True)
class SendToDeed:
    seat: int
    tile: Tile
    deed: str
    reward: Reward


@dataclass(frozen=True)
class FinishSending:
    seat: int


@dataclass(frozen=True)
class PlaceDrawn:
    seat: int
    tile: Tile
    place: str
    space: int


@dataclass(frozen=True)
class PlaceTechnology:
    seat: int
    place: str
    space: int


@dataclass(frozen=True)
class KeepTechnology:
    seat: int


@dataclass(frozen=True)
class PayFood:
    seat: int
    good: Good


@dataclass(frozen=True)
class GiveUp:
    """Torture: give up one item instead of one coin. ``target`` names which one:
    a good, a place tile, a town (built station), a place (placed technology) or ""."""

    seat: int
    item: Item
    target: str = ""


SystemCommand: TypeAlias = RevealHourglass | TakeCensus | ResolveEvent | PassStartPlayer | EndGame | ApplyTimeout
SeatCommand: TypeAlias = (
    ExcludePlaceTile | SkipExclusion | RecallFollower | DrawFollowers | LoadTower | UnloadTower | FinishLoading
    | PlaceFollower | TakeBackFollower | MoveToTower | FinishPlanning
    | TakeAction | UseVillage | Travel | UsePharmacy | Pass | TakeGood | ChoosePlaceTile | SendToDeed
    | FinishSending | PlaceDrawn | PlaceTechnology | KeepTechnology | PayFood | GiveUp
)
Command: TypeAlias = SystemCommand | SeatCommand
SYSTEM_COMMANDS: tuple[type[SystemCommand], ...] = get_args(SystemCommand)
SEAT_COMMANDS: tuple[type[SeatCommand], ...] = get_args(SeatCommand)
COMMANDS: tuple[type[Command], ...] = SYSTEM_COMMANDS + SEAT_COMMANDS
