"""The JSON Schema of Artificium's view and result, and the moves and config the API publishes.

Mirrors ``domain.artificium.game.view`` and ``scoring.result`` key by key; card and resource
names come from the data tables. A test validates the views of random playouts against this
schema (tests/service/test_openapi_views.py).
"""
from __future__ import annotations

from domain.apischema import ACTOR, BOOL, INT, ApiSchema, Schema, array, counts, enum, mapping, nullable, obj
from domain.artificium import data as D
from domain.artificium.model import RESOURCES, SEAT_COMMANDS, Config, Phase

CARD = enum([c.value for c in D.Card])
RESOURCE = enum([r.value for r in RESOURCES])
SEAT: Schema = {**INT, "minimum": 0}

RESULT = obj({
    "scores": array(INT),
    "winners": array(SEAT),
    "ranking": array(obj({"seat": SEAT, "rank": INT, "score": INT})),
    "parts": array(obj({"vp": INT, "coins": INT, "coin_points": INT, "total": INT})),
})

SEAT_VIEW = obj({
    "seat": SEAT, "vp": INT, "space": INT, "coins": INT, "resources": counts(RESOURCES), "hand_count": INT,
    "committed": {**BOOL, "description": "this seat has sealed a card this step"},
    "revealed": nullable(CARD), "played": array(CARD), "plays": INT, "exchanges": INT, "redrew": BOOL,
    "market_passed": BOOL, "passed": BOOL, "finished": BOOL, "knights": INT, "wizards": INT,
    "projected_score": INT,
    "hand": {**array(CARD), "description": "your own seat only"},
    "committed_card": {**nullable(CARD), "description": "your own seat only"},
}, required=("seat", "vp", "space", "coins", "resources", "hand_count", "committed", "revealed", "played", "plays",
             "exchanges", "redrew", "market_passed", "passed", "finished", "knights", "wizards", "projected_score"))

VIEW = obj({
    "game": enum(["artificium"]),
    "edition": enum([e.value for e in D.Edition]),
    "players": INT,
    "you": {**nullable(SEAT), "description": "your seat; null for a spectator"},
    "turn": INT, "turns": INT,
    "turn_space": nullable(enum(list(D.TURN_SPACES))),
    "phase": enum([p.value for p in Phase]),
    "first_player": SEAT,
    "to_act": array(ACTOR),
    "step": INT,
    "resolving": array(SEAT),
    "owed_discards": INT,
    "market": array(CARD),
    "market_turn": nullable(INT),
    "deck_count": INT,
    "discard": array(CARD),
    "bank": {**INT, "description": "tokens in the bank; under rules 2 never below 0"},
    "bank_limit": {**nullable(INT), "description": "the tokens in the box (rules 2); null: no limit (rules 1)"},
    "score_board": obj({"length": INT, "bonus_spaces": mapping(RESOURCE)}),
    "prices": obj({r.value: obj({"level": INT, "buy": INT, "sell": INT}) for r in RESOURCES}),
    "seats": array(SEAT_VIEW),
    "result": nullable(RESULT),
    "rules_version": INT,
    "reconstructed": {**array(enum(["bank_limit", "prices", "score_board"])),
                      "description": "keys of this view whose values are reconstructions, not printed data"},
})

SCHEMA = ApiSchema(moves=SEAT_COMMANDS, config=Config, view=VIEW, result=RESULT)
