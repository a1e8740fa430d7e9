"""decide, step, to_act, legal_moves and default_move for Orléans: the fixed order of guards and
the table that names, for every seat command, its validator, its applier and its candidates.

Every seat command has one validator (None or why it is illegal), one applier (emits events) and
one candidate generator, all in the module of its phase or rule. ``legal_moves`` keeps the
candidates the validator accepts, so "accepted by decide" and "listed by legal_moves" cannot
drift apart. Generators marked exact build only valid moves from the validator's own predicates
and skip the re-check (the hot path of self-play); the random playout test validates every
listed move against ``decide``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from domain.core import SYSTEM, Actor, Rejected, RejectKind, refuse_unless_allowed, who, who_list
from domain.engine import CommandRule
from domain.orleans import actions, deeds, events, followers, places, planning, scoring, setup, torture, tracks, travel
from domain.orleans import data as D
from domain.orleans.common import Tx, Why, always_valid
from domain.orleans.memo import derived, keep, memo_key, recall
from domain.orleans.model import (
    SEAT_COMMANDS,
    ApplyTimeout,
    ChoiceKind,
    ChoosePlaceTile,
    Command,
    DrawFollowers,
    EndGame,
    Event,
    ExcludePlaceTile,
    FinishLoading,
    FinishPlanning,
    FinishSending,
    GiveUp,
    KeepTechnology,
    LoadTower,
    MoveToTower,
    Pass,
    PassStartPlayer,
    PayFood,
    Phase,
    PlaceDrawn,
    PlaceFollower,
    PlaceTechnology,
    RecallFollower,
    ResolveEvent,
    RevealHourglass,
    SeatCommand,
    SendToDeed,
    SkipExclusion,
    State,
    SystemCommand,
    TakeAction,
    TakeBackFollower,
    TakeCensus,
    TakeGood,
    TimeoutApplied,
    Travel,
    UnloadTower,
    UsePharmacy,
    UseVillage,
    rules_at_least,
)
from domain.rng import Rng

C = TypeVar("C", bound=SeatCommand)


COMMAND_RULES: dict[type[SeatCommand], CommandRule[State, Tx, Any]] = {
    ExcludePlaceTile: CommandRule(setup.validate_exclude, setup.apply_exclude, setup.candidates_exclude),
    SkipExclusion: CommandRule(setup.validate_skip_exclusion, setup.apply_skip_exclusion,
                               setup.candidates_skip_exclusion),
    RecallFollower: CommandRule(followers.validate_recall, followers.apply_recall, followers.candidates_recall,
                                exact=True),
    DrawFollowers: CommandRule(followers.validate_draw, followers.apply_draw, followers.candidates_draw, exact=True),
    LoadTower: CommandRule(followers.validate_load_tower, followers.apply_load_tower, followers.candidates_load_tower,
                           exact=True),
    UnloadTower: CommandRule(followers.validate_unload_tower, followers.apply_unload_tower,
                             followers.candidates_unload_tower, exact=True),
    FinishLoading: CommandRule(followers.validate_finish_loading, followers.apply_finish_loading,
                               followers.candidates_finish_loading),
    PlaceFollower: CommandRule(planning.validate_place, planning.apply_place, planning.candidates_place, exact=True),
    TakeBackFollower: CommandRule(planning.validate_take_back, planning.apply_take_back, planning.candidates_take_back,
                                  exact=True),
    MoveToTower: CommandRule(planning.validate_move_to_tower, planning.apply_move_to_tower,
                             planning.candidates_move_to_tower, exact=True),
    FinishPlanning: CommandRule(always_valid, planning.apply_finish_planning, planning.candidates_finish_planning,
                                exact=True),
    TakeAction: CommandRule(actions.validate_take_action, actions.apply_take_action, actions.candidates_take_action),
    UseVillage: CommandRule(tracks.validate_village, tracks.apply_village, tracks.candidates_village),
    Travel: CommandRule(travel.validate_travel, travel.apply_travel, travel.candidates_travel),
    UsePharmacy: CommandRule(places.validate_pharmacy, places.apply_pharmacy, places.candidates_pharmacy),
    Pass: CommandRule(always_valid, actions.apply_pass, actions.candidates_pass, exact=True),
    TakeGood: CommandRule(travel.validate_take_good, travel.apply_take_good, travel.candidates_take_good),
    ChoosePlaceTile: CommandRule(tracks.validate_choose_place_tile, tracks.apply_choose_place_tile,
                                 tracks.candidates_choose_place_tile),
    SendToDeed: CommandRule(deeds.validate_send, deeds.apply_send, deeds.candidates_send),
    FinishSending: CommandRule(deeds.validate_finish_sending, deeds.apply_finish_sending,
                               deeds.candidates_finish_sending),
    PlaceDrawn: CommandRule(places.validate_place_drawn, places.apply_place_drawn, places.candidates_place_drawn),
    PlaceTechnology: CommandRule(actions.validate_place_technology, actions.apply_place_technology,
                                 actions.candidates_place_technology),
    KeepTechnology: CommandRule(always_valid, actions.apply_keep_technology, actions.candidates_keep_technology,
                                exact=True),
    PayFood: CommandRule(events.validate_pay_food, events.apply_pay_food, events.candidates_pay_food),
    GiveUp: CommandRule(torture.validate_give_up, torture.apply_give_up, torture.torture_options, exact=True),
}

SYSTEM_STEPS: dict[type[SystemCommand], Callable[[Tx, Any], None]] = {
    RevealHourglass: events.reveal_hourglass, TakeCensus: followers.take_census, ResolveEvent: events.resolve_event,
    PassStartPlayer: scoring.pass_start_player, EndGame: scoring.end_game,
}

APPLY: dict[type, Callable[[Tx, Any], None]] = {
    **{cls: rule.apply for cls, rule in COMMAND_RULES.items()}, **SYSTEM_STEPS,
}

CHOICE_COMMANDS: dict[ChoiceKind, tuple[type[SeatCommand], ...]] = {
    ChoiceKind.GOOD: (TakeGood,), ChoiceKind.PLACE_TILE: (ChoosePlaceTile,),
    ChoiceKind.DEEDS: (SendToDeed, FinishSending), ChoiceKind.BATHHOUSE: (PlaceDrawn,),
    ChoiceKind.TECHNOLOGY: (PlaceTechnology, KeepTechnology),
}
PHASE_COMMANDS: dict[Phase, tuple[type[SeatCommand], ...]] = {
    Phase.EXCLUSION: (ExcludePlaceTile, SkipExclusion), Phase.FOLLOWERS: (RecallFollower, DrawFollowers),
    Phase.PLANNING: (PlaceFollower, TakeBackFollower, FinishPlanning),
    Phase.ACTIONS: (TakeAction, UseVillage, Travel, UsePharmacy, Pass),
}
LOADING_COMMANDS: tuple[type[SeatCommand], ...] = (LoadTower, FinishLoading)  # phase 3, after the draw
LOADING_COMMANDS_5: tuple[type[SeatCommand], ...] = (LoadTower, UnloadTower, FinishLoading)  # rules 5 (D15)
# Rules 2 (games recorded before orleans-3): the exclusion could not be skipped, the tower was
# loaded during planning and a placement could not be taken back.
LEGACY_PHASE_COMMANDS: dict[Phase, tuple[type[SeatCommand], ...]] = {
    **PHASE_COMMANDS,
    Phase.EXCLUSION: (ExcludePlaceTile,), Phase.PLANNING: (PlaceFollower, MoveToTower, FinishPlanning),
}


# --- who acts ---------------------------------------------------------------------------------------

# The phases read on every decision, as module constants: on Python 3.11 reading a member off its
# Enum class (Phase.FINISHED) goes through EnumType's __getattr__ hook, several times slower.
FINISHED, ACTIONS, FOLLOWERS, PLANNING = Phase.FINISHED, Phase.ACTIONS, Phase.FOLLOWERS, Phase.PLANNING
ONE_AT_A_TIME = (Phase.EXCLUSION, Phase.ACTIONS)  # phases that go round the table one seat at a time

LISTED = memo_key(State, "_listed")  # seat -> the moves legal_moves listed for it (see guard)


@derived(State, depends_on=(  # what it reads: a placement or a recall keeps it
    "phase", "dues", "choice", "turn", "players.drew", "players.loading", "players.planned"))
def to_act(state: State) -> frozenset[Actor]:
    phase = state.phase
    if phase is FINISHED:
        return frozenset()
    if state.dues:
        return frozenset(d.seat for d in state.dues)
    if state.choice is not None:
        return frozenset({state.choice.seat})
    if phase in ONE_AT_A_TIME:
        assert state.turn is not None
        return frozenset({state.turn})
    seats: list[Actor] = []
    if phase is FOLLOWERS:
        for i, p in enumerate(state.players):
            if not p.drew or p.loading:
                seats.append(i)
        return frozenset(seats)
    if phase is PLANNING:
        for i, p in enumerate(state.players):
            if not p.planned:
                seats.append(i)
        return frozenset(seats)
    return frozenset({SYSTEM})


FOOD_COMMANDS: tuple[type[SeatCommand], ...] = (PayFood,)  # a Harvest's food is paid first
TORTURE_COMMANDS: tuple[type[SeatCommand], ...] = (GiveUp,)


def allowed_types(state: State, seat: int) -> tuple[type[SeatCommand], ...]:
    if state.dues and any(d.seat == seat for d in state.dues):
        kinds = {d.kind for d in state.dues if d.seat == seat}
        return FOOD_COMMANDS if "food" in kinds else TORTURE_COMMANDS
    if state.choice is not None:
        return CHOICE_COMMANDS[state.choice.kind]
    if not rules_at_least(state, 3):
        return LEGACY_PHASE_COMMANDS.get(state.phase, ())
    if state.phase is FOLLOWERS and state.players[seat].loading:
        return LOADING_COMMANDS_5 if rules_at_least(state, 5) else LOADING_COMMANDS
    return PHASE_COMMANDS.get(state.phase, ())


SYSTEM_STEP: dict[Phase, SystemCommand] = {
    Phase.HOURGLASS: RevealHourglass(), Phase.CENSUS: TakeCensus(), Phase.EVENT: ResolveEvent(),
    Phase.START_PLAYER: PassStartPlayer(),
}


def system_step(state: State) -> SystemCommand:
    if state.phase is Phase.START_PLAYER and state.round >= D.ROUNDS:
        return EndGame()
    return SYSTEM_STEP[state.phase]


# --- decide -------------------------------------------------------------------------------------------


def guard(state: State, command: Command) -> None:
    """The fixed order of checks before any rule runs.

    A command that legal_moves listed for this very state object passes all of them (the list
    exists only for a seat to act in an unfinished game, and holds what the validators accept:
    accepted <=> listed, tests/contract/), so it is looked for first.
    """
    listed: dict[Actor, tuple[Command, ...]] | None = recall(state, LISTED)
    if listed is not None:
        for move in listed.get(command.seat, ()):
            if move is command:
                return
    if state.phase is FINISHED:
        raise Rejected(RejectKind.GAME_OVER, "the game is over")
    seat = command.seat
    if isinstance(command, ApplyTimeout):
        if seat != SYSTEM:
            raise Rejected(RejectKind.NOT_YOUR_TURN, "only the system applies timeouts")
        if command.target not in to_act(state):
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.target} is not to act")
        return
    acting = to_act(state)
    if seat not in acting:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who(seat)} is not to act; waiting for {who_list(acting)}")
    if not isinstance(command, SEAT_COMMANDS):
        if command != system_step(state):
            raise Rejected(RejectKind.WRONG_PHASE, f"the next system step is {type(system_step(state)).__name__}")
        return
    refuse_unless_allowed(command, allowed_types(state, command.seat))
    why = COMMAND_RULES[type(command)].validate(state, command)
    if why:
        raise Rejected(RejectKind.ILLEGAL_MOVE, why)


def decide(state: State, command: Command, rng: Rng) -> list[Event]:
    return transact(state, command, rng).events


def step(state: State, command: Command, rng: Rng) -> tuple[list[Event], State]:
    """``decide`` and the state after its events, which the transaction has already folded."""
    tx = transact(state, command, rng)
    return tx.events, tx.state


def transact(state: State, command: Command, rng: Rng) -> Tx:
    guard(state, command)
    tx = Tx(state, rng)
    move: Command
    if isinstance(command, ApplyTimeout):
        move = _apply_timeout(tx, command)
    else:
        move = command
        APPLY[type(move)](tx, move)
    if state.phase is ACTIONS and move.seat != SYSTEM and not state.dues:
        actions.end_turn(tx)  # one action (with its choices) or a pass per turn
    return tx


def _apply_timeout(tx: Tx, command: ApplyTimeout) -> Command:
    """Apply the target's default move; returns it."""
    state, target = tx.state, command.target
    move = default_move(state, target)
    tx.emit(TimeoutApplied(target, type(move).__name__))
    APPLY[type(move)](tx, move)
    if rules_at_least(state, 4):
        while tx.state.players[target].loading:  # D14: one timeout ends a tower loading, begun by it or not
            loading = default_move(tx.state, target)
            APPLY[type(loading)](tx, loading)
    return move


