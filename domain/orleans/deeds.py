"""Beneficial deeds (F§4): the Town Hall and the Gunpowder Tower send characters to free deed
spaces of their exact type for coins (or a development point at the Canalisation); whoever fills a
deed's last space takes its citizen."""
from __future__ import annotations

from collections.abc import Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, advance_development, close_choice, gain_coins
from domain.orleans.data import Reward
from domain.orleans.evolve import DEED_INDEX
from domain.orleans.model import (
    CitizenTaken,
    FinishSending,
    SendToDeed,
    SentToDeed,
    State,
    TilesReturned,
)
from domain.orleans.queries import free_deed_space, open_choice, sendable


def validate_send(state: State, c: SendToDeed) -> Why:
    if c.tile not in open_choice(state).tiles:
        return f"no {c.tile.value} waiting to be sent"
    if c.tile.starting:
        return "starting followers never go to beneficial deeds"
    deed = D.DEED_BY_ID.get(c.deed)
    if deed is None:
        return f"unknown deed {c.deed!r}"
    if free_deed_space(state, deed, c.tile.kind) is None:
        return f"{deed.name} has no free {c.tile.kind.value} space"
    if c.reward is Reward.DEVELOPMENT and not deed.development_choice:
        return f"{deed.name} rewards coins only"
    return None


def apply_send(tx: Tx, c: SendToDeed) -> None:
    deed = D.DEED_BY_ID[c.deed]
    space = free_deed_space(tx.state, deed, c.tile.kind)
    assert space is not None  # validate_send checked it
    tx.emit(SentToDeed(c.seat, c.tile, deed.id, space, open_choice(tx.state).source))
    if c.reward is Reward.DEVELOPMENT:
        advance_development(tx, c.seat, 1)
    else:
        gain_coins(tx, c.seat, deed.coins, deed.id)
    if all(s is not None for s in tx.state.deeds[DEED_INDEX[deed.id]]):
        tx.emit(CitizenTaken(c.seat, f"deed:{deed.id}"))
    if not sendable(tx.state, open_choice(tx.state).tiles):
        finish_sending(tx)


def candidates_send(state: State, seat: int) -> Iterator[SendToDeed]:
    for tile in dict.fromkeys(open_choice(state).tiles):
        for deed in D.DEEDS:
            yield SendToDeed(seat, tile, deed.id, Reward.COIN)
            if deed.development_choice:
                yield SendToDeed(seat, tile, deed.id, Reward.DEVELOPMENT)


def finish_sending(tx: Tx) -> None:
    choice = open_choice(tx.state)
    if choice.source == D.TOWN_HALL and choice.tiles:
        tx.emit(TilesReturned(choice.seat, choice.tiles, D.TOWN_HALL))
    close_choice(tx)


def validate_finish_sending(state: State, c: FinishSending) -> Why:
    return None if open_choice(state).done >= 1 else "send at least one character first"


def apply_finish_sending(tx: Tx, c: FinishSending) -> None:
    finish_sending(tx)


def candidates_finish_sending(state: State, seat: int) -> Iterator[FinishSending]:
    return iter((FinishSending(seat),))


