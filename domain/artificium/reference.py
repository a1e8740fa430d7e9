"""The printed parts of Artificium that the viewer draws but no view carries (the plugin's
``reference``, served as GET /api/v1/reference/artificium): built from the rules tables, so a correction
in ``domain/artificium/data.py`` reaches the page without a second copy in JavaScript."""
from __future__ import annotations

from typing import Any

from domain.artificium import data as D


def reference() -> dict[str, Any]:
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
        "token_pool": D.TOKEN_POOL,
        "rules_version": D.RULES_VERSION,
        # The reconstructed tables of the current rules (a game's view carries those it plays by).
        "prices": {r.value: {"buy": D.BUY_PRICES[r], "sell": D.SELL_PRICES[r]} for r in D.Resource},
        "bonus_spaces": {str(k): v.value for k, v in D.BONUS_SPACES.items()},
        # Every value the printed game would give that no source does (docs/artificium-data.md A§4).
        "reconstructed": sorted(D.RECONSTRUCTED),
    }
