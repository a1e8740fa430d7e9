"""The search bot: determinized open-loop Monte-Carlo tree search over ``legal_moves``.

One decision runs a fixed number of iterations (a number, never a clock). Each iteration

1. picks a root move by UCB1; the k-th visit of every root move plays the k-th
   *determinization* (the position as the seat knows it, with everything it cannot see -- future
   chance tiles, other seats' sealed choices -- drawn from the bot's rng) with the k-th chance
   stream, so root moves are compared on equal luck (common random numbers);
2. follows the tree of the seat's own later decisions (UCB1 with availability counts, as in
   information-set MCTS: a move is scored against the iterations where it was legal) down to a
   node seen for the first time; the other seats, and everything after that node, are played by
   the game's opponent model (its greedy bot);
3. stops at the game's horizon and scores the position for the seat in [0, 1]; the score is
   backed up the path.

The root moves are the game's ``candidates`` (all legal moves by default), the model's own
choice first: it is tried first and wins ties, so with a tiny budget the bot plays like its model
and every iteration can only overrule it on evidence. The move played is the root move visited
most (then the better mean). Every draw comes from the ``rng`` handed to ``choose``
(``bot_rng``), and the search starts from the game's ``canonical`` form of the position, so a
decision is a pure function of what the seat sees and that rng: two positions that look the
same to the seat give the same move.

What a game supplies is a ``SearchGame`` (``search_orleans.py``, ``search_artificium.py``); the
engine itself only uses the public contract: ``legal_moves``, ``to_act``, ``result`` and
``domain.games.step``.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.core import SYSTEM
from domain.games import step
from domain.rng import Rng

Policy = Callable[[Any, Any, int, Sequence[Any], Rng], Any]


@dataclass(frozen=True)
class Budget:
    """How much one decision may search: iterations, and optionally a cap on tree nodes.

    There is no clock here. A caller with a move-time budget of T seconds converts it once with
    the iterations per second that ``bench/search.py`` prints on its machine, for that game and
    player count: ``Budget(iterations=max(1, int(T * iterations_per_second)))``. A decision with
    one sensible move (after ``candidates``) runs no iteration at all.
    """

    iterations: int = 32
    max_nodes: int | None = None
    exploration: float = 0.5  # UCB1 constant, for scores in [0, 1]


@dataclass(frozen=True)
class SearchGame:
    """What the engine needs from one game beyond the contract.

    - ``canonical(state, seat)``: the position with its hidden parts put in one fixed form, so two
      positions the seat cannot tell apart become equal (the never-peeking guarantee);
    - ``sample(canonical, seat, rng)``: one determinization of that position, drawn with ``rng``;
    - ``stop(root, state)``: the horizon, where an iteration stops and scores;
    - ``score(rules, state, seat)``: the seat's prospects in [0, 1] (0.5 is even);
    - ``model``: the policy that plays other seats, and every seat after the tree;
    - ``candidates(rules, state, seat, moves)``: the moves worth searching (default: all);
    - ``prior``: the policy whose choice at the root is tried first and wins ties (default: the
      model; a game whose model is a cheaper stand-in for simulations names its real bot here).
    """

    canonical: Callable[[Any, int], Any]
    sample: Callable[[Any, int, Rng], Any]
    stop: Callable[[Any, Any], bool]
    score: Callable[[Any, Any, int], float]
    model: Policy
    candidates: Callable[[Any, Any, int, Sequence[Any]], Sequence[Any]] | None = None
    prior: Policy | None = None


class Node:
    """One of the seat's own decisions, reached by a sequence of its moves (open loop)."""

    __slots__ = ("visits", "total", "available", "children")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.children: dict[Any, Node] = {}

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


