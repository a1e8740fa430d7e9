"""The toy game's rules: set-up, decide, the fold (evolve, one rule per event in a shared
``domain.engine.FoldRules`` table), who acts, legal and default moves."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.core import SYSTEM, Actor, Rejected, RejectKind
from domain.engine import FoldRules
from domain.rng import Rng
from domain.toy.model import (
    BIDS,
    PLAYERS,
    PRIZES,
    ROUNDS,
    Bid,
    BidPlaced,
    BidsRevealed,
    Command,
    Config,
    Edition,
    Event,
    GameEnded,
    GameStarted,
    PrizeDrawn,
    Reveal,
    State,
)

OPTIONS = frozenset({"edition", "players", "rounds"})


def config_from_json(data: dict[str, Any]) -> Config:
    if not isinstance(data, dict) or set(data) - OPTIONS:
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown option(s) in {sorted(data)}")
    if data.get("edition") != Edition.CLASSIC.value:
        raise Rejected(RejectKind.INVALID_CONFIG, f"edition {data.get('edition')!r} is not classic")
    players, rounds = data.get("players"), data.get("rounds", 3)
    if not isinstance(players, int) or players not in PLAYERS:
        raise Rejected(RejectKind.INVALID_CONFIG, f"players {players!r} is not {PLAYERS[0]}..{PLAYERS[-1]}")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds not in ROUNDS:
        raise Rejected(RejectKind.INVALID_CONFIG, f"rounds {rounds!r} is not {ROUNDS[0]}..{ROUNDS[-1]}")
    return Config(Edition.CLASSIC, players, rounds)


def config_to_json(config: Config) -> dict[str, Any]:
    return {"edition": config.edition.value, "players": config.players, "rounds": config.rounds}


def setup(config: Config, rng: Rng) -> list[Event]:
    return [GameStarted(config.players, config.rounds), _prize(rng)]


def _prize(rng: Rng) -> PrizeDrawn:
    prize = 1 + rng.below(PRIZES)
    return PrizeDrawn(prize, rng.counter)


def decide(state: State, command: Command, rng: Rng) -> list[Event]:
    if state.finished:
        raise Rejected(RejectKind.GAME_OVER, "the game is over")
    if isinstance(command, Reveal):
        if None in state.bids:
            raise Rejected(RejectKind.WRONG_PHASE, "not every seat has bid")
        revealed = BidsRevealed(tuple(b for b in state.bids if b is not None), state.prize)
        if state.round + 1 >= state.rounds:
            return [revealed, GameEnded()]
        return [revealed, _prize(rng)]
    if command.seat not in to_act(state):
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"seat {command.seat} is not to act")
    if command.bid not in BIDS:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"bid {command.bid} is not one of {BIDS}")
    return [BidPlaced(command.seat, command.bid)]


FOLD = FoldRules[State]("a toy")  # event class -> rule(state, event); evolve never re-validates


def evolve(state: State | None, event: Event) -> State:
    """The fold: the state after ``event``."""
    return FOLD.fold(state, event)


@FOLD.rule
def _started(_state: None, e: GameStarted) -> State:
    return State(e.players, e.rounds, 0, (None,) * e.players, (0,) * e.players, 0, 0, False)


@FOLD.rule
def _prize_drawn(state: State, e: PrizeDrawn) -> State:
    return replace(state, prize=e.prize, draws=e.draws)


@FOLD.rule
def _bid_placed(state: State, e: BidPlaced) -> State:
    bids = list(state.bids)
    bids[e.seat] = e.bid
    return replace(state, bids=tuple(bids))


@FOLD.rule
def _bids_revealed(state: State, e: BidsRevealed) -> State:
    top = max(e.bids)
    alone = e.bids.count(top) == 1
    scores = tuple(s + (e.prize * b if alone and b == top else 0) for s, b in zip(state.scores, e.bids))
    return replace(state, scores=scores, bids=(None,) * state.players, round=state.round + 1)


@FOLD.rule
def _ended(state: State, e: GameEnded) -> State:
    return replace(state, finished=True)


def to_act(state: State) -> frozenset[Actor]:
    if state.finished:
        return frozenset()
    waiting = frozenset(i for i, b in enumerate(state.bids) if b is None)
    return waiting or frozenset({SYSTEM})


def legal_moves(state: State, actor: Actor) -> list[Command]:
    if actor not in to_act(state):
        return []
    if actor == SYSTEM:
        return [Reveal()]
    assert isinstance(actor, int)
    return [Bid(actor, b) for b in BIDS]


def default_move(state: State, actor: Actor) -> Command:
    """What a timeout plays: the lowest bid (the system reveals)."""
    return legal_moves(state, actor)[0]


def is_finished(state: State) -> bool:
    return state.finished


def draw_counter(state: State) -> int:
    return state.draws
