"""Buying and selling with the bank (A-rules l.211-216, l.248-249).

Only the seat whose revealed card is about to resolve may trade, and only before resolving it;
at Turn end every seat may sell. Prices are the green (buy) and brown (sell) circles, one unit
per command.
"""
from __future__ import annotations

from collections.abc import Iterator

from domain.artificium.common import Tx, Why, bank_pays
from domain.artificium.model import (
    RESOURCE_INDEX,
    RESOURCES,
    BuyResource,
    ResourceBought,
    ResourceSold,
    SellResource,
    State,
    tables,
)


def validate_buy(state: State, c: BuyResource) -> Why:
    """Even a limited bank never runs short here: the coins paid are tokens, and one of them
    comes back as the resource (every price is at least 1)."""
    price = tables(state).buy[c.resource]
    coins = state.players[c.seat].coins
    if coins < price:
        return f"{c.resource.value} costs {price} coins; you have {coins}"
    return None


def apply_buy(tx: Tx, c: BuyResource) -> None:
    tx.emit(ResourceBought(c.seat, c.resource, tables(tx.state).buy[c.resource]))


def candidates_buy(state: State, seat: int) -> Iterator[BuyResource]:
    return (BuyResource(seat, r) for r in RESOURCES)


def validate_sell(state: State, c: SellResource) -> Why:
    if state.players[c.seat].resources[RESOURCE_INDEX[c.resource]] < 1:
        return f"you have no {c.resource.value} to sell"
    price = tables(state).sell[c.resource]
    if bank_pays(state, price - 1) < price - 1:  # the sold token itself goes back to the bank
        return "the bank cannot pay"
    return None


def apply_sell(tx: Tx, c: SellResource) -> None:
    tx.emit(ResourceSold(c.seat, c.resource, tables(tx.state).sell[c.resource]))


def candidates_sell(state: State, seat: int) -> Iterator[SellResource]:
    have = state.players[seat].resources
    return (SellResource(seat, r) for r, n in zip(RESOURCES, have) if n > 0)
