"""Playing cards (A-rules l.195-224): simultaneous, sealed steps.

At each step every seat still playing seals one hand card. When the last one has committed, all
are revealed together and resolve one seat at a time: Action cards first, in turn order from the
first player, then Building cards (A§4 building_resolution_order). The seat whose card is up may
trade with the bank first (``trade.py``), then resolves it (``effects.py``), or declines it
(discarded, the seat keeps playing) or takes it back (to hand, and the seat is out of this
turn's play). Neither of the last two scores anything. A seat with an empty hand is out too.
"""
from __future__ import annotations

from collections.abc import Iterator

from domain.artificium import data as D
from domain.artificium.common import Tx, Why, turn_order
from domain.artificium.data import CardKind
from domain.artificium.model import (
    CardCommitted,
    CardDeclined,
    CardDiscarded,
    CardsRevealed,
    CardTakenBack,
    CommitCard,
    DeclineCard,
    DiscardFromHand,
    Phase,
    PhaseBegan,
    PlayPassed,
    State,
    StepBegan,
    TakeCardBack,
)


def begin_step(tx: Tx) -> bool:
    """Start the next step; False (and nothing started) when no seat is left to play."""
    for seat, p in enumerate(tx.state.players):
        if not p.passed and not p.hand:
            tx.emit(PlayPassed(seat))
    if all(p.passed for p in tx.state.players):
        return False
    tx.emit(StepBegan(tx.state.step + 1))
    tx.emit(PhaseBegan(Phase.COMMIT))
    return True


def all_committed(state: State) -> bool:
    return all(p.passed or p.committed is not None for p in state.players)


def resolution_order(state: State) -> tuple[int, ...]:
    """Seats with a sealed card: Actions first, then Buildings, each in turn order."""
    assert D.BUILDING_RESOLUTION_ORDER is D.ResolutionOrder.TURN_ORDER_FROM_FIRST_PLAYER
    seats = [s for s in turn_order(state) if state.players[s].committed is not None]
    actions = [s for s in seats if _kind(state, s) is CardKind.ACTION]
    return tuple(actions + [s for s in seats if s not in actions])


def _kind(state: State, seat: int) -> CardKind:
    card = state.players[seat].committed
    assert card is not None
    return D.CARDS[card].kind


def reveal(tx: Tx) -> None:
    order = resolution_order(tx.state)
    cards = tuple(tx.state.players[s].committed for s in order)
    tx.emit(CardsRevealed(order, tuple(c for c in cards if c is not None)))


# --- commit ------------------------------------------------------------------------------------------------


def validate_commit(state: State, c: CommitCard) -> Why:
    if c.card not in state.players[c.seat].hand:
        return f"{c.card.value} is not in your hand"
    return None


def apply_commit(tx: Tx, c: CommitCard) -> None:
    tx.emit(CardCommitted(c.seat, c.card))


def candidates_commit(state: State, seat: int) -> Iterator[CommitCard]:
    return (CommitCard(seat, card) for card in dict.fromkeys(state.players[seat].hand))


# --- declining a revealed card --------------------------------------------------------------------------


def validate_revealed(state: State, c: DeclineCard | TakeCardBack) -> Why:
    return None if state.players[c.seat].revealed is not None else "you have no revealed card"


def apply_decline(tx: Tx, c: DeclineCard) -> None:
    card = tx.state.players[c.seat].revealed
    assert card is not None
    tx.emit(CardDeclined(c.seat, card, D.FAIR_COUNTS_DECLINED_CARDS))


def apply_take_back(tx: Tx, c: TakeCardBack) -> None:
    card = tx.state.players[c.seat].revealed
    assert card is not None
    tx.emit(CardTakenBack(c.seat, card))
    tx.emit(PlayPassed(c.seat))


# --- discarding from hand (the Wizard's Tower, Turn end) ------------------------------------------------


def validate_discard(state: State, c: DiscardFromHand) -> Why:
    if c.card not in state.players[c.seat].hand:
        return f"{c.card.value} is not in your hand"
    return None


def apply_discard(tx: Tx, c: DiscardFromHand) -> None:
    tx.emit(CardDiscarded(c.seat, c.card))


def candidates_discard(state: State, seat: int) -> Iterator[DiscardFromHand]:
    return (DiscardFromHand(seat, card) for card in dict.fromkeys(state.players[seat].hand))
