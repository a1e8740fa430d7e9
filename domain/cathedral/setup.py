"""Config and set-up (C-rules l.41-86): 2-4 seats, the standard or the expert variant.

Set-up as the rulebook orders it: 3 of the 8 Workshops face up on their places, the Events face
down, a good drawn blindly onto every Goods space, a rosette on its space, the Blueprints face
down, the top Hour Glass tile revealed, the follower bags filled (fewer Monks in the expert
variant), then each seat in turn draws one good into its knapsack. Master Builders start in
Orléans. The face-down stacks are kept as sorted piles and drawn from when a tile turns up, which
is the same chance as shuffling them now (a tile is as likely to come up whenever it is drawn).
"""
from __future__ import annotations

from typing import Any

from domain import codec
from domain.cathedral import data as D
from domain.cathedral.common import Tx, blind_draw, next_seat
from domain.cathedral.evolve import evolve, without
from domain.cathedral.model import (
    Config,
    GameStarted,
    GoodPacked,
    GoodsLaid,
    HourGlassRevealed,
    RosetteLaid,
    RoundBegan,
    TurnBegan,
    WorkshopsLaid,
)
from domain.core import Rejected, RejectKind

CONFIG_FIELDS = frozenset({"edition", "players", "rules_version"})
EDITIONS = ", ".join(repr(e.value) for e in D.Edition)


def config_from_json(data: Any, rules_version: int = D.RULES_VERSION) -> Config:
    """A validated config for a game played by ``rules_version``; a ``rules_version`` field in
    ``data`` (recorded by ``config_to_json``) must name that same version."""
    if not isinstance(data, dict):
        raise Rejected(RejectKind.INVALID_CONFIG, "config must be an object")
    unknown = sorted(set(data) - CONFIG_FIELDS)
    if unknown:
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown config field(s): {', '.join(unknown)}")
    try:
        edition = D.Edition(data.get("edition", D.Edition.STANDARD.value))
    except ValueError:
        raise Rejected(RejectKind.INVALID_CONFIG, f"edition must be one of {EDITIONS}") from None
    players = data.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or players not in D.PLAYERS:
        raise Rejected(RejectKind.INVALID_CONFIG,
                       f"The Cathedral of Orléans is for {D.PLAYERS[0]}–{D.PLAYERS[-1]} players")
    recorded = data.get("rules_version", rules_version)
    if isinstance(recorded, bool) or recorded != rules_version:
        raise Rejected(RejectKind.INVALID_CONFIG, f"rules_version is recorded by the engine: this one plays {rules_version}")
    return Config(players=players, edition=edition, rules_version=rules_version)


def config_to_json(config: Config) -> dict[str, Any]:
    out: dict[str, Any] = codec.to_json(config)
    return out


def setup(config: Config, rng: Any) -> list[Any]:
    started = GameStarted(config)
    tx = Tx(evolve(None, started), rng)
    tx.events.append(started)
    lay_workshops(tx)
    fill_goods_spaces(tx)
    tx.emit(RosetteLaid())
    reveal_hour_glass(tx)
    pack_first_goods(tx)
    tx.emit(RoundBegan(1))
    tx.emit(TurnBegan(D.FIRST_SEAT))
    return tx.events


def lay_workshops(tx: Tx) -> None:
    """3 of the 8 Workshop tiles, drawn blindly, face up on the Workshop places (C-rules l.43-45)."""
    pool, tiles = tuple(D.Workshop), []
    for _ in D.WORKSHOP_PLACES:
        tile = blind_draw(tx, pool)
        pool = without(pool, (tile,))
        tiles.append(tile)
    tx.emit(WorkshopsLaid(tuple(tiles), tx.rng.counter))


def fill_goods_spaces(tx: Tx) -> None:
    """A good from the black bag onto every empty Goods space, one at a time; spaces stay empty
    when the bag runs out (C-rules l.50-52, l.336-342)."""
    bag = tx.state.black_bag
    spots, goods = [], []
    for spot in D.GOODS_SPOTS:
        if tx.state.spots[spot] is not None or not bag:
            continue
        good = blind_draw(tx, bag)
        bag = without(bag, (good,))
        spots.append(spot)
        goods.append(good)
    if spots:
        tx.emit(GoodsLaid(tuple(spots), tuple(goods), tx.rng.counter))


def reveal_hour_glass(tx: Tx) -> None:
    """The next Hour Glass tile turns face up (C-rules l.62-64, l.334)."""
    pool = tx.state.hour_glass_pool
    if len(tx.state.hour_glass_gone) + 1 <= D.HOUR_GLASSES_IN_PLAY and pool:
        tx.emit(HourGlassRevealed(blind_draw(tx, pool), tx.rng.counter))


def pack_first_goods(tx: Tx) -> None:
    """All players in turn draw 1 good into their knapsack (C-rules l.76-81)."""
    seat = D.FIRST_SEAT
    for _ in range(tx.state.config.players):
        good = blind_draw(tx, tx.state.black_bag)
        tx.emit(GoodPacked(seat, good, tx.rng.counter))
        seat = next_seat(tx.state, seat)
