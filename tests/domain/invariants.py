"""Conservation and bounds checks over an Orléans state (used by the random playouts)."""
from __future__ import annotations

from collections import Counter

from domain.orleans import data as D
from domain.orleans.model import CHARS, GOODS, TECH, TRACKS, ChoiceKind, Phase, State


def _full(state: State) -> int:
    return 5 if state.config.edition is D.Edition.E2023 else 4


def character_locations(state: State) -> Counter:
    where: Counter = Counter()
    for c, n in zip(CHARS, state.supply):
        where[D.NEUTRAL_TILE[c]] += n
    for c, n in zip(CHARS, state.removed):
        where[D.NEUTRAL_TILE[c]] += n
    for p in state.players:
        where.update(p.bag + p.market + p.tower + p.tower_pending + tuple(x.tile for x in p.pending))
        for s in p.places:
            where.update(D.Tile(v) for v in s.slots if v not in (None, TECH))
    for deed, seats in zip(D.DEEDS, state.deeds):
        where.update(D.NEUTRAL_TILE[need] for need, seat in zip(deed.spaces, seats) if seat is not None)
    if state.choice is not None and state.choice.kind is ChoiceKind.BATHHOUSE:
        where.update(state.choice.tiles)
    return where


def check(state: State) -> None:
    n = state.config.players
    full = _full(state)
    # every character tile in exactly one place
    where = character_locations(state)
    for c in CHARS:
        assert where[D.NEUTRAL_TILE[c]] == D.NEUTRAL_SUPPLY[full][c], (c, where)
    for t in D.STARTING_TILES:
        assert where[t] == n, (t, where)
    # goods
    for i, g in enumerate(GOODS):
        held = sum(p.goods[i] for p in state.players)
        on_map = sum(road.count(g) for road in state.roads)
        total = state.goods_market[i] + on_map + held + state.removed_goods[i]
        assert total == D.GOOD_COUNTS[g], (g, total)
    # technology tiles
    placed = sum(s.slots.count(TECH) for p in state.players for s in p.places)
    techs = state.tech_supply + sum(p.techs for p in state.players) + placed + state.removed_techs
    assert techs == D.TECHNOLOGY_TILES[full]
    for p in state.players:
        assert sum(1 for s in p.places if TECH in s.slots) == sum(s.slots.count(TECH) for s in p.places)
        # the market proper holds 8; only while loading the tower in phase 3 (rules 3) may it hold more
        assert len(p.market) <= D.MARKET_SPACES or p.loading, (len(p.market), p.loading)
        assert len(p.tower) + len(p.tower_pending) <= D.TOWER_SPACES
        assert not p.loading or (state.phase is Phase.FOLLOWERS and p.drew and state.config.rules_version >= 3)
        assert not p.tower_pending or state.config.rules_version < 3  # rules 3 never load during planning
        assert not Counter(p.planned_from_tower) - Counter(x.tile for x in p.pending)
        assert not (p.tower or p.tower_pending) or any(x.place == D.GUNPOWDER_TOWER for x in p.places)
        assert not p.farmer_tech or (p.techs >= 1 and state.config.edition is D.Edition.E2023)
    # place tiles
    owned = [s.place for p in state.players for s in p.places if D.PLACES[s.place].stack]
    tiles = list(state.place_tiles) + list(state.excluded) + owned + list(state.lost_place_tiles)
    assert sorted(tiles) == sorted(D.PLACE_TILE_IDS)
    # citizens
    remaining = sum(1 for seats in state.deeds if any(s is None for s in seats))
    remaining += (state.knights_citizen is None) + (state.boatmen_citizen is None)
    remaining += sum(1 for s in state.development_citizens if s is None) + (state.bonus_citizen is None)
    assert remaining + sum(p.citizens for p in state.players) == D.CITIZENS
    # trading stations
    built = Counter(seat for _, seat in state.stations)
    stations = sum(p.stations + built[i] for i, p in enumerate(state.players)) + state.removed_stations
    assert stations == D.TRADING_STATIONS * n
    towns = [t for t, _ in state.stations if t != D.ORLEANS]
    assert len(towns) == len(set(towns))
    # coins and bounds
    for p in state.players:
        assert p.coins >= 0
        assert 0 <= p.development <= D.DEVELOPMENT_MAX
        for c, pos in zip(TRACKS, p.tracks):
            assert 0 <= pos <= D.TRACK_LENGTH[c]
        assert len(p.market) + len(p.tower) + len(p.tower_pending) + len(p.pending) <= D.MARKET_SPACES + D.TOWER_SPACES
        assert len(p.tower) + len(p.tower_pending) <= D.TOWER_SPACES
    if state.config.edition is D.Edition.CLASSIC:
        assert sum(p.coins for p in state.players) <= D.CLASSIC_COIN_SUPPLY
    assert 0 <= state.round <= D.ROUNDS
    if state.phase is Phase.FINISHED:
        assert state.round == D.ROUNDS and not state.hourglass
