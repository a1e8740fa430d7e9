"""The JSON Schema of The Cathedral of Orléans' view and result, and the moves and config the API publishes.

Mirrors ``domain.cathedral.game.view``/``result`` key by key; every name (places, routes, spaces,
followers, items, tiles) comes from the data tables, so a corrected reconstruction in ``data.py``
needs no edit here. The view is the same for every seat and for spectators: the bags and the
face-down stacks appear only as counts (game.py's docstring), which this schema pins by giving
them no other shape. Tests validate the views of random and greedy playouts against it
(tests/service/test_openapi_views.py, tests/cathedral/test_schema.py).
"""
from __future__ import annotations

from enum import Enum

from domain.apischema import ACTOR, BOOL, INT, ApiSchema, Schema, array, enum, nullable, obj
from domain.cathedral import data as D
from domain.cathedral.model import SEAT_COMMANDS, Config, Outcome
from domain.cathedral.moves import Stage


def _values(kind: type[Enum]) -> Schema:
    return enum([m.value for m in kind])


COUNT: Schema = {**INT, "minimum": 0}
SEAT: Schema = {**INT, "minimum": 0, "maximum": max(D.PLAYERS) - 1}
PLACE, ROUTE, SPACE = _values(D.Place), _values(D.Route), _values(D.Space)
FOLLOWER, ITEM, REWARD = _values(D.Follower), _values(D.Item), _values(D.Reward)
SECTIONS: Schema = {**INT, "minimum": 0, "maximum": D.SECTIONS}

RESULT = obj({
    "outcome": {**_values(Outcome), "description": "shared by every seat: all win or all lose"},
    "sections_built": SECTIONS,
    "sections_needed": enum([D.SECTIONS]),
    "rounds_played": {**INT, "minimum": 1, "maximum": D.ROUNDS},
    "scores": {**array(SECTIONS), "description": "every seat scores the sections built"},
    "winners": {**array(SEAT), "description": "every seat after a win, nobody after a loss"},
    "ranking": {**array(obj({"seat": SEAT, "rank": {**INT, "minimum": 1}, "score": SECTIONS})),
                "description": "every seat first together (a seat that left the table ranks below)"},
})

BOARD = obj({
    "places": array(PLACE),
    "start": PLACE,
    "routes": array(obj({"route": ROUTE, "a": PLACE, "b": PLACE, "kind": _values(D.RouteKind),
                         "spots": array({**INT, "minimum": 0, "maximum": len(D.SPOTS) - 1})})),
    "workshop_places": array(PLACE),
    "spaces": array(obj({"space": SPACE, "area": _values(D.Area), "action": _values(D.Action),
                         "shows": {**array(FOLLOWER), "description": "the follower icons; empty: any follower"},
                         "monk_only": BOOL})),
})

ORDER = {"needs": array(ITEM), "rewards": array(REWARD)}
WORKSHOP = obj({"place": PLACE, "tile": _values(D.Workshop), **ORDER, "delivered": array(ITEM), "done": BOOL})
HOUR_GLASS = obj({"tile": _values(D.HourGlass), "delivered": array(ITEM), **ORDER})
EVENT = obj({
    "tile": _values(D.EventTile),
    "reward": {**nullable(REWARD), "description": "an immediate Event: what it pays"},
    "condition": {**nullable(_values(D.Condition)), "description": "an order Event: what fulfils it"},
    "place": {**nullable(PLACE), "description": "builder_at: where a Master Builder must stand"},
    "count": {**nullable({**INT, "minimum": 1}), "description": "rosettes: how many one seat must hold"},
})
PENDING = obj({
    "space": SPACE, "action": _values(D.Action),
    "route": {**nullable(ROUTE), "description": "Cart or Boat: the route travelled"},
    "delivered": {**INT, "minimum": 0, "maximum": D.DELIVERIES_PER_MARKET,
                  "description": "Market place: items delivered so far"},
})
SEAT_VIEW = obj({
    "seat": SEAT,
    "builder": {**PLACE, "description": "where the seat's Master Builder stands"},
    "knapsack": {**array(ITEM), "maxItems": D.KNAPSACK_SLOTS + 1,
                 "description": "at most 5 items; 6 while a gift waits for its owner to make room (rules 2)"},
})

VIEW = obj({
    "game": enum(["cathedral"]),
    "edition": _values(D.Edition),
    "players": {**INT, "minimum": min(D.PLAYERS), "maximum": max(D.PLAYERS)},
    "you": {**nullable(SEAT), "description": "your seat; null for a spectator (every seat sees the same table)"},
    "round": {**INT, "minimum": 0, "maximum": D.ROUNDS},
    "rounds": enum([D.ROUNDS]),
    "active": {**SEAT, "description": "the seat whose turn it is"},
    "stage": _values(Stage),
    "to_act": array(ACTOR),
    "drawn": {**nullable(FOLLOWER), "description": "the tile drawn this turn and not yet placed"},
    "pending": {**nullable(PENDING), "description": "the action being carried out"},
    "rewards": {**array(REWARD), "description": "rewards the active seat still receives, first one first"},
    "board": {**BOARD, "description": "the printed board (reconstructed: docs/cathedral-data.md)"},
    "spots": {**array(nullable(ITEM)), "minItems": len(D.SPOTS), "maxItems": len(D.SPOTS),
              "description": "what lies on each item space of the map, by the spot numbers of board.routes"},
    "spaces": {**obj({s.value: nullable(FOLLOWER) for s in D.Space}), "description": "the tile on each action space"},
    "seats": array(SEAT_VIEW),
    "bags": {**obj({"red": COUNT, "blue": COUNT, "black": COUNT}), "description": "how many tiles; never which"},
    "supply": obj({"monks": COUNT, "rosettes": {**COUNT, "maximum": D.ROSETTES}}),
    "workshops": {**array(WORKSHOP), "maxItems": D.WORKSHOPS_IN_PLAY, "description": "face up (none before set-up lays them)"},
    "hour_glass": {**nullable(HOUR_GLASS), "description": "this round's face-up Hour Glass tile"},
    "hour_glass_stack": {**COUNT, "maximum": D.HOUR_GLASSES_IN_PLAY, "description": "face-down Hour Glass tiles to come"},
    "events": obj({"stack": {**COUNT, "description": "face-down Events left"},
                   "order": {**nullable(EVENT), "description": "the one active order"},
                   "discard": array(EVENT)}),
    "blueprints": obj({"face_down": {**COUNT, "maximum": D.BLUEPRINT_COUNT}, "turned": array(REWARD)}),
    "sections": obj({"built": SECTIONS, "needed": enum([D.SECTIONS])}),
    "removed": {**array(FOLLOWER), "description": "Bell Tower tiles out of the game"},
    "result": nullable(RESULT),
    "reconstructed": {**array(enum(["board", "workshops", "hour_glass", "events", "blueprints"])),
                      "description": "keys of this view whose values are reconstructions, not printed data"},
})

SCHEMA = ApiSchema(moves=SEAT_COMMANDS, config=Config, view=VIEW, result=RESULT)
