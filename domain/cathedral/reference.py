"""The printed parts of The Cathedral of Orléans that the viewer draws but no view carries (the plugin's
``reference``, served as GET /api/v1/reference/cathedral): built from the rules tables, so a correction
in ``domain/cathedral/data.py`` reaches the page without a second copy in JavaScript."""
from __future__ import annotations

from typing import Any

from domain.cathedral import data as D


def reference() -> dict[str, Any]:
    def order(spec: Any) -> dict[str, Any]:
        return {"needs": [i.value for i in spec.needs], "rewards": [r.value for r in spec.rewards]}

    def event(spec: Any) -> dict[str, Any]:
        return {"reward": spec.reward and spec.reward.value, "condition": spec.condition and spec.condition.value,
                "place": spec.place and spec.place.value, "count": spec.count or None}

    def tiles(t: D.Tables) -> dict[str, Any]:
        return {"workshops": {w.value: order(s) for w, s in t.workshops.items()},
                "hour_glasses": {h.value: order(s) for h, s in t.hour_glasses.items()},
                "events": {e.value: event(s) for e, s in t.events.items()},
                "blueprints": {r.value: n for r, n in t.blueprints.items()}}

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
        # lie face down or in the box is never here (a view shows only counts of those). ``tiles``
        # are those of new games; ``tiles_by_rules`` those of each rules version (a game's
        # GameStarted config names its version; none: 1), as the tables were re-tuned in rules 3.
        "tiles": tiles(D.tables(D.RULES_VERSION)),
        "tiles_by_rules": {str(v): tiles(D.tables(v)) for v in range(D.LEGACY_RULES_VERSION, D.RULES_VERSION + 1)},
        "components": {"events": len(D.EventTile), "blueprints": D.BLUEPRINT_COUNT, "rosettes": D.ROSETTES,
                       "hour_glasses_in_play": D.HOUR_GLASSES_IN_PLAY, "workshops_in_play": D.WORKSHOPS_IN_PLAY,
                       "goods": {g.value: n for g, n in D.GOODS_IN_GAME.items()}},
        "bags_at_setup": {e.value: {**{b.value: {f.value: n for f, n in D.bag_contents(b, e).items()} for b in D.Bag},
                                    "supply_monks": D.supply_monks(e)} for e in D.Edition},
        "reconstructed": sorted(D.RECONSTRUCTED),
    }