class Search:
    """The state of one decision's search; ``run`` returns the chosen move."""

    def __init__(self, rules: Any, game: SearchGame, seat: int, budget: Budget, rng: Rng) -> None:
        self.rules = rules
        self.game = game
        self.seat = seat
        self.budget = budget
        self.rng = rng
        self.root = Node()
        self.nodes = 1
        self.iterations = 0

    def run(self, state: Any, moves: Sequence[Any]) -> Any:
        known = self.game.canonical(state, self.seat)  # from here on, only what the seat knows
        options = self.options(known, moves)
        if len(options) == 1:
            return options[0]
        for _ in range(self.budget.iterations):
            self.iterate(known, options)
            self.iterations += 1
        return self.best(options)

    def options(self, state: Any, moves: Sequence[Any]) -> Sequence[Any]:
        """The moves worth searching, the model's own choice (among all legal moves) first: it is
        tried first and wins ties."""
        first = (self.game.prior or self.game.model)(self.rules, state, self.seat, moves, self.stream("prior"))
        return [first, *(m for m in self.candidates(state, moves) if m != first)]

    def best(self, options: Sequence[Any]) -> Any:
        """The root move visited most; on a tie the better mean, then the earlier option."""
        children = self.root.children
        return max(options, key=lambda m: (children[m].visits, children[m].mean()) if m in children else (-1, 0.0))

    def stream(self, name: str) -> Rng:
        return Rng(self.rng.seed, f"{self.rng.game_id}:{name}", self.rng.counter)

    # --- one iteration -------------------------------------------------------------------------

    def iterate(self, known: Any, options: Sequence[Any]) -> None:
        """One simulation. The k-th visit of every root move plays the k-th determinization with
        the k-th chance stream (common random numbers), so root moves are compared on equal luck."""
        picked = self.select(self.root, options)
        assert picked is not None  # the root always has room
        move, child = picked
        sim = f"sim:{child.visits}"
        rng = self.stream(sim)
        models: dict[int, Rng] = {}  # one stream per seat for the model's own draws (tie-breaks)
        start = self.game.sample(known, self.seat, rng)
        path: list[Node | None] = [self.root, child]
        state = step(self.rules, start, move, rng)[1]
        while self.rules.result(state) is None and not self.game.stop(start, state):
            actor = self.next_actor(state)
            moves = self.rules.legal_moves(state, actor)
            if actor == SYSTEM:
                move = moves[0]
            else:
                model_rng = models.get(actor) or models.setdefault(actor, self.stream(f"{sim}:model:{actor}"))
                move = self.decide(path, state, actor, moves, model_rng)
            state = step(self.rules, state, move, rng)[1]
        value = self.game.score(self.rules, state, self.seat)
        for node in path:
            if node is not None:
                node.visits += 1
                node.total += value

    def decide(self, path: list[Node | None], state: Any, actor: int, moves: Sequence[Any], rng: Rng) -> Any:
        """The seat's own decisions follow the tree down to a node seen for the first time (this
        iteration's leaf); everything else, and all after the leaf, is the model's. ``path`` ends
        with None once the iteration has left the tree."""
        leaf = path[-1]
        if actor == self.seat and leaf is not None and leaf.visits > 0 and len(moves) > 1:
            options = self.candidates(state, moves)
            if len(options) == 1:
                return options[0]
            picked = self.select(leaf, options)
            path.append(None if picked is None else picked[1])
            if picked is not None:
                return picked[0]
        return self.game.model(self.rules, state, actor, moves, rng)

    def candidates(self, state: Any, moves: Sequence[Any]) -> Sequence[Any]:
        if self.game.candidates is None:
            return moves
        return self.game.candidates(self.rules, state, self.seat, moves) or moves

    def next_actor(self, state: Any) -> Any:
        """SYSTEM first; then the seat itself when it may act; else the lowest acting seat."""
        acting = self.rules.to_act(state)
        if SYSTEM in acting:
            return SYSTEM
        return self.seat if self.seat in acting else min(acting)

    # --- the tree ------------------------------------------------------------------------------

    def select(self, node: Node, moves: Sequence[Any]) -> tuple[Any, Node] | None:
        """The first untried move (a new node, while the budget has room), else UCB1 over the
        tried ones counted against the iterations where they were legal. None: no tried move."""
        children = node.children
        fresh = next((m for m in moves if m not in children), None)
        if fresh is not None and (node is self.root or self.room()):
            children[fresh] = Node()
            self.nodes += 1
        tried = [m for m in moves if m in children]
        for m in tried:
            children[m].available += 1
        if fresh is not None and fresh in children:
            return fresh, children[fresh]
        if not tried:
            return None
        move = max(tried, key=lambda m: self.ucb(children[m]))
        return move, children[move]

    def ucb(self, child: Node) -> float:
        explore = math.sqrt(math.log(child.available) / child.visits)
        return child.mean() + self.budget.exploration * explore

    def room(self) -> bool:
        return self.budget.max_nodes is None or self.nodes < self.budget.max_nodes


def choose_with(game: SearchGame, budget: Budget) -> Policy:
    """A policy ``choose(rules, state, seat, moves, rng)`` searching ``game`` with ``budget``."""

    def choose(rules: Any, state: Any, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
        if len(moves) == 1:
            return moves[0]
        return Search(rules, game, seat, budget, rng).run(state, moves)

    return choose
