"""Artificium's rules tables: cards, resources, the bank and the score board.

Citations resolve in docs/ (tests/test_citations.py): ``A-rules l.N`` is a line of the rulebook,
paraphrased in docs/rules-index.md; ``A§2``/``A§4`` are sections of docs/artificium-data.md, which
lists every reconstructed constant below. The printed prices, resource
levels and score-board bonus spaces were never found (A§3); every value marked
``RECONSTRUCTION`` is the facts sheet's proposal, kept as one named constant each so that a
correction is a data change and nothing else.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final


class Edition(str, Enum):
    STANDARD = "standard"  # the only published edition (A§1)


class Resource(str, Enum):
    """The nine resources of the player board, lowest tier first (A§2 secondary sources)."""

    WHEAT = "wheat"
    WOOD = "wood"
    COAL = "coal"
    FOOD = "food"
    BEER = "beer"
    METAL = "metal"
    CRYSTAL = "crystal"
    SWORD = "sword"
    POTION = "potion"


class CardKind(str, Enum):
    BUILDING = "building"  # produces or converts resources and scores VP (A-rules l.16-20)
    ACTION = "action"  # an action, never VP (A-rules l.10-12)


class Effect(str, Enum):
    """What resolving a card does; one small rule per member in ``effects.py``."""

    PRODUCE = "produce"  # pay the inputs, gain the outputs (every plain Building)
    KNIGHT = "knight"  # Castle
    WIZARD = "wizard"  # Wizard's Tower
    EXPLORATION = "exploration"
    RECONSTRUCTION = "reconstruction"
    FAIR = "fair"
    THEFT = "theft"


class Card(str, Enum):
    SAWMILL = "sawmill"
    FARM = "farm"
    CHARCOAL_BURNERS_HOUSE = "charcoal_burners_house"
    MILL_BAKERY = "mill_bakery"
    BREWERY = "brewery"
    HUNTER_HUT = "hunter_hut"
    FOUNDRY = "foundry"
    CRYSTAL_MINE = "crystal_mine"
    SWORDSMITH = "swordsmith"
    LABORATORY = "laboratory"
    CASTLE = "castle"
    WIZARDS_TOWER = "wizards_tower"
    EXPLORATION = "exploration"
    RECONSTRUCTION = "reconstruction"
    FAIR = "fair"
    THEFT = "theft"


@dataclass(frozen=True)
class CardSpec:
    name: str
    kind: CardKind
    count: int  # copies in the game
    effect: Effect
    vp: int  # victory points for resolving it
    takes: tuple[Resource, ...] = ()  # resources spent
    coins: int = 0  # coins spent (paid to the bank)
    gives: tuple[Resource, ...] = ()  # resources gained


R = Resource
_B, _A = CardKind.BUILDING, CardKind.ACTION
_P = Effect.PRODUCE

CARDS: Final[Mapping[Card, CardSpec]] = MappingProxyType({
    # Buildings: name, kind, copies, effect, VP, spent, coins, gained (A§2 card list)
    Card.SAWMILL: CardSpec("Sawmill", _B, 8, _P, 1, gives=(R.WOOD, R.WOOD)),  # A-rules l.66-69
    Card.FARM: CardSpec("Farm", _B, 8, _P, 1, gives=(R.WHEAT, R.WHEAT)),  # A-rules l.71-74
    Card.CHARCOAL_BURNERS_HOUSE: CardSpec(  # A-rules l.76-80
        "Charcoal Burner's House", _B, 8, _P, 2, takes=(R.WOOD,), gives=(R.COAL,)),
    Card.MILL_BAKERY: CardSpec(  # A-rules l.82-87
        "Mill & Bakery", _B, 8, _P, 2, takes=(R.WHEAT,), gives=(R.FOOD,)),
    Card.BREWERY: CardSpec("Brewery", _B, 8, _P, 2, takes=(R.WHEAT,), gives=(R.BEER,)),  # A-rules l.89-93
    Card.HUNTER_HUT: CardSpec("Hunter Hut", _B, 8, _P, 2, takes=(R.WOOD,), gives=(R.FOOD,)),  # A-rules l.95-100
    Card.FOUNDRY: CardSpec("Foundry", _B, 8, _P, 3, takes=(R.FOOD,), gives=(R.METAL,)),  # A-rules l.102-107
    Card.CRYSTAL_MINE: CardSpec(  # A-rules l.114-119
        "Crystal Mine", _B, 8, _P, 3, takes=(R.FOOD,), gives=(R.CRYSTAL,)),
    Card.SWORDSMITH: CardSpec(  # A-rules l.121-126
        "Swordsmith", _B, 6, _P, 5, takes=(R.COAL, R.METAL), gives=(R.SWORD,)),
    Card.LABORATORY: CardSpec(  # A-rules l.109-112
        "Laboratory", _B, 6, _P, 5, takes=(R.COAL, R.CRYSTAL), gives=(R.POTION,)),
    Card.CASTLE: CardSpec("Castle", _B, 6, Effect.KNIGHT, 8, takes=(R.BEER, R.SWORD), coins=1),  # A-rules l.61-64
    Card.WIZARDS_TOWER: CardSpec(  # A-rules l.128-133
        "Wizard's Tower", _B, 6, Effect.WIZARD, 8, takes=(R.BEER, R.POTION), coins=1),
    # Actions: never VP (A-rules l.10-12)
    Card.EXPLORATION: CardSpec("Exploration", _A, 5, Effect.EXPLORATION, 0),  # A-rules l.44-49
    Card.RECONSTRUCTION: CardSpec("Reconstruction", _A, 5, Effect.RECONSTRUCTION, 0),  # A-rules l.51-54
    Card.FAIR: CardSpec("Fair", _A, 5, Effect.FAIR, 0),  # A-rules l.56-59
    Card.THEFT: CardSpec("Theft", _A, 5, Effect.THEFT, 0),  # A-rules l.135-140
})
BUILDING_CARDS: Final = 88  # A-rules l.16
ACTION_CARDS: Final = 20  # A-rules l.10
FULL_DECK: Final[tuple[Card, ...]] = tuple(c for c in Card for _ in range(CARDS[c].count))  # 108 cards (A§2)

# --- players, turns and the bank --------------------------------------------------------------------

PLAYERS: Final = range(2, 7)  # A-rules l.2
TURNS: Final = 4  # A-rules l.164-165, l.169
TURN_SPACES: Final = ("I", "II", "III", "IV")  # the turn marker's spaces on the score board (A-rules l.150-151)
STARTING_COINS: Final = 5  # A-rules l.152-153
HAND_SIZE: Final = 5  # first turn: draw 5; later turns: fill up to 5, never discard down (A-rules l.171-173)
MARKET_CARDS: Final = 6  # A-rules l.180
EXCHANGE_COST: Final = 2  # every exchange after the first free one (A-rules l.184-185)
REDRAW_CARDS: Final = 5  # discard the hand and draw 5 instead of the free exchange (A-rules l.188-192)
COINS_PER_VP: Final = 4  # final score (A-rules l.257-258)
CASTLE_PUSHBACK: Final = 4  # A-rules l.63-64
WIZARD_DRAW: Final = 5  # A-rules l.131-133
WIZARD_DISCARD: Final = 3  # A-rules l.131-133
FAIR_COINS_PER_CARD: Final = 2  # A-rules l.56-59
THEFT_COST_BY_LEVEL: Final[Mapping[int, int]] = MappingProxyType({1: 1, 2: 2})  # A-rules l.135-140

# --- rules versions ----------------------------------------------------------------------------------
# A game records the rules version it is played by in its config (``Config.rules_version``); the
# reconstructed tables below differ between versions, so a game recorded under version 1 replays
# with version 1's tables (``TABLES``). 1 (engine artificium-1): the research sheet's tables, an
# unlimited bank. 2: a bank of 100 tokens that pays only what it holds, prices under which no
# converter is free, fewer bonus spaces (A§4, A§5 gives the self-play evidence).
RULES_VERSION: Final = 2
LEGACY_RULES_VERSION: Final = 1

TOKEN_POOL: Final = 100  # A-rules l.22: the 100 resource tokens are also the coins (l.25-28)

# --- resources: level, price (all RECONSTRUCTION: the printed board was never found, A§3 1-2) ------

RESOURCE_LEVELS: Final[Mapping[Resource, int]] = MappingProxyType({  # RECONSTRUCTION (A§4 resources: level)
    R.WHEAT: 1, R.WOOD: 1, R.COAL: 2, R.FOOD: 2, R.BEER: 2, R.METAL: 3, R.CRYSTAL: 3, R.SWORD: 4, R.POTION: 4,
})


def _by_level(prices: tuple[int, int, int, int]) -> Mapping[Resource, int]:
    return MappingProxyType({r: prices[lv - 1] for r, lv in RESOURCE_LEVELS.items()})


# RECONSTRUCTION (A§4 resources: buy, green / sell, brown), one price per level I-IV. Rules 2: every
# converter's input costs more than its output sells for (A§5.2), so no Building is a free VP, and
# sales pay out less, so six players stay inside the box (A§5.4).
BUY_PRICES: Final = _by_level((2, 3, 5, 8))
SELL_PRICES: Final = _by_level((1, 1, 2, 4))

# --- the score board -----------------------------------------------------------------------------------

SCORE_BOARD_LENGTH: Final = 100  # RECONSTRUCTION (A§4 score_board: length): spaces 0-99, then it wraps


def _bonus_every(step: int) -> Mapping[int, Resource]:
    """Every ``step``-th space, cycling through the level I-II resources."""
    cheap = (R.WHEAT, R.WOOD, R.COAL, R.FOOD, R.BEER)
    return MappingProxyType({space: cheap[i % len(cheap)] for i, space in enumerate(range(step, 100, step))})


# RECONSTRUCTION (A§4 score_board: bonus_spaces). Rules 2: every 20th space (4 spaces, A§5.3).
BONUS_SPACES: Final = _bonus_every(20)
# RECONSTRUCTION (A§4 token_pool): rules 2 holds the bank to the 100 tokens; a bank that runs dry pays
# what it holds (A§5.1). Rules 1 let the count go below zero (stand-in tokens).
BANK_IS_LIMITED: Final = True


@dataclass(frozen=True)
class Tables:
    """The reconstructed values one rules version plays by."""

    buy: Mapping[Resource, int]
    sell: Mapping[Resource, int]
    bonus_spaces: Mapping[int, Resource]
    bank_is_limited: bool
    final_sale_moves_tokens: bool  # rules 2 counts the final sale's value instead (A§5.1)


TABLES: Final[Mapping[int, Tables]] = MappingProxyType({
    1: Tables(_by_level((2, 3, 5, 8)), _by_level((1, 2, 3, 5)), _bonus_every(7), False, True),
    2: Tables(BUY_PRICES, SELL_PRICES, BONUS_SPACES, BANK_IS_LIMITED, False),
})
BONUS_ON_FORWARD_MOVE_ONLY: Final = True  # RECONSTRUCTION (A§4 bonus_on_forward_move_only): a push-back pays nothing
BONUS_REPAYS_ON_RECROSS: Final = True  # RECONSTRUCTION (A§4 bonus_repays_on_recross)
CASTLE_PUSHBACK_FLOOR: Final = 0  # RECONSTRUCTION (A§4 castle_pushback: floor): VP never below 0

# --- open resolution details (A§3 5) -----------------------------------------------------------------------


class ResolutionOrder(str, Enum):
    TURN_ORDER_FROM_FIRST_PLAYER = "turn_order_from_first_player"


# Actions resolve first in turn order (A-rules l.197-199); for Buildings the rules say only "then".
BUILDING_RESOLUTION_ORDER: Final = ResolutionOrder.TURN_ORDER_FROM_FIRST_PLAYER  # RECONSTRUCTION (A§4)
EXPLORATION_MAY_TARGET_SELF: Final = False  # RECONSTRUCTION (A§4 exploration_may_target_self)
FAIR_COUNTS_REPLAYED_CARDS: Final = True  # RECONSTRUCTION (A§4 fair_counts_replayed_cards)
# Interpretations of our own where the rulebook is silent (not on the facts sheet):
# Cards of one kind are identical, so swapping a hand card for a market card of the same kind
# changes nothing but spends the free exchange (and the hand redraw) or 2 coins: not offered.
EXCHANGE_SAME_KIND_ALLOWED: Final = False
FAIR_COUNTS_DECLINED_CARDS: Final = False  # a revealed card that was not resolved was not "played" for the Fair
# Reconstruction may not bring back a Reconstruction: two of them returning each other would let a
# seat play forever (and, with the Fair, earn unbounded coins); this keeps every turn finite.
RECONSTRUCTION_RETURNS_RECONSTRUCTION: Final = False
# Ties for the fewest VP: the search for "closest clockwise" starts at the previous first player
# himself, so a tied previous first player keeps the marker (A-rules l.175-177).
FIRST_PLAYER_TIE_INCLUDES_PREVIOUS: Final = True


# Every named value of this module that is a reconstruction rather than the rulebook's text
# (docs/artificium-data.md A§4 lists each with its reason; tests/artificium/test_data.py checks both
# agree). The reference API and every view name them.
RECONSTRUCTED: Final = frozenset({
    "RESOURCE_LEVELS", "BUY_PRICES", "SELL_PRICES", "BANK_IS_LIMITED", "SCORE_BOARD_LENGTH", "BONUS_SPACES",
    "BONUS_ON_FORWARD_MOVE_ONLY", "BONUS_REPAYS_ON_RECROSS", "CASTLE_PUSHBACK_FLOOR", "BUILDING_RESOLUTION_ORDER",
    "EXPLORATION_MAY_TARGET_SELF", "FAIR_COUNTS_REPLAYED_CARDS",
})


def level(resource: Resource) -> int:
    return RESOURCE_LEVELS[resource]
