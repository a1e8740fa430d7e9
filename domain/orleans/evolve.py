"""The fold: ``evolve(state, event) -> state``. Total; no validation, no randomness."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from domain.engine import FoldRules
from domain.orleans import data as D
from domain.orleans.memo import keep, recall, replace, with_player
from domain.orleans.model import (
    CHARS,
    GOODS,
    PLACE_MAP,
    PLACEMENT,
    TECH,
    TRACKS,
    ActionTaken,
    BathhouseDrawn,
    CharacterRecruited,
    ChoiceClosed,
    ChoiceOffered,
    CitizenTaken,
    CoinsChanged,
    DevelopmentMoved,
    DrawnPlaced,
    Due,
    DueAssigned,
    DueForgiven,
    Event,
    EventResolved,
    ExclusionSkipped,
    FollowerPlaced,
    FollowerRecalled,
    FollowersDrawn,
    FollowerTakenBack,
    FoodPaid,
    GameEnded,
    GameStarted,
    GoodTaken,
    HourglassRevealed,
    ItemLost,
    MerchantMoved,
    MovedToTower,
    Passed,
    Phase,
    PhaseBegan,
    Placement,
    PlaceTileExcluded,
    PlaceTileTaken,
    PlagueDrawn,
    PlanningFinished,
    PlansRevealed,
    Player,
    SentToDeed,
    Slots,
    StartPlayerPassed,
    State,
    StationBuilt,
    TechnologyGained,
    TechnologyPlaced,
    TilesReturned,
    TimeoutApplied,
    TowerLoaded,
    TowerLoadingBegan,
    TowerLoadingEnded,
    TowerUnloaded,
    TurnMoved,
    place_map,
    rules_at_least,
    sort_tiles,
)

CHAR_INDEX = {c: i for i, c in enumerate(CHARS)}
TRACK_INDEX = {c: i for i, c in enumerate(TRACKS)}
GOOD_INDEX = {g: i for i, g in enumerate(GOODS)}
DEED_INDEX = {d.id: i for i, d in enumerate(D.DEEDS)}
CONNECTION_INDEX = {c.id: i for i, c in enumerate(D.CONNECTIONS)}


if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")
DC = TypeVar("DC", bound="DataclassInstance")
# --- small tuple helpers -------------------------------------------------------------------------


# (through a list: two new sequences instead of the slices' four or five)


def bump(values: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    items = list(values)
    items[index] += delta
    return tuple(items)


def put(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    items = list(values)
    items[index] = value
    return tuple(items)


def without(tiles: tuple[T, ...], tile: T) -> tuple[T, ...]:
    """``tiles`` less its first ``tile`` (ValueError if there is none)."""
    items = list(tiles)
    items.remove(tile)
    return tuple(items)


def without_all(tiles: tuple[T, ...], removed: Iterable[T]) -> tuple[T, ...]:
    items = list(tiles)
    for tile in removed:
        items.remove(tile)
    return tuple(items)


def player(state: State, seat: int) -> Player:
    return state.players[seat]


def with_slots(state: State, seat: int, places: tuple[Slots, ...], **changes: Any) -> State:
    """``with_player(state, seat, places=places, **changes)`` where ``places`` differs from the
    player's only in what stands on the spaces (set_slot, clear_tiles): the same places in the
    same order, so the place_map memo still holds and is kept (the others are re-derived)."""
    kept = recall(state.players[seat], PLACE_MAP)
    state = with_player(state, seat, places=places, **changes)
    if kept is not None:
        keep(state.players[seat], PLACE_MAP, kept)
    return state


def place_index(p: Player, place: str) -> int:
    return place_map(p)[place]


def set_slot(p: Player, place: str, space: int, value: str | None) -> tuple[Slots, ...]:
    i = place_index(p, place)
    s = p.places[i]
    return put(p.places, i, Slots(place, put(s.slots, space, value)))


def clear_tiles(p: Player, place: str, tiles: Iterable[D.Tile]) -> tuple[Slots, ...]:
    """Take the given character tiles off a place's slots (technology stays)."""
    i = place_index(p, place)
    slots = list(p.places[i].slots)
    for tile in tiles:
        slots[slots.index(tile.value)] = None
    return put(p.places, i, Slots(place, tuple(slots)))


