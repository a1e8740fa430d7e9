"""Issue 23, accountable bots at the table (core/table.py): who played, failed decisions in a row,
the Forfeit command, and the ranking of seats whose decisions all failed (table rules 2), with
games recorded under table rules 1 ranked exactly as before."""
from __future__ import annotations

from typing import Any

import pytest

from core import table
from domain.core import Rejected

SETUP = {"type": "CreateGame", "config": {}}
FAILED = {"http": {"kind": "http", "outcome": "timeout", "rtt_ms": 2000.0}, "default": True}
OK = {"http": {"kind": "http", "outcome": "ok", "rtt_ms": 12.0}}
MOVE = {"type": "Bid", "seat": 0, "bid": 2}


class Scored:
    """Just enough of a game's rules for ``table.result``: a fixed own result."""

    def __init__(self, own: dict[str, Any] | None) -> None:
        self.own = own

    def result(self, state: Any) -> dict[str, Any] | None:
        return self.own


def played(rules: int, *heads: tuple[Any, dict[str, Any] | None, dict[str, Any] | None]) -> table.Table:
    tbl = table.note(table.EMPTY, "system", SETUP, {"table": rules})
    for actor, command, meta in heads:
        tbl = table.note(tbl, actor, command, meta)
    return tbl


def test_note_counts_failed_decisions_in_a_row_until_a_real_move() -> None:
    tbl = played(2, (1, MOVE, FAILED), (1, MOVE, FAILED),
                 ("system", {"type": "ApplyTimeout", "target": 1}, {"clock": {"seat": 1}}))
    assert tbl.failed_in_a_row(1) == 3 and tbl.missed == (1,) and tbl.moved == ()
    tbl = table.note(tbl, 1, MOVE, OK)
    assert tbl.failed_in_a_row(1) == 0 and tbl.moved == (1,) and tbl.missed == (1,)
    assert table.note(tbl, 0, MOVE, None).moved == (0, 1)  # a human's move has no meta: a real move


@pytest.mark.parametrize("meta", [
    {"http": {"kind": "http", "outcome": "no_moves"}, "default": True},  # the rules left no choice
    {"departed": "resigned", "default": True},  # a seat that left: its default moves
])
def test_defaults_that_are_no_failure_of_the_seat_count_neither_way(meta: dict[str, Any]) -> None:
    tbl = played(2, (2, MOVE, meta))
    assert tbl.failed_in_a_row(2) == 0 and tbl.moved == () and tbl.missed == ()


def test_table_commands_are_no_moves() -> None:
    tbl = played(2, (0, {"type": "Resign", "seat": 0}, None), (1, {"type": "ForceMove", "seat": 1, "absent": 0}, None))
    assert tbl.moved == ()


def test_a_forfeit_needs_the_failed_decisions_the_log_shows() -> None:
    tbl = played(2, (1, MOVE, FAILED), (1, MOVE, FAILED))
    rules: Any = Scored(None)
    with pytest.raises(Rejected, match="failed 2 decisions in a row"):
        table._decide(rules, None, tbl, table.Forfeit(1, 3), None, 3)
    with pytest.raises(Rejected):
        table._decide(rules, None, tbl, table.Forfeit(1, 0), None, 3)
    events = table._decide(rules, None, tbl, table.Forfeit(1, 2), None, 3)
    assert events == [{"type": "SeatResigned", "seat": 1, "reason": "forfeited"}]
    two = table._decide(rules, None, tbl, table.Forfeit(1, 2), None, 2)
    assert two[1] == {"type": "GameDecided", "winners": [0], "reason": "forfeit"}


OWN = {"winners": [2, 0, 1], "ranking": [{"seat": 2, "rank": 1, "score": 0}, {"seat": 0, "rank": 1, "score": 0},
                                   {"seat": 1, "rank": 1, "score": 0}], "scores": [0, 0, 0]}


def test_a_seat_whose_decisions_all_failed_ranks_last_and_wins_nothing() -> None:
    """The issue's dead bot: every call failed, a 0-0-0 tie, and it was scored a win."""
    tbl = played(2, (0, MOVE, OK), (1, MOVE, OK), (2, MOVE, FAILED), (2, MOVE, FAILED))
    result = table.result(Scored(OWN), None, tbl)  # type: ignore[arg-type]
    assert result is not None
    assert result["ranking"] == [{"seat": 0, "rank": 1, "score": 0}, {"seat": 1, "rank": 1, "score": 0},
                                 {"seat": 2, "rank": 3, "score": 0}]
    assert result["winners"] == [0, 1] and result["unplayed"] == [2]


def test_under_table_rules_1_the_ranking_is_the_one_recorded() -> None:
    tbl = played(1, (0, MOVE, OK), (1, MOVE, OK), (2, MOVE, FAILED))
    assert table.result(Scored(OWN), None, tbl) == OWN  # type: ignore[arg-type]
    no_marker = table.note(table.EMPTY, 2, MOVE, FAILED)  # a game created before table rules existed
    assert no_marker.rules == 1 and table.result(Scored(OWN), None, no_marker) == OWN  # type: ignore[arg-type]


def test_a_seat_never_asked_is_not_ranked_down() -> None:
    tbl = played(2, (0, MOVE, OK))
    assert table.result(Scored(OWN), None, tbl) == OWN  # type: ignore[arg-type]


def test_departures_and_failed_seats_rank_in_tiers() -> None:
    """Seats that played and stayed, then played and left, then never played (stayed, then left)."""
    tbl = played(2, (0, MOVE, OK), (1, MOVE, OK), (2, MOVE, FAILED), (3, MOVE, FAILED))
    tbl = table.evolve(tbl, {"type": "SeatResigned", "seat": 0, "reason": "resigned"})
    tbl = table.evolve(tbl, {"type": "SeatResigned", "seat": 3, "reason": "forfeited"})
    own = {"winners": [3], "ranking": [{"seat": s, "rank": i + 1} for i, s in enumerate((3, 2, 1, 0))]}
    result = table.result(Scored(own), None, tbl)  # type: ignore[arg-type]
    assert result is not None
    assert [(r["seat"], r["rank"]) for r in result["ranking"]] == [(1, 1), (0, 2), (2, 3), (3, 4)]
    assert result["winners"] == [1] and result["unplayed"] == [2, 3]
    assert result["departed"] == [{"seat": 0, "reason": "resigned"}, {"seat": 3, "reason": "forfeited"}]


def test_a_game_decided_by_a_forfeit_is_no_win_for_a_seat_that_never_played() -> None:
    """Two dead bots: the first to reach N failures forfeits; the other one wins nothing either."""
    tbl = played(2, (0, MOVE, FAILED), (1, MOVE, FAILED), (0, MOVE, FAILED))
    tbl = table.evolve(tbl, {"type": "SeatResigned", "seat": 0, "reason": "forfeited"})
    tbl = table.evolve(tbl, {"type": "GameDecided", "winners": [1], "reason": "forfeit"})
    result = table.result(Scored(None), None, tbl)  # type: ignore[arg-type]
    assert result == {"reason": "forfeit", "winners": [], "unplayed": [0, 1],
                      "ranking": [{"seat": 1, "rank": 1}, {"seat": 0, "rank": 2}],
                      "departed": [{"seat": 0, "reason": "forfeited"}]}
