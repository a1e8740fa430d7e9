"""The greedy bot: a one-step lookahead on an estimate of its own final victory points.

- Followers: draw the maximum; then load the Gunpowder Tower with characters a deed can still
  take (the tower is never worse than the market: its characters may be planned as well).
- Planning: fill the most valuable place it can activate this round with the followers it has
  (a small matching over the legal placements), one follower per move; finish when no other
  place can be completed.
- Everything else (actions, village/travel/deed/technology choices, paying food, torture): try
  each legal move on a copy of the state (``decide`` + ``evolve``, following its own follow-up
  choice one level deeper) and keep the best estimate; ties are broken with the bot's rng.

It scores only its own player board and public information; other seats' sealed planning is
never read. Lookahead draws come from the bot's own rng stream, never the game's.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from domain import games
from domain.core import Rejected
from domain.orleans import data as D
from domain.orleans.data import Char, Effect, Event, Tile
from domain.orleans.model import (
    CHARS,
    GOODS,
    TECH,
    TRACKS,
    DrawFollowers,
    FinishLoading,
    FinishPlanning,
    LoadTower,
    Phase,
    PlaceFollower,
    Player,
    State,
)
from domain.orleans.queries import sendable
from domain.rng import Rng

LOOKAHEAD_DEPTH = 2  # the move, then the best of its own follow-up choice
FOLLOWER_VALUE = 3.0  # a neutral follower owned, per remaining game
KNIGHT_STEP_VALUE = 3.0  # one more follower drawn every round
TECH_VALUE = 3.0
PLACE_TILE_VALUE = 4.0
STATION_FUTURE_VALUE = 2.0  # Trading Day payouts and the most-stations citizen
MERCHANT_BUILD_VALUE = 1.5  # standing where a station can still be built
DUE_COST = 1.5  # each coin owed at an event costs about this much


def choose(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    """Pick one of ``moves`` (``rules.legal_moves(state, seat)``) for ``seat``."""
    if len(moves) == 1:
        return moves[0]
    if state.choice is None and state.phase is Phase.FOLLOWERS:
        draws = [m for m in moves if isinstance(m, DrawFollowers)]
        if draws:
            return max(draws, key=lambda m: m.count)
        if any(isinstance(m, LoadTower) for m in moves):
            return load_tower(state, moves)
    if state.choice is None and state.phase is Phase.PLANNING:
        return plan(state, seat, moves, rng)
    return best_by_lookahead(rules, state, seat, moves, rng)


# --- lookahead ---------------------------------------------------------------------------------


def best_by_lookahead(rules: Any, state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    scored = [(value_after(rules, state, seat, move, rng, LOOKAHEAD_DEPTH), i) for i, move in enumerate(moves)]
    best = max(score for score, _ in scored)
    tied = [moves[i] for score, i in scored if score >= best - 1e-9]
    return tied[0] if len(tied) == 1 else rng.pick(tied)


def value_after(rules: Any, state: State, seat: int, move: Any, rng: Rng, depth: int) -> float:
    after = simulate(rules, state, move, rng)
    if after is None:
        return float("-inf")
    follow = after.choice
    if depth > 1 and follow is not None and follow.seat == seat and rules.result(after) is None:
        options = rules.legal_moves(after, seat)
        if options:
            return max(value_after(rules, after, seat, m, rng, depth - 1) for m in options)
    return estimate(after, seat)


def simulate(rules: Any, state: State, move: Any, rng: Rng) -> State | None:
    try:
        after: State = games.step(rules, state, move, Rng(rng.seed, rng.game_id, rng.counter))[1]
        return after
    except Rejected:
        return None


# --- the estimate --------------------------------------------------------------------------------


def game_left(state: State) -> float:
    return max(0, D.ROUNDS - state.round) / D.ROUNDS


def built_stations(state: State, seat: int) -> int:
    return sum(1 for _, owner in state.stations if owner == seat)


def development_progress(position: int) -> float:
    """How far along the way to the next status (0..1); 0 at the top."""
    lower = max(t for t, _ in D.DEVELOPMENT_STATUS if position >= t)
    higher = [t for t, _ in D.DEVELOPMENT_STATUS if t > position]
    return 0.0 if not higher else (position - lower) / (min(higher) - lower)


def neutral_followers(p: Player) -> int:
    placed = [Tile(v) for slots in p.places for v in slots.slots if v not in (None, TECH)]
    pending = [pl.tile for pl in p.pending]
    tiles = list(p.bag) + list(p.market) + list(p.tower) + placed + pending + list(p.tower_pending)
    return sum(1 for t in tiles if not t.starting)


def can_build_here(state: State, seat: int, p: Player) -> bool:
    owners = [owner for town, owner in state.stations if town == p.merchant]
    if p.stations <= 0:
        return False
    return seat not in owners if p.merchant == D.ORLEANS else not owners


def estimate(state: State, seat: int) -> float:
    """Victory points now plus a rough value of what still pays before the end."""
    p = state.players[seat]
    status = D.development_status(p.development)
    holdings = built_stations(state, seat) + p.citizens
    points: float = p.coins + sum(n * D.GOOD_POINTS[g] for g, n in zip(GOODS, p.goods)) + holdings * status
    left = game_left(state)
    points += development_progress(p.development) * (holdings + 3 * left)
    points += left * (
        FOLLOWER_VALUE * neutral_followers(p)
        + KNIGHT_STEP_VALUE * p.tracks[TRACKS.index(Char.KNIGHT)]
        + TECH_VALUE * (p.techs + p.techs_placed)
        + PLACE_TILE_VALUE * sum(1 for slots in p.places if D.PLACES[slots.place].stack)
        + STATION_FUTURE_VALUE * built_stations(state, seat)
        + (MERCHANT_BUILD_VALUE if can_build_here(state, seat, p) else 0.0)
    )
    return points - DUE_COST * sum(d.amount for d in state.dues if d.seat == seat)


def load_tower(state: State, moves: Sequence[Any]) -> Any:
    loads = [m for m in moves if isinstance(m, LoadTower)]
    useful = [m for m in loads if sendable(state, (m.tile,))]
    finish = next((m for m in moves if isinstance(m, FinishLoading)), None)
    return useful[0] if useful else finish if finish is not None else loads[0]


# --- planning ----------------------------------------------------------------------------------


def plan(state: State, seat: int, moves: Sequence[Any], rng: Rng) -> Any:
    placements = [m for m in moves if isinstance(m, PlaceFollower)]
    finish = next((m for m in moves if isinstance(m, FinishPlanning)), None)
    p = state.players[seat]
    options = []
    started = {pl.place for pl in p.pending}  # finish a place before starting the next one
    for place in sorted({m.place for m in placements}):
        step = completing_step(p, place, [m for m in placements if m.place == place])
        if step is not None:
            bonus = 1000.0 if place in started else 0.0
            options.append((bonus + place_value(state, seat, p, place), step))
    if not options:
        return finish if finish is not None else rng.pick(list(moves))
    best = max(value for value, _ in options)
    if best <= 0 and finish is not None:
        return finish
    tied = [step for value, step in options if value >= best - 1e-9]
    return tied[0] if len(tied) == 1 else rng.pick(tied)


def tile_cost(tile: Tile) -> int:
    """Use the least flexible follower first: starting ones, then neutral, monks last."""
    return 0 if tile.starting else (2 if tile is Tile.MONK else 1)


def completing_step(p: Player, place: str, legal: Sequence[PlaceFollower]) -> PlaceFollower | None:
    """The first placement of a way to activate ``place`` with the followers at hand, if any."""
    by_space: dict[int, list[PlaceFollower]] = {}
    for move in legal:
        by_space.setdefault(move.space, []).append(move)
    slots = next(s.slots for s in p.places if s.place == place)
    pending = {pl.space for pl in p.pending if pl.place == place}
    spaces = [i for i, v in enumerate(slots) if v is None and i not in pending]
    if place == D.TOWN_HALL:
        filled = len(spaces) < len(slots)
        spaces = [] if filled else [s for s in spaces if s in by_space][:1]  # one character activates it
    if not spaces or any(s not in by_space for s in spaces):
        return None
    pool = Counter(p.market + p.tower)
    plan_moves = match(spaces, by_space, pool)
    return plan_moves[0] if plan_moves else None


def match(spaces: list[int], by_space: dict[int, list[PlaceFollower]], pool: Counter[Tile]) -> list[PlaceFollower] | None:
    if not spaces:
        return []
    space, rest = spaces[0], spaces[1:]
    for move in sorted(by_space[space], key=lambda m: (tile_cost(m.tile), m.tile.value)):
        if pool[move.tile] > 0:
            pool[move.tile] -= 1
            tail = match(rest, by_space, pool)
            pool[move.tile] += 1
            if tail is not None:
                return [move] + tail
    return None


def track_open(state: State, p: Player, char: Char) -> bool:
    return p.tracks[TRACKS.index(char)] < D.TRACK_LENGTH[char] and state.supply[CHARS.index(char)] > 0


def place_value(state: State, seat: int, p: Player, place_id: str) -> float:
    """What activating ``place_id`` this round is roughly worth, per character it takes."""
    place = D.PLACES[place_id]
    left = game_left(state)
    value = _effect_value(state, seat, p, place, left)
    return value / max(1, len(place.spaces))


def _effect_value(state: State, seat: int, p: Player, place: D.Place, left: float) -> float:
    effect = place.effect
    status = D.development_status(p.development)
    if effect is Effect.FARM_HOUSE:
        return 2.0 + 2.0 * left if track_open(state, p, Char.FARMER) else 0.0
    if effect is Effect.VILLAGE:
        return 3.0 + 3.0 * left if any(track_open(state, p, c) for c in (Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER)) else 0.0
    if effect is Effect.UNIVERSITY:
        return 4.0 + 2.0 * left if track_open(state, p, Char.SCHOLAR) else 0.0
    if effect is Effect.CASTLE:
        return 2.0 + 6.0 * left if track_open(state, p, Char.KNIGHT) else 0.0
    if effect is Effect.MONASTERY:
        pilgrimage = state.event is not None and state.event.event is Event.PILGRIMAGE
        return 0.0 if pilgrimage or state.supply[CHARS.index(Char.MONK)] == 0 else 2.0 + 3.0 * left
    if effect in (Effect.SHIP, Effect.WAGON):
        return 3.0 + (1.0 if not can_build_here(state, seat, p) else 0.0)
    if effect is Effect.GUILDHALL:
        return 4.0 + status + 2.0 * left if can_build_here(state, seat, p) else 0.0
    if effect is Effect.DEVELOPMENT:
        return 1.5 * place.development
    if effect is Effect.TOWN_HALL:
        return 2.5
    if effect is Effect.GOOD:
        return float(D.GOOD_POINTS[place.good]) + 0.5 if place.good else 0.0
    if effect is Effect.COINS:
        return float(place.coins)
    if effect is Effect.WINDMILL:
        return place.coins + 1.5 * place.development
    if effect is Effect.HOSPITAL:
        return float(status)
    if effect is Effect.OFFICE:
        return float(built_stations(state, seat))
    if effect is Effect.PHARMACY:
        return 1.5 if p.coins >= 2 else 0.0
    if effect is Effect.LABORATORY:
        return 1.0 + TECH_VALUE * left
    if effect is Effect.BATHHOUSE:
        return 2.0
    if effect is Effect.PASSIVE and place.id == D.SACRISTY:
        return 1.5
    return 0.0