def add_to_bag(p: Player, tiles: Iterable[D.Tile]) -> tuple[D.Tile, ...]:
    return sort_tiles(p.bag + tuple(tiles))


# --- the fold ---------------------------------------------------------------------------------


FOLD = FoldRules[State]("an Orléans")  # event class -> its rule(state, event)
fold_rule = FOLD.rule


def evolve(state: State | None, event: Event) -> State:
    return FOLD.fold(state, event)


@fold_rule
def _(_state: None, e: GameStarted) -> State:
    cfg = e.config
    board = tuple(Slots(p.id, (None,) * len(p.spaces)) for p in D.BOARD_PLACES)
    starting = sort_tiles(t for t in D.Tile if t.starting)
    new_player = Player(
        coins=D.STARTING_COINS, bag=(), market=starting, tower=(), places=board,
        tracks=(0,) * len(TRACKS), development=0, goods=(0,) * len(GOODS), techs=0, techs_placed=0,
        stations=D.TRADING_STATIONS, citizens=0, merchant=D.ORLEANS,
    )
    return State(
        config=cfg, players=(new_player,) * cfg.players, supply=e.supply, goods_market=e.goods_market,
        roads=e.roads, stations=(), deeds=tuple((None,) * len(d.spaces) for d in D.DEEDS),
        place_tiles=D.PLACE_TILE_IDS, tech_supply=e.tech_supply, hourglass=e.hourglass, event=None,
        round=0, phase=Phase.HOURGLASS, start_player=cfg.start_player, turn=None, choice=None, dues=(),
        knights_citizen=None, boatmen_citizen=None,
        development_citizens=(None,) * len(D.DEVELOPMENT_CITIZENS), bonus_citizen=None, excluded=(),
        removed=e.removed, removed_goods=e.removed_goods, removed_techs=e.removed_techs,
        removed_stations=0, lost_place_tiles=(), draws=e.draws,
    )


# What a phase resets on every player as it begins (the others reset nothing)
PHASE_RESETS: dict[Phase, dict[str, Any]] = {
    Phase.FOLLOWERS: {"drew": False, "recalls": 0},
    Phase.PLANNING: {"planned": False, "pending": (), "tower_pending": (), "planned_from_tower": (),
                     "take_backs": 0},
    Phase.ACTIONS: {"passed": False},
}


@fold_rule
def _(state: State, e: PhaseBegan) -> State:
    reset = PHASE_RESETS.get(e.phase)
    if reset is None:
        return replace(state, phase=e.phase, turn=e.turn)
    return replace(state, phase=e.phase, turn=e.turn, players=tuple([replace(p, **reset) for p in state.players]))


@fold_rule
def _(state: State, e: PlaceTileExcluded) -> State:
    return replace(state, place_tiles=without(state.place_tiles, e.tile), excluded=state.excluded + (e.tile,))


@fold_rule
def _(state: State, e: ExclusionSkipped) -> State:
    return replace(state, exclusions_skipped=state.exclusions_skipped + 1)


@fold_rule
def _(state: State, e: HourglassRevealed) -> State:
    return replace(state, round=e.round, event=e.tile, hourglass=state.hourglass[1:])


@fold_rule
def _(state: State, e: CoinsChanged) -> State:
    return with_player(state, e.seat, coins=player(state, e.seat).coins + e.amount)


@fold_rule
def _(state: State, e: DueAssigned) -> State:
    return replace(state, dues=state.dues + (Due(e.seat, e.kind, e.amount),))


def _reduce_due(state: State, seat: int, kind: str, amount: int = 1) -> State:
    dues = []
    for due in state.dues:
        if due.seat == seat and due.kind == kind and amount:
            taken = min(amount, due.amount)
            amount -= taken
            due = replace(due, amount=due.amount - taken)
        if due.amount > 0:
            dues.append(due)
    return replace(state, dues=tuple(dues))


