"""Phases 2 and 3: the census on the Farmers track, then recalling characters from action spaces,
drawing followers from the bag onto the market and loading the Gunpowder Tower (R14 "Phase 2",
"Phase 3", "Placed Character Tiles", "Gunpowder Tower"; F§2.1, F§2.6, F§6)."""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import chain

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, draw_from_bag, gain_coins
from domain.orleans.data import Char, Tile
from domain.orleans.evolve import TRACK_INDEX
from domain.orleans.memo import derived
from domain.orleans.model import (
    PHASE_BEGAN,
    RECALLED,
    TECH,
    DrawFollowers,
    FinishLoading,
    FollowersDrawn,
    LoadTower,
    Phase,
    Player,
    RecallFollower,
    State,
    TakeCensus,
    TowerLoaded,
    TowerLoadingBegan,
    TowerLoadingEnded,
    TowerUnloaded,
    UnloadTower,
    rules_at_least,
)
from domain.orleans.queries import (
    SPACES,
    draw_limit,
    free_market,
    max_draw,
    occupied_on,
    owns,
    slots_of,
    turn_order,
)
from domain.orleans.torture import charge


def take_census(tx: Tx, c: TakeCensus) -> None:
    """The single leader on the Farmers track gains a coin, the single last pays one (nobody pays
    with two players). Rules 3 settle both in turn order from the start player (R14 l.533-536), so
    the last player's coin can reach an empty classic supply before the leader is paid."""
    state = tx.state
    positions = [p.tracks[TRACK_INDEX[Char.FARMER]] for p in state.players]
    top, bottom = max(positions), min(positions)
    if top == bottom:
        tx.emit(PHASE_BEGAN(Phase.FOLLOWERS))
        return
    coins: dict[int, int] = {}
    if positions.count(top) == 1:
        coins[positions.index(top)] = D.CENSUS_COIN
    if positions.count(bottom) == 1 and state.config.players > 2:
        coins[positions.index(bottom)] = -D.CENSUS_COIN
    order = turn_order(state) if rules_at_least(state, 3) else list(coins)  # rules 2: the leader first
    for seat in order:
        amount = coins.get(seat, 0)
        if amount > 0:
            gain_coins(tx, seat, amount, "census")
        elif amount < 0:
            charge(tx, seat, -amount, "census")
    tx.emit(PHASE_BEGAN(Phase.FOLLOWERS))


def validate_recall(state: State, c: RecallFollower) -> Why:
    p = state.players[c.seat]
    slots = slots_of(p, c.place)
    if slots is None or not 0 <= c.space < len(slots):
        return f"you have no space {c.space} at {c.place!r}"
    if slots[c.space] in (None, TECH):
        return f"no character on space {c.space} of {c.place}"
    if p.recalls + 1 > draw_limit(p):
        return "each recalled character costs one draw and you have none left"
    if free_market(p) <= 0:
        return "your market is full"
    return None


def apply_recall(tx: Tx, c: RecallFollower) -> None:
    slots = slots_of(tx.state.players[c.seat], c.place)
    assert slots is not None  # validate_recall checked it
    tile = Tile(slots[c.space])
    tx.emit(RECALLED(c.seat, c.place, c.space, tile))


def candidates_recall(state: State, seat: int) -> list[RecallFollower]:
    """Exact: every character on an action space, while a draw and a market space are left."""
    p = state.players[seat]
    if p.recalls + 1 > draw_limit(p) or free_market(p) <= 0:
        return []
    row = _recall_row(seat)
    return [row[n] for n in occupied_spaces(p)]


@derived(Player, depends_on=("places",))
def occupied_spaces(p: Player) -> tuple[int, ...]:
    """The numbers (in ``queries.SPACES``) of the action spaces where a character (not
    technology) of the seat stands, in board order."""
    return tuple(chain.from_iterable([occupied_on(s.place, s.slots) for s in p.places]))


class _RecallRow(dict[int, RecallFollower]):
    """Per space number, the seat's recall from there, built on first use: commands are immutable values."""

    def __init__(self, seat: int) -> None:
        super().__init__()
        self.seat = seat

    def __missing__(self, space: int) -> RecallFollower:
        move = self[space] = RecallFollower(self.seat, *SPACES[space])
        return move


@cache
def _recall_row(seat: int) -> _RecallRow:
    return _RecallRow(seat)


def validate_draw(state: State, c: DrawFollowers) -> Why:
    top = max_draw(state.players[c.seat])
    return None if 0 <= c.count <= top else f"you may draw 0 to {top} followers"


def apply_draw(tx: Tx, c: DrawFollowers) -> None:
    tiles = draw_from_bag(tx, tx.state.players[c.seat].bag, c.count)
    tx.emit(FollowersDrawn(c.seat, tiles, tx.rng.counter))
    if rules_at_least(tx.state, 3) and may_arrange_tower(tx.state, tx.state.players[c.seat]):
        tx.emit(TowerLoadingBegan(c.seat))
    end_of_followers(tx)