# --- legal moves --------------------------------------------------------------------------------------


def legal_moves(state: State, actor: Actor) -> list[Command]:
    """Listed afresh from the state, once per state and actor (kept on the state for ``guard``)."""
    listed: dict[Actor, tuple[Command, ...]] | None = recall(state, LISTED)
    if listed is not None and actor in listed:
        return list(listed[actor])
    if state.phase is FINISHED:
        return []
    acting = to_act(state)
    if isinstance(actor, str):  # SYSTEM: its step, or a timeout for each seat to act
        if SYSTEM in acting:
            return [system_step(state)]
        return [ApplyTimeout(seat) for seat in sorted(s for s in acting if isinstance(s, int))]
    if actor not in acting:
        return []
    fresh = _seat_moves(state, actor)
    if listed is None:
        keep(state, LISTED, {actor: tuple(fresh)})
    else:
        listed[actor] = tuple(fresh)
    return fresh


def _seat_moves(state: State, actor: int) -> list[Command]:
    moves: list[Command] = []
    for candidates, validate in _plan(allowed_types(state, actor)):
        if validate is None:
            moves += candidates(state, actor)
        else:
            for m in candidates(state, actor):
                if validate(state, m) is None:
                    moves.append(m)
    return moves


Plan = tuple[tuple[Callable[[State, int], Iterable[Any]], Callable[[State, Any], Why] | None], ...]
_PLANS: dict[tuple[type[SeatCommand], ...], Plan] = {}