@fold_rule
def _(state: State, e: FollowerRecalled) -> State:
    p = state.players[e.seat]
    places = set_slot(p, e.place, e.space, None)
    if len(p.market) < D.MARKET_SPACES or rules_at_least(state, 3):  # 3: the seat loads the tower itself
        return with_slots(state, e.seat, places, recalls=p.recalls + 1, market=sort_tiles(p.market + (e.tile,)))
    # rules 2: a full market overflowed onto the Gunpowder Tower's two extra spaces
    return with_slots(state, e.seat, places, recalls=p.recalls + 1, tower=sort_tiles(p.tower + (e.tile,)))


@fold_rule
def _(state: State, e: FollowersDrawn) -> State:
    p = player(state, e.seat)
    room = len(e.tiles) if rules_at_least(state, 3) else D.MARKET_SPACES - len(p.market)  # as for a recall
    market = sort_tiles(p.market + e.tiles[:room])
    tower = sort_tiles(p.tower + e.tiles[room:])
    return with_player(state, e.seat, {"draws": e.draws}, bag=without_all(p.bag, e.tiles), market=market,
                       tower=tower, drew=True)


@fold_rule
def _(state: State, e: TowerLoadingBegan) -> State:
    return with_player(state, e.seat, loading=True)


@fold_rule
def _(state: State, e: TowerLoaded) -> State:
    p = player(state, e.seat)
    return with_player(state, e.seat, market=without(p.market, e.tile), tower=sort_tiles(p.tower + (e.tile,)))


@fold_rule
def _(state: State, e: TowerUnloaded) -> State:
    p = state.players[e.seat]
    return with_player(state, e.seat, tower=without(p.tower, e.tile), market=sort_tiles(p.market + (e.tile,)),
                       tower_returns=p.tower_returns + 1)


@fold_rule
def _(state: State, e: TowerLoadingEnded) -> State:
    if state.players[e.seat].tower_returns:  # rules 5 (D15): the count starts afresh each phase 3
        return with_player(state, e.seat, loading=False, tower_returns=0)
    return with_player(state, e.seat, loading=False)


@fold_rule
def _(state: State, e: FollowerPlaced) -> State:
    p = state.players[e.seat]
    if rules_at_least(state, 5):  # the placement names its copy, and remembers it for a take-back
        return _placed_copy(state, p, e)
    pending = p.pending + (PLACEMENT(e.tile, e.place, e.space),)
    if e.tile in p.market:  # the market first, then the Gunpowder Tower
        return with_player(state, e.seat, pending=pending, market=without(p.market, e.tile))
    if rules_at_least(state, 3):  # remembered for a take-back and the sealed view
        return with_player(state, e.seat, pending=pending, tower=without(p.tower, e.tile),
                           planned_from_tower=p.planned_from_tower + (e.tile,))
    return with_player(state, e.seat, pending=pending, tower=without(p.tower, e.tile))


def _placed_copy(state: State, p: Player, e: FollowerPlaced) -> State:
    pending = p.pending + (PLACEMENT(e.tile, e.place, e.space, e.from_tower),)
    if e.from_tower:
        return with_player(state, e.seat, pending=pending, tower=without(p.tower, e.tile),
                           planned_from_tower=p.planned_from_tower + (e.tile,))
    return with_player(state, e.seat, pending=pending, market=without(p.market, e.tile))


@fold_rule
def _(state: State, e: FollowerTakenBack) -> State:
    p = state.players[e.seat]
    if rules_at_least(state, 5):
        return _taken_back_to_source(state, p, e)
    pending = tuple([x for x in p.pending if x.space != e.space or x.place != e.place])
    counted = p.take_backs + 1 if rules_at_least(state, 4) else 0  # D13; rules 3 states keep their hashes
    if e.tile in p.planned_from_tower:  # back where it came from; the tower first, as placing takes the market first
        return with_player(state, e.seat, pending=pending, tower=sort_tiles(p.tower + (e.tile,)),
                           planned_from_tower=without(p.planned_from_tower, e.tile), take_backs=counted)
    return with_player(state, e.seat, pending=pending, market=sort_tiles(p.market + (e.tile,)), take_backs=counted)


