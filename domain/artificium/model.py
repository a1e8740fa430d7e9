"""Artificium state, commands and events: frozen dataclasses of tuples.

Cards of one kind are identical, so a card is its ``Card`` value and a hand is a sorted tuple of
them. Resources are a tuple of counts in ``RESOURCES`` order.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Final

from domain.artificium import data
from domain.artificium.data import LEGACY_RULES_VERSION, STARTING_COINS, Card, Edition, Resource, Tables
from domain.codec import added

SYSTEM: Final = "system"
RESOURCES: Final = tuple(Resource)
RESOURCE_INDEX: Final = {r: i for i, r in enumerate(RESOURCES)}
CARD_ORDER: Final = {c: i for i, c in enumerate(Card)}
NO_RESOURCES: Final = (0,) * len(RESOURCES)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=CARD_ORDER.__getitem__))


class Phase(str, Enum):
    START = "start"  # the system starts the next turn (A-rules l.170-177)
    MARKET = "market"  # card market (A-rules l.179-192)
    COMMIT = "commit"  # playing cards: every active seat seals a card (A-rules l.195-198)
    RESOLVE = "resolve"  # playing cards: revealed cards resolve one seat at a time (A-rules l.198-223)
    TURN_END = "turn_end"  # sell and discard (A-rules l.246-253)
    FINISHED = "finished"


@dataclass(frozen=True)
class Config:
    players: int
    edition: Edition = Edition.STANDARD
    rules_version: int = added(LEGACY_RULES_VERSION)  # recorded by the engine (data.RULES_VERSION)


@dataclass(frozen=True)
class Player:
    hand: tuple[Card, ...] = ()
    coins: int = STARTING_COINS
    resources: tuple[int, ...] = NO_RESOURCES  # counts in RESOURCES order
    vp: int = 0
    farthest: int = 0  # the farthest VP total reached (bonus spaces pay once when they do not re-pay)
    committed: Card | None = None  # sealed this step
    revealed: Card | None = None  # revealed, waiting to be resolved
    played: tuple[Card, ...] = ()  # resolved this turn, in front of the seat (A-rules l.224)
    returned: tuple[Card, ...] = ()  # brought back by Reconstruction this turn, not yet replayed
    plays: int = 0  # cards played this turn, as the Fair counts them
    exchanges: int = 0  # market exchanges this turn, the hand redraw included
    redrew: bool = False
    market_passed: bool = False
    passed: bool = False  # out of this turn's card play
    finished: bool = False  # done with this turn's Turn end
    knights: int = 0
    wizards: int = 0


@dataclass(frozen=True)
class State:
    config: Config
    players: tuple[Player, ...]
    deck: tuple[Card, ...]  # index 0 is the top
    bank: int  # tokens in the bank (coins and resources are the same tokens, A-rules l.22-28)
    first_player: int
    discard: tuple[Card, ...] = ()  # sorted; face up
    market: tuple[Card, ...] = ()  # sorted
    turn: int = 0
    phase: Phase = Phase.START
    market_turn: int | None = None
    step: int = 0
    queue: tuple[int, ...] = ()  # seats whose revealed card is still to resolve, in order
    owed_discards: int = 0  # Wizard's Tower: cards the resolving seat still has to discard
    draws: int = 0


def tables(state: State) -> Tables:
    """The reconstructed prices, bonus spaces and bank rule of the game's rules version."""
    return data.TABLES[state.config.rules_version]


# --- commands ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartTurn:
    seat: str = SYSTEM


@dataclass(frozen=True)
class ApplyTimeout:
    """A clock ran out: apply ``target``'s default move (issued by the worker)."""

    target: int
    seat: str = SYSTEM


@dataclass(frozen=True)
class ExchangeCard:
    seat: int
    give: Card  # from the hand
    take: Card  # from the market


@dataclass(frozen=True)
class RedrawHand:
    seat: int


@dataclass(frozen=True)
class PassMarket:
    seat: int


@dataclass(frozen=True)
class CommitCard:
    seat: int
    card: Card


@dataclass(frozen=True)
class BuyResource:
    seat: int
    resource: Resource


@dataclass(frozen=True)
class SellResource:
    seat: int
    resource: Resource


@dataclass(frozen=True)
class ResolveCard:
    """Resolve the revealed card; only the choices its effect asks for are given."""

    seat: int
    target: int | None = None  # Castle, Exploration, Theft: the other seat
    resource: Resource | None = None  # Theft: what to take
    card: Card | None = None  # Reconstruction: the played card to take back


@dataclass(frozen=True)
class DeclineCard:
    """Discard the revealed card unresolved and keep playing (A-rules l.207)."""

    seat: int


@dataclass(frozen=True)
class TakeCardBack:
    """Take the revealed card back to hand and pass for the round (A-rules l.208)."""

    seat: int


@dataclass(frozen=True)
class DiscardFromHand:
    seat: int
    card: Card


@dataclass(frozen=True)
class FinishTurn:
    seat: int