def candidates_draw(state: State, seat: int) -> tuple[DrawFollowers, ...]:
    return _draws(seat, max_draw(state.players[seat]))


@lru_cache(maxsize=1024)
def _draws(seat: int, top: int) -> tuple[DrawFollowers, ...]:
    return tuple(DrawFollowers(seat, n) for n in range(top + 1))  # built once: immutable values


def end_of_followers(tx: Tx) -> None:
    for p in tx.state.players:  # (a loop, not all(): no generator frame on every draw)
        if not p.drew or p.loading:
            return
    tx.emit(PHASE_BEGAN(Phase.PLANNING))


# --- the Gunpowder Tower, rules 3 (R14 l.673-681, R23 l.593-600) ----------------------------------
# In phase 3 its owner may put 1 or 2 characters of its choice on the tower: after drawing, any
# character on the market (drawn now or left from earlier rounds, starting followers included:
# they may be planned from the tower, only deeds refuse them). Optional, except that the market
# proper holds 8, so whatever the draw brought beyond that must go onto the tower.


def can_load_tower(p: Player) -> bool:
    return bool(p.market) and len(p.tower) < D.TOWER_SPACES and owns(p, D.GUNPOWDER_TOWER)


# Rules 5 (D15): the tower is two more market spaces (R14 l.675; in German, R14 l.662-664: "erweitert
# den Markt um 2 Ablagefelder"), and phase 3 is when the owner decides what stands on them
# (R14 l.675-677), so a character may also go from the tower back to a free space of the market.
# Each loading allows at most TOWER_SPACES returns, so a seat cannot keep phase 3 going for ever
# by moving one character to and fro (as D13 bounds take-backs).


def can_unload_tower(state: State, p: Player) -> bool:
    return (rules_at_least(state, 5) and bool(p.tower) and len(p.market) < D.MARKET_SPACES
            and p.tower_returns < D.TOWER_SPACES and owns(p, D.GUNPOWDER_TOWER))


def may_arrange_tower(state: State, p: Player) -> bool:
    """Is there anything the seat may still do on its Gunpowder Tower in this phase 3?"""
    return can_load_tower(p) or can_unload_tower(state, p)


def validate_load_tower(state: State, c: LoadTower) -> Why:
    p = state.players[c.seat]
    if not owns(p, D.GUNPOWDER_TOWER):
        return "you do not own the Gunpowder Tower"
    if c.tile not in p.market:
        return f"no {c.tile.value} on your market"
    if len(p.tower) >= D.TOWER_SPACES:
        return "the Gunpowder Tower is full"
    return None


def apply_load_tower(tx: Tx, c: LoadTower) -> None:
    tx.emit(TowerLoaded(c.seat, c.tile))
    end_loading_if_done(tx, c.seat)


def end_loading_if_done(tx: Tx, seat: int) -> None:
    if not may_arrange_tower(tx.state, tx.state.players[seat]):
        tx.emit(TowerLoadingEnded(seat))
        end_of_followers(tx)


def candidates_load_tower(state: State, seat: int) -> Iterator[LoadTower]:
    """Exact: each kind of market tile, while the tower has room."""
    p = state.players[seat]
    if len(p.tower) < D.TOWER_SPACES and owns(p, D.GUNPOWDER_TOWER):
        for tile in dict.fromkeys(p.market):
            yield LoadTower(seat, tile)


def validate_unload_tower(state: State, c: UnloadTower) -> Why:
    p = state.players[c.seat]
    if not rules_at_least(state, 5):
        return "this game's rules (before rules 5) keep the Gunpowder Tower's characters on the tower"
    if c.tile not in p.tower:
        return f"no {c.tile.value} on your Gunpowder Tower"
    if len(p.market) >= D.MARKET_SPACES:
        return f"your market's {D.MARKET_SPACES} spaces are full"
    if p.tower_returns >= D.TOWER_SPACES:
        return f"you have put {D.TOWER_SPACES} characters back on the market in this phase, the most allowed (D15)"
    return None


def apply_unload_tower(tx: Tx, c: UnloadTower) -> None:
    tx.emit(TowerUnloaded(c.seat, c.tile))
    end_loading_if_done(tx, c.seat)


def candidates_unload_tower(state: State, seat: int) -> Iterator[UnloadTower]:
    """Exact: each kind of tower tile, while the market proper has room (rules 5, D15)."""
    if can_unload_tower(state, state.players[seat]):
        for tile in dict.fromkeys(state.players[seat].tower):
            yield UnloadTower(seat, tile)


def validate_finish_loading(state: State, c: FinishLoading) -> Why:
    over = len(state.players[c.seat].market) - D.MARKET_SPACES
    return None if over <= 0 else f"the market holds {D.MARKET_SPACES}: put {over} more on the Gunpowder Tower"


def apply_finish_loading(tx: Tx, c: FinishLoading) -> None:
    tx.emit(TowerLoadingEnded(c.seat))
    end_of_followers(tx)


def candidates_finish_loading(state: State, seat: int) -> Iterator[FinishLoading]:
    return iter((FinishLoading(seat),))


