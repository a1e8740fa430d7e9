"""The automatic steps between two commands: closing the market, revealing sealed cards, moving
to the next resolving seat or step, ending the card play, the turn and the game.

Rule modules only emit the events of the move itself; ``settle`` then advances the game until a
seat (or the system) has a decision to make, so no phase module has to know its successor.
"""
from __future__ import annotations

from domain.artificium import data as D
from domain.artificium.common import Tx
from domain.artificium.market import close_market
from domain.artificium.model import Phase, ResolutionEnded
from domain.artificium.playing import all_committed, begin_step, reveal
from domain.artificium.scoring import end_game
from domain.artificium.turn import all_finished, begin_turn_end, discard_played, end_turn


def settle(tx: Tx) -> None:
    while _advance(tx):
        pass


def _advance(tx: Tx) -> bool:
    """Take one automatic step; False when someone has to decide."""
    state = tx.state
    if state.phase is Phase.MARKET and state.market_turn is None:
        close_market(tx)
        next_step(tx)
        return True
    if state.phase is Phase.COMMIT and all_committed(state):
        reveal(tx)
        return True
    if state.phase is Phase.RESOLVE:
        if not state.queue:
            next_step(tx)
            return True
        head = state.queue[0]
        if state.players[head].revealed is None and state.owed_discards == 0:
            tx.emit(ResolutionEnded(head))
            return True
    if state.phase is Phase.TURN_END and all_finished(state):
        end_turn(tx)
        return True
    return False


def next_step(tx: Tx) -> None:
    if begin_step(tx):
        return
    if tx.state.turn < D.TURNS:
        begin_turn_end(tx)
    else:
        discard_played(tx)
        end_game(tx)
