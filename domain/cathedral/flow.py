"""The automatic steps between two decisions: Event orders met, rewards that need no choice, an
action with nothing left to do, and passing the turn.

Rule modules emit only the events of the move itself; ``settle`` then advances the game until the
seat to act has a real decision (or the game is over), so no rule module has to know what follows.
"""
from __future__ import annotations

from domain.cathedral import data as D
from domain.cathedral import rewards
from domain.cathedral.common import Tx, is_full, order_met
from domain.cathedral.model import ActionFinished, OrderFulfilled, RewardsEarned, Step, owing_room
from domain.cathedral.moves import action_possible
from domain.cathedral.turn import pass_turn


def settle(tx: Tx) -> None:
    while tx.state.outcome is None and _advance(tx):
        pass


def _advance(tx: Tx) -> bool:
    """Take one automatic step; False when someone has to decide."""
    state = tx.state
    seat = state.active
    if owing_room(state) is not None:
        return False  # the receiver of a gift makes room first (rules 2, C-rules l.173-180)
    if order_met(state) and state.order is not None:
        tx.emit(OrderFulfilled(seat, state.order))
        tx.emit(RewardsEarned(seat, D.ORDER_REWARD))
        return True
    if state.rewards:
        return rewards.receive_next(tx)
    if state.step is Step.ACTION and not action_possible(state):
        tx.emit(ActionFinished(seat))  # done, or nothing (more) can be done: e.g. no river here
        return True
    if state.step is Step.END and not is_full(state, seat):
        pass_turn(tx)  # a full knapsack may still rest: the seat decides (Rest or EndTurn)
        return True
    return False
