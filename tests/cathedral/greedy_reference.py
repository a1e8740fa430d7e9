"""The Cathedral greedy bot as it was before issue 26 made it fast, kept verbatim (but for this
line) so tests/cathedral/test_greedy_same_choices.py can check the fast bot picks the same moves.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from domain import games
from domain.bots.cathedral_estimate import estimate
from domain.cathedral import data as D
from domain.cathedral.data import Space
from domain.cathedral.evolve import evolve
from domain.cathedral.model import DrawFollower, FollowerDrawn, PlaceFollower, State, Step
from domain.core import Rejected
from domain.rng import Rng

DEPTH = 4  # the move and the seat's next three decisions of the same turn
BEAM = 3  # below the first move, only the best few continuations (by their plain estimate) go deeper
SAMPLES = 3  # chance outcomes averaged for a move that turns over a tile


def choose(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    """Pick one of ``moves`` (``rules.legal_moves(state, seat)``) for ``seat``."""
    if len(moves) == 1:
        return moves[0]
    candidates = useful(moves)
    scored = [(value_of(rules, state, seat, m, rng, DEPTH), i) for i, m in enumerate(candidates)]
    best = max(score for score, _ in scored)
    tied = [candidates[i] for score, i in scored if score >= best - 1e-9]
    return tied[0] if len(tied) == 1 else rng.pick(tied)


def useful(moves: Sequence[Any]) -> list[Any]:
    """The moves worth considering: no Bell Tower while anything else fits, and one space per
    action (two Market spaces do the same thing)."""
    out, actions = [], set()
    for m in moves:
        if isinstance(m, PlaceFollower):
            action = D.SPACES[m.space].action
            if m.space is Space.BT or action in actions:
                continue
            actions.add(action)
        out.append(m)
    return out or [m for m in moves if isinstance(m, PlaceFollower) and m.space is Space.BT] or list(moves)


def value_of(rules: Any, state: State, seat: int, move: Any, rng: Rng, depth: int) -> float:
    """The expected value of ``move`` followed by the seat's best continuation of its turn."""
    outcomes = after(rules, state, seat, move, rng)
    if not outcomes:
        return float("-inf")
    return sum(p * best_value(rules, s, seat, rng, depth - 1) for p, s in outcomes)


def best_value(rules: Any, state: State, seat: int, rng: Rng, depth: int) -> float:
    # (not to act: the turn passed on, or a gift's receiver makes room first)
    if depth <= 0 or state.outcome is not None or seat not in rules.to_act(state) or state.step is Step.DRAW:
        return estimate(state)
    moves = useful(rules.legal_moves(state, seat))
    if len(moves) > BEAM:
        moves = sorted(moves, key=lambda m: -quick_value(rules, state, seat, m, rng))[:BEAM]
    return max(value_of(rules, state, seat, m, rng, depth) for m in moves)


def quick_value(rules: Any, state: State, seat: int, move: Any, rng: Rng) -> float:
    outcomes = after(rules, state, seat, move, rng, samples=1)
    return sum(p * estimate(s) for p, s in outcomes) if outcomes else float("-inf")


def after(rules: Any, state: State, seat: int, move: Any, rng: Rng, samples: int = SAMPLES) -> list[tuple[float, State]]:
    """The positions ``move`` may lead to, with their chances."""
    if isinstance(move, DrawFollower):
        return drawn(state, seat, move)
    first = simulate(rules, state, move, rng, 0)
    if first is None:
        return []
    if first.draws == state.draws:  # nothing was turned over: a certain outcome
        return [(1.0, first)]
    more = [simulate(rules, state, move, rng, k) for k in range(1, samples)]
    outcomes = [first, *(s for s in more if s is not None)]
    return [(1.0 / len(outcomes), s) for s in outcomes]


def drawn(state: State, seat: int, move: DrawFollower) -> list[tuple[float, State]]:
    """Every follower the bag may yield, weighted by how many of it the bag holds."""
    bag = state.bag(move.bag)
    counts = Counter(bag)
    return [(n / len(bag), evolve(state, FollowerDrawn(seat, move.bag, f, state.draws))) for f, n in counts.items()]


def simulate(rules: Any, state: State, move: Any, rng: Rng, sample: int) -> State | None:
    """The move on the bot's own rng stream (never the game's): tiles it turns over are guesses."""
    look = Rng(rng.seed, f"{rng.game_id}:lookahead:{sample}", rng.counter)
    try:
        result: State = games.step(rules, state, move, look)[1]
    except Rejected:
        return None
    return result
