"""The JSON Schema of Orléans' view and result, and the moves and config the API publishes.

Mirrors ``domain.orleans.game.view``/``result`` key by key; ids and names come from the data
tables, so a new place, deed or town needs no edit here. A test validates the views of random
playouts against this schema, so the two cannot drift apart (tests/service/test_openapi_views.py).
"""
from __future__ import annotations

from domain.apischema import ACTOR, BOOL, INT, STR, ApiSchema, Schema, array, counts, enum, nullable, obj
from domain.orleans import data as D
from domain.orleans.model import CHARS, GOODS, SEAT_COMMANDS, TRACKS, ChoiceKind, Config, Phase

TILE = enum([t.value for t in D.Tile])
GOOD = enum([g.value for g in GOODS])
CHAR = enum([c.value for c in CHARS])
PLACE_ID = enum(sorted(D.PLACES))
TOWN = enum(list(D.TOWNS))
SEAT: Schema = {**INT, "minimum": 0}

PARTS = obj({"coins": INT, "goods": INT, "stations_and_citizens": INT, "total": INT})
RESULT = obj({
    "scores": array(INT),
    "winners": array(SEAT),
    "ranking": array(obj({"seat": SEAT, "rank": INT, "score": INT, "development_position": INT})),
    "parts": array(PARTS),
    "most_stations_citizen": nullable(SEAT),
}, required=("scores", "winners", "ranking", "parts", "most_stations_citizen"))

BOARD = obj({
    "supply": counts(CHARS),
    "goods_market": counts(GOODS),
    "connections": array(obj({"id": enum([c.id for c in D.CONNECTIONS]), "a": TOWN, "b": TOWN,
                              "route": enum([r.value for r in D.Route]), "goods": array(GOOD)})),
    "towns": array(TOWN),
    "stations": array(obj({"town": TOWN, "seat": SEAT})),
    "deeds": array(obj({"id": enum([d.id for d in D.DEEDS]), "name": STR, "coins": INT, "development_choice": BOOL,
                        "spaces": array(obj({"needs": CHAR, "seat": nullable(SEAT)})),
                        "citizen_available": BOOL})),
    "place_tiles": obj({"I": array(PLACE_ID), "II": array(PLACE_ID)}),
    "excluded_place_tiles": array(PLACE_ID),
    "technology_tiles": INT,
    "citizens": obj({"knights": nullable(SEAT), "boatmen": nullable(SEAT),
                     "development": array(obj({"position": INT, "seat": nullable(SEAT)})),
                     "most_stations": nullable(SEAT)}),
    "coin_supply": {**nullable(INT), "description": "coins left in the classic edition's supply; null: unlimited"},
})

PLACE = obj({
    "id": PLACE_ID, "name": STR, "stack": INT,
    "spaces": array(obj({"needs": enum([c.value for c in CHARS] + ["any"]),
                         "holds": nullable(enum([t.value for t in D.Tile] + ["tech"]))})),
    "activated": BOOL,
})

SEAT_VIEW = obj({
    "seat": SEAT, "coins": INT, "goods": counts(GOODS), "tracks": counts(TRACKS),
    "followers_per_round": INT, "development_position": INT, "development_status": INT, "citizens": INT,
    "trading_stations_built": INT, "trading_stations_left": INT, "technology_tiles": INT,
    "farmer_only_technology": BOOL, "merchant": TOWN, "market": array(TILE), "tower": array(TILE),
    "bag_count": INT, "places": array(PLACE), "planning_done": BOOL, "followers_drawn": BOOL, "passed": BOOL,
    "plan_hidden": {**BOOL, "description": "another seat plans in secret: its market and tower as they stood "
                                           "when planning began"},
    "loading_tower": {**BOOL, "description": "phase 3: drew, and may now load the Gunpowder Tower (rules 5: "
                                             "or put its characters back on the market)"},
    "bag": {**array(TILE), "description": "your own seat only"},
    "planned": {**array(obj({"tile": TILE, "place": PLACE_ID, "space": INT, "from_tower": BOOL})),
                "description": "your own seat only; from_tower: the Gunpowder Tower's copy (rules 5)"},
    "tower_planned": {**array(TILE), "description": "your own seat only"},
    "take_backs_left": {**INT, "description": "your own seat only, while planning (rules 4): how many more "
                                              "placements you may take back this planning phase"},
    "score": {**PARTS, "description": "once the game is finished"},
}, required=("seat", "coins", "goods", "tracks", "followers_per_round", "development_position",
             "development_status", "citizens", "trading_stations_built", "trading_stations_left",
             "technology_tiles", "farmer_only_technology", "merchant", "market", "tower", "bag_count", "places",
             "planning_done", "plan_hidden", "followers_drawn", "loading_tower", "passed"))

CHOICE = obj({"seat": SEAT, "kind": enum([k.value for k in ChoiceKind]), "source": STR, "tiles": array(TILE),
              "connection": STR, "stacks": array(INT), "remaining": INT})

VIEW = obj({
    "game": enum(["orleans"]),
    "edition": enum([e.value for e in D.Edition]),
    "players": INT,
    "you": {**nullable(SEAT), "description": "your seat; null for a spectator"},
    "round": INT, "rounds": INT,
    "phase": enum([p.value for p in Phase]),
    "event": nullable(obj({"event": enum([e.value for e in D.Event]), "level": enum(["", "A", "B", "C"])})),
    "hourglass_remaining": INT,
    "start_player": SEAT,
    "turn": nullable(SEAT),
    "to_act": array(ACTOR),
    "board": BOARD,
    "seats": array(SEAT_VIEW),
    "choice": nullable(CHOICE),
    "dues": array(obj({"seat": SEAT, "kind": enum(["food", "torture"]), "amount": INT})),
    "result": nullable(RESULT),
})

SCHEMA = ApiSchema(moves=SEAT_COMMANDS, config=Config, view=VIEW, result=RESULT)
