"""The greedy cooperative bot for The Cathedral of Orléans: a short search over its own turn.

Every legal move is tried on a copy of the position (``decide`` + fold) and followed by the seat's
own best next moves for a few steps, up to the end of its turn; the leaves are scored with the
team's shared ``estimate``. Chance is averaged, never peeked at: a draw from a bag is valued as
the average over what the bag holds (which every player may remember), and an Event or Blueprint
turned over in the lookahead comes from the bot's own rng streams, so the real next tile stays
unknown. The Bell Tower is used only when nothing else fits: ending a round early only wastes
actions. Ties are broken with the bot's rng.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from domain.bots.cathedral_estimate import Carried, Listed, estimate
from domain.bots.lookahead import apply_listed
from domain.cathedral import data as D
from domain.cathedral import dispatch
from domain.cathedral.data import Space
from domain.cathedral.evolve import evolve
from domain.cathedral.model import DrawFollower, FollowerDrawn, PlaceFollower, State, Step
from domain.rng import Rng

DEPTH = 4  # the move and the seat's next three decisions of the same turn
BEAM = 3  # below the first move, only the best few continuations (by their plain estimate) go deeper
SAMPLES = 3  # chance outcomes averaged for a move that turns over a tile


def choose(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    """Pick one of ``moves`` (``rules.legal_moves(state, seat)``) for ``seat``."""
    if len(moves) == 1:
        return moves[0]
    search = Search(rules, seat, rng)
    candidates = useful(moves)
    scored = [(search.value_of(state, m, DEPTH), i) for i, m in enumerate(candidates)]
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


class Search:
    """One decision's search. Its lookahead draws (seed, game, counter) are fixed for the whole
    decision, so a move tried on a position always leads to the same positions: each is
    simulated once, and each position is scored and listed once, however many branches reach it
    (the beam's quick look and the deeper search share their first step). Positions are keyed
    by identity and kept alive by the caches, so an id is never reused within the decision."""

    __slots__ = ("rules", "seat", "rng", "looks", "steps", "estimates", "moves", "to_act", "carried", "listed")

    def __init__(self, rules: Any, seat: int, rng: Rng) -> None:
        self.rules, self.seat, self.rng = rules, seat, rng
        self.looks: dict[int, Rng] = {}
        self.steps: dict[tuple[int, Any, int], tuple[State, State | None]] = {}
        self.estimates: dict[int, tuple[State, float]] = {}
        self.moves: dict[int, tuple[State, list[Any]]] = {}
        self.to_act: dict[int, bool] = {}
        self.carried: Carried = {}
        self.listed: Listed = {}

    def value_of(self, state: State, move: Any, depth: int) -> float:
        """The expected value of ``move`` followed by the seat's best continuation of its turn."""
        outcomes = self.after(state, move)
        if not outcomes:
            return float("-inf")
        return sum(p * self.best_value(s, depth - 1) for p, s in outcomes)

    def best_value(self, state: State, depth: int) -> float:
        # (not to act: the turn passed on, or a gift's receiver makes room first)
        if depth <= 0 or state.outcome is not None or state.step is Step.DRAW or not self.acts(state):
            return self.estimate(state)
        moves = self.useful_moves(state)
        if len(moves) > BEAM:
            moves = sorted(moves, key=lambda m: -self.quick_value(state, m))[:BEAM]
        return max(self.value_of(state, m, depth) for m in moves)

    def acts(self, state: State) -> bool:
        key = id(state)
        acts = self.to_act.get(key)
        if acts is None:
            acts = self.to_act[key] = self.seat in self.rules.to_act(state)
        return acts

    def useful_moves(self, state: State) -> list[Any]:
        hit = self.moves.get(id(state))
        if hit is None:
            hit = self.moves[id(state)] = (state, useful(self.rules.legal_moves(state, self.seat)))
        return hit[1]

    def estimate(self, state: State) -> float:
        hit = self.estimates.get(id(state))
        if hit is None:
            hit = self.estimates[id(state)] = (state, estimate(state, self.carried, self.listed))
        return hit[1]

    def quick_value(self, state: State, move: Any) -> float:
        outcomes = self.after(state, move, samples=1)
        return sum(p * self.estimate(s) for p, s in outcomes) if outcomes else float("-inf")

    def after(self, state: State, move: Any, samples: int = SAMPLES) -> list[tuple[float, State]]:
        """The positions ``move`` may lead to, with their chances."""
        if isinstance(move, DrawFollower):
            return drawn(state, self.seat, move)
        first = self.simulate(state, move, 0)
        if first is None:
            return []
        if first.draws == state.draws:  # nothing was turned over: a certain outcome
            return [(1.0, first)]
        more = [self.simulate(state, move, k) for k in range(1, samples)]
        outcomes = [first, *(s for s in more if s is not None)]
        return [(1.0 / len(outcomes), s) for s in outcomes]

    def simulate(self, state: State, move: Any, sample: int) -> State | None:
        """The move on the bot's own rng stream (never the game's): tiles it turns over are guesses."""
        key = (id(state), move, sample)
        hit = self.steps.get(key)
        if hit is None:
            hit = self.steps[key] = (state, simulate(self.rules, state, move, self.look(sample)))
        return hit[1]

    def look(self, sample: int) -> Rng:
        """The lookahead stream for ``sample``, set back to the decision's counter (a simulation
        moves it); keyed once per decision rather than once per simulated move."""
        look = self.looks.get(sample)
        if look is None:
            rng = self.rng
            look = self.looks[sample] = Rng(rng.seed, f"{rng.game_id}:lookahead:{sample}", rng.counter)
        else:
            look.counter = self.rng.counter
        return look


def drawn(state: State, seat: int, move: DrawFollower) -> list[tuple[float, State]]:
    """Every follower the bag may yield, weighted by how many of it the bag holds."""
    bag = state.bag(move.bag)
    counts = Counter(bag)
    return [(n / len(bag), evolve(state, FollowerDrawn(seat, move.bag, f, state.draws))) for f, n in counts.items()]


def simulate(rules: Any, state: State, move: Any, look: Rng) -> State | None:
    """The move on ``look``, one of the bot's own rng streams (never the game's). (:func:`domain.bots.lookahead.apply_listed`)."""
    after: State | None = apply_listed(rules, dispatch, state, move, look)
    return after
