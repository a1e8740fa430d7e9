"""What the search bot needs to know about Orléans: the one module that reads its model fields.

What a seat may see is what ``domain.orleans.game.view`` shows it, plus the public event feed it
may follow (draws, recruits, returns and plagues name their tiles, so every bag's contents are
public; only the order of a draw is chance). Hidden from the seat, and so re-drawn for every
simulation from the bot's own rng:

- the order of the hour-glass tiles still to come (the tiles themselves are public: the full set
  minus the revealed ones); in the 2023 edition each tile stays inside its stack (A, B, C);
- other seats' sealed planning (facts D10): their placements and Gunpowder Tower moves of this
  round are put back on their markets and they plan again, played by the opponent model;
- the game's draw counter (the seed is secret, so future draws are unknown anyway: simulations
  draw from the bot's rng).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from domain.bots import greedy
from domain.bots.search import Budget, SearchGame, choose_with
from domain.orleans.data import Hourglass
from domain.orleans.model import DrawFollowers, Phase, PlaceFollower, Player, State, TakeBackFollower, sort_tiles
from domain.rng import Rng

HORIZON_ROUNDS = 1  # an iteration stops when this many more rounds have begun
SCORE_SCALE = 10.0  # victory points of lead that make a position clearly better (logistic slope)


# --- what the seat knows ------------------------------------------------------------------------


def canonical(state: State, seat: int) -> State:
    """``state`` with every part hidden from ``seat`` in one fixed form."""
    players = state.players
    if state.phase is Phase.PLANNING:
        players = tuple(p if i == seat else unplanned(p) for i, p in enumerate(players))
    return replace(state, players=players, hourglass=sorted_within_levels(state.hourglass), draws=0)


def unplanned(p: Player) -> Player:
    """A seat's board as others see it while it plans: every sealed tile back on its market, and
    no take-back counted (rules 4: how many it took back is as sealed as its plan)."""
    if not (p.pending or p.tower_pending or p.planned or p.take_backs):
        return p
    if any(x.from_tower for x in p.pending):  # rules 5: the tower's copies back on the tower
        market = sort_tiles(p.market + tuple(x.tile for x in p.pending if not x.from_tower) + p.tower_pending)
        tower = sort_tiles(p.tower + tuple(x.tile for x in p.pending if x.from_tower))
        return replace(p, market=market, tower=tower, pending=(), tower_pending=(), planned_from_tower=(),
                       planned=False, take_backs=0)
    market = sort_tiles(p.market + tuple(x.tile for x in p.pending) + p.tower_pending)
    return replace(p, market=market, pending=(), tower_pending=(), planned=False, take_backs=0)


def sorted_within_levels(tiles: tuple[Hourglass, ...]) -> tuple[Hourglass, ...]:
    return _within_levels(tiles, lambda group: sorted(group, key=lambda t: t.event.value))


def sample(known: State, seat: int, rng: Rng) -> State:
    """One determinization: the hour-glass tiles to come in an order drawn from ``rng``."""
    return replace(known, hourglass=_within_levels(known.hourglass, rng.shuffled))


def _within_levels(tiles: tuple[Hourglass, ...], order: Any) -> tuple[Hourglass, ...]:
    """Reorder each level's tiles among that level's positions (one level in the classic game)."""
    out = list(tiles)
    for level in dict.fromkeys(t.level for t in tiles):
        positions = [i for i, t in enumerate(tiles) if t.level == level]
        for i, tile in zip(positions, order([tiles[i] for i in positions])):
            out[i] = tile
    return tuple(out)


# --- horizon and score ----------------------------------------------------------------------------


def stop(root: State, state: State) -> bool:
    return state.round >= root.round + HORIZON_ROUNDS


def score(rules: Any, state: State, seat: int) -> float:
    """The seat's lead over the best other seat, squashed into (0, 1)."""
    result = rules.result(state)
    if result is not None:
        points = [float(s) for s in result["scores"]]
        if seat in result["winners"]:
            points[seat] += 0.5  # tie-breaks count, a little
    else:
        points = [greedy.estimate(state, i) for i in range(state.config.players)]
    lead = points[seat] - max(p for i, p in enumerate(points) if i != seat)
    return 1.0 / (1.0 + math.exp(-lead / SCORE_SCALE))


# --- which moves to search -------------------------------------------------------------------------


def candidates(rules: Any, state: State, seat: int, moves: Sequence[Any]) -> Sequence[Any]:
    """The moves worth comparing; the rest are the same choice in another order or seldom good.

    Followers: draw as many as allowed (a recall is still an option). Planning: one placement per
    place that can be activated this round (the greedy bot's cheapest way to fill it), and a
    place once started is finished first, so the search chooses *which* places to fill; parking
    a follower on a place for a later round is left out (it idles for a round at least), and so is
    taking a placement back (a plan chosen by simulation needs no undo; offering it would let the
    search cycle place, take back, place). Gunpowder Tower moves and finishing stay in. Actions and
    every follow-up choice: all legal moves.
    """
    if state.choice is not None:
        return moves
    if state.phase is Phase.FOLLOWERS:
        draws = [m for m in moves if isinstance(m, DrawFollowers)]
        top = max(draws, key=lambda m: m.count, default=None)
        return [m for m in moves if not isinstance(m, DrawFollowers) or m is top]
    if state.phase is Phase.PLANNING:
        return planning_candidates(state, seat, moves)
    return moves


def planning_candidates(state: State, seat: int, moves: Sequence[Any]) -> Sequence[Any]:
    p = state.players[seat]
    placements = [m for m in moves if isinstance(m, PlaceFollower)]
    by_place: dict[str, list[PlaceFollower]] = {}
    for m in placements:
        by_place.setdefault(m.place, []).append(m)
    steps = {place: greedy.completing_step(p, place, legal) for place, legal in sorted(by_place.items())}
    started = {x.place for x in p.pending}
    for place in sorted(started):
        if steps.get(place) is not None:
            return [steps[place]]
    others = [m for m in moves if not isinstance(m, (PlaceFollower, TakeBackFollower))]
    return [step for step in steps.values() if step is not None] + others


def model(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    return greedy.choose(rules, state, seat, moves, rng)


GAME = SearchGame(canonical=canonical, sample=sample, stop=stop, score=score, model=model, candidates=candidates)
choose = choose_with(GAME, Budget())
