"""What the search bot needs to know about Artificium: the one module that reads its model fields.

A seat sees its own hand and sealed card, every face-up card (market, discard, cards played or
revealed this turn) and how many cards the others hold (``domain.artificium.game.view``). Hidden,
and so re-dealt for every simulation from the bot's own rng: the other hands, the others' sealed
cards and the order of the draw pile, all drawn from the cards the seat has not seen (the same
belief as the greedy bot's), and the game's draw counter.

Only the greedy bot's three favourite moves are searched (``candidates``), its own choice first,
and simulations are played by greedy on the determinization (``model``) up to the next stage of
the turn. With 16 iterations a decision (about 0.1 s of CPU) it won 74 of 120 two-player games
against greedy, where greedy in the same seats won 58 (``bench/search.py --game artificium
--players 2``, docs/bots.md).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from domain.artificium import data as D
from domain.artificium.data import Card
from domain.artificium.model import Phase, State, sort_cards, tables
from domain.bots import artificium_greedy
from domain.bots.search import Budget, SearchGame, choose_with
from domain.rng import Rng

TOP = 3  # moves searched per decision (see ``candidates``)
ITERATIONS = 16  # the registered bot's budget: about 0.1 s of CPU a decision (docs/bots.md)
CANDIDATE_RNG = Rng(b"search-candidates", "artificium", 0)  # the lookahead stream ranking candidates
SCORE_SCALE = 5.0  # victory points of lead that make a position clearly better (logistic slope)
STAGE = {Phase.START: 0, Phase.MARKET: 1, Phase.COMMIT: 2, Phase.RESOLVE: 2, Phase.TURN_END: 3, Phase.FINISHED: 4}


def canonical(state: State, seat: int) -> State:
    return deal(state, seat, tuple)


def sample(known: State, seat: int, rng: Rng) -> State:
    return deal(known, seat, rng.shuffled)


def deal(state: State, seat: int, order: Callable[[tuple[Card, ...]], tuple[Card, ...]]) -> State:
    """The unseen cards, in ``order``, dealt to the other hands, sealed cards, then the pile."""
    me = state.players[seat]
    seen: Counter[Card] = Counter(me.hand) + Counter(state.discard) + Counter(state.market)
    seen += Counter(c for c in (me.committed,) if c is not None)
    for p in state.players:
        seen += Counter(p.played) + Counter(c for c in (p.revealed,) if c is not None)
    unseen = list(order(sort_cards((Counter(D.FULL_DECK) - seen).elements())))
    players = []
    for i, p in enumerate(state.players):
        if i != seat:
            hand, unseen = unseen[:len(p.hand)], unseen[len(p.hand):]
            committed = None
            if p.committed is not None:
                committed, unseen = unseen[0], unseen[1:]
            p = replace(p, hand=sort_cards(hand), committed=committed)
        players.append(p)
    return replace(state, players=tuple(players), deck=tuple(unseen), draws=0)


def stop(root: State, state: State) -> bool:
    """The next stage of the turn (market, card play, turn end) is the horizon."""
    return (state.turn, STAGE[state.phase]) > (root.turn, STAGE[root.phase])


def candidates(rules: Any, state: State, seat: int, moves: Sequence[Any]) -> Sequence[Any]:
    """The ``TOP`` moves the greedy bot's one-ply estimate likes best, in legal-move order.

    A market step offers a couple of dozen exchanges and a card step up to a dozen resolutions;
    spread over all of them, a budget of a few iterations a move gives each one or two noisy
    simulations and the search picked worse than greedy (4 of 12 against 8 of 12). Scored on the
    position the engine hands over (the canonical form at the root, a determinization below), on
    a fixed lookahead stream, so the choice depends on nothing the seat cannot see."""
    if len(moves) <= TOP:
        return moves
    value = {i: artificium_greedy.score_move(rules, state, seat, m, CANDIDATE_RNG) for i, m in enumerate(moves)}
    best = sorted(value, key=lambda i: (-value[i], i))[:TOP]
    return [moves[i] for i in sorted(best)]


def score(rules: Any, state: State, seat: int) -> float:
    result = rules.result(state)
    if result is not None:
        points = [float(s) for s in result["scores"]]
    else:
        points = [artificium_greedy.worth(p, state.turn, tables(state)) + artificium_greedy.potential(state, i)
                  for i, p in enumerate(state.players)]
    lead = points[seat] - max(p for i, p in enumerate(points) if i != seat)
    return 1.0 / (1.0 + math.exp(-lead / SCORE_SCALE))


def model(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    """Greedy inside a simulation, on the determinization itself, without its own belief re-deal (a
    fifth of greedy's time). The other hands there were dealt from what the searching seat has not
    seen, so nothing real is read; the simulated rivals do see the searching seat's hand, which
    makes them a little better informed than real ones, never the search."""
    return moves[0] if len(moves) == 1 else artificium_greedy.choose_on(rules, state, seat, moves, rng)


GAME = SearchGame(canonical=canonical, sample=sample, stop=stop, score=score, model=model, candidates=candidates,
                  prior=artificium_greedy.choose)
choose = choose_with(GAME, Budget(iterations=ITERATIONS))
