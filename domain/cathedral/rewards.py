"""Rewards (C-rules l.285-299): the icons an order or a Blueprint pays, received one at a time.

Rewards wait in a queue, head first, and always go to the seat whose turn it is (every way to
earn one happens on one's own turn). Sections and Blueprints need no choice and are received at
once: a Blueprint tile is drawn blindly from the face-down ones (which tile one picks is a blind
pick), turned over, and its reward takes its place at the head of the queue. A rosette needs a
choice (one's own knapsack, putting an item back if full, or another seat's knapsack with room;
with a full knapsack it may be left), as does a Monk (red or blue bag). A reward with nothing of
its kind left in the supply is lost (C§4.8 empty_supply_reward). Building section 8 wins the game
at once (C-rules l.102-106).
"""
from __future__ import annotations

from collections.abc import Iterator

from domain.cathedral import data as D
from domain.cathedral.common import Tx, Why, blind_draw, check_put_back, is_full, is_seat, put_back_choices
from domain.cathedral.data import Bag, Reward
from domain.cathedral.model import (
    BlueprintTurned,
    Forgo,
    GameEnded,
    GiveRosette,
    ItemPutBack,
    MakeRoom,
    MonkAdded,
    Outcome,
    PutMonk,
    RewardForgone,
    RewardLost,
    RosetteGiven,
    SectionBuilt,
    State,
    owing_room,
)


def head(state: State) -> Reward | None:
    return state.rewards[0] if state.rewards else None


def available(state: State, reward: Reward) -> bool:
    """Whether the supply still has what ``reward`` hands out."""
    if reward is Reward.BLUEPRINT:
        return bool(state.blueprint_pool)
    if reward is Reward.ROSETTE:
        return state.supply_rosettes > 0
    if reward is Reward.MONK:
        return state.supply_monks > 0
    return state.sections < D.SECTIONS


def receive_next(tx: Tx) -> bool:
    """Receive the head reward if it needs no choice; False when the seat has to choose."""
    reward = head(tx.state)
    if reward is None:
        return False
    seat = tx.state.active
    if not available(tx.state, reward):
        assert D.EMPTY_SUPPLY_REWARD is D.EmptySupply.NO_REWARD
        tx.emit(RewardLost(reward))
    elif reward is Reward.SECTION:
        build_section(tx, seat)
    elif reward is Reward.BLUEPRINT:
        tile = blind_draw(tx, tx.state.blueprint_pool)
        tx.emit(BlueprintTurned(seat, tile, tx.rng.counter))
    else:
        return False
    return True


def build_section(tx: Tx, seat: int) -> None:
    tx.emit(SectionBuilt(seat, tx.state.sections + 1))
    if tx.state.sections >= D.SECTIONS:
        tx.emit(GameEnded(Outcome.WON, tx.state.sections))


# --- choices ------------------------------------------------------------------------------------------


def _waiting_for(state: State, reward: Reward) -> Why:
    if head(state) is not reward:
        owed = head(state)
        return f"no {reward.value} reward to receive now" + (f" (next: {owed.value})" if owed else "")
    return None


def validate_give_rosette(state: State, c: GiveRosette) -> Why:
    why = _waiting_for(state, Reward.ROSETTE)
    if why:
        return why
    if not is_seat(state, c.to):
        return f"to must be a seat, 0-{state.config.players - 1}"
    if c.to == c.seat:
        return check_put_back(state, c.seat, c.put_back)
    if c.put_back is not None:
        return "put_back is only for your own full knapsack"
    if D.GIFT_NEEDS_ROOM and state.config.rules_version < 2 and is_full(state, c.to):
        return f"seat {c.to}'s knapsack is full"
    return None


def apply_give_rosette(tx: Tx, c: GiveRosette) -> None:
    if c.put_back is not None:
        tx.emit(ItemPutBack(c.seat, c.put_back))
    tx.emit(RosetteGiven(c.seat, c.to))


def candidates_give_rosette(state: State, seat: int) -> Iterator[GiveRosette]:
    for to in range(state.config.players):
        backs = put_back_choices(state, seat) if to == seat else (None,)
        for back in backs:
            yield GiveRosette(seat, to, back)


def validate_put_monk(state: State, c: PutMonk) -> Why:
    return _waiting_for(state, Reward.MONK)


def apply_put_monk(tx: Tx, c: PutMonk) -> None:
    tx.emit(MonkAdded(c.seat, c.bag))


def candidates_put_monk(state: State, seat: int) -> Iterator[PutMonk]:
    return (PutMonk(seat, bag) for bag in Bag)


def validate_forgo(state: State, c: Forgo) -> Why:
    why = _waiting_for(state, Reward.ROSETTE)
    if why:
        return why
    return None if is_full(state, c.seat) else "your knapsack has room: take the rosette or give it away"


def apply_forgo(tx: Tx, c: Forgo) -> None:
    tx.emit(RewardForgone(c.seat, Reward.ROSETTE))


# --- rules 2: a gift into a full knapsack (C-rules l.173-180) ----------------------------------------------


def validate_make_room(state: State, c: MakeRoom) -> Why:
    if owing_room(state) != c.seat:
        return "your knapsack is not over full: nothing needs to go back"
    return None if c.item in state.knapsacks[c.seat] else f"you have no {c.item.value} to put back"


def apply_make_room(tx: Tx, c: MakeRoom) -> None:
    tx.emit(ItemPutBack(c.seat, c.item))


def candidates_make_room(state: State, seat: int) -> Iterator[MakeRoom]:
    return (MakeRoom(seat, item) for item in dict.fromkeys(state.knapsacks[seat]))
