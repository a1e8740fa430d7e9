"""decide, step, to_act, legal_moves and default_move for Artificium.

Every seat command has one validator (None or why it is illegal), one applier (emits events) and
one candidate generator. ``legal_moves`` keeps the candidates the validator accepts, so "accepted
by decide" and "listed by legal_moves" cannot drift apart. After the move, ``flow.settle`` runs
the automatic steps up to the next decision.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.artificium import effects, market, playing, trade, turn
from domain.artificium.common import Tx
from domain.artificium.flow import settle
from domain.artificium.model import (
    SYSTEM,
    ApplyTimeout,
    BuyResource,
    CommitCard,
    DeclineCard,
    DiscardFromHand,
    ExchangeCard,
    FinishTurn,
    PassMarket,
    Phase,
    RedrawHand,
    ResolveCard,
    SellResource,
    StartTurn,
    State,
    TakeCardBack,
    TimeoutApplied,
)
from domain.core import Actor, Rejected, RejectKind, refuse_unless_allowed, who, who_list
from domain.engine import CommandRule

Candidates = Callable[[State, int], Iterable[Any]]


def _no_candidates(command: type) -> Candidates:
    return lambda state, seat: (command(seat),)


COMMAND_RULES: dict[type, CommandRule[State, Tx, Any]] = {
    ExchangeCard: CommandRule(market.validate_exchange, market.apply_exchange, market.candidates_exchange),
    RedrawHand: CommandRule(market.validate_redraw, market.apply_redraw, _no_candidates(RedrawHand)),
    PassMarket: CommandRule(market.validate_pass_market, market.apply_pass_market, _no_candidates(PassMarket)),
    CommitCard: CommandRule(playing.validate_commit, playing.apply_commit, playing.candidates_commit),
    BuyResource: CommandRule(trade.validate_buy, trade.apply_buy, trade.candidates_buy),
    SellResource: CommandRule(trade.validate_sell, trade.apply_sell, trade.candidates_sell),
    ResolveCard: CommandRule(effects.validate_resolve, effects.apply_resolve, effects.candidates_resolve),
    DeclineCard: CommandRule(playing.validate_revealed, playing.apply_decline, _no_candidates(DeclineCard)),
    TakeCardBack: CommandRule(playing.validate_revealed, playing.apply_take_back, _no_candidates(TakeCardBack)),
    DiscardFromHand: CommandRule(playing.validate_discard, playing.apply_discard, playing.candidates_discard),
    FinishTurn: CommandRule(turn.validate_finish, turn.apply_finish, _no_candidates(FinishTurn)),
}

RESOLVING = (ResolveCard, BuyResource, SellResource, DeclineCard, TakeCardBack)
# After these the seat stays to act in the same step (resolving its card, or its turn end): they
# do not end its decision (domain.games.provisional). A buy costs more than a sale pays and a
# discard empties the hand, so none of them can be repeated for ever either.
PROVISIONAL: frozenset[type] = frozenset({BuyResource, SellResource, DiscardFromHand})
PHASE_COMMANDS: dict[Phase, tuple[type, ...]] = {
    Phase.MARKET: (ExchangeCard, RedrawHand, PassMarket),
    Phase.COMMIT: (CommitCard,),
    Phase.RESOLVE: RESOLVING,
    Phase.TURN_END: (SellResource, DiscardFromHand, FinishTurn),
}


# --- who acts ------------------------------------------------------------------------------------------


def to_act(state: State) -> frozenset[Actor]:
    phase = state.phase
    if phase is Phase.START:
        return frozenset({SYSTEM})
    if phase is Phase.MARKET:
        return frozenset() if state.market_turn is None else frozenset({state.market_turn})
    if phase is Phase.COMMIT:
        return frozenset(s for s, p in enumerate(state.players) if not p.passed and p.committed is None)
    if phase is Phase.RESOLVE:
        return frozenset(state.queue[:1])
    if phase is Phase.TURN_END:
        return frozenset(s for s, p in enumerate(state.players) if not p.finished)
    return frozenset()


def allowed_types(state: State) -> tuple[type, ...]:
    if state.phase is Phase.RESOLVE and state.owed_discards:
        return (DiscardFromHand,)  # the Wizard's Tower: discard before anything else
    return PHASE_COMMANDS.get(state.phase, ())


# --- decide ------------------------------------------------------------------------------------------------


def guard(state: State, command: Any) -> None:
    """The fixed order of checks before any rule runs."""
    if state.phase is Phase.FINISHED:
        raise Rejected(RejectKind.GAME_OVER, "the game is over")
    seat = getattr(command, "seat", None)
    if isinstance(command, ApplyTimeout):
        if seat != SYSTEM:
            raise Rejected(RejectKind.NOT_YOUR_TURN, "only the system applies timeouts")
        if command.target not in to_act(state):
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.target} is not to act")
        return
    acting = to_act(state)
    if seat not in acting:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who(seat)} is not to act; waiting for {who_list(acting)}")
    if seat == SYSTEM:
        if not isinstance(command, StartTurn):
            raise Rejected(RejectKind.WRONG_PHASE, "the next system step is StartTurn")
        return
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
    if isinstance(command, StartTurn):
        turn.apply_start(tx, command)
    else:
        COMMAND_RULES[type(command)].apply(tx, command)
    settle(tx)
    return tx


# --- legal moves --------------------------------------------------------------------------------------------


def legal_moves(state: State, actor: Actor) -> list[Any]:
    if state.phase is Phase.FINISHED:
        return []
    acting = to_act(state)
    if actor == SYSTEM:
        if SYSTEM in acting:
            return [StartTurn()]
        return [ApplyTimeout(seat) for seat in sorted(a for a in acting if isinstance(a, int))]
    if actor not in acting or not isinstance(actor, int):
        return []
    moves: list[Any] = []
    for cls in allowed_types(state):
        rule = COMMAND_RULES[cls]
        validate, candidates = rule.validate, rule.candidates
        moves.extend(m for m in candidates(state, actor) if validate(state, m) is None)
    return moves


# The move a timeout applies (documented in the package docstring): keep what the seat has (pass
# the market, take the card back and sit out, finish the turn); a sealed step seals the first
# card, a Wizard's discard drops the first.
DEFAULTS = (PassMarket, TakeCardBack, FinishTurn)


def default_move(state: State, actor: Actor) -> Any:
    moves = legal_moves(state, actor)
    if not moves:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who(actor)} has no move to make")
    for m in moves:
        if isinstance(m, DEFAULTS):
            return m
    return moves[0]