def _taken_back_to_source(state: State, p: Player, e: FollowerTakenBack) -> State:
    """Rules 5: the tile goes back to the copy it was placed from, whatever else stands there."""
    taken = next(x for x in p.pending if x.space == e.space and x.place == e.place)
    pending = tuple([x for x in p.pending if x is not taken])
    if taken.from_tower:
        return with_player(state, e.seat, pending=pending, tower=sort_tiles(p.tower + (e.tile,)),
                           planned_from_tower=without(p.planned_from_tower, e.tile), take_backs=p.take_backs + 1)
    return with_player(state, e.seat, pending=pending, market=sort_tiles(p.market + (e.tile,)),
                       take_backs=p.take_backs + 1)


@fold_rule
def _(state: State, e: MovedToTower) -> State:
    p = player(state, e.seat)
    return with_player(state, e.seat, market=without(p.market, e.tile), tower_pending=p.tower_pending + (e.tile,))


@fold_rule
def _(state: State, e: PlanningFinished) -> State:
    return with_player(state, e.seat, planned=True)


@fold_rule
def _(state: State, e: PlansRevealed) -> State:
    placed: dict[int, list[Placement]] = {}
    for seat, placement in e.placements:
        placed.setdefault(seat, []).append(placement)
    towers: dict[int, tuple[D.Tile, ...]] = {}
    for seat, tile in e.tower:
        towers[seat] = towers.get(seat, ()) + (tile,)
    players = []
    for seat, p in enumerate(state.players):  # one new player each, its plan cleared
        changes: dict[str, Any] = {"pending": (), "tower_pending": (), "planned_from_tower": ()}
        if seat in towers:
            changes["tower"] = sort_tiles(p.tower + towers[seat])
        if seat not in placed:
            players.append(replace(p, **changes))
            continue
        index, places = place_map(p), list(p.places)
        for x in placed[seat]:
            i = index[x.place]
            places[i] = Slots(x.place, put(places[i].slots, x.space, x.tile.value))
        players.append(replace(p, places=tuple(places), **changes))
        keep(players[seat], PLACE_MAP, index)  # the same places, other slots: the place map still holds
    return replace(state, players=tuple(players))


@fold_rule
def _(state: State, e: ActionTaken) -> State:
    p = player(state, e.seat)
    return with_slots(state, e.seat, clear_tiles(p, e.place, e.returned), bag=add_to_bag(p, e.returned))


@fold_rule
def _(state: State, e: CharacterRecruited) -> State:
    p = player(state, e.seat)
    tracks = bump(p.tracks, TRACK_INDEX[e.char], 1) if e.char in TRACK_INDEX else p.tracks
    state = with_player(state, e.seat, bag=add_to_bag(p, (D.NEUTRAL_TILE[e.char],)), tracks=tracks)
    return replace(state, supply=bump(state.supply, CHAR_INDEX[e.char], -1))


@fold_rule
def _(state: State, e: GoodTaken) -> State:
    p = player(state, e.seat)
    state = with_player(state, e.seat, goods=bump(p.goods, GOOD_INDEX[e.good], 1))
    if e.connection:
        i = CONNECTION_INDEX[e.connection]
        return replace(state, roads=put(state.roads, i, without(state.roads[i], e.good)))
    return replace(state, goods_market=bump(state.goods_market, GOOD_INDEX[e.good], -1))


@fold_rule
def _(state: State, e: DevelopmentMoved) -> State:
    return with_player(state, e.seat, development=e.to)