def _plan(types: tuple[type[SeatCommand], ...]) -> Plan:
    """Per allowed command type, its candidates and the validator they still need (None: exact)."""
    plan = _PLANS.get(types)
    if plan is None:
        plan = _PLANS[types] = tuple(
            (COMMAND_RULES[cls].candidates, None if COMMAND_RULES[cls].exact else COMMAND_RULES[cls].validate)
            for cls in types)
    return plan


# The move a timeout applies when the seat has no draw to make: skip the exclusion, leave the
# tower as it is, finish planning, pass, or the finishing move of a choice; otherwise the first
# listed (a compulsory exclusion: the first tile; goods: the most valuable; torture: the D12
# order; food: grain first; a market over its 8 spaces: its first tile onto the tower). Rules 4
# (D14): a timeout plays the seat's default moves until its tower loading, if any, is over.
DEFAULTS: tuple[type[SeatCommand], ...] = (
    SkipExclusion, FinishLoading, FinishPlanning, Pass, FinishSending, KeepTechnology,
)

# The commands after which a seat that stays to act is still in the same decision: its part of a
# simultaneous phase is not over until it says so (FinishLoading, FinishPlanning) or it has
# drawn without a tower to load. Clocks (core/clocks.py) run one stint over all of them.
PROVISIONAL: frozenset[type[SeatCommand]] = frozenset({
    RecallFollower, DrawFollowers, LoadTower, UnloadTower, PlaceFollower, TakeBackFollower, MoveToTower,
})


def default_move(state: State, actor: Actor) -> Command:
    """The move a timeout applies: draw the most, else the first of ``DEFAULTS`` listed, else
    the first listed move."""
    moves = legal_moves(state, actor)
    if not moves:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who(actor)} has no move to make")
    draws = [m for m in moves if isinstance(m, DrawFollowers)]
    if draws:
        return draws[-1]
    for wanted in DEFAULTS:
        for m in moves:
            if isinstance(m, wanted):
                return m
    return moves[0]
