"""The printed parts of each game that the viewer draws but no view carries.

A view says where the pieces are; it does not repeat the board they stand on: the names of the
places and cards, the length of a track, the bonus of a track space, which hour-glass stack a
round draws from. The viewer reads these from ``GET /api/v1/reference/{game}`` (service/viewer_api.py),
built here from each game's rules tables, so a correction in ``domain/<game>/data.py`` (the
reconstructed Artificium values above all) reaches the page without a second copy in JavaScript.

``reference(name)`` returns None for a registered game without an entry (the viewer then draws
what the view alone shows). A new game adds one function to ``_BUILDERS``.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.cathedral.data import EventSpec, OrderSpec
    from domain.orleans.data import Hourglass


def _orleans() -> dict[str, Any]:
    from domain.orleans import data as D

    return {
        "game": "orleans",
        "rounds": D.ROUNDS,
        "places": {p.id: {"name": p.name, "stack": p.stack} for p in D.PLACES.values()},
        "deeds": {d.id: d.name for d in D.DEEDS},
        "tracks": {char.value: length for char, length in D.TRACK_LENGTH.items()},
        "development": {
            "length": D.DEVELOPMENT_MAX,
            "status": [{"from": threshold, "status": status} for threshold, status in sorted(D.DEVELOPMENT_STATUS)],
            "coins": {str(space): coins for space, coins in sorted(D.DEVELOPMENT_COINS.items())},
            "citizens": list(D.DEVELOPMENT_CITIZENS),
        },
        "hourglass": {  # the stack each round's tile comes from, round 1 first ("" = unscaled)
            D.Edition.CLASSIC.value: [""] * (1 + len(D.CLASSIC_REST)),
            D.Edition.E2023.value: [""] + [_letter(stack) for stack in D.E2023_STACKS for _ in stack],
        },
        "goods": {good.value: D.GOOD_POINTS[good] for good in D.Good},
    }


def _letter(stack: tuple[Hourglass, ...]) -> str:
    """A 2023 hour-glass stack's letter: the level its scaled tiles carry (A, B or C)."""
    return next(tile.level for tile in stack if tile.level)


def _artificium() -> dict[str, Any]:
    from domain.artificium import data as D

    return {
        "game": "artificium",
        "cards": {
            card.value: {"name": spec.name, "kind": spec.kind.value, "count": spec.count, "effect": spec.effect.value,
                         "vp": spec.vp, "takes": [r.value for r in spec.takes], "coins": spec.coins,
                         "gives": [r.value for r in spec.gives]}
            for card, spec in D.CARDS.items()
        },
        "resources": [{"id": r.value, "level": D.RESOURCE_LEVELS[r]} for r in D.Resource],
        "turn_spaces": list(D.TURN_SPACES),
        "coins_per_vp": D.COINS_PER_VP,
        "effects": {  # the numbers the special cards' texts quote
            "castle_pushback": D.CASTLE_PUSHBACK, "wizard_draw": D.WIZARD_DRAW, "wizard_discard": D.WIZARD_DISCARD,
            "fair_coins_per_card": D.FAIR_COINS_PER_CARD,
            "theft_cost_by_level": {str(level): cost for level, cost in D.THEFT_COST_BY_LEVEL.items()},
        },
        "hand_size": D.HAND_SIZE,
        "market_cards": D.MARKET_CARDS,
    }


def _cathedral() -> dict[str, Any]:
    from domain.cathedral import data as D

    def order(spec: OrderSpec) -> dict[str, Any]:
        return {"needs": [i.value for i in spec.needs], "rewards": [r.value for r in spec.rewards]}

    def event(spec: EventSpec) -> dict[str, Any]:
        return {"reward": spec.reward and spec.reward.value, "condition": spec.condition and spec.condition.value,
                "place": spec.place and spec.place.value, "count": spec.count or None}

    return {
        "game": "cathedral",
        "rounds": D.ROUNDS,
        "sections": D.SECTIONS,
        "knapsack_slots": D.KNAPSACK_SLOTS,
        "deliveries_per_market": D.DELIVERIES_PER_MARKET,
        "mandatory_actions": [a.value for a in D.Action if a in D.MANDATORY_ACTIONS],
        "routes": {r.value: {"a": s.a.value, "b": s.b.value, "kind": s.kind.value} for r, s in D.ROUTES.items()},
        "spaces": {sp.value: {"area": s.area.value, "action": s.action.value} for sp, s in D.SPACES.items()},
        "workshop_places": [p.value for p in D.WORKSHOP_PLACES],
        "rosette_spot": D.ROSETTE_SPOT,
        # The printed contents of every tile, for the log's words when one turns face up; which tiles
        # lie face down or in the box is never here (a view shows only counts of those).
        "tiles": {"workshops": {w.value: order(s) for w, s in D.WORKSHOPS.items()},
                  "hour_glasses": {h.value: order(s) for h, s in D.HOUR_GLASSES.items()},
                  "events": {e.value: event(s) for e, s in D.EVENTS.items()}},
        "components": {"events": len(D.EventTile), "blueprints": D.BLUEPRINT_COUNT, "rosettes": D.ROSETTES,
                       "hour_glasses_in_play": D.HOUR_GLASSES_IN_PLAY, "workshops_in_play": D.WORKSHOPS_IN_PLAY,
                       "goods": {g.value: n for g, n in D.GOODS_IN_GAME.items()}},
        "bags_at_setup": {e.value: {**{b.value: {f.value: n for f, n in D.bag_contents(b, e).items()} for b in D.Bag},
                                    "supply_monks": D.supply_monks(e)} for e in D.Edition},
        "reconstructed": sorted(D.RECONSTRUCTED),
    }


_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "orleans": _orleans, "artificium": _artificium, "cathedral": _cathedral}


@cache
def reference(name: str) -> dict[str, Any] | None:
    """The game's printed reference data (see the module docstring), or None."""
    builder = _BUILDERS.get(name)
    return None if builder is None else builder()