@fold_rule
def _(state: State, e: CitizenTaken) -> State:
    state = with_player(state, e.seat, citizens=player(state, e.seat).citizens + 1)
    kind, _, detail = e.source.partition(":")
    if kind == "knights":
        return replace(state, knights_citizen=e.seat)
    if kind == "boatmen":
        return replace(state, boatmen_citizen=e.seat)
    if kind == "development":
        return replace(state, development_citizens=put(state.development_citizens, int(detail), e.seat))
    if kind == "most_stations":
        return replace(state, bonus_citizen=e.seat)
    return state  # deeds: the completed deed itself shows the citizen is gone


@fold_rule
def _(state: State, e: TechnologyGained) -> State:
    p = player(state, e.seat)
    state = with_player(state, e.seat, techs=p.techs + 1, farmer_tech=p.farmer_tech or e.farmer_only)
    return replace(state, tech_supply=state.tech_supply - 1)


@fold_rule
def _(state: State, e: MerchantMoved) -> State:
    return with_player(state, e.seat, merchant=e.to)


@fold_rule
def _(state: State, e: StationBuilt) -> State:
    state = with_player(state, e.seat, stations=player(state, e.seat).stations - 1)
    return replace(state, stations=tuple(sorted(state.stations + ((e.town, e.seat),))))


@fold_rule
def _(state: State, e: PlaceTileTaken) -> State:
    p = player(state, e.seat)
    slots = Slots(e.tile, (None,) * len(D.PLACES[e.tile].spaces))
    state = with_player(state, e.seat, places=p.places + (slots,))
    return replace(state, place_tiles=without(state.place_tiles, e.tile))


@fold_rule
def _(state: State, e: SentToDeed) -> State:
    p = player(state, e.seat)
    if e.source == D.GUNPOWDER_TOWER:
        state = with_player(state, e.seat, tower=without(p.tower, e.tile))
    else:
        state = with_slots(state, e.seat, clear_tiles(p, e.source, (e.tile,)))
    i = DEED_INDEX[e.deed]
    state = replace(state, deeds=put(state.deeds, i, put(state.deeds[i], e.space, e.seat)))
    c = state.choice
    if c is not None:
        state = replace(state, choice=replace(c, tiles=without(c.tiles, e.tile), done=c.done + 1))
    return state


@fold_rule
def _(state: State, e: BathhouseDrawn) -> State:
    p = player(state, e.seat)
    return with_player(state, e.seat, {"draws": e.draws}, bag=without_all(p.bag, e.tiles))


@fold_rule
def _(state: State, e: DrawnPlaced) -> State:
    p = player(state, e.seat)
    state = with_slots(state, e.seat, set_slot(p, e.place, e.space, e.tile.value))
    c = state.choice
    assert c is not None  # a drawn character is placed only inside the Bathhouse choice
    return replace(state, choice=replace(c, tiles=without(c.tiles, e.tile), remaining=c.remaining - 1))


@fold_rule
def _(state: State, e: TilesReturned) -> State:
    p = player(state, e.seat)
    places = clear_tiles(p, e.source, e.tiles) if e.source in D.PLACES else p.places
    return with_slots(state, e.seat, places, bag=add_to_bag(p, e.tiles))


@fold_rule
def _(state: State, e: ChoiceOffered) -> State:
    return replace(state, choice=e.choice)


@fold_rule
def _(state: State, e: ChoiceClosed) -> State:
    return replace(state, choice=None)


@fold_rule
def _(state: State, e: Passed) -> State:
    return with_player(state, e.seat, passed=True)


@fold_rule
def _(state: State, e: TechnologyPlaced) -> State:
    p = player(state, e.seat)
    return with_slots(state, e.seat, set_slot(p, e.place, e.space, TECH), techs=p.techs - 1,
                       techs_placed=p.techs_placed + 1, farmer_tech=p.farmer_tech and not e.farmer_only)


@fold_rule
def _(state: State, e: TurnMoved) -> State:
    return replace(state, turn=e.turn)


@fold_rule
def _(state: State, e: EventResolved) -> State:
    return state


@fold_rule
def _(state: State, e: TimeoutApplied) -> State:
    return state


