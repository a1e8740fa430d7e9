"""The toy game's config, state, commands and events: frozen dataclasses, encoded by domain.codec."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from domain.core import SYSTEM

BIDS: Final = (1, 2, 3)
PRIZES: Final = 6  # a prize is 1..PRIZES
PLAYERS: Final = range(2, 5)
ROUNDS: Final = range(1, 51)


class Edition(str, Enum):
    CLASSIC = "classic"


@dataclass(frozen=True)
class Config:
    edition: Edition
    players: int
    rounds: int = 3


@dataclass(frozen=True)
class State:
    players: int
    rounds: int
    round: int  # rounds revealed so far
    bids: tuple[int | None, ...]  # this round's sealed bids, None while a seat has not bid
    scores: tuple[int, ...]
    prize: int
    draws: int  # rng draws so far: the next decision's counter
    finished: bool


# --- commands ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bid:
    seat: int
    bid: int


@dataclass(frozen=True)
class Reveal:
    """The system's step once every seat has bid."""

    seat: str = SYSTEM


Command = Bid | Reveal
COMMANDS: Final = (Bid, Reveal)
SYSTEM_COMMANDS: Final = (Reveal,)


# --- events --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted:
    players: int
    rounds: int


@dataclass(frozen=True)
class PrizeDrawn:
    prize: int
    draws: int


@dataclass(frozen=True)
class BidPlaced:
    seat: int
    bid: int


@dataclass(frozen=True)
class BidsRevealed:
    bids: tuple[int, ...]
    prize: int


@dataclass(frozen=True)
class GameEnded:
    pass


Event = GameStarted | PrizeDrawn | BidPlaced | BidsRevealed | GameEnded
EVENTS: Final = (GameStarted, PrizeDrawn, BidPlaced, BidsRevealed, GameEnded)
