"""A cooperative game's shared loss stays a loss for everyone when a seat has left the table.

core.table.result moves departed seats below the others and then calls every seat ranked first a
winner. For the Cathedral every seat ranks first, so after a shared loss (winners: nobody) a single
resignation turns the seats that stayed into winners of a game the whole table lost. Found while
typing the Cathedral's result (tests/cathedral/test_schema.py); the fix belongs to core/table.py
(keep ``winners`` a subset of the game's own winners), outside this change.
"""
from __future__ import annotations

import pytest

from core.table import Departure, Table, result
from domain.cathedral import RULES
from domain.selfplay import play


@pytest.mark.xfail(strict=True, reason="core.table._demoted re-derives winners from ranks: a shared loss "
                                       "becomes a win for the seats that stayed (report of brief J)")
def test_a_resignation_does_not_turn_a_shared_loss_into_a_win() -> None:
    game = play(RULES, RULES.config_from_json({"edition": "standard", "players": 3}), b"viewer-2",
                "viewer-cathedral-2", ["greedy"])
    own = RULES.result(game.state)
    assert own is not None and own["outcome"] == "lost" and own["winners"] == []
    after = result(RULES, game.state, Table(departed=(Departure(0, "resigned"),)))
    assert after is not None and after["winners"] == []