@fold_rule
def _(state: State, e: PlagueDrawn) -> State:
    state = replace(state, draws=e.draws)
    if not e.lost:
        return state
    p = player(state, e.seat)
    state = with_player(state, e.seat, bag=without(p.bag, e.tile))
    return replace(state, supply=bump(state.supply, CHAR_INDEX[e.tile.kind], 1))


@fold_rule
def _(state: State, e: FoodPaid) -> State:
    p = player(state, e.seat)
    g = GOOD_INDEX[e.good]
    state = with_player(state, e.seat, goods=bump(p.goods, g, -1))
    state = replace(state, goods_market=bump(state.goods_market, g, 1))
    return _reduce_due(state, e.seat, "food")


@fold_rule
def _(state: State, e: ItemLost) -> State:
    state = _LOSE[e.item](state, e)
    state = replace(state, draws=e.draws)
    return _reduce_due(state, e.seat, "torture")


def _lose_good(state: State, e: ItemLost) -> State:
    g = GOOD_INDEX[D.Good(e.target)]
    state = with_player(state, e.seat, goods=bump(player(state, e.seat).goods, g, -1))
    return replace(state, removed_goods=bump(state.removed_goods, g, 1))


def _lose_development(state: State, e: ItemLost) -> State:
    return with_player(state, e.seat, development=player(state, e.seat).development - 1)


def _lose_place_tile(state: State, e: ItemLost) -> State:
    p = player(state, e.seat)
    i = place_index(p, e.target)
    slots = p.places[i].slots
    tiles = tuple(D.Tile(v) for v in slots if v not in (None, TECH))
    techs = sum(1 for v in slots if v == TECH)
    tower = p.tower if e.target != D.GUNPOWDER_TOWER else ()
    back = tiles + (p.tower if e.target == D.GUNPOWDER_TOWER else ())
    state = with_player(state, e.seat, places=p.places[:i] + p.places[i + 1:], bag=add_to_bag(p, back), tower=tower)
    return replace(state, removed_techs=state.removed_techs + techs,
                   lost_place_tiles=state.lost_place_tiles + (e.target,))


def _lose_technology(state: State, e: ItemLost) -> State:
    p = player(state, e.seat)
    if e.target:
        space = p.places[place_index(p, e.target)].slots.index(TECH)
        state = with_slots(state, e.seat, set_slot(p, e.target, space, None))
    else:
        # a held Farmer-only tile (2023) is given up first: keeping the unrestricted one is never worse
        state = with_player(state, e.seat, techs=p.techs - 1, farmer_tech=False)
    return replace(state, removed_techs=state.removed_techs + 1)


def _lose_station(state: State, e: ItemLost) -> State:
    if e.target:
        state = replace(state, stations=without(state.stations, (e.target, e.seat)))
    else:
        state = with_player(state, e.seat, stations=player(state, e.seat).stations - 1)
    return replace(state, removed_stations=state.removed_stations + 1)


def _lose_follower(state: State, e: ItemLost) -> State:
    assert e.tile is not None  # a lost follower always names the drawn tile
    p = player(state, e.seat)
    state = with_player(state, e.seat, bag=without(p.bag, e.tile))
    return replace(state, removed=bump(state.removed, CHAR_INDEX[e.tile.kind], 1))


_LOSE = {
    D.Item.GOOD: _lose_good, D.Item.DEVELOPMENT: _lose_development, D.Item.PLACE_TILE: _lose_place_tile,
    D.Item.TECHNOLOGY: _lose_technology, D.Item.STATION: _lose_station, D.Item.FOLLOWER: _lose_follower,
}


@fold_rule
def _(state: State, e: DueForgiven) -> State:
    return _reduce_due(state, e.seat, "torture", e.amount)


@fold_rule
def _(state: State, e: StartPlayerPassed) -> State:
    return replace(state, start_player=e.seat)


@fold_rule
def _(state: State, e: GameEnded) -> State:
    return replace(state, phase=Phase.FINISHED, turn=None)
