"""The hour glass: phase 1 reveals the round's tile, phase 6 resolves its event for every seat in
turn order (R14 "The Events in Detail", R23 A/B/C levels, F§8.1): Income, Harvest (food, else 5
coins, else torture), Taxes, Trading Day, Plague; Pilgrimage acts in phase 5 (no Monks). An
activated Sacristy spares its owner."""
from __future__ import annotations

from collections.abc import Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, gain_coins
from domain.orleans.data import Event, Tile
from domain.orleans.evolve import GOOD_INDEX
from domain.orleans.model import (
    PHASE_BEGAN,
    DueAssigned,
    EventResolved,
    FoodPaid,
    HourglassRevealed,
    PayFood,
    Phase,
    PlagueDrawn,
    ResolveEvent,
    RevealHourglass,
    State,
    TilesReturned,
)
from domain.orleans.queries import activated, built_stations, status, turn_order
from domain.orleans.torture import charge


def reveal_hourglass(tx: Tx, c: RevealHourglass) -> None:
    tx.emit(HourglassRevealed(tx.state.round + 1, tx.state.hourglass[0]))
    tx.emit(PHASE_BEGAN(Phase.CENSUS))


def resolve_event(tx: Tx, c: ResolveEvent) -> None:
    tile = tx.state.event
    assert tile is not None  # phase 1 revealed it
    exempt = []
    for seat in turn_order(tx.state):
        if tile.event in D.SACRISTY_EVENTS and activated(tx.state.players[seat], D.SACRISTY):
            exempt.append(seat)
            tx.emit(TilesReturned(seat, (Tile.MONK,), D.SACRISTY))
            continue
        HOURGLASS_EVENTS[tile.event](tx, seat, tile.level)
    tx.emit(EventResolved(tile, tuple(exempt)))
    tx.emit(PHASE_BEGAN(Phase.START_PLAYER))


def pilgrimage(tx: Tx, seat: int, level: str) -> None:
    return None


def income(tx: Tx, seat: int, level: str) -> None:
    gain_coins(tx, seat, status(tx.state.players[seat]) * D.INCOME_PER_STATUS[level], "income")


def trading_day(tx: Tx, seat: int, level: str) -> None:
    gain_coins(tx, seat, built_stations(tx.state, seat) * D.TRADING_DAY_PER_STATION[level], "trading_day")


def taxes(tx: Tx, seat: int, level: str) -> None:
    owed = sum(tx.state.players[seat].goods) // D.TAXES_GOODS_PER_COIN[level]
    charge(tx, seat, owed, "taxes")


def harvest(tx: Tx, seat: int, level: str) -> None:
    p = tx.state.players[seat]
    held = [(g, p.goods[GOOD_INDEX[g]]) for g in D.FOOD if p.goods[GOOD_INDEX[g]]]
    owed = D.HARVEST_FOOD[level]
    food = min(owed, sum(n for _, n in held))
    if len(held) == 1 or food == sum(n for _, n in held):  # no choice to make
        for g, n in held:
            for _ in range(min(n, food)):
                tx.emit(FoodPaid(seat, g))
            food -= min(n, food)
    elif food:
        tx.emit(DueAssigned(seat, "food", food, "harvest"))
    missing = owed - min(owed, sum(n for _, n in held))
    charge(tx, seat, missing * D.HARVEST_COINS_PER_FOOD, "harvest")


def plague(tx: Tx, seat: int, level: str) -> None:
    bag = tx.state.players[seat].bag
    if not bag:
        return
    tile = bag[tx.rng.below(len(bag))]
    tx.emit(PlagueDrawn(seat, tile, not tile.starting, tx.rng.counter))


HOURGLASS_EVENTS = {Event.PILGRIMAGE: pilgrimage, Event.INCOME: income, Event.TRADING_DAY: trading_day,
                 Event.TAXES: taxes, Event.HARVEST: harvest, Event.PLAGUE: plague}


def validate_pay_food(state: State, c: PayFood) -> Why:
    if c.good not in D.FOOD:
        return "pay grain, cheese or wine"
    return None if state.players[c.seat].goods[GOOD_INDEX[c.good]] > 0 else f"you have no {c.good.value}"


def apply_pay_food(tx: Tx, c: PayFood) -> None:
    tx.emit(FoodPaid(c.seat, c.good))


def candidates_pay_food(state: State, seat: int) -> Iterator[PayFood]:
    return (PayFood(seat, g) for g in D.FOOD)


