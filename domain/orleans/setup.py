"""Before the first round: the config, the opening events (supply, goods on the map, the hour
glass deck, F§1.3, F§7.3, D7) and the expert variant that excludes place tiles (R14 l.446-450)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from domain import codec
from domain.core import Rejected, RejectKind
from domain.orleans import data as D
from domain.orleans.common import Tx, Why
from domain.orleans.model import (
    CHARS,
    GOODS,
    RULES_VERSION,
    Config,
    Event,
    ExcludePlaceTile,
    ExclusionSkipped,
    GameStarted,
    Phase,
    PhaseBegan,
    PlaceTileExcluded,
    SkipExclusion,
    State,
    TurnMoved,
    sort_goods,
)
from domain.rng import Rng


def config_from_json(data: Any, rules_version: int = RULES_VERSION) -> Config:
    """A validated config for a game played by ``rules_version``; a ``rules_version`` field in
    ``data`` (recorded by ``config_to_json``) must name that same version."""
    if not isinstance(data, dict):
        raise Rejected(RejectKind.INVALID_CONFIG, "config must be an object")
    unknown = sorted(set(data) - {"edition", "players", "exclusion", "start_player", "rules_version"})
    if unknown:
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown config field(s): {', '.join(unknown)}")
    try:
        edition = D.Edition(data.get("edition", "classic"))
    except ValueError:
        raise Rejected(RejectKind.INVALID_CONFIG, "edition must be 'classic' or '2023'") from None
    players = data.get("players")
    allowed = D.PLAYERS[edition]
    if isinstance(players, bool) or players not in allowed:
        raise Rejected(RejectKind.INVALID_CONFIG, f"the {edition.value} edition is for {allowed[0]}–{allowed[-1]} players")
    exclusion = data.get("exclusion", False)
    if not isinstance(exclusion, bool):
        raise Rejected(RejectKind.INVALID_CONFIG, "exclusion must be true or false")
    start = data.get("start_player", 0)
    if isinstance(start, bool) or start not in range(players):
        raise Rejected(RejectKind.INVALID_CONFIG, f"start_player must be a seat from 0 to {players - 1}")
    recorded = data.get("rules_version", rules_version)
    if isinstance(recorded, bool) or recorded != rules_version:
        raise Rejected(RejectKind.INVALID_CONFIG, f"rules_version is recorded by the engine: this one plays {rules_version}")
    return Config(edition, players, exclusion, start, rules_version)


def config_to_json(config: Config) -> dict[str, Any]:
    return codec.object_to_json(config)


def _full_set(edition: D.Edition) -> int:
    return 5 if edition is D.Edition.E2023 else 4  # removals count from the 5p / 4p set (F§7.3)


def setup(config: Config, rng: Rng) -> list[Event]:
    n = config.players
    full = _full_set(config.edition)
    supply = tuple(D.NEUTRAL_SUPPLY[n][c] for c in CHARS)
    removed = tuple(D.NEUTRAL_SUPPLY[full][c] - D.NEUTRAL_SUPPLY[n][c] for c in CHARS)
    goods = rng.shuffled(tuple(g for g in GOODS for _ in range(D.GOOD_COUNTS[g])))  # face down (F§1.3)
    cut = D.GOODS_REMOVED[n]
    spaces = D.goods_spaces(n)
    on_map: dict[str, list[D.Good]] = {}  # connection -> the goods on its spaces
    for cid, g in zip(spaces, goods[cut:cut + len(spaces)]):
        on_map.setdefault(cid, []).append(g)
    roads = tuple(sort_goods(on_map.get(c.id, ())) for c in D.CONNECTIONS)
    market = tuple(goods[cut + len(spaces):].count(g) for g in GOODS)
    removed_goods = tuple(goods[:cut].count(g) for g in GOODS)
    techs = D.TECHNOLOGY_TILES[full]
    tech_supply = D.TECHNOLOGY_TILES[n]
    events: list[Event] = [GameStarted(
        config=config, supply=supply, removed=removed, roads=roads, goods_market=market,
        removed_goods=removed_goods, tech_supply=tech_supply, removed_techs=techs - tech_supply,
        hourglass=_hourglass(config.edition, rng), draws=rng.counter,
    )]
    if config.exclusion:
        events.append(PhaseBegan(Phase.EXCLUSION, config.start_player))
    return events


def _hourglass(edition: D.Edition, rng: Rng) -> tuple[D.Hourglass, ...]:
    if edition is D.Edition.CLASSIC:
        return (D.CLASSIC_START,) + rng.shuffled(D.CLASSIC_REST)
    deck: tuple[D.Hourglass, ...] = (D.E2023_START,)
    for stack in D.E2023_STACKS:  # A on top of B on top of C (D7)
        deck += rng.shuffled(stack)
    return deck




# --- the expert variant: excluding place tiles (R14 l.446-450) -----------------------------------------


def validate_exclude(state: State, c: ExcludePlaceTile) -> Why:
    return None if c.tile in state.place_tiles else f"place tile {c.tile!r} is not available"


def apply_exclude(tx: Tx, c: ExcludePlaceTile) -> None:
    tx.emit(PlaceTileExcluded(c.seat, c.tile))
    next_exclusion(tx)


def candidates_exclude(state: State, seat: int) -> Iterator[ExcludePlaceTile]:
    return (ExcludePlaceTile(seat, t) for t in state.place_tiles)


def validate_skip_exclusion(state: State, c: SkipExclusion) -> Why:
    n = state.config.players
    if not D.EXCLUSION_MAY_BE_SKIPPED[n]:
        return f"with {n} players each seat excludes {D.EXCLUSIONS_PER_PLAYER[n]} place tiles (R14 l.449-450)"
    return None


def apply_skip_exclusion(tx: Tx, c: SkipExclusion) -> None:
    tx.emit(ExclusionSkipped(c.seat))
    next_exclusion(tx)


def candidates_skip_exclusion(state: State, seat: int) -> Iterator[SkipExclusion]:
    return iter((SkipExclusion(seat),))


def next_exclusion(tx: Tx) -> None:
    """In turn order from the start player, once round the table (twice with two players)."""
    state = tx.state
    n = state.config.players
    done = len(state.excluded) + state.exclusions_skipped
    if done >= n * D.EXCLUSIONS_PER_PLAYER[n]:
        tx.emit(PhaseBegan(Phase.HOURGLASS))
    else:
        tx.emit(TurnMoved((state.start_player + done) % n))


