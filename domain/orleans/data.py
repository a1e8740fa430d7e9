"""Orléans rules tables as frozen data.

Every value cites where it comes from, and every citation resolves in docs/ (tests/test_citations.py):
"F§x" = section x of docs/orleans-data.md, "D<n>" = row n of its "Engine defaults" table, and
"R14 l.N" / "R23 l.N" = lines of the classic / 2023 rulebook, paraphrased in docs/rules-index.md.
A correction is a one-line change here.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType


class Edition(str, Enum):
    CLASSIC = "classic"
    E2023 = "2023"


class Char(str, Enum):
    """Character kinds (F§2, F§5)."""

    FARMER = "farmer"
    BOATMAN = "boatman"
    CRAFTSMAN = "craftsman"
    TRADER = "trader"
    KNIGHT = "knight"
    SCHOLAR = "scholar"
    MONK = "monk"


class Tile(str, Enum):
    """A character tile: the seven neutral kinds plus the four starting followers (F§7.4)."""

    FARMER = "farmer"
    BOATMAN = "boatman"
    CRAFTSMAN = "craftsman"
    TRADER = "trader"
    KNIGHT = "knight"
    SCHOLAR = "scholar"
    MONK = "monk"
    START_FARMER = "start_farmer"
    START_BOATMAN = "start_boatman"
    START_CRAFTSMAN = "start_craftsman"
    START_TRADER = "start_trader"

    @property
    def kind(self) -> Char:
        return TILE_KIND[self]

    @property
    def starting(self) -> bool:
        return self in STARTING_TILES


STARTING_TILES = frozenset({Tile.START_FARMER, Tile.START_BOATMAN, Tile.START_CRAFTSMAN, Tile.START_TRADER})
TILE_KIND: Mapping[Tile, Char] = MappingProxyType(
    {t: Char(t.value.removeprefix("start_")) for t in Tile}
)
NEUTRAL_TILE: Mapping[Char, Tile] = MappingProxyType({c: Tile(c.value) for c in Char})


class Good(str, Enum):
    GRAIN = "grain"
    CHEESE = "cheese"
    WINE = "wine"
    WOOL = "wool"
    BROCADE = "brocade"


GOOD_COUNTS: Mapping[Good, int] = MappingProxyType(
    {Good.GRAIN: 24, Good.CHEESE: 21, Good.WINE: 18, Good.WOOL: 15, Good.BROCADE: 12}  # F§7.1
)
GOOD_POINTS: Mapping[Good, int] = MappingProxyType(
    {Good.GRAIN: 1, Good.CHEESE: 2, Good.WINE: 3, Good.WOOL: 4, Good.BROCADE: 5}  # F§8.1 scoring 3
)
FOOD = (Good.GRAIN, Good.CHEESE, Good.WINE)  # F§8.1 Harvest
GOODS_REMOVED = MappingProxyType({2: 12, 3: 6, 4: 0, 5: 0})  # F§1.3


# --- Map (F§1, D1) ------------------------------------------------------------------------

ORLEANS = "orleans"
TOWNS: tuple[str, ...] = (  # F§1.1
    "orleans", "chartres", "etampes", "le_mans", "chateaudun", "vendome", "blois", "montargis",
    "briare", "tours", "chinon", "montrichard", "vierzon", "loches", "bourges", "sancerre",
    "chatellerault", "le_blanc", "chateauroux", "nevers", "argenton_sur_creuse", "la_chatre",
    "saint_amand_montrond",
)


class Route(str, Enum):
    ROAD = "road"
    WATERWAY = "waterway"


@dataclass(frozen=True)
class Connection:
    id: str
    a: str
    b: str
    route: Route
    mark: int | None  # the extra goods space's "3"/"4" mark, None when it has only one space


def _c(cid: str, a: str, b: str, mark: int | None = None) -> Connection:
    return Connection(cid, a, b, Route.ROAD if cid[0] == "R" else Route.WATERWAY, mark)


CONNECTIONS: tuple[Connection, ...] = (  # F§1.2, every row
    _c("R01", "chartres", "etampes"),
    _c("R02", "chartres", "orleans"),
    _c("R03", "chartres", "chateaudun"),
    _c("R04", "chartres", "le_mans", 4),
    _c("R05", "le_mans", "chateaudun"),
    _c("R06", "le_mans", "vendome"),
    _c("R07", "le_mans", "tours", 3),
    _c("R08", "chateaudun", "vendome"),
    _c("R09", "chateaudun", "orleans"),
    _c("R10", "orleans", "montargis"),
    _c("R11", "orleans", "vierzon", 3),
    _c("R12", "etampes", "montargis", 4),
    _c("R13", "vendome", "blois"),
    _c("R14", "montargis", "briare"),
    _c("R15", "blois", "vierzon"),
    _c("R16", "montrichard", "loches"),
    _c("R17", "loches", "chateauroux"),
    _c("R18", "vierzon", "chateauroux"),
    _c("R19", "sancerre", "bourges"),
    _c("R20", "bourges", "saint_amand_montrond"),
    _c("R21", "bourges", "nevers"),
    _c("R22", "saint_amand_montrond", "nevers", 4),
    _c("R23", "chinon", "chatellerault"),
    _c("R24", "chatellerault", "argenton_sur_creuse", 4),
    _c("R25", "le_blanc", "chateauroux"),
    _c("R26", "chateauroux", "argenton_sur_creuse"),
    _c("R27", "chateauroux", "la_chatre"),
    _c("R28", "argenton_sur_creuse", "la_chatre"),
    _c("R29", "la_chatre", "saint_amand_montrond"),
    _c("W01", "orleans", "blois"),
    _c("W02", "orleans", "briare", 3),
    _c("W03", "briare", "sancerre", 3),
    _c("W04", "sancerre", "nevers"),
    _c("W05", "blois", "tours"),
    _c("W06", "tours", "montrichard"),
    _c("W07", "tours", "loches"),
    _c("W08", "tours", "chinon"),
    _c("W09", "chinon", "chatellerault"),
    _c("W10", "chinon", "le_blanc", 3),
    _c("W11", "le_blanc", "argenton_sur_creuse"),
    _c("W12", "montrichard", "vierzon"),
    _c("W13", "vierzon", "bourges"),
    _c("W14", "vierzon", "saint_amand_montrond"),
)
CONNECTION_BY_ID: Mapping[str, Connection] = MappingProxyType({c.id: c for c in CONNECTIONS})
MAP_PLAYER_COUNT = MappingProxyType({2: 2, 3: 3, 4: 4, 5: 4})  # D1: 5 players use the 4-player map


def goods_spaces(players: int) -> tuple[str, ...]:
    """Connection id per used goods space, in table order (F§1.3: 43/48/52 spaces)."""
    used = MAP_PLAYER_COUNT[players]
    spaces: list[str] = []
    for c in CONNECTIONS:
        spaces.append(c.id)
        if c.mark is not None and c.mark <= used:
            spaces.append(c.id)
    return tuple(spaces)


# --- Character tracks (F§2) ------------------------------------------------------------------

FARMER_TRACK_GOODS = (  # F§2.1, spaces 1..8
    Good.GRAIN, Good.GRAIN, Good.CHEESE, Good.CHEESE, Good.WINE, Good.WINE, Good.WOOL, Good.BROCADE,
)
BOATMEN_TRACK_COINS = (2, 3, 4, 5, 6)  # F§2.2 spaces 1..4; space 5: citizen to the first, 6 coins to later arrivals (D3)
BOATMEN_CITIZEN_SPACE = 5  # F§2.2
BOATMEN_LATE_COINS = 6  # D3
CRAFTSMEN_TRACK_LENGTH = 5  # F§2.3, one technology tile per space
TRADERS_TRACK_STACKS = ((1,), (1, 2), (1, 2), (1, 2), (1, 2))  # F§2.4: stack I only on space 1
SCHOLARS_TRACK_POINTS = (2, 3, 4, 5, 6)  # F§2.5
KNIGHTS_TRACK_DRAWS = (4, 5, 6, 7, 7, 8)  # F§2.6, spaces 0..5
KNIGHTS_CITIZEN_SPACE = 4  # F§2.6
TRACK_LENGTH: Mapping[Char, int] = MappingProxyType({  # F§2: Farmers 8, the others 5
    Char.FARMER: 8, Char.BOATMAN: 5, Char.CRAFTSMAN: 5, Char.TRADER: 5, Char.SCHOLAR: 5, Char.KNIGHT: 5,
})


class FarmerTech(str, Enum):
    """Which technology tile must replace a Farmer (F§2.3, F§8.2)."""

    FIRST_PLACED = "first_placed"  # classic, R14: "the first Technology Tile you place in a game"
    FIRST_CRAFTSMAN = "first_craftsman"  # 2023, R23: the tile from the first Craftsmen space only


FARMER_TECH = MappingProxyType({Edition.CLASSIC: FarmerTech.FIRST_PLACED, Edition.E2023: FarmerTech.FIRST_CRAFTSMAN})


# --- Development track (F§3, D2) ------------------------------------------------------------

DEVELOPMENT_MAX = 30  # F§3 length
DEVELOPMENT_STATUS = ((30, 6), (22, 5), (15, 4), (9, 3), (4, 2), (0, 1))  # F§3 status rows
DEVELOPMENT_COINS: Mapping[int, int] = MappingProxyType({7: 3, 12: 4, 25: 5})  # F§3 coin spaces
DEVELOPMENT_CITIZENS = (3, 18, 28)  # D2


def development_status(position: int) -> int:
    return next(status for threshold, status in DEVELOPMENT_STATUS if position >= threshold)


# --- Beneficial deeds (F§4.1) ------------------------------------------------------------------


class Reward(str, Enum):
    COIN = "coin"
    DEVELOPMENT = "development"


@dataclass(frozen=True)
class Deed:
    id: str
    name: str
    spaces: tuple[Char, ...]
    coins: int
    development_choice: bool = False  # Canalisation: 1 coin or 1 development point per character


def _spaces(*groups: tuple[int, Char]) -> tuple[Char, ...]:
    return tuple(char for count, char in groups for _ in range(count))


K, T, F, C, M, S, B = Char.KNIGHT, Char.TRADER, Char.FARMER, Char.CRAFTSMAN, Char.MONK, Char.SCHOLAR, Char.BOATMAN
DEEDS: tuple[Deed, ...] = (  # F§4.1, one row each
    Deed("city_wall", "Building the City Wall", _spaces((3, K), (1, T), (3, F), (3, C)), 1),
    Deed("papal_conclave", "Papal Conclave", _spaces((1, K), (2, M)), 3),
    Deed("defeating_plague", "Defeating the Plague", _spaces((2, S), (1, B), (1, F), (1, T)), 2),
    Deed("astronomy", "Astronomy", _spaces((2, S), (1, T)), 1),
    Deed("boatmens_guild", "Founding the Boatmen's Guild", _spaces((3, B), (1, S)), 1),
    Deed("cathedral", "Building the Cathedral", _spaces((2, C), (2, M), (2, T)), 2),
    Deed("peace_treaty", "Peace Treaty", _spaces((1, M), (1, S), (2, K)), 2),
    Deed("canalisation", "Canalisation", _spaces((3, B), (2, T), (3, F), (2, C)), 1, True),
)
DEED_BY_ID: Mapping[str, Deed] = MappingProxyType({d.id: d for d in DEEDS})

# --- Places (F§5, F§6, D4, D5) ---------------------------------------------------------------


class Effect(str, Enum):
    FARM_HOUSE = "farm_house"
    VILLAGE = "village"
    UNIVERSITY = "university"
    CASTLE = "castle"
    MONASTERY = "monastery"
    SHIP = "ship"
    WAGON = "wagon"
    GUILDHALL = "guildhall"
    DEVELOPMENT = "development"  # Scriptorium, Shipping Line, Library
    TOWN_HALL = "town_hall"
    GOOD = "good"  # Hayrick … Tailor Shop
    COINS = "coins"  # Brewery, Cellar
    WINDMILL = "windmill"
    HOSPITAL = "hospital"
    OFFICE = "office"
    PHARMACY = "pharmacy"
    LABORATORY = "laboratory"
    BATHHOUSE = "bathhouse"
    PASSIVE = "passive"  # Sacristy (while activated), Herb Garden, School, Gunpowder Tower


ANY = None  # a space any character may fill (Town Hall, Pharmacy, Bathhouse)


@dataclass(frozen=True)
class Place:
    id: str
    name: str
    spaces: tuple[Char | None, ...]
    effect: Effect
    stack: int = 0  # 0: printed on the player board; 1 or 2: place-tile stack (D5)
    good: Good | None = None
    coins: int = 0
    development: int = 0


BOARD_PLACES: tuple[Place, ...] = (  # F§5, every row
    Place("farm_house", "Farm House", (B, C), Effect.FARM_HOUSE),
    Place("village", "Village", (F, B, C), Effect.VILLAGE),
    Place("university", "University", (F, C, T), Effect.UNIVERSITY),
    Place("castle", "Castle", (F, B, T), Effect.CASTLE),
    Place("monastery", "Monastery", (S, T), Effect.MONASTERY),
    Place("ship", "Ship", (F, B, K), Effect.SHIP),
    Place("wagon", "Wagon", (F, T, K), Effect.WAGON),
    Place("guildhall", "Guildhall", (F, C, K), Effect.GUILDHALL),
    Place("scriptorium", "Scriptorium", (K, S), Effect.DEVELOPMENT, development=1),
    Place("town_hall", "Town Hall", (ANY, ANY), Effect.TOWN_HALL),
)
PLACE_TILES: tuple[Place, ...] = (  # F§6 (D5), every row
    Place("hayrick", "Hayrick", (F,), Effect.GOOD, 1, good=Good.GRAIN),
    Place("cheese_factory", "Cheese Factory", (F, F), Effect.GOOD, 1, good=Good.CHEESE),
    Place("winery", "Winery", (F, T), Effect.GOOD, 1, good=Good.WINE),
    Place("wool_manufacturer", "Wool Manufacturer", (B, T), Effect.GOOD, 1, good=Good.WOOL),
    Place("tailor_shop", "Tailor Shop", (T, S), Effect.GOOD, 1, good=Good.BROCADE),
    Place("brewery", "Brewery", (M,), Effect.COINS, 1, coins=2),
    Place("windmill", "Windmill", (C, C), Effect.WINDMILL, 1, coins=2, development=1),
    Place("library", "Library", (K, S), Effect.DEVELOPMENT, 1, development=2),
    Place("hospital", "Hospital", (B, S), Effect.HOSPITAL, 1),
    Place("sacristy", "Sacristy", (M,), Effect.PASSIVE, 1),
    Place("herb_garden", "Herb Garden", (), Effect.PASSIVE, 1),
    Place("bathhouse", "Bathhouse", (ANY,), Effect.BATHHOUSE, 1),  # D4: any one character
    Place("shipping_line", "Shipping Line", (B,), Effect.DEVELOPMENT, 2, development=1),
    Place("cellar", "Cellar", (M, S), Effect.COINS, 2, coins=4),
    Place("office", "Office", (S, S), Effect.OFFICE, 2),
    Place("laboratory", "Laboratory", (C, S), Effect.LABORATORY, 2),
    Place("horse_wagon", "Horse Wagon", (K, T), Effect.WAGON, 2),
    Place("pharmacy", "Pharmacy", (ANY,), Effect.PHARMACY, 2),
    Place("school", "School", (), Effect.PASSIVE, 2),
    Place("gunpowder_tower", "Gunpowder Tower", (), Effect.PASSIVE, 2),
)
PLACES: Mapping[str, Place] = MappingProxyType({p.id: p for p in BOARD_PLACES + PLACE_TILES})
PLACE_TILE_IDS = tuple(p.id for p in PLACE_TILES)
TOWN_HALL = "town_hall"
GUNPOWDER_TOWER = "gunpowder_tower"
HERB_GARDEN = "herb_garden"
SCHOOL = "school"
SACRISTY = "sacristy"
HERB_GARDEN_STANDS_IN_FOR = frozenset({Char.CRAFTSMAN, Char.TRADER, Char.FARMER})  # F§6 Herb Garden
PHARMACY_MAX_COINS = 3  # F§6 Pharmacy: 1–3 coins
BATHHOUSE_DRAW = MappingProxyType({Edition.CLASSIC: (3, 2), Edition.E2023: (2, 1)})  # F§6, F§8.2: (draw, place)
EXCLUSIONS_PER_PLAYER = MappingProxyType({2: 2, 3: 1, 4: 1, 5: 1})  # R14 "Exclusion of Place Tiles"
# R14 l.448-450: each player "may exclude one" tile; with two players each "excludes 2" (no "may")
EXCLUSION_MAY_BE_SKIPPED = MappingProxyType({2: False, 3: True, 4: True, 5: True})

# --- Supply and components (F§7) --------------------------------------------------------------

NEUTRAL_SUPPLY: Mapping[int, Mapping[Char, int]] = MappingProxyType({  # F§7.3
    n: MappingProxyType({
        Char.FARMER: (12, 14, 16, 18)[n - 2],
        Char.BOATMAN: (6, 8, 10, 12)[n - 2],
        Char.CRAFTSMAN: (6, 8, 10, 12)[n - 2],
        Char.TRADER: (6, 8, 10, 12)[n - 2],
        Char.KNIGHT: (8, 11, 14, 17)[n - 2],
        Char.SCHOLAR: (8, 11, 14, 17)[n - 2],
        Char.MONK: (8, 11, 14, 17)[n - 2],
    })
    for n in (2, 3, 4, 5)
})
TECHNOLOGY_TILES = MappingProxyType({2: 16, 3: 16, 4: 16, 5: 20})  # F§7.3
PLAYERS = MappingProxyType({Edition.CLASSIC: (2, 3, 4), Edition.E2023: (2, 3, 4, 5)})  # F§7.1, F§7.2
STARTING_COINS = 5  # F§7.4
TRADING_STATIONS = 10  # F§7.4
MARKET_SPACES = 8  # F§7.4
TOWER_SPACES = 2  # F§7.4 (Gunpowder Tower +2)
# D13 (rules 4): take-backs per seat and planning phase: every character a market and a full tower
# hold, once each; bounds a planning phase for seats without a clock.
TAKE_BACKS_PER_PLANNING = MARKET_SPACES + TOWER_SPACES
CLASSIC_COIN_SUPPLY = 47  # D11
CITIZENS = 14  # F§4.2
ROUNDS = 18  # F§8.1

# --- Hour glass (F§7.4, D7) and events (F§8.1) ------------------------------------------------


class Event(str, Enum):
    PILGRIMAGE = "pilgrimage"
    INCOME = "income"
    HARVEST = "harvest"
    TAXES = "taxes"
    TRADING_DAY = "trading_day"
    PLAGUE = "plague"


@dataclass(frozen=True)
class Hourglass:
    event: Event
    level: str = ""  # "", or "A"/"B"/"C" in the 2023 edition


CLASSIC_START = Hourglass(Event.PILGRIMAGE)  # F§7.4: Pilgrimage first
CLASSIC_REST = (  # F§7.4: the other 17 are shuffled below it
    (Hourglass(Event.PILGRIMAGE),) * 2
    + tuple(Hourglass(e) for e in (Event.INCOME, Event.HARVEST, Event.TAXES, Event.TRADING_DAY, Event.PLAGUE) for _ in range(3))
)


def _stack(level: str, pilgrimage: bool) -> tuple[Hourglass, ...]:
    scaled = tuple(Hourglass(e, level) for e in (Event.INCOME, Event.HARVEST, Event.TAXES, Event.TRADING_DAY))
    return scaled + (Hourglass(Event.PLAGUE),) + ((Hourglass(Event.PILGRIMAGE),) if pilgrimage else ())


E2023_START = Hourglass(Event.PILGRIMAGE)  # D7
E2023_STACKS = (_stack("A", True), _stack("B", True), _stack("C", False))  # D7

# Scaled event values (F§8.1; classic = the C row)
INCOME_PER_STATUS = MappingProxyType({"": 1, "A": 3, "B": 2, "C": 1})
HARVEST_FOOD = MappingProxyType({"": 1, "A": 1, "B": 2, "C": 3})
HARVEST_COINS_PER_FOOD = 5
TAXES_GOODS_PER_COIN = MappingProxyType({"": 3, "A": 1, "B": 2, "C": 3})
TRADING_DAY_PER_STATION = MappingProxyType({"": 1, "A": 3, "B": 2, "C": 1})
SACRISTY_EVENTS = frozenset({Event.HARVEST, Event.TAXES, Event.PLAGUE})  # F§6 Sacristy: negative events
CENSUS_COIN = 1  # F§8.1 Census

# --- Torture (F§8.1, D12) ---------------------------------------------------------------------


class Item(str, Enum):
    GOOD = "good"
    DEVELOPMENT = "development"
    PLACE_TILE = "place_tile"
    TECHNOLOGY = "technology"
    STATION = "station"
    FOLLOWER = "follower"


TORTURE_DEFAULT_ORDER = (  # D12
    Item.GOOD, Item.DEVELOPMENT, Item.PLACE_TILE, Item.TECHNOLOGY, Item.STATION, Item.FOLLOWER,
)
