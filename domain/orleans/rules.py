"""decide, legal_moves and to_act for Orléans.

Every seat command has one validator (returns None or the reason it is illegal) and one
applier (emits events). ``legal_moves`` enumerates candidates and keeps those the validator
accepts, so "accepted by decide" and "listed by legal_moves" cannot drift apart. The generators
in ``EXACT_CANDIDATES`` build only valid moves from the validator's own predicates and skip the
re-check (the hot path of self-play); the random playout test validates every listed move.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from domain.core import SYSTEM, Rejected, RejectKind
from domain.orleans import data as D
from domain.orleans.data import Char, Effect, Event, Item, Reward, Tile
from domain.orleans.evolve import CHAR_INDEX, CONNECTION_INDEX, DEED_INDEX, GOOD_INDEX, TRACK_INDEX, evolve
from domain.orleans.model import (
    CHARS,
    GOODS,
    TECH,
    ActionTaken,
    ApplyTimeout,
    BathhouseDrawn,
    CharacterRecruited,
    Choice,
    ChoiceClosed,
    ChoiceKind,
    ChoiceOffered,
    ChoosePlaceTile,
    CitizenTaken,
    CoinsChanged,
    DevelopmentMoved,
    DrawFollowers,
    DrawnPlaced,
    DueAssigned,
    DueForgiven,
    EndGame,
    EventResolved,
    ExcludePlaceTile,
    FinishPlanning,
    FinishSending,
    FollowerPlaced,
    FollowerRecalled,
    FollowersDrawn,
    FoodPaid,
    GameEnded,
    GiveUp,
    GoodTaken,
    HourglassRevealed,
    ItemLost,
    KeepTechnology,
    MerchantMoved,
    MovedToTower,
    MoveToTower,
    Pass,
    Passed,
    PassStartPlayer,
    PayFood,
    Phase,
    PhaseBegan,
    PlaceDrawn,
    PlaceFollower,
    PlaceTechnology,
    PlaceTileExcluded,
    PlaceTileTaken,
    PlagueDrawn,
    PlanningFinished,
    PlansRevealed,
    Player,
    RecallFollower,
    ResolveEvent,
    RevealHourglass,
    SendToDeed,
    SentToDeed,
    StartPlayerPassed,
    State,
    StationBuilt,
    TakeAction,
    TakeCensus,
    TakeGood,
    TechnologyGained,
    TechnologyPlaced,
    TilesReturned,
    TimeoutApplied,
    Travel,
    TurnMoved,
    UsePharmacy,
    UseVillage,
    memo,
    memo_key,
    place_map,
)


class Tx:
    """The events of one decision, applied as they are emitted so later steps see them."""

    __slots__ = ("state", "events", "rng")

    def __init__(self, state: State, rng: Any) -> None:
        self.state = state
        self.events: list[Any] = []
        self.rng = rng

    def emit(self, event: Any) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


# --- queries ------------------------------------------------------------------------------------


def owns(p: Player, place: str) -> bool:
    return place in place_map(p)


def slots_of(p: Player, place: str) -> tuple[str | None, ...] | None:
    i = place_map(p).get(place)
    return None if i is None else p.places[i].slots


def activated(p: Player, place: str) -> bool:
    return place in activated_places(p)


ACTIVATED = memo_key(Player, "_activated", depends_on=("places",))


def activated_places(p: Player) -> frozenset[str]:
    """The places whose action spaces are all filled (Town Hall: any one)."""
    return memo(p, ACTIVATED, lambda p: frozenset(s.place for s in p.places if activated_slots(s.place, s.slots)))


def activated_slots(place: str, slots: tuple[str | None, ...] | None) -> bool:
    if not slots:
        return False
    if place == D.TOWN_HALL:  # one character is enough (F§5 Town Hall)
        return any(v is not None for v in slots)
    return all(v is not None for v in slots)


def capacity(p: Player) -> int:
    return D.MARKET_SPACES + (D.TOWER_SPACES if owns(p, D.GUNPOWDER_TOWER) else 0)


def free_market(p: Player) -> int:
    return capacity(p) - len(p.market) - len(p.tower) - len(p.tower_pending)


def draw_limit(p: Player) -> int:
    return D.KNIGHTS_TRACK_DRAWS[p.tracks[TRACK_INDEX[Char.KNIGHT]]]


def status(p: Player) -> int:
    return D.development_status(p.development)


def built_stations(state: State, seat: int) -> int:
    return sum(1 for _, s in state.stations if s == seat)


def coin_supply(state: State) -> int | None:
    """Coins left in the classic 47-coin supply; None where coins are unlimited (D11)."""
    if state.config.edition is D.Edition.E2023:
        return None
    return D.CLASSIC_COIN_SUPPLY - sum(p.coins for p in state.players)


def turn_order(state: State) -> list[int]:
    n = state.config.players
    return [(state.start_player + i) % n for i in range(n)]


def fits(p: Player, tile: Tile, place: str, need: Char | None) -> bool:
    """May this character stand on a space that needs ``need`` (F§5, F§6 Herb Garden/School)?"""
    return _fits(tile, place == D.TOWN_HALL, need, owns(p, D.HERB_GARDEN), owns(p, D.SCHOOL))


def _fits(tile: Tile, town_hall: bool, need: Char | None, herb_garden: bool, school: bool) -> bool:
    if need is None:
        return not (town_hall and tile.starting)
    kind = tile.kind
    if need is Char.MONK:
        return kind is Char.MONK
    if kind is need or kind is Char.MONK:
        return True
    if kind is Char.BOATMAN and need in D.HERB_GARDEN_STANDS_IN_FOR and herb_garden:
        return True
    return kind is Char.SCHOLAR and school


def slot_free(p: Player, place: str, space: int) -> bool:
    slots = slots_of(p, place)
    if slots is None or not 0 <= space < len(slots) or slots[space] is not None:
        return False
    return not any(x.place == place and x.space == space for x in p.pending)


def can_recruit(state: State, seat: int, char: Char) -> bool:
    p = state.players[seat]
    if state.supply[CHAR_INDEX[char]] <= 0:  # R14 running out of tiles
        return False
    if char is Char.MONK:
        return state.event is None or state.event.event is not Event.PILGRIMAGE
    pos = p.tracks[TRACK_INDEX[char]]
    if pos >= D.TRACK_LENGTH[char]:  # the last space closes the action (F§2)
        return False
    if char is Char.FARMER:  # D6
        return state.goods_market[GOOD_INDEX[D.FARMER_TRACK_GOODS[pos]]] > 0
    if char is Char.CRAFTSMAN:
        return state.tech_supply > 0
    if char is Char.TRADER:
        return bool(tiles_in_stacks(state, D.TRADERS_TRACK_STACKS[pos]))
    return True


def tiles_in_stacks(state: State, stacks: tuple[int, ...]) -> list[str]:
    return [t for t in state.place_tiles if D.PLACES[t].stack in stacks]


_CONNECTIONS_BY_END: dict[tuple[str, str, D.Route], D.Connection] = {}
_NEIGHBOURS: dict[tuple[str, D.Route], tuple[str, ...]] = {}
for _c in D.CONNECTIONS:  # both directions of every connection (F§1), in table order
    for _a, _b in ((_c.a, _c.b), (_c.b, _c.a)):
        _CONNECTIONS_BY_END[(_a, _b, _c.route)] = _c
        _NEIGHBOURS[(_a, _c.route)] = (*_NEIGHBOURS.get((_a, _c.route), ()), _b)


def connection_to(town: str, to: str, route: D.Route) -> D.Connection | None:
    return _CONNECTIONS_BY_END.get((town, to, route))


def neighbours(town: str, route: D.Route) -> tuple[str, ...]:
    return _NEIGHBOURS.get((town, route), ())


def can_build(state: State, seat: int) -> bool:
    p = state.players[seat]
    if p.stations <= 0:
        return False
    if p.merchant == D.ORLEANS:  # one per player in Orléans (F§8.1 Guildhall)
        return (D.ORLEANS, seat) not in state.stations
    return all(town != p.merchant for town, _ in state.stations)


def free_deed_space(state: State, deed: D.Deed, char: Char) -> int | None:
    taken = state.deeds[DEED_INDEX[deed.id]]
    for i, need in enumerate(deed.spaces):
        if need is char and taken[i] is None:
            return i
    return None




def sendable(state: State, tiles: tuple[Tile, ...]) -> bool:
    return any(not t.starting and free_deed_space(state, d, t.kind) is not None for t in tiles for d in D.DEEDS)


def town_hall_tiles(p: Player) -> tuple[Tile, ...]:
    return tuple(Tile(v) for v in slots_of(p, D.TOWN_HALL) or () if v is not None)


def tech_spot(state: State, p: Player, place: str, space: int) -> str | None:
    """Why a technology tile may not go there, or None (F§2.3)."""
    slots = slots_of(p, place)
    if slots is None:
        return f"you do not own {place}"
    spaces = D.PLACES[place].spaces
    if len(spaces) < 2 or place == D.TOWN_HALL:
        return f"{place} needs a single character; technology tiles may not go there"
    if not 0 <= space < len(spaces):
        return f"{place} has no space {space}"
    need = spaces[space]
    if need is Char.MONK:
        return "technology tiles never replace a Monk"
    if TECH in slots:
        return f"{place} already has a technology tile"
    if slots[space] is not None:
        return f"space {space} of {place} is occupied"
    if need is not Char.FARMER:
        rule = D.FARMER_TECH[state.config.edition]
        if rule is D.FarmerTech.FIRST_PLACED and p.techs_placed == 0:
            return "the first technology tile must replace a Farmer"
        if rule is D.FarmerTech.FIRST_CRAFTSMAN and p.farmer_tech and p.techs == 1:
            return "the technology tile of the first Craftsmen space may only replace a Farmer"
    return None


def has_tech_spot(state: State, seat: int) -> bool:
    p = state.players[seat]
    return p.techs > 0 and any(
        tech_spot(state, p, s.place, i) is None for s in p.places for i in range(len(s.slots))
    )


def uses_farmer_tech(p: Player, place: str, space: int) -> bool:
    """On a Farmer space the held Farmer-only tile goes first: it can go nowhere else, so keeping
    the unrestricted tile is never worse (2023, F§2.3)."""
    return p.farmer_tech and D.PLACES[place].spaces[space] is Char.FARMER


def can_lose_development(p: Player) -> bool:
    """Torture: back one space, never onto or off a coin space (F§3 torture note)."""
    d = p.development
    return d > 0 and d not in D.DEVELOPMENT_COINS and (d - 1) not in D.DEVELOPMENT_COINS


# --- to_act ---------------------------------------------------------------------------------------


TO_ACT = memo_key(State, "_to_act")


def to_act(state: State) -> frozenset:
    return memo(state, TO_ACT, _to_act)


def _to_act(state: State) -> frozenset:
    if state.phase is Phase.FINISHED:
        return frozenset()
    if state.dues:
        return frozenset(d.seat for d in state.dues)
    if state.choice is not None:
        return frozenset({state.choice.seat})
    phase = state.phase
    if phase in (Phase.EXCLUSION, Phase.ACTIONS):
        return frozenset({state.turn})
    if phase is Phase.FOLLOWERS:
        return frozenset(i for i, p in enumerate(state.players) if not p.drew)
    if phase is Phase.PLANNING:
        return frozenset(i for i, p in enumerate(state.players) if not p.planned)
    return frozenset({SYSTEM})


# --- validators -----------------------------------------------------------------------------------

Why = str | None


def v_exclude(state: State, c: ExcludePlaceTile) -> Why:
    return None if c.tile in state.place_tiles else f"place tile {c.tile!r} is not available"


def v_recall(state: State, c: RecallFollower) -> Why:
    p = state.players[c.seat]
    slots = slots_of(p, c.place)
    if slots is None or not 0 <= c.space < len(slots):
        return f"you have no space {c.space} at {c.place!r}"
    if slots[c.space] in (None, TECH):
        return f"no character on space {c.space} of {c.place}"
    if p.recalls + 1 > draw_limit(p):
        return "each recalled character costs one draw and you have none left"
    if free_market(p) <= 0:
        return "your market is full"
    return None


def max_draw(p: Player) -> int:
    return max(0, min(draw_limit(p) - p.recalls, free_market(p), len(p.bag)))


def v_draw(state: State, c: DrawFollowers) -> Why:
    top = max_draw(state.players[c.seat])
    return None if 0 <= c.count <= top else f"you may draw 0 to {top} followers"


def available_tiles(p: Player) -> tuple[Tile, ...]:
    return p.market + p.tower


def v_place(state: State, c: PlaceFollower) -> Why:
    p = state.players[c.seat]
    if c.tile not in available_tiles(p):
        return f"no {c.tile.value} on your market"
    return _placement_why(p, c.tile, c.place, c.space)


def _placement_why(p: Player, tile: Tile, place: str, space: int) -> Why:
    if place not in D.PLACES or not owns(p, place):
        return f"you do not own a place {place!r}"
    spaces = D.PLACES[place].spaces
    if not 0 <= space < len(spaces):
        return f"{place} has no space {space}"
    if not slot_free(p, place, space):
        return f"space {space} of {place} is taken"
    if not fits(p, tile, place, spaces[space]):
        need = spaces[space].value if spaces[space] else "a non-starting character"
        return f"a {tile.value} cannot stand on a space for {need}"
    return None


def v_tower(state: State, c: MoveToTower) -> Why:
    p = state.players[c.seat]
    if not owns(p, D.GUNPOWDER_TOWER):
        return "you do not own the Gunpowder Tower"
    if c.tile not in p.market:
        return f"no {c.tile.value} on your market"
    if len(p.tower) + len(p.tower_pending) >= D.TOWER_SPACES:
        return "the Gunpowder Tower is full"
    return None


def v_always(state: State, c: Any) -> Why:
    return None


SIMPLE_EFFECTS = {
    Effect.FARM_HOUSE, Effect.UNIVERSITY, Effect.CASTLE, Effect.MONASTERY, Effect.GUILDHALL,
    Effect.DEVELOPMENT, Effect.TOWN_HALL, Effect.GOOD, Effect.COINS, Effect.WINDMILL, Effect.HOSPITAL,
    Effect.OFFICE, Effect.LABORATORY, Effect.BATHHOUSE,
}
RECRUITS = {Effect.FARM_HOUSE: Char.FARMER, Effect.UNIVERSITY: Char.SCHOLAR, Effect.CASTLE: Char.KNIGHT,
            Effect.MONASTERY: Char.MONK}
TRAVEL = {"ship": D.Route.WATERWAY, "wagon": D.Route.ROAD, "horse_wagon": D.Route.ROAD}


def _activated_why(p: Player, place: str) -> Why:
    if place not in D.PLACES or not owns(p, place):
        return f"you do not own a place {place!r}"
    if not activated(p, place):
        return f"{place} is not activated"
    return None


def v_take(state: State, c: TakeAction) -> Why:
    p = state.players[c.seat]
    if c.place == D.GUNPOWDER_TOWER and owns(p, c.place):
        return None if sendable(state, p.tower) else "no character on the Gunpowder Tower fits a free deed space"
    why = _activated_why(p, c.place)
    if why:
        return why
    effect = D.PLACES[c.place].effect
    if effect not in SIMPLE_EFFECTS:
        return f"{c.place} is not used with TakeAction"
    return _effect_why(state, c.seat, c.place, effect)


def _effect_why(state: State, seat: int, place: str, effect: Effect) -> Why:
    p = state.players[seat]
    if effect in RECRUITS:
        char = RECRUITS[effect]
        return None if can_recruit(state, seat, char) else f"no {char.value} can be recruited now"
    if effect is Effect.GUILDHALL:
        return None if can_build(state, seat) else f"you cannot build a trading station in {p.merchant}"
    if effect is Effect.TOWN_HALL:
        return None if sendable(state, town_hall_tiles(p)) else "no Town Hall character fits a free deed space"
    if effect is Effect.GOOD:
        good = D.PLACES[place].good
        return None if state.goods_market[GOOD_INDEX[good]] > 0 else f"no {good.value} left in the Goods Market"
    if effect is Effect.LABORATORY:
        return None if state.tech_supply > 0 else "no technology tiles left"
    if effect is Effect.BATHHOUSE:
        return None if p.bag else "your bag is empty"
    return None


def v_village(state: State, c: UseVillage) -> Why:
    why = _activated_why(state.players[c.seat], "village")
    if why:
        return why
    if c.recruit not in (Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER):
        return "the Village recruits a boatman, a craftsman or a trader"
    return None if can_recruit(state, c.seat, c.recruit) else f"no {c.recruit.value} can be recruited now"


def v_travel(state: State, c: Travel) -> Why:
    if c.place not in TRAVEL:
        return f"{c.place!r} does not move the merchant"
    p = state.players[c.seat]
    why = _activated_why(p, c.place)
    if why:
        return why
    if connection_to(p.merchant, c.to, TRAVEL[c.place]) is None:
        return f"no {TRAVEL[c.place].value} from {p.merchant} to {c.to}"
    return None


def v_pharmacy(state: State, c: UsePharmacy) -> Why:
    p = state.players[c.seat]
    why = _activated_why(p, "pharmacy")
    if why:
        return why
    room = D.DEVELOPMENT_MAX - p.development  # one space per coin; the track ends at 30 (F§3)
    if room <= 0:
        return "your development marker is at the end of the track"
    top = min(D.PHARMACY_MAX_COINS, p.coins, room)
    return None if 1 <= c.coins <= top else f"pay 1 to {top} coins at the Pharmacy"


def v_take_good(state: State, c: TakeGood) -> Why:
    goods = state.roads[CONNECTION_INDEX[state.choice.connection]]
    return None if c.good is None or c.good in goods else f"no {c.good.value} on this connection"




def v_choose_tile(state: State, c: ChoosePlaceTile) -> Why:
    if c.tile not in state.place_tiles:
        return f"place tile {c.tile!r} is not available"
    if D.PLACES[c.tile].stack not in state.choice.stacks:
        return f"{c.tile} is in stack {D.PLACES[c.tile].stack}; you may choose from stack(s) {state.choice.stacks}"
    return None


def v_send(state: State, c: SendToDeed) -> Why:
    if c.tile not in state.choice.tiles:
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


def v_finish_sending(state: State, c: FinishSending) -> Why:
    return None if state.choice.done >= 1 else "send at least one character first"


def v_place_drawn(state: State, c: PlaceDrawn) -> Why:
    if c.tile not in state.choice.tiles:
        return f"no drawn {c.tile.value}"
    if c.place == "bathhouse":
        return "drawn characters may not go on the Bathhouse"
    return _placement_why(state.players[c.seat], c.tile, c.place, c.space)


def v_tech(state: State, c: PlaceTechnology) -> Why:
    p = state.players[c.seat]
    if p.techs <= 0:
        return "you have no technology tile to place"
    return tech_spot(state, p, c.place, c.space)


def v_food(state: State, c: PayFood) -> Why:
    if c.good not in D.FOOD:
        return "pay grain, cheese or wine"
    return None if state.players[c.seat].goods[GOOD_INDEX[c.good]] > 0 else f"you have no {c.good.value}"


def v_give_up(state: State, c: GiveUp) -> Why:
    return None if c in list(torture_options(state, c.seat)) else f"you cannot give up {c.item.value} {c.target!r}"


def torture_options(state: State, seat: int) -> Iterator[GiveUp]:
    """Everything a seat may give up, in the default order of D12."""
    p = state.players[seat]
    for g, n in zip(GOODS, p.goods):
        if n:
            yield GiveUp(seat, Item.GOOD, g.value)
    if can_lose_development(p):
        yield GiveUp(seat, Item.DEVELOPMENT, "")
    for s in p.places:
        if D.PLACES[s.place].stack:
            yield GiveUp(seat, Item.PLACE_TILE, s.place)
    if p.techs:
        yield GiveUp(seat, Item.TECHNOLOGY, "")
    for s in p.places:
        if TECH in s.slots:
            yield GiveUp(seat, Item.TECHNOLOGY, s.place)
    if p.stations:
        yield GiveUp(seat, Item.STATION, "")
    for town, owner in state.stations:
        if owner == seat:
            yield GiveUp(seat, Item.STATION, town)
    if any(not t.starting for t in p.bag):
        yield GiveUp(seat, Item.FOLLOWER, "")


def has_items(state: State, seat: int) -> bool:
    return next(torture_options(state, seat), None) is not None


# --- appliers -------------------------------------------------------------------------------------


def gain_coins(tx: Tx, seat: int, amount: int, reason: str) -> None:
    supply = coin_supply(tx.state)
    if supply is not None:
        amount = min(amount, supply)  # D11: payouts stop while the supply is empty
    if amount > 0:
        tx.emit(CoinsChanged(seat, amount, reason))


def charge(tx: Tx, seat: int, amount: int, reason: str) -> None:
    """Pay what you can; every missing coin becomes a torture item (F§8.1 Torture)."""
    paid = min(amount, tx.state.players[seat].coins)
    if paid:
        tx.emit(CoinsChanged(seat, -paid, reason))
    owe(tx, seat, amount - paid, reason)


def owe(tx: Tx, seat: int, amount: int, reason: str) -> None:
    if amount <= 0:
        return
    if has_items(tx.state, seat):
        tx.emit(DueAssigned(seat, "torture", amount, reason))
    else:
        tx.emit(DueForgiven(seat, amount))


def advance_development(tx: Tx, seat: int, points: int) -> None:
    start = tx.state.players[seat].development
    end = min(D.DEVELOPMENT_MAX, start + points)
    if end == start:
        return
    tx.emit(DevelopmentMoved(seat, end))
    for space, coins in sorted(D.DEVELOPMENT_COINS.items()):
        if start < space <= end:
            gain_coins(tx, seat, coins, "development")
    for i, space in enumerate(D.DEVELOPMENT_CITIZENS):
        if start < space <= end and tx.state.development_citizens[i] is None:
            tx.emit(CitizenTaken(seat, f"development:{i}"))


def recruit(tx: Tx, seat: int, char: Char) -> None:
    tx.emit(CharacterRecruited(seat, char))
    if char is Char.MONK:
        return
    pos = tx.state.players[seat].tracks[TRACK_INDEX[char]]
    REWARDS[char](tx, seat, pos)


def _farmer_reward(tx: Tx, seat: int, pos: int) -> None:
    tx.emit(GoodTaken(seat, D.FARMER_TRACK_GOODS[pos - 1], ""))


def _boatman_reward(tx: Tx, seat: int, pos: int) -> None:
    if pos == D.BOATMEN_CITIZEN_SPACE and tx.state.boatmen_citizen is None:
        tx.emit(CitizenTaken(seat, "boatmen"))
    else:
        gain_coins(tx, seat, D.BOATMEN_TRACK_COINS[pos - 1], "boatmen")


def _craftsman_reward(tx: Tx, seat: int, pos: int) -> None:
    first = pos == 1 and D.FARMER_TECH[tx.state.config.edition] is D.FarmerTech.FIRST_CRAFTSMAN
    tx.emit(TechnologyGained(seat, farmer_only=first))


def _trader_reward(tx: Tx, seat: int, pos: int) -> None:
    tx.emit(ChoiceOffered(Choice(seat, ChoiceKind.PLACE_TILE, "village", stacks=D.TRADERS_TRACK_STACKS[pos - 1])))


def _knight_reward(tx: Tx, seat: int, pos: int) -> None:
    if pos == D.KNIGHTS_CITIZEN_SPACE and tx.state.knights_citizen is None:
        tx.emit(CitizenTaken(seat, "knights"))


def _scholar_reward(tx: Tx, seat: int, pos: int) -> None:
    advance_development(tx, seat, D.SCHOLARS_TRACK_POINTS[pos - 1])


REWARDS = {Char.FARMER: _farmer_reward, Char.BOATMAN: _boatman_reward, Char.CRAFTSMAN: _craftsman_reward,
           Char.TRADER: _trader_reward, Char.KNIGHT: _knight_reward, Char.SCHOLAR: _scholar_reward}


def end_turn(tx: Tx) -> None:
    """Pass the turn clockwise to the next seat that has not passed; end the phase when none."""
    state = tx.state
    if state.choice is not None:
        return
    n = state.config.players
    for step in range(1, n + 1):
        seat = (state.turn + step) % n
        if not state.players[seat].passed:
            if seat != state.turn:
                tx.emit(TurnMoved(seat))
            return
    tx.emit(PhaseBegan(Phase.EVENT))


def use_place(tx: Tx, seat: int, place: str) -> None:
    """Return the characters of an activated place to the bag (technology stays)."""
    slots = slots_of(tx.state.players[seat], place)
    returned = tuple(Tile(v) for v in slots if v not in (None, TECH))
    tx.emit(ActionTaken(seat, place, returned))


def a_exclude(tx: Tx, c: ExcludePlaceTile) -> None:
    tx.emit(PlaceTileExcluded(c.seat, c.tile))
    state = tx.state
    n = state.config.players
    done = len(state.excluded)
    if done >= n * D.EXCLUSIONS_PER_PLAYER[n]:
        tx.emit(PhaseBegan(Phase.HOURGLASS))
    else:
        tx.emit(TurnMoved((state.start_player + done) % n))


def a_recall(tx: Tx, c: RecallFollower) -> None:
    tile = Tile(slots_of(tx.state.players[c.seat], c.place)[c.space])
    tx.emit(FollowerRecalled(c.seat, c.place, c.space, tile))


def draw_from_bag(tx: Tx, bag: tuple[Tile, ...], count: int) -> tuple[Tile, ...]:
    bag = list(bag)  # already sorted: draws index into a sorted sequence
    drawn = []
    for _ in range(count):
        drawn.append(bag.pop(tx.rng.below(len(bag))))
    return tuple(drawn)


def a_draw(tx: Tx, c: DrawFollowers) -> None:
    tiles = draw_from_bag(tx, tx.state.players[c.seat].bag, c.count)
    tx.emit(FollowersDrawn(c.seat, tiles, tx.rng.counter))
    if all(p.drew for p in tx.state.players):
        tx.emit(PhaseBegan(Phase.PLANNING))


def a_place(tx: Tx, c: PlaceFollower) -> None:
    tx.emit(FollowerPlaced(c.seat, c.tile, c.place, c.space))


def a_tower(tx: Tx, c: MoveToTower) -> None:
    tx.emit(MovedToTower(c.seat, c.tile))


def a_finish_planning(tx: Tx, c: FinishPlanning) -> None:
    tx.emit(PlanningFinished(c.seat))
    state = tx.state
    if not all(p.planned for p in state.players):
        return
    placements = tuple((i, x) for i, p in enumerate(state.players) for x in p.pending)
    tower = tuple((i, t) for i, p in enumerate(state.players) for t in p.tower_pending)
    tx.emit(PlansRevealed(placements, tower))
    tx.emit(PhaseBegan(Phase.ACTIONS, state.start_player))


def a_take(tx: Tx, c: TakeAction) -> None:
    if c.place == D.GUNPOWDER_TOWER:
        tiles = tx.state.players[c.seat].tower
        tx.emit(ChoiceOffered(Choice(c.seat, ChoiceKind.DEEDS, c.place, tiles=tiles)))
        return
    place = D.PLACES[c.place]
    EFFECTS[place.effect](tx, c.seat, place)


def e_recruit(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    recruit(tx, seat, RECRUITS[place.effect])


def e_guildhall(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    tx.emit(StationBuilt(seat, tx.state.players[seat].merchant))


def e_development(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    advance_development(tx, seat, place.development)


def e_town_hall(tx: Tx, seat: int, place: D.Place) -> None:
    tiles = town_hall_tiles(tx.state.players[seat])
    tx.emit(ActionTaken(seat, place.id, ()))
    tx.emit(ChoiceOffered(Choice(seat, ChoiceKind.DEEDS, place.id, tiles=tiles)))


def e_good(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    tx.emit(GoodTaken(seat, place.good, ""))


def e_coins(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    gain_coins(tx, seat, place.coins, place.id)


def e_windmill(tx: Tx, seat: int, place: D.Place) -> None:
    e_coins(tx, seat, place)
    advance_development(tx, seat, place.development)


def e_hospital(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    gain_coins(tx, seat, status(tx.state.players[seat]), place.id)


def e_office(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    gain_coins(tx, seat, built_stations(tx.state, seat), place.id)


def e_laboratory(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    tx.emit(TechnologyGained(seat))


def e_bathhouse(tx: Tx, seat: int, place: D.Place) -> None:
    draw, keep = D.BATHHOUSE_DRAW[tx.state.config.edition]
    bag = tx.state.players[seat].bag
    tiles = draw_from_bag(tx, bag, min(draw, len(bag)))
    tx.emit(BathhouseDrawn(seat, tiles, tx.rng.counter))
    use_place(tx, seat, place.id)  # the Bathhouse follower goes back after the draw
    tx.emit(ChoiceOffered(Choice(seat, ChoiceKind.BATHHOUSE, place.id, tiles=tiles, remaining=keep)))
    if not bathhouse_can_place(tx.state):
        finish_bathhouse(tx)


EFFECTS: dict[Effect, Callable[[Tx, int, D.Place], None]] = {
    Effect.FARM_HOUSE: e_recruit, Effect.UNIVERSITY: e_recruit, Effect.CASTLE: e_recruit,
    Effect.MONASTERY: e_recruit, Effect.GUILDHALL: e_guildhall, Effect.DEVELOPMENT: e_development,
    Effect.TOWN_HALL: e_town_hall, Effect.GOOD: e_good, Effect.COINS: e_coins, Effect.WINDMILL: e_windmill,
    Effect.HOSPITAL: e_hospital, Effect.OFFICE: e_office, Effect.LABORATORY: e_laboratory,
    Effect.BATHHOUSE: e_bathhouse,
}


def a_village(tx: Tx, c: UseVillage) -> None:
    use_place(tx, c.seat, "village")
    recruit(tx, c.seat, c.recruit)


def a_travel(tx: Tx, c: Travel) -> None:
    use_place(tx, c.seat, c.place)
    conn = connection_to(tx.state.players[c.seat].merchant, c.to, TRAVEL[c.place])
    tx.emit(MerchantMoved(c.seat, conn.id, c.to))
    if tx.state.roads[CONNECTION_INDEX[conn.id]]:
        tx.emit(ChoiceOffered(Choice(c.seat, ChoiceKind.GOOD, c.place, connection=conn.id)))


def a_pharmacy(tx: Tx, c: UsePharmacy) -> None:
    use_place(tx, c.seat, "pharmacy")
    tx.emit(CoinsChanged(c.seat, -c.coins, "pharmacy"))
    advance_development(tx, c.seat, c.coins)


def a_pass(tx: Tx, c: Pass) -> None:
    tx.emit(Passed(c.seat))
    if has_tech_spot(tx.state, c.seat):
        tx.emit(ChoiceOffered(Choice(c.seat, ChoiceKind.TECHNOLOGY, "pass")))


def close_choice(tx: Tx) -> None:
    tx.emit(ChoiceClosed(tx.state.choice.seat))


def a_take_good(tx: Tx, c: TakeGood) -> None:
    if c.good is not None:
        tx.emit(GoodTaken(c.seat, c.good, tx.state.choice.connection))
    close_choice(tx)


def a_choose_tile(tx: Tx, c: ChoosePlaceTile) -> None:
    tx.emit(PlaceTileTaken(c.seat, c.tile))
    close_choice(tx)


def a_send(tx: Tx, c: SendToDeed) -> None:
    deed = D.DEED_BY_ID[c.deed]
    space = free_deed_space(tx.state, deed, c.tile.kind)
    tx.emit(SentToDeed(c.seat, c.tile, deed.id, space, tx.state.choice.source))
    if c.reward is Reward.DEVELOPMENT:
        advance_development(tx, c.seat, 1)
    else:
        gain_coins(tx, c.seat, deed.coins, deed.id)
    if all(s is not None for s in tx.state.deeds[DEED_INDEX[deed.id]]):
        tx.emit(CitizenTaken(c.seat, f"deed:{deed.id}"))
    if not sendable(tx.state, tx.state.choice.tiles):
        finish_sending(tx)


def finish_sending(tx: Tx) -> None:
    choice = tx.state.choice
    if choice.source == D.TOWN_HALL and choice.tiles:
        tx.emit(TilesReturned(choice.seat, choice.tiles, D.TOWN_HALL))
    close_choice(tx)


def a_finish_sending(tx: Tx, c: FinishSending) -> None:
    finish_sending(tx)


def bathhouse_can_place(state: State) -> bool:
    """Does a drawn character still fit a free action space? Then it must be placed: the choice
    closes by itself only when none fits or enough are placed (R14/R23 Bathhouse, F§6)."""
    c = state.choice
    if c.remaining <= 0:
        return False
    p = state.players[c.seat]
    return any(
        _placement_why(p, t, s.place, i) is None
        for t in set(c.tiles) for s in p.places if s.place != "bathhouse" for i in range(len(s.slots))
    )


def finish_bathhouse(tx: Tx) -> None:
    choice = tx.state.choice
    if choice.tiles:
        tx.emit(TilesReturned(choice.seat, choice.tiles, "drawn"))
    close_choice(tx)


def a_place_drawn(tx: Tx, c: PlaceDrawn) -> None:
    tx.emit(DrawnPlaced(c.seat, c.tile, c.place, c.space))
    if not bathhouse_can_place(tx.state):
        finish_bathhouse(tx)


def a_tech(tx: Tx, c: PlaceTechnology) -> None:
    p = tx.state.players[c.seat]
    tx.emit(TechnologyPlaced(c.seat, c.place, c.space, uses_farmer_tech(p, c.place, c.space)))
    if not has_tech_spot(tx.state, c.seat):
        close_choice(tx)


def a_keep_tech(tx: Tx, c: KeepTechnology) -> None:
    close_choice(tx)


def a_food(tx: Tx, c: PayFood) -> None:
    tx.emit(FoodPaid(c.seat, c.good))


def a_give_up(tx: Tx, c: GiveUp) -> None:
    tile = None
    if c.item is Item.FOLLOWER:
        candidates = [t for t in tx.state.players[c.seat].bag if not t.starting]
        tile = candidates[tx.rng.below(len(candidates))]  # starting followers are redrawn (F§8.1)
    tx.emit(ItemLost(c.seat, c.item, c.target, tile, tx.rng.counter))
    left = sum(d.amount for d in tx.state.dues if d.seat == c.seat and d.kind == "torture")
    if left and not has_items(tx.state, c.seat):
        tx.emit(DueForgiven(c.seat, left))


# --- SYSTEM steps -----------------------------------------------------------------------------------


def s_reveal(tx: Tx, c: RevealHourglass) -> None:
    tx.emit(HourglassRevealed(tx.state.round + 1, tx.state.hourglass[0]))
    tx.emit(PhaseBegan(Phase.CENSUS))


def s_census(tx: Tx, c: TakeCensus) -> None:
    positions = [p.tracks[TRACK_INDEX[Char.FARMER]] for p in tx.state.players]
    top, bottom = max(positions), min(positions)
    if top != bottom:
        if positions.count(top) == 1:
            gain_coins(tx, positions.index(top), D.CENSUS_COIN, "census")
        if positions.count(bottom) == 1 and tx.state.config.players > 2:
            charge(tx, positions.index(bottom), D.CENSUS_COIN, "census")
    tx.emit(PhaseBegan(Phase.FOLLOWERS))


def s_event(tx: Tx, c: ResolveEvent) -> None:
    tile = tx.state.event
    exempt = []
    for seat in turn_order(tx.state):
        if tile.event in D.SACRISTY_EVENTS and activated(tx.state.players[seat], D.SACRISTY):
            exempt.append(seat)
            tx.emit(TilesReturned(seat, (Tile.MONK,), D.SACRISTY))
            continue
        EVENT_EFFECTS[tile.event](tx, seat, tile.level)
    tx.emit(EventResolved(tile, tuple(exempt)))
    tx.emit(PhaseBegan(Phase.START_PLAYER))


def ev_none(tx: Tx, seat: int, level: str) -> None:
    return None


def ev_income(tx: Tx, seat: int, level: str) -> None:
    gain_coins(tx, seat, status(tx.state.players[seat]) * D.INCOME_PER_STATUS[level], "income")


def ev_trading_day(tx: Tx, seat: int, level: str) -> None:
    gain_coins(tx, seat, built_stations(tx.state, seat) * D.TRADING_DAY_PER_STATION[level], "trading_day")


def ev_taxes(tx: Tx, seat: int, level: str) -> None:
    owed = sum(tx.state.players[seat].goods) // D.TAXES_GOODS_PER_COIN[level]
    charge(tx, seat, owed, "taxes")


def ev_harvest(tx: Tx, seat: int, level: str) -> None:
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


def ev_plague(tx: Tx, seat: int, level: str) -> None:
    bag = tx.state.players[seat].bag
    if not bag:
        return
    tile = bag[tx.rng.below(len(bag))]
    tx.emit(PlagueDrawn(seat, tile, not tile.starting, tx.rng.counter))


EVENT_EFFECTS = {Event.PILGRIMAGE: ev_none, Event.INCOME: ev_income, Event.TRADING_DAY: ev_trading_day,
                 Event.TAXES: ev_taxes, Event.HARVEST: ev_harvest, Event.PLAGUE: ev_plague}


def s_pass_start(tx: Tx, c: PassStartPlayer) -> None:
    n = tx.state.config.players
    tx.emit(StartPlayerPassed((tx.state.start_player + 1) % n, tx.state.round + 1))  # D8: to the left
    tx.emit(PhaseBegan(Phase.HOURGLASS))


def s_end(tx: Tx, c: EndGame) -> None:
    state = tx.state
    counts = [built_stations(state, s) for s in range(state.config.players)]
    top = max(counts)
    if top > 0 and counts.count(top) == 1:  # the 14th citizen; a tie means nobody (F§4.2)
        tx.emit(CitizenTaken(counts.index(top), "most_stations"))
    scores = tuple(score(tx.state, s)["total"] for s in range(state.config.players))
    tx.emit(GameEnded(tx.state.bonus_citizen, scores, winners(tx.state, scores)))


def score(state: State, seat: int) -> dict[str, int]:
    p = state.players[seat]
    goods = sum(n * D.GOOD_POINTS[g] for g, n in zip(GOODS, p.goods))
    stations = (built_stations(state, seat) + p.citizens) * status(p)
    return {"coins": p.coins, "goods": goods, "stations_and_citizens": stations,
            "total": p.coins + goods + stations}


def winners(state: State, scores: tuple[int, ...]) -> tuple[int, ...]:
    best = max(scores)
    tied = [s for s, v in enumerate(scores) if v == best]
    dev = max(state.players[s].development for s in tied)  # tie-break: development (F§8.1)
    return tuple(s for s in tied if state.players[s].development == dev)


# --- dispatch -----------------------------------------------------------------------------------

VALIDATORS: dict[type, Callable[[State, Any], Why]] = {
    ExcludePlaceTile: v_exclude, RecallFollower: v_recall, DrawFollowers: v_draw, PlaceFollower: v_place,
    MoveToTower: v_tower, FinishPlanning: v_always, TakeAction: v_take, UseVillage: v_village,
    Travel: v_travel, UsePharmacy: v_pharmacy, Pass: v_always, TakeGood: v_take_good,
    ChoosePlaceTile: v_choose_tile, SendToDeed: v_send, FinishSending: v_finish_sending,
    PlaceDrawn: v_place_drawn, PlaceTechnology: v_tech,
    KeepTechnology: v_always, PayFood: v_food, GiveUp: v_give_up,
}
APPLIERS: dict[type, Callable[[Tx, Any], None]] = {
    ExcludePlaceTile: a_exclude, RecallFollower: a_recall, DrawFollowers: a_draw, PlaceFollower: a_place,
    MoveToTower: a_tower, FinishPlanning: a_finish_planning, TakeAction: a_take, UseVillage: a_village,
    Travel: a_travel, UsePharmacy: a_pharmacy, Pass: a_pass, TakeGood: a_take_good,
    ChoosePlaceTile: a_choose_tile, SendToDeed: a_send, FinishSending: a_finish_sending,
    PlaceDrawn: a_place_drawn, PlaceTechnology: a_tech,
    KeepTechnology: a_keep_tech, PayFood: a_food, GiveUp: a_give_up,
    RevealHourglass: s_reveal, TakeCensus: s_census, ResolveEvent: s_event, PassStartPlayer: s_pass_start,
    EndGame: s_end,
}
CHOICE_COMMANDS = {
    ChoiceKind.GOOD: (TakeGood,), ChoiceKind.PLACE_TILE: (ChoosePlaceTile,),
    ChoiceKind.DEEDS: (SendToDeed, FinishSending), ChoiceKind.BATHHOUSE: (PlaceDrawn,),
    ChoiceKind.TECHNOLOGY: (PlaceTechnology, KeepTechnology),
}
PHASE_COMMANDS = {
    Phase.EXCLUSION: (ExcludePlaceTile,), Phase.FOLLOWERS: (RecallFollower, DrawFollowers),
    Phase.PLANNING: (PlaceFollower, MoveToTower, FinishPlanning),
    Phase.ACTIONS: (TakeAction, UseVillage, Travel, UsePharmacy, Pass),
}


def allowed_types(state: State, seat: int) -> tuple[type, ...]:
    if any(d.seat == seat for d in state.dues):
        kinds = {d.kind for d in state.dues if d.seat == seat}
        return (PayFood,) if "food" in kinds else (GiveUp,)
    if state.choice is not None:
        return CHOICE_COMMANDS[state.choice.kind]
    return PHASE_COMMANDS.get(state.phase, ())


def system_step(state: State) -> Any:
    return {
        Phase.HOURGLASS: RevealHourglass(), Phase.CENSUS: TakeCensus(), Phase.EVENT: ResolveEvent(),
        Phase.START_PLAYER: EndGame() if state.round >= D.ROUNDS else PassStartPlayer(),
    }[state.phase]


def guard(state: State, command: Any) -> None:
    """The fixed order of checks before any rule runs."""
    if state.phase is Phase.FINISHED:
        raise Rejected(RejectKind.GAME_OVER, "the game is over")
    seat = command.seat
    if isinstance(command, ApplyTimeout):
        if seat != SYSTEM:
            raise Rejected(RejectKind.NOT_YOUR_TURN, "only the system applies timeouts")
        if command.target not in to_act(state) or command.target == SYSTEM:
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.target} is not to act")
        return
    acting = to_act(state)
    if seat not in acting:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{_who(seat)} is not to act; waiting for {_list(acting)}")
    if seat == SYSTEM:
        if command != system_step(state):
            raise Rejected(RejectKind.WRONG_PHASE, f"the next system step is {type(system_step(state)).__name__}")
        return
    types = allowed_types(state, seat)
    if type(command) not in types:
        names = ", ".join(t.__name__ for t in types)
        raise Rejected(RejectKind.WRONG_PHASE, f"{type(command).__name__} is not allowed now; allowed: {names}")
    why = VALIDATORS[type(command)](state, command)
    if why:
        raise Rejected(RejectKind.ILLEGAL_MOVE, why)


def _who(seat: Any) -> str:
    return "the system" if seat == SYSTEM else f"seat {seat}"


def _list(acting: frozenset) -> str:
    return ", ".join(_who(s) for s in sorted(acting, key=str)) or "nobody"


def decide(state: State, command: Any, rng: Any) -> list[Any]:
    return transact(state, command, rng).events


def step(state: State, command: Any, rng: Any) -> tuple[list[Any], State]:
    """``decide`` and the state after its events, which the transaction has already folded."""
    tx = transact(state, command, rng)
    return tx.events, tx.state


def transact(state: State, command: Any, rng: Any) -> Tx:
    guard(state, command)
    tx = Tx(state, rng)
    if isinstance(command, ApplyTimeout):
        move = default_move(state, command.target)
        tx.emit(TimeoutApplied(command.target, type(move).__name__))
    else:
        move = command
    APPLIERS[type(move)](tx, move)
    if state.phase is Phase.ACTIONS and move.seat != SYSTEM and not state.dues:
        end_turn(tx)  # one action (with its choices) or a pass per turn
    return tx


# --- legal moves ----------------------------------------------------------------------------------


def legal_moves(state: State, actor: Any) -> list[Any]:
    if state.phase is Phase.FINISHED:
        return []
    acting = to_act(state)
    if actor == SYSTEM:
        if SYSTEM in acting:
            return [system_step(state)]
        return [ApplyTimeout(seat) for seat in sorted(acting)]
    if actor not in acting:
        return []
    moves = []
    for cls in allowed_types(state, actor):
        if cls in EXACT_CANDIDATES:
            moves.extend(CANDIDATES[cls](state, actor))
            continue
        validate = VALIDATORS[cls]
        moves.extend(m for m in CANDIDATES[cls](state, actor) if validate(state, m) is None)
    return moves


def _spaces(p: Player, skip: str = "") -> Iterator[tuple[str, int]]:
    for s in p.places:
        if s.place != skip:
            for i in range(len(s.slots)):
                yield s.place, i


def c_place(state: State, seat: int) -> Iterator[PlaceFollower]:
    """Every tile on every free space it fits (the validator still has the last word)."""
    p = state.players[seat]
    tiles = tuple(dict.fromkeys(available_tiles(p)))
    taken = {(x.place, x.space) for x in p.pending}
    fit = _fit_table(tiles, owns(p, D.HERB_GARDEN), owns(p, D.SCHOOL))
    for s in p.places:
        keys = _SPACE_KEYS[s.place]
        for i, held in enumerate(s.slots):
            if held is None:
                fitting = fit[keys[i]]
                if fitting and (s.place, i) not in taken:
                    for tile in fitting:
                        yield PlaceFollower(seat, tile, s.place, i)


# place -> per action space, the key of ``_fit_table``: (is the Town Hall, the character needed)
_SPACE_KEYS = {
    place.id: tuple((place.id == D.TOWN_HALL, need) for need in place.spaces) for place in D.PLACES.values()
}


@lru_cache(maxsize=4096)
def _fit_table(tiles: tuple[Tile, ...], herb_garden: bool, school: bool) -> dict:
    """(is Town Hall, needed character) -> the tiles that fit. A pure function of its arguments."""
    table = {}
    for need in (None, *CHARS):
        table[(False, need)] = [t for t in tiles if _fits(t, False, need, herb_garden, school)]
    table[(True, None)] = [t for t in tiles if not t.starting]
    return table


def c_recall(state: State, seat: int) -> Iterator[RecallFollower]:
    """Exact: every character on an action space, while a draw and a market space are left."""
    p = state.players[seat]
    if p.recalls + 1 > draw_limit(p) or free_market(p) <= 0:
        return
    for x in p.places:
        for i, v in enumerate(x.slots):
            if v is not None and v != TECH:
                yield RecallFollower(seat, x.place, i)


def c_tower(state: State, seat: int) -> Iterator[MoveToTower]:
    """Exact: each kind of market tile, while the seat owns a Gunpowder Tower with room."""
    p = state.players[seat]
    if owns(p, D.GUNPOWDER_TOWER) and len(p.tower) + len(p.tower_pending) < D.TOWER_SPACES:
        for t in dict.fromkeys(p.market):
            yield MoveToTower(seat, t)


def c_take(state: State, seat: int) -> Iterator[TakeAction]:
    p = state.players[seat]
    ready = activated_places(p)
    for s in p.places:
        if s.place == D.GUNPOWDER_TOWER or (s.place in ready and D.PLACES[s.place].effect in SIMPLE_EFFECTS):
            yield TakeAction(seat, s.place)


def c_travel(state: State, seat: int) -> Iterator[Travel]:
    p = state.players[seat]
    ready = activated_places(p)
    for place, route in TRAVEL.items():
        if place in ready:
            for town in neighbours(p.merchant, route):
                yield Travel(seat, place, town)


def c_take_good(state: State, seat: int) -> Iterator[TakeGood]:
    goods = set(state.roads[CONNECTION_INDEX[state.choice.connection]])
    for g in sorted(goods, key=lambda g: -D.GOOD_POINTS[g]):  # most valuable first: the default
        yield TakeGood(seat, g)
    yield TakeGood(seat, None)


def c_send(state: State, seat: int) -> Iterator[SendToDeed]:
    for tile in dict.fromkeys(state.choice.tiles):
        for deed in D.DEEDS:
            yield SendToDeed(seat, tile, deed.id, Reward.COIN)
            if deed.development_choice:
                yield SendToDeed(seat, tile, deed.id, Reward.DEVELOPMENT)


def c_place_drawn(state: State, seat: int) -> Iterator[PlaceDrawn]:
    p = state.players[seat]
    for tile in dict.fromkeys(state.choice.tiles):
        for place, i in _spaces(p, "bathhouse"):
            yield PlaceDrawn(seat, tile, place, i)


CANDIDATES: dict[type, Callable[[State, int], Any]] = {
    ExcludePlaceTile: lambda s, seat: (ExcludePlaceTile(seat, t) for t in s.place_tiles),
    RecallFollower: c_recall,
    DrawFollowers: lambda s, seat: (DrawFollowers(seat, n) for n in range(max_draw(s.players[seat]) + 1)),
    PlaceFollower: c_place,
    MoveToTower: c_tower,
    FinishPlanning: lambda s, seat: (FinishPlanning(seat),),
    TakeAction: c_take,
    UseVillage: lambda s, seat: (
        UseVillage(seat, c) for c in (Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER)
        if "village" in activated_places(s.players[seat])
    ),
    Travel: c_travel,
    UsePharmacy: lambda s, seat: (
        UsePharmacy(seat, n) for n in range(1, D.PHARMACY_MAX_COINS + 1)
        if "pharmacy" in activated_places(s.players[seat])
    ),
    Pass: lambda s, seat: (Pass(seat),),
    TakeGood: c_take_good,
    ChoosePlaceTile: lambda s, seat: (ChoosePlaceTile(seat, t) for t in s.place_tiles),
    SendToDeed: c_send,
    FinishSending: lambda s, seat: (FinishSending(seat),),
    PlaceDrawn: c_place_drawn,
    PlaceTechnology: lambda s, seat: (PlaceTechnology(seat, pl, i) for pl, i in _spaces(s.players[seat])),
    KeepTechnology: lambda s, seat: (KeepTechnology(seat),),
    PayFood: lambda s, seat: (PayFood(seat, g) for g in D.FOOD),
    GiveUp: lambda s, seat: torture_options(s, seat),
}

# Generators that build only valid moves from the validator's own predicates (available tile,
# free slot, fits); the random playout test checks them against decide on every decision.
EXACT_CANDIDATES = frozenset({
    PlaceFollower, RecallFollower, DrawFollowers, MoveToTower, FinishPlanning, Pass, KeepTechnology,
})

FINISHERS = (FinishSending, KeepTechnology)


def default_move(state: State, actor: Any) -> Any:
    """The move a timeout applies: draw the most, finish planning, pass; for choices the
    finishing move where there is one, else the first listed (goods: the most valuable;
    torture: the D12 order; food: grain first)."""
    moves = legal_moves(state, actor)
    if not moves:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{_who(actor)} has no move to make")
    for wanted in (DrawFollowers,):
        draws = [m for m in moves if isinstance(m, wanted)]
        if draws:
            return draws[-1]
    for wanted in (FinishPlanning, Pass) + FINISHERS:
        for m in moves:
            if isinstance(m, wanted):
                return m
    return moves[0]
