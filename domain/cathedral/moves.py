"""Every seat command's validator, applier and candidates, and which commands fit the moment.

A validator answers None or why the command is illegal; ``legal_moves`` keeps the candidates the
validator accepts, so "accepted by decide" and "listed by legal_moves" cannot drift apart.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from domain.cathedral import glass, market, rewards, travel, turn
from domain.cathedral.common import Tx, Why, put_back_choices
from domain.cathedral.data import Action, Reward
from domain.cathedral.model import (
    ActionFinished,
    Deliver,
    DrawFollower,
    EndTurn,
    FinishAction,
    Forgo,
    GiveRosette,
    MakeGlass,
    MakeRoom,
    PaintGlass,
    PlaceFollower,
    PutMonk,
    Rest,
    State,
    Step,
    TakeItem,
    Travel,
    owing_room,
)
from domain.engine import CommandRule

Candidates = Callable[[State, int], Iterable[Any]]


class Stage(str, Enum):
    """What the seat to act is deciding (the turn's step, or a reward that needs a choice)."""

    MAKE_ROOM = "make_room"  # rules 2: a receiver puts an item back from an over-full knapsack
    DRAW = "draw"
    PLACE = "place"
    ACTION = "action"
    REWARD = "reward"
    TURN_END = "turn_end"
    FINISHED = "finished"


def stage(state: State) -> Stage:
    if state.outcome is not None:
        return Stage.FINISHED
    if owing_room(state) is not None:
        return Stage.MAKE_ROOM
    if state.rewards:
        return Stage.REWARD
    return {Step.DRAW: Stage.DRAW, Step.PLACE: Stage.PLACE, Step.ACTION: Stage.ACTION,
            Step.END: Stage.TURN_END}[state.step]


def _single(command: type) -> Candidates:
    return lambda state, seat: (command(seat),)


def _candidates_make(state: State, seat: int) -> Iterable[MakeGlass]:
    return (MakeGlass(seat, back) for back in put_back_choices(state, seat))


def _validate_finish(state: State, c: FinishAction) -> Why:
    return None


def _apply_finish(tx: Tx, c: FinishAction) -> None:
    tx.emit(ActionFinished(c.seat))


COMMAND_RULES: dict[type, CommandRule[State, Tx, Any]] = {
    DrawFollower: CommandRule(turn.validate_draw, turn.apply_draw, turn.candidates_draw),
    PlaceFollower: CommandRule(turn.validate_place, turn.apply_place, turn.candidates_place),
    Travel: CommandRule(travel.validate_travel, travel.apply_travel, travel.candidates_travel),
    TakeItem: CommandRule(travel.validate_take, travel.apply_take, travel.candidates_take),
    Deliver: CommandRule(market.validate_deliver, market.apply_deliver, market.candidates_deliver),
    MakeGlass: CommandRule(glass.validate_make, glass.apply_make, _candidates_make),
    PaintGlass: CommandRule(glass.validate_paint, glass.apply_paint, _single(PaintGlass)),
    FinishAction: CommandRule(_validate_finish, _apply_finish, _single(FinishAction)),
    GiveRosette: CommandRule(rewards.validate_give_rosette, rewards.apply_give_rosette, rewards.candidates_give_rosette),
    PutMonk: CommandRule(rewards.validate_put_monk, rewards.apply_put_monk, rewards.candidates_put_monk),
    Forgo: CommandRule(rewards.validate_forgo, rewards.apply_forgo, _single(Forgo)),
    Rest: CommandRule(turn.validate_rest, turn.apply_rest, _single(Rest)),
    EndTurn: CommandRule(turn.validate_end_turn, turn.apply_end_turn, _single(EndTurn)),
    MakeRoom: CommandRule(rewards.validate_make_room, rewards.apply_make_room, rewards.candidates_make_room),
}

# What carrying out each refusable action takes (Festival Ground and Bell Tower happen at once).
ACTION_COMMANDS: dict[Action, tuple[type, ...]] = {
    Action.CART: (Travel, TakeItem),
    Action.BOAT: (Travel, TakeItem),
    Action.MARKET: (Deliver,),
    Action.GLASS_FOUNDRY: (MakeGlass,),
    Action.GLASS_PAINTING: (PaintGlass,),
}
REWARD_COMMANDS: dict[Reward, tuple[type, ...]] = {
    Reward.ROSETTE: (GiveRosette, Forgo),
    Reward.MONK: (PutMonk,),
}


def allowed_types(state: State) -> tuple[type, ...]:
    """The command types the seat to act may send now; Rest fits every moment of one's turn."""
    now = stage(state)
    if now is Stage.FINISHED:
        return ()
    if now is Stage.MAKE_ROOM:
        return (MakeRoom,)
    if now is Stage.REWARD:
        return REWARD_COMMANDS.get(state.rewards[0], ()) + (Rest,)
    if now is Stage.ACTION:
        assert state.pending is not None
        return ACTION_COMMANDS.get(state.pending.action, ()) + (FinishAction, Rest)
    return {Stage.DRAW: (DrawFollower,), Stage.PLACE: (PlaceFollower,), Stage.TURN_END: (EndTurn,)}[now] + (Rest,)


# A command type's validator that starts with a test of the moment alone (no candidate needed):
# when it refuses, every candidate of the type is refused, so options and action_possible skip them.
SHUT: dict[type, Callable[[State], Why]] = {Deliver: market.market_open, Travel: travel.may_travel}


def options(state: State, seat: int, types: Iterable[type]) -> list[Any]:
    out: list[Any] = []
    for cls in types:
        shut = SHUT.get(cls)
        if shut is not None and shut(state):  # the validator would refuse every candidate
            continue
        rule = COMMAND_RULES[cls]
        validate, candidates = rule.validate, rule.candidates
        out.extend(m for m in candidates(state, seat) if validate(state, m) is None)
    return out


def action_possible(state: State) -> bool:
    """Whether the pending action still offers anything beyond stopping."""
    if state.pending is None:
        return False
    seat = state.active
    for cls in ACTION_COMMANDS.get(state.pending.action, ()):  # the first valid one is enough
        shut = SHUT.get(cls)
        if shut is not None and shut(state):
            continue
        rule = COMMAND_RULES[cls]
        validate = rule.validate
        if any(validate(state, m) is None for m in rule.candidates(state, seat)):
            return True
    return False
