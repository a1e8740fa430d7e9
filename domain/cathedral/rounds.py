"""The Bell Tower, the end of a round and the end of the game (C-rules l.303-342, l.352-356).

A tile on the Bell Tower ends the round at once. After rounds 1 and 2: the Bell Tower tile leaves
the game, the tiles of the red area go back into the red bag and those of the blue area into the
blue bag, an unfinished Hour Glass tile leaves the game with its delivered items going back, the
next Hour Glass tile is revealed, empty Goods spaces are refilled from the black bag (some stay
empty when it runs out) and an empty rosette space from the supply. The next round starts with
the seat after the one that rang the bell (C§4.8 round_start_player).

After round 3 the team has lost; building section 8 wins at once, whenever it happens
(``rewards.build_section``).
"""
from __future__ import annotations

from domain.cathedral import data as D
from domain.cathedral.common import Tx, next_seat
from domain.cathedral.data import Area, Follower
from domain.cathedral.model import (
    FollowerRemoved,
    FollowersReturned,
    GameEnded,
    HourGlassExpired,
    Outcome,
    RosetteLaid,
    RoundBegan,
    RoundEnded,
    TurnBegan,
)
from domain.cathedral.setup import fill_goods_spaces, reveal_hour_glass


def end_round(tx: Tx, seat: int) -> None:
    state = tx.state
    tx.emit(RoundEnded(state.round, seat))
    if state.round >= D.ROUNDS:
        tx.emit(GameEnded(Outcome.LOST, state.sections))
        return
    clear_town(tx)
    expire_hour_glass(tx)
    reveal_hour_glass(tx)
    fill_goods_spaces(tx)
    if tx.state.spots[D.ROSETTE_SPOT] is None and tx.state.supply_rosettes > 0:
        tx.emit(RosetteLaid())
    tx.emit(RoundBegan(state.round + 1))
    tx.emit(TurnBegan(first_of_round(tx, seat)))


def clear_town(tx: Tx) -> None:
    bell = tx.state.spaces[D.SPACE_INDEX[D.Space.BT]]
    if bell is not None:
        tx.emit(FollowerRemoved(bell))
    tx.emit(FollowersReturned(area_tiles(tx, Area.RED), area_tiles(tx, Area.BLUE)))


def area_tiles(tx: Tx, area: Area) -> tuple[Follower, ...]:
    return tuple(f for space, f in zip(D.SPACE_LIST, tx.state.spaces)
                 if f is not None and D.SPACES[space].area is area)


def expire_hour_glass(tx: Tx) -> None:
    glass = tx.state.hour_glass
    if glass is not None:
        tx.emit(HourGlassExpired(glass.tile, glass.delivered))


def first_of_round(tx: Tx, bell_seat: int) -> int:
    if D.ROUND_START is D.RoundStart.AFTER_BELL_TOWER_PLAYER:
        return next_seat(tx.state, bell_seat)
    return D.FIRST_SEAT