SYSTEM_COMMANDS: Final = (StartTurn, ApplyTimeout)
SEAT_COMMANDS: Final = (
    ExchangeCard, RedrawHand, PassMarket, CommitCard, BuyResource, SellResource, ResolveCard,
    DeclineCard, TakeCardBack, DiscardFromHand, FinishTurn,
)
COMMANDS: Final = SYSTEM_COMMANDS + SEAT_COMMANDS


# --- events -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted:
    config: Config
    deck: tuple[Card, ...]  # hidden: the shuffled draw pile
    first_player: int
    draws: int


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    first_player: int


@dataclass(frozen=True)
class PhaseBegan:
    phase: Phase


@dataclass(frozen=True)
class DeckReshuffled:
    deck: tuple[Card, ...]  # hidden: the discard pile, shuffled into the new draw pile
    draws: int  # the rng counter after the shuffle


@dataclass(frozen=True)
class CardsDrawn:
    seat: int
    cards: tuple[Card, ...]  # hidden from the other seats


@dataclass(frozen=True)
class MarketDealt:
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class MarketTurnMoved:
    seat: int | None


@dataclass(frozen=True)
class CardExchanged:
    seat: int
    given: Card
    taken: Card


@dataclass(frozen=True)
class HandDiscarded:
    seat: int
    cards: tuple[Card, ...]
    redraw: bool  # the market's hand redraw (counts as the exchange)


@dataclass(frozen=True)
class MarketPassed:
    seat: int


@dataclass(frozen=True)
class MarketClosed:
    discarded: tuple[Card, ...]


@dataclass(frozen=True)
class PlayPassed:
    seat: int


@dataclass(frozen=True)
class StepBegan:
    step: int


@dataclass(frozen=True)
class CardCommitted:
    seat: int
    card: Card  # hidden until every seat has committed


@dataclass(frozen=True)
class CardsRevealed:
    """Every sealed card turns face up at once; the resolve phase begins."""

    order: tuple[int, ...]  # the seats in resolution order
    cards: tuple[Card, ...]  # their cards, in the same order


@dataclass(frozen=True)
class CoinsPaid:
    seat: int
    coins: int  # to the bank


@dataclass(frozen=True)
class CoinsTaken:
    seat: int
    coins: int  # from the bank


@dataclass(frozen=True)
class ResourceBought:
    seat: int
    resource: Resource
    price: int


@dataclass(frozen=True)
class ResourceSold:
    seat: int
    resource: Resource
    price: int


@dataclass(frozen=True)
class CardResolved:
    seat: int
    card: Card
    counted: bool  # counts as a play for the Fair


@dataclass(frozen=True)
class Produced:
    seat: int
    spent: tuple[Resource, ...]
    coins: int
    made: tuple[Resource, ...]


@dataclass(frozen=True)
class VictoryPointsScored:
    seat: int
    points: int


@dataclass(frozen=True)
class BonusCollected:
    seat: int
    space: int
    resource: Resource


@dataclass(frozen=True)
class MarkerPushedBack:
    seat: int
    by: int
    spaces: int


@dataclass(frozen=True)
class DiscardsOwed:
    seat: int
    count: int


@dataclass(frozen=True)
class CardDiscarded:
    seat: int
    card: Card


@dataclass(frozen=True)
class CardExplored:
    seat: int
    target: int
    card: Card  # seen only by the two seats
    draws: int  # the rng counter after the random pick


@dataclass(frozen=True)
class CardReturned:
    seat: int
    card: Card


@dataclass(frozen=True)
class ResourceStolen:
    seat: int
    target: int
    resource: Resource
    coins: int


@dataclass(frozen=True)
class CardDeclined:
    seat: int
    card: Card
    counted: bool


@dataclass(frozen=True)
class CardTakenBack:
    seat: int
    card: Card


@dataclass(frozen=True)
class ResolutionEnded:
    seat: int


@dataclass(frozen=True)
class PlayedCardsDiscarded:
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class TurnFinished:
    seat: int


@dataclass(frozen=True)
class EverythingSold:
    seat: int
    resources: tuple[int, ...]
    coins: int


@dataclass(frozen=True)
class TimeoutApplied:
    target: int
    move: str  # the type of the default move applied


@dataclass(frozen=True)
class GameEnded:
    scores: tuple[int, ...]
    winners: tuple[int, ...]


EVENTS: Final = (
    GameStarted, TurnStarted, PhaseBegan, DeckReshuffled, CardsDrawn, MarketDealt, MarketTurnMoved,
    CardExchanged, HandDiscarded, MarketPassed, MarketClosed, PlayPassed, StepBegan, CardCommitted,
    CardsRevealed, CoinsPaid, CoinsTaken, ResourceBought, ResourceSold, CardResolved, Produced,
    VictoryPointsScored, BonusCollected, MarkerPushedBack, DiscardsOwed, CardDiscarded, CardExplored,
    CardReturned, ResourceStolen, CardDeclined, CardTakenBack, ResolutionEnded, PlayedCardsDiscarded,
    TurnFinished, EverythingSold, TimeoutApplied, GameEnded,
)
