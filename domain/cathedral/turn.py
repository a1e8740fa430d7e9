"""A turn (C-rules l.118-156): draw a tile blindly from the red or the blue bag, put it on a free
action space that shows it, carry out the action; Rest with a full knapsack at any time.

Placement: a space takes a follower its icons show (two icons: either; the "any follower" icon:
all); Monks are wild, and only Monks may use the Glass Foundry and the Glass Painting. The Bell
Tower takes any tile at any time and ends the round, so a tile that fits nowhere else always has
it (C-rules l.152-156, l.303-309). The Festival Ground's and the Bell Tower's actions happen at
once; every other action may be refused (C-rules l.344-350).
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from domain.cathedral import data as D
from domain.cathedral import festival, rounds
from domain.cathedral.common import Tx, Why, blind_draw, is_full, next_seat
from domain.cathedral.data import Action, Bag, Reward
from domain.cathedral.model import (
    ActionFinished,
    DrawFollower,
    EndTurn,
    FollowerDrawn,
    FollowerPlaced,
    PlaceFollower,
    Rest,
    Rested,
    RewardsEarned,
    State,
    TurnBegan,
)

# --- draw -------------------------------------------------------------------------------------------


def validate_draw(state: State, c: DrawFollower) -> Why:
    return None if state.bag(c.bag) else f"the {c.bag.value} bag is empty"


def apply_draw(tx: Tx, c: DrawFollower) -> None:
    follower = blind_draw(tx, tx.state.bag(c.bag))
    tx.emit(FollowerDrawn(c.seat, c.bag, follower, tx.rng.counter))


def candidates_draw(state: State, seat: int) -> Iterator[DrawFollower]:
    return (DrawFollower(seat, bag) for bag in BAGS)


# --- place ------------------------------------------------------------------------------------------


def validate_place(state: State, c: PlaceFollower) -> Why:
    follower = state.drawn
    if follower is None:
        return "draw a tile first"
    if state.spaces[D.SPACE_INDEX[c.space]] is not None:
        return f"space {c.space.value} is taken"
    spec = D.SPACES[c.space]
    if not spec.accepts(follower):
        shows = "Monks only" if spec.monk_only else " or ".join(f.value for f in spec.shows)
        return f"space {c.space.value} ({spec.action.value}) takes {shows}, not a {follower.value}"
    return None


def apply_place(tx: Tx, c: PlaceFollower) -> None:
    follower = tx.state.drawn
    assert follower is not None  # validated
    tx.emit(FollowerPlaced(c.seat, c.space, follower))
    action = D.SPACES[c.space].action
    if action is Action.FESTIVAL_GROUND:
        festival.reveal(tx, c.seat)
        tx.emit(ActionFinished(c.seat))
    elif action is Action.BELL_TOWER:
        rounds.end_round(tx, c.seat)


def candidates_place(state: State, seat: int) -> Iterator[PlaceFollower]:
    return iter(_places(seat))


@cache
def _places(seat: int) -> tuple[PlaceFollower, ...]:
    """A seat's PlaceFollower commands, made once: commands are frozen values, safe to share."""
    return tuple(PlaceFollower(seat, space) for space in D.SPACE_LIST)


BAGS = tuple(Bag)  # (iterating an Enum class runs Python code per member)


# --- rest and the end of the turn --------------------------------------------------------------------


def validate_rest(state: State, c: Rest) -> Why:
    if not is_full(state, c.seat):
        return f"only a full knapsack ({D.KNAPSACK_SLOTS} items) lets you rest"
    return None


def apply_rest(tx: Tx, c: Rest) -> None:
    """Everything back (goods to the black bag, rosettes to the supply), 1 Blueprint in return."""
    tx.emit(Rested(c.seat, tx.state.knapsacks[c.seat]))
    tx.emit(RewardsEarned(c.seat, (Reward.BLUEPRINT,)))


def validate_end_turn(state: State, c: EndTurn) -> Why:
    return None


def apply_end_turn(tx: Tx, c: EndTurn) -> None:
    pass_turn(tx)


def pass_turn(tx: Tx) -> None:
    tx.emit(TurnBegan(next_seat(tx.state, tx.state.active)))
