"""decide, step, to_act, legal_moves and default_move for The Cathedral of Orléans.

Only the seat whose turn it is ever acts (the game has no simultaneous steps and no system steps
besides clock timeouts): it draws, places, carries out its action, receives its rewards. After
each command ``flow.settle`` runs the automatic steps up to the next decision.
"""
from __future__ import annotations

from typing import Any

from domain.cathedral import data as D
from domain.cathedral.common import Tx, is_full
from domain.cathedral.data import Action, Bag, Reward, Space
from domain.cathedral.flow import settle
from domain.cathedral.model import (
    SYSTEM,
    ApplyTimeout,
    DrawFollower,
    EndTurn,
    FinishAction,
    Forgo,
    GiveRosette,
    PlaceFollower,
    PutMonk,
    State,
    TimeoutApplied,
    owing_room,
)
from domain.cathedral.moves import COMMAND_RULES, Stage, allowed_types, options, stage
from domain.core import Actor, Rejected, RejectKind, refuse_unless_allowed, who

# --- who acts ----------------------------------------------------------------------------------------


def to_act(state: State) -> frozenset[Actor]:
    """The seat whose turn it is, or first a seat a gift left with an over-full knapsack (rules 2)."""
    if state.outcome is not None:
        return frozenset()
    owing = owing_room(state)
    return frozenset({state.active if owing is None else owing})


# --- decide ----------------------------------------------------------------------------------------------


def guard(state: State, command: Any) -> None:
    """The fixed order of checks before any rule runs."""
    if state.outcome is not None:
        raise Rejected(RejectKind.GAME_OVER, "the game is over")
    seat = getattr(command, "seat", None)
    if isinstance(command, ApplyTimeout):
        if seat != SYSTEM:
            raise Rejected(RejectKind.NOT_YOUR_TURN, "only the system applies timeouts")
        if command.target not in to_act(state):
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.target} is not to act")
        return
    if seat not in to_act(state):
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who(seat)} is not to act; it is seat {min(to_act(state))}'s turn")
    refuse_unless_allowed(command, allowed_types(state))
    why = COMMAND_RULES[type(command)].validate(state, command)
    if why:
        raise Rejected(RejectKind.ILLEGAL_MOVE, why)


def decide(state: State, command: Any, rng: Any) -> list[Any]:
    return transact(state, command, rng).events


def step(state: State, command: Any, rng: Any) -> tuple[list[Any], State]:
    """``decide`` and the state after its events, which the transaction has already folded."""
    tx = transact(state, command, rng)
    return tx.events, tx.state


def transact(state: State, command: Any, rng: Any) -> Tx:
    guard(state, command)
    tx = Tx(state, rng)
    if isinstance(command, ApplyTimeout):
        command = default_move(state, command.target)
        tx.emit(TimeoutApplied(command.seat, type(command).__name__))
    COMMAND_RULES[type(command)].apply(tx, command)
    settle(tx)
    return tx


# --- legal moves -----------------------------------------------------------------------------------------


def legal_moves(state: State, actor: Actor) -> list[Any]:
    if state.outcome is not None:
        return []
    owing = owing_room(state)
    seat = state.active if owing is None else owing
    if actor == SYSTEM:
        return [ApplyTimeout(seat)]
    if actor != seat:
        return []
    return options(state, seat, allowed_types(state))


# --- the move a timeout applies ----------------------------------------------------------------------------
# The mildest legal move: draw from the red bag (the blue one if red is empty); put the tile on the
# first free space whose action may be refused (else a Festival Ground, the Bell Tower last); stop
# the action; take a rosette reward into one's own knapsack when there is room (else leave it);
# a Monk into the red bag; end the turn without resting.

REFUSABLE_FIRST = tuple(sorted(Space, key=lambda s: (D.SPACES[s].action in D.MANDATORY_ACTIONS,
                                                    D.SPACES[s].action is Action.BELL_TOWER)))


def default_move(state: State, actor: Actor) -> Any:
    moves = legal_moves(state, actor)
    if not moves:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who(actor)} has no move to make")
    if actor == SYSTEM:
        return moves[0]  # the timeout of the seat to act
    seat = state.active
    now = stage(state)
    if now is Stage.MAKE_ROOM:
        return moves[0]  # the first kind of item in the over-full knapsack goes back
    if now is Stage.DRAW:
        return DrawFollower(seat, Bag.RED if state.red_bag else Bag.BLUE)
    if now is Stage.PLACE:
        return next(PlaceFollower(seat, s) for s in REFUSABLE_FIRST if PlaceFollower(seat, s) in moves)
    if now is Stage.ACTION:
        return FinishAction(seat)
    if now is Stage.REWARD and state.rewards[0] is Reward.ROSETTE:
        return Forgo(seat) if is_full(state, seat) else GiveRosette(seat, seat)
    if now is Stage.REWARD:
        return PutMonk(seat, Bag.RED)
    return EndTurn(seat)
