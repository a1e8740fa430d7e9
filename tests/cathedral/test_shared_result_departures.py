"""A cooperative game's shared loss stays a loss for everyone when a seat has left the table.

core.table.result moves departed seats below the others and then calls every seat ranked first a
winner. For the Cathedral every seat ranks first, so after a shared loss (winners: nobody) a single
resignation used to turn the seats that stayed into winners of a game the whole table lost; a
game nobody won now stays won by nobody. A shared win is kept by the seats that stayed.
"""
from __future__ import annotations

from core.table import Departure, Table, result
from domain.cathedral import RULES
from domain.selfplay import play


def test_a_resignation_does_not_turn_a_shared_loss_into_a_win() -> None:
    game = play(RULES, RULES.config_from_json({"edition": "standard", "players": 3}), b"viewer-2",
                "viewer-cathedral-2", ["greedy"])
    own = RULES.result(game.state)
    assert own is not None and own["outcome"] == "lost" and own["winners"] == []
    after = result(RULES, game.state, Table(departed=(Departure(0, "resigned"),)))
    assert after is not None and after["winners"] == []


def test_a_shared_win_is_kept_by_the_seats_that_stayed() -> None:
    own = {"outcome": "won", "winners": [0, 1, 2], "ranking": [{"seat": s, "rank": 1} for s in range(3)]}
    after = result(_Won(own), None, Table(departed=(Departure(1, "resigned"),)))
    assert after is not None and after["winners"] == [0, 2]


class _Won:
    """A stand-in game whose own result is fixed (only ``result`` is asked)."""

    def __init__(self, own: dict[str, object]) -> None:
        self.own = own

    def result(self, state: object) -> dict[str, object]:
        return self.own
