"""What the search bot needs to know about Artificium: the one module that reads its model fields.

A seat sees its own hand and sealed card, every face-up card (market, discard, cards played or
revealed this turn) and how many cards the others hold (``domain.artificium.game.view``). Hidden,
and so re-dealt for every simulation from the bot's own rng: the other hands, the others' sealed
cards and the order of the draw pile, all drawn from the cards the seat has not seen (the same
belief as the greedy bot's), and the game's draw counter.
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
    return artificium_greedy.choose(rules, state, seat, moves, rng)


GAME = SearchGame(canonical=canonical, sample=sample, stop=stop, score=score, model=model)
choose = choose_with(GAME, Budget())
