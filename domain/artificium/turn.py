"""Turns: 4 turns of 4 phases, Start, Card Market, Playing cards, Turn end (A-rules l.169-253).

Start: turn 1 deals 5 cards each; later turns fill every hand up to 5 (a bigger hand is kept).
From turn 2 the first-player marker goes to the seat with the fewest VP, ties to the tied seat
closest clockwise from the previous first player (A-rules l.171-177).
Turn end: played cards are discarded; each seat may discard hand cards and sell resources, then
finishes (A-rules l.246-253). The last turn goes straight to the final score, which sells
everything anyway.
"""
from __future__ import annotations

from domain.artificium import data as D
from domain.artificium.common import Tx, Why, draw_cards, turn_order
from domain.artificium.market import open_market
from domain.artificium.model import (
    FinishTurn,
    Phase,
    PhaseBegan,
    PlayedCardsDiscarded,
    StartTurn,
    State,
    TurnFinished,
    TurnStarted,
    sort_cards,
)


def next_first_player(state: State) -> int:
    """Fewest VP; ties to the closest clockwise from the previous first player."""
    fewest = min(p.vp for p in state.players)
    start = state.first_player if D.FIRST_PLAYER_TIE_INCLUDES_PREVIOUS else state.first_player + 1
    order = turn_order(state, start % state.config.players)
    return next(s for s in order if state.players[s].vp == fewest)


def validate_start(state: State, c: StartTurn) -> Why:
    return None


def apply_start(tx: Tx, c: StartTurn) -> None:
    state = tx.state
    turn = state.turn + 1
    first = state.first_player if turn == 1 else next_first_player(state)
    tx.emit(TurnStarted(turn, first))
    for seat in turn_order(tx.state):
        missing = D.HAND_SIZE - len(tx.state.players[seat].hand)
        if missing > 0:
            draw_cards(tx, seat, missing)
    open_market(tx)


def begin_turn_end(tx: Tx) -> None:
    discard_played(tx)
    tx.emit(PhaseBegan(Phase.TURN_END))


def discard_played(tx: Tx) -> None:
    played = sort_cards(c for p in tx.state.players for c in p.played)
    if played:
        tx.emit(PlayedCardsDiscarded(played))


def all_finished(state: State) -> bool:
    return all(p.finished for p in state.players)


def end_turn(tx: Tx) -> None:
    tx.emit(PhaseBegan(Phase.START))


def validate_finish(state: State, c: FinishTurn) -> Why:
    return None


def apply_finish(tx: Tx, c: FinishTurn) -> None:
    tx.emit(TurnFinished(c.seat))
