"""The greedy bot for Artificium: a one-ply evaluation of every legal move.

Each legal move is tried on a *belief* copy of the position (``decide`` + fold) and the result is
scored by ``estimate``: victory points now, plus coins and resources at their worth, plus what the
cards in hand can still earn this turn (a small greedy planner that plays the best card first,
buying missing inputs when that pays), minus a share of the best opponent's projected score (so
the Castle pushes back the leader and Theft robs him). Ties are broken with the bot's own rng.

The belief copy never holds anything the seat cannot see: other seats' hands and sealed cards and
the draw pile are replaced by the unseen cards in an order drawn from the bot's rng, so a Wizard's
draw or an Exploration in the lookahead reveals nothing real.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from domain.artificium import data as D
from domain.artificium import dispatch
from domain.artificium.data import Card, Effect, Resource, Tables
from domain.artificium.model import RESOURCES, Phase, Player, RedrawHand, State, sort_cards, tables
from domain.bots.lookahead import apply_listed
from domain.rng import Rng

COIN = 0.25  # a coin is a quarter VP at the end (A-rules l.257-258)
RIVAL_SHARE = 0.3  # how much the best opponent's projected score weighs against ours
CARD_DRAW_VALUE = 1.0  # one more card in hand during play
KNIGHT_PUSH_VALUE = 1.0  # four VP off an opponent, valued through the rival term too
REDRAW_HAND_VALUE = 4.0  # what an unknown fresh hand of 5 is expected to earn
CARRY_SHARE = 0.3  # a card kept for the next turn, relative to playing it now
RECONSTRUCTION_SHARE = 0.8  # replaying a card costs a step of its own
LAST = D.TURNS


def choose(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    """Pick one of ``moves`` (``rules.legal_moves(state, seat)``) for ``seat``."""
    if len(moves) == 1:
        return moves[0]
    return choose_on(rules, believe(state, seat, rng), seat, moves, rng)


def choose_on(rules: Any, belief: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    """The greedy choice on ``belief``, a position with nothing real the seat cannot see (its
    belief, or one of the search bot's determinizations)."""
    scored = [(score_move(rules, belief, seat, move, rng), i) for i, move in enumerate(moves)]
    best = max(score for score, _ in scored)
    tied = [moves[i] for score, i in scored if score >= best - 1e-9]
    return tied[0] if len(tied) == 1 else rng.pick(tied)


def score_move(rules: Any, belief: State, seat: int, move: Any, rng: Rng) -> float:
    after = simulate(rules, belief, move, Rng(rng.seed, rng.game_id + ":lookahead", rng.counter))
    if after is None:
        return float("-inf")
    value = estimate(after, seat)
    if isinstance(move, RedrawHand):  # the new cards are unknown: value the fresh hand on average
        value += REDRAW_HAND_VALUE - potential(after, seat)
    return value


def simulate(rules: Any, state: State, move: Any, look: Rng) -> State | None:
    """``move`` applied on the bot's own rng stream ``look``; None if the rules reject it
    (:func:`domain.bots.lookahead.apply_listed`)."""
    after: State | None = apply_listed(rules, dispatch, state, move, look)
    return after


# --- what the seat may know --------------------------------------------------------------------------


def believe(state: State, seat: int, rng: Rng) -> State:
    """``state`` with every card the seat cannot see replaced by an rng-ordered unseen card."""
    me = state.players[seat]
    seen: Counter[Card] = Counter(me.hand) + Counter(state.discard) + Counter(state.market)
    seen += Counter(c for c in (me.committed,) if c is not None)
    for p in state.players:
        seen += Counter(p.played) + Counter(c for c in (p.revealed,) if c is not None)
    unseen = list(Rng(rng.seed, rng.game_id + ":belief", rng.counter).shuffled(
        sort_cards((Counter(D.FULL_DECK) - seen).elements())))
    players = []
    for i, p in enumerate(state.players):
        if i == seat:
            players.append(p)
            continue
        hand, unseen = unseen[:len(p.hand)], unseen[len(p.hand):]
        committed = None
        if p.committed is not None:
            committed, unseen = unseen[0], unseen[1:]
        players.append(replace(p, hand=sort_cards(hand), committed=committed))
    return replace(state, players=tuple(players), deck=tuple(unseen))


# --- the estimate ---------------------------------------------------------------------------------------


def resource_value(resource: Resource, turn: int, t: Tables) -> float:
    """Worth of a held resource at the game's prices (``t``): its sale at the end, more while it
    can still be converted."""
    if turn >= LAST:
        return t.sell[resource] * COIN
    return (t.buy[resource] + t.sell[resource]) / 2 * COIN


def worth(p: Player, turn: int, t: Tables) -> float:
    return p.vp + p.coins * COIN + sum(n * resource_value(r, turn, t) for r, n in zip(RESOURCES, p.resources))


def estimate(state: State, seat: int) -> float:
    p = state.players[seat]
    t = tables(state)
    rivals = [projected(q, t) for i, q in enumerate(state.players) if i != seat]
    return worth(p, state.turn, t) + potential(state, seat) - RIVAL_SHARE * max(rivals)


def projected(p: Player, t: Tables) -> float:
    return p.vp + (p.coins + sum(n * t.sell[r] for r, n in zip(RESOURCES, p.resources))) / D.COINS_PER_VP


def potential(state: State, seat: int) -> float:
    """What the seat's cards can still earn: this turn while it plays, a little later otherwise."""
    p = state.players[seat]
    if state.phase is Phase.FINISHED:
        return 0.0
    first = p.revealed or p.committed
    playing = state.phase in (Phase.START, Phase.MARKET, Phase.COMMIT, Phase.RESOLVE) and not p.passed
    if playing:
        return plan(list(p.hand), first, list(p.resources), p.coins, p.plays, p.played, state.turn, tables(state))
    if state.turn >= LAST:
        return 0.0
    return CARRY_SHARE * plan(list(p.hand), None, list(p.resources), p.coins, 0, (), state.turn + 1, tables(state))


# --- a small greedy planner over the hand ------------------------------------------------------------------


class Budget:
    """Resources and coins while the planner spends them."""

    __slots__ = ("resources", "coins", "plays", "turn", "prices")

    def __init__(self, resources: list[int], coins: int, plays: int, turn: int, prices: Tables) -> None:
        self.resources = resources
        self.coins = coins
        self.plays = plays
        self.turn = turn
        self.prices = prices


def plan(hand: list[Card], first: Card | None, resources: list[int], coins: int, plays: int,
         played: tuple[Card, ...], turn: int, prices: Tables) -> float:
    """Play ``first`` (if any), then the best remaining card while one gains something."""
    budget = Budget(list(resources), coins, plays, turn, prices)
    total = 0.0
    if first is not None:
        total += max(0.0, play_card(first, budget, played))
    cards = list(hand)
    fairs = [c for c in cards if c is Card.FAIR]
    cards = [c for c in cards if c is not Card.FAIR]
    while cards:
        gains = [(gain(c, budget, played), c) for c in dict.fromkeys(cards)]
        best, card = max(gains, key=lambda g: g[0])
        if best <= 0:
            break
        total += play_card(card, budget, played)
        cards.remove(card)
    for _ in fairs:  # a Fair pays most when it comes last
        total += play_card(Card.FAIR, budget, played)
    return total


def missing(card: Card, budget: Budget) -> list[Resource] | None:
    """The inputs to buy for ``card``, or None when the coins do not reach."""
    spec = D.CARDS[card]
    need = Counter(spec.takes)
    short = [r for r, n in need.items() for _ in range(max(0, n - budget.resources[RESOURCES.index(r)]))]
    if sum(budget.prices.buy[r] for r in short) + spec.coins > budget.coins:
        return None
    return short


def gain(card: Card, budget: Budget, played: tuple[Card, ...]) -> float:
    trial = Budget(list(budget.resources), budget.coins, budget.plays, budget.turn, budget.prices)
    return play_card(card, trial, played)


def play_card(card: Card, budget: Budget, played: tuple[Card, ...]) -> float:
    """Spend for ``card`` inside ``budget``; returns the value gained (negative: not worth it)."""
    spec = D.CARDS[card]
    effect = spec.effect
    if effect in (Effect.PRODUCE, Effect.KNIGHT, Effect.WIZARD):
        short = missing(card, budget)
        if short is None:
            return -1.0
        value = float(spec.vp)
        for r in short:
            budget.coins -= budget.prices.buy[r]
            budget.resources[RESOURCES.index(r)] += 1
            value -= budget.prices.buy[r] * COIN
        for r in spec.takes:
            budget.resources[RESOURCES.index(r)] -= 1
            value -= resource_value(r, budget.turn, budget.prices)
        for r in spec.gives:
            budget.resources[RESOURCES.index(r)] += 1
            value += resource_value(r, budget.turn, budget.prices)
        budget.coins -= spec.coins
        value -= spec.coins * COIN
        if effect is Effect.KNIGHT:
            value += KNIGHT_PUSH_VALUE
        if effect is Effect.WIZARD:
            value += (D.WIZARD_DRAW - D.WIZARD_DISCARD) * CARD_DRAW_VALUE
    elif effect is Effect.FAIR:
        value = D.FAIR_COINS_PER_CARD * budget.plays * COIN
    elif effect is Effect.EXPLORATION:
        value = CARD_DRAW_VALUE
    elif effect is Effect.THEFT:
        value = max(0.0, (budget.prices.buy[Resource.COAL] - 2) * COIN)
    else:  # Reconstruction: play the best card played this turn once more
        again = [c for c in played if c is not Card.RECONSTRUCTION]
        value = max((gain(c, budget, ()) for c in again), default=0.0) * RECONSTRUCTION_SHARE
    budget.plays += 1
    return value
