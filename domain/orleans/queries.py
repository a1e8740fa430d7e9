"""Questions about a position that every rule module asks: which places a seat owns and has
activated, market room and draws, who may stand where, what can be recruited or built, deed
spaces, technology spots, turn order and the classic coin supply. Read-only: no events."""
from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from domain.engine import Why
from domain.orleans import data as D
from domain.orleans.data import Char, Event, Tile
from domain.orleans.evolve import CHAR_INDEX, DEED_INDEX, GOOD_INDEX, TRACK_INDEX
from domain.orleans.memo import derived
from domain.orleans.model import TECH, Choice, Player, State, place_map


def owns(p: Player, place: str) -> bool:
    return place in place_map(p)


def slots_of(p: Player, place: str) -> tuple[str | None, ...] | None:
    i = place_map(p).get(place)
    return None if i is None else p.places[i].slots


def activated(p: Player, place: str) -> bool:
    return place in activated_places(p)


@derived(Player, depends_on=("places",))
def activated_places(p: Player) -> frozenset[str]:
    """The places whose action spaces are all filled (Town Hall: any one)."""
    return frozenset([s.place for s in p.places if activated_slots(s.place, s.slots)])


def activated_slots(place: str, slots: tuple[str | None, ...] | None) -> bool:
    if not slots:
        return False
    if place == D.TOWN_HALL:  # one character is enough (F§5 Town Hall)
        return slots.count(None) < len(slots)
    return None not in slots


# Every action space of every place, numbered in D.PLACES order: (place, space)
SPACES: tuple[tuple[str, int], ...] = tuple(
    (place.id, i) for place in D.PLACES.values() for i in range(len(place.spaces)))
SPACE_IDS: dict[str, tuple[int, ...]] = {
    place.id: tuple(n for n, (pid, _) in enumerate(SPACES) if pid == place.id) for place in D.PLACES.values()}


@lru_cache(maxsize=8192)
def free_on(place: str, slots: tuple[str | None, ...]) -> tuple[int, ...]:
    """The numbers (in ``SPACES``) of a place's empty action spaces. Per place and slots, so a
    seat's spaces are looked up place by place: a change to one place leaves the others' cached."""
    return tuple([n for n, held in zip(SPACE_IDS[place], slots) if held is None])


@lru_cache(maxsize=8192)
def occupied_on(place: str, slots: tuple[str | None, ...]) -> tuple[int, ...]:
    """The numbers of a place's action spaces where a character (not technology) stands."""
    return tuple([n for n, held in zip(SPACE_IDS[place], slots) if held is not None and held != TECH])


def capacity(p: Player) -> int:
    return D.MARKET_SPACES + (D.TOWER_SPACES if owns(p, D.GUNPOWDER_TOWER) else 0)


def free_market(p: Player) -> int:
    return capacity(p) - len(p.market) - len(p.tower) - len(p.tower_pending)


KNIGHTS_TRACK = TRACK_INDEX[Char.KNIGHT]  # read on every phase 3 move: see dispatch.FINISHED


def draw_limit(p: Player) -> int:
    return D.KNIGHTS_TRACK_DRAWS[p.tracks[KNIGHTS_TRACK]]


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
    return tile_fits(tile, place == D.TOWN_HALL, need, owns(p, D.HERB_GARDEN), owns(p, D.SCHOOL))


def tile_fits(tile: Tile, town_hall: bool, need: Char | None, herb_garden: bool, school: bool) -> bool:
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


def open_choice(state: State) -> Choice:
    """The choice being made: choice commands are validated and applied only while it is open."""
    choice = state.choice
    assert choice is not None
    return choice


def placed_tiles(p: Player, place: str) -> tuple[Tile, ...]:
    """The characters standing on a place's action spaces (technology tiles are not characters)."""
    return tuple(Tile(v) for v in slots_of(p, place) or () if v not in (None, TECH))


def max_draw(p: Player) -> int:
    return max(0, min(draw_limit(p) - p.recalls, free_market(p), len(p.bag)))


def available_tiles(p: Player) -> tuple[Tile, ...]:
    return p.market + p.tower


def placement_why(p: Player, tile: Tile, place: str, space: int) -> Why:
    if place not in D.PLACES or not owns(p, place):
        return f"you do not own a place {place!r}"
    spaces = D.PLACES[place].spaces
    if not 0 <= space < len(spaces):
        return f"{place} has no space {space}"
    if not slot_free(p, place, space):
        return f"space {space} of {place} is taken"
    if not fits(p, tile, place, spaces[space]):
        needed = spaces[space]
        need = needed.value if needed else "a non-starting character"
        return f"a {tile.value} cannot stand on a space for {need}"
    return None


def activated_why(p: Player, place: str) -> Why:
    if place not in D.PLACES or not owns(p, place):
        return f"you do not own a place {place!r}"
    if not activated(p, place):
        return f"{place} is not activated"
    return None


def action_spaces(p: Player, skip: str = "") -> Iterator[tuple[str, int]]:
    for s in p.places:
        if s.place != skip:
            for i in range(len(s.slots)):
                yield s.place, i
