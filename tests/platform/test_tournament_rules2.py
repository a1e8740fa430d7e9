"""Tournament rules 2 as pure folds (docs/tournaments.md, "Withdrawals, absences and cancellation"):
withdrawn entrants are paired no more and their games skipped, Swiss byes when the field no
longer divides, an entrant that forfeits is withdrawn as absent, a seat without a move of its own
cannot be scored a win, absent entrants end below every entrant that played, and a rules-1
tournament folds and scores exactly as before."""
from __future__ import annotations

import io
import json
import pathlib
import zipfile
from typing import Any

import pytest

from core import callstats
from core.ratings import RatingModel
from core.scoring import entrant_places, ratings_due, standings, totals
from core.tournaments import (
    NotAllowedNow,
    Settings,
    Tournament,
    absences_due,
    cancellation,
    finish_due,
    fold,
    next_round,
    skips_due,
    startable,
    withdrawal,
)
from replays.tournament import verify_package

MODEL = RatingModel()


def created(entrants: int, players: int = 2, fmt: str = "swiss", rounds: int | None = 3,
            version: int = 2) -> list[dict[str, Any]]:
    settings = Settings("tR", None, "artificium", None, players, fmt, rounds or players, 1, 5.0, 4,
                        tuple(float(players - 1 - p) for p in range(players)), "c" * 64, "e1", MODEL.describe(),
                        "2026-01-01T00:00:00.000Z", "acct1", version)
    events: list[dict[str, Any]] = [{"type": "TournamentCreated", "settings": settings.to_json()}]
    for n in range(entrants):
        initial = MODEL.initial()
        events.append({"type": "EntrantRegistered", "entrant": n, "key": f"builtin:b{n}", "name": f"b{n}",
                       "kind": "builtin", "bot_id": None, "builtin": "random", "mu": initial.mu,
                       "sigma": initial.sigma})
    return events


def record(seat: int, calls: int, ok: int, moves: int, latencies: tuple[float, ...] = ()) -> dict[str, Any]:
    return {"seat": seat, "calls": calls, "ok": ok, "timeout": calls - ok, "error": 0, "moves": moves,
            "latency_ms": callstats.percentiles(latencies), "hist": callstats.histogram(latencies)}


def play(t: Tournament, index: int, ranks: list[int], records: list[dict[str, Any]] | None = None,
         departed: list[dict[str, Any]] | None = None) -> Tournament:
    """Start game ``index`` and finish it with ``ranks`` (per seat), then rate what is due."""
    t = fold([{"type": "GameStarted", "index": index, "game_id": t.game_id(index), "seed_commitment": "c"}], t)
    finished = {"type": "GameFinished", "index": index, "game_id": t.game_id(index),
                "ranking": [{"seat": s, "rank": r, "score": 0} for s, r in enumerate(ranks)],
                "bundle_sha256": f"{index:064x}", "final_hash": "h",
                "departed": departed or [], "records": records or [record(s, 1, 1, 1) for s in range(len(ranks))]}
    t = fold([finished], t)
    t = fold(absences_due(t, index), t)
    return fold(ratings_due(MODEL, t), t)


def test_a_withdrawn_entrant_is_not_paired_and_the_odd_one_out_gets_a_bye_worth_the_mean_points() -> None:
    t = fold(created(4))
    first = next_round(t)
    assert first is not None and "byes" not in first and len(first["games"]) == 2
    t = fold([first], t)
    for g in t.games:
        t = play(t, g.index, [1, 2])
    t = fold([withdrawal(t, 3, "acct9", "owner")], t)
    second = next_round(t)
    assert second is not None and len(second["games"]) == 1
    paired = set(second["games"][0]["seats"])
    assert 3 not in paired and len(second["byes"]) == 1 and paired | set(second["byes"]) == {0, 1, 2}
    t = fold([second], t)
    bye = second["byes"][0]
    assert totals(t)[bye]["points"] == sum(1 for g in t.games[:2] if g.seats[0] == bye) + 0.5  # mean of (1, 0)
    t = play(t, 2, [1, 2])
    third = next_round(t)
    assert third is not None and bye not in third["byes"]  # the bye goes round: fewest byes first
    row = {r["entrant"]: r for r in standings(t)}[3]
    assert row["withdrawn"] == "owner" and not row["absent"] and row["games"] == 1


def test_a_withdrawal_skips_the_entrants_games_not_yet_started_and_nothing_else() -> None:
    t = fold(created(3, fmt="round_robin", rounds=None))
    while (paired := next_round(t)) is not None:
        t = fold([paired], t)
    assert len(t.games) == 6
    t = fold([{"type": "GameStarted", "index": 0, "game_id": t.game_id(0), "seed_commitment": "c"}], t)
    t = fold([withdrawal(t, t.games[0].seats[0], "acct1", "owner")], t)
    gone = t.games[0].seats[0]
    skips = skips_due(t)
    assert [s["index"] for s in skips] == [g.index for g in t.games[1:] if gone in g.seats]
    assert all(s["withdrawn"] == [gone] for s in skips)
    t = fold(skips, t)
    assert all(gone not in g.seats for g in startable(t)) and t.games[0].status == "playing"  # played out
    assert not finish_due(t)
    with pytest.raises(NotAllowedNow, match="withdrawn already"):
        withdrawal(t, gone, "acct1", "owner")


def test_too_few_entrants_left_for_a_game_ends_the_pairing() -> None:
    t = fold(created(4, players=2))
    t = fold([next_round(t) or {}], t)
    for g in t.games:
        t = play(t, g.index, [1, 2])
    for n in (0, 1, 2):
        t = fold([withdrawal(t, n, "acct1", "owner")], t)
    assert next_round(t) is None and finish_due(t)


def test_a_forfeit_withdraws_the_entrant_as_absent_and_it_ends_below_every_entrant_that_played() -> None:
    t = fold(created(4, fmt="round_robin", rounds=None))
    while (paired := next_round(t)) is not None:
        t = fold([paired], t)
    game = t.games[0]
    dead = game.seats[1]
    after = play(t, 0, [1, 2], records=[record(0, 5, 5, 5), record(1, 5, 0, 0)],
                 departed=[{"seat": 1, "reason": "forfeited"}])
    assert after.withdrawn[dead].reason == "absent" and after.withdrawn[dead].game == 0
    assert all(dead in g.seats for g in (after.games[s["index"]] for s in skips_due(after)))
    table = standings(after)
    assert table[-1]["entrant"] == dead and table[-1]["absent"] and table[-1]["forfeits"] == 1
    assert table[-1]["calls"] == 5 and table[-1]["ok"] == 0 and table[-1]["timeout"] == 5


def test_a_seat_without_a_move_of_its_own_is_no_winner_under_rules_2_only() -> None:
    for version, expected in ((2, [2, 1]), (1, [1, 2])):
        t = fold(created(2, version=version))
        t = fold([next_round(t) or {}], t)
        game = t.games[0]
        silent = [record(0, 3, 0, 0), record(1, 3, 3, 3)]  # seat 0 "won" a 0-0 tie-break without moving
        t = fold([{"type": "GameStarted", "index": 0, "game_id": t.game_id(0), "seed_commitment": "c"},
                  {"type": "GameFinished", "index": 0, "game_id": t.game_id(0), "bundle_sha256": "0" * 64,
                   "final_hash": "h", "ranking": [{"seat": 0, "rank": 1, "score": 0}, {"seat": 1, "rank": 2, "score": 0}],
                   **({"departed": [], "records": silent} if version == 2 else {})}], t)
        assert [rank for _, rank, _ in entrant_places(t.games[0], t.settings.accountable)] == expected, version
        rated = ratings_due(MODEL, t)[0]["ratings"]
        winner = game.seats[expected.index(1)]
        assert rated[str(winner)][0] > 25  # the ratings follow the same places


def test_a_rules_1_tournament_keeps_its_standings_columns() -> None:
    t = fold(created(2, version=1))
    assert "version" not in t.settings.to_json()
    t = fold([next_round(t) or {}], t)
    t = play(t, 0, [1, 2])
    assert set(standings(t)[0]) == {"entrant", "name", "key", "kind", "games", "points", "score", "wins", "mu",
                                    "sigma", "ordinal", "place"}


def test_a_cancellation_stops_pairing_and_starting_and_the_end_waits_for_games_in_play() -> None:
    t = fold(created(4, fmt="round_robin", rounds=None))
    t = fold([next_round(t) or {}], t)
    t = fold([{"type": "GameStarted", "index": 0, "game_id": t.game_id(0), "seed_commitment": "c"}], t)
    for bad in ("bad\nreason", "\ud800", "x" * 201):
        with pytest.raises(NotAllowedNow, match="one line"):
            cancellation(t, "acct1", bad)
    assert cancellation(t, "acct1", "Ünïcode ✓ is fine")["reason"] == "Ünïcode ✓ is fine"
    t = fold([cancellation(t, "acct1", "venue closed")], t)
    assert t.status == "cancelled" and next_round(t) is None and startable(t) == [] and skips_due(t) == []
    assert not finish_due(t)  # game 0 is still in play
    t = fold([{"type": "GameCalledOff", "index": 0, "game_id": t.game_id(0), "bundle_sha256": "a" * 64,
               "final_hash": "h"}], t)
    assert finish_due(t) and [g.index for g in t.bundled()] == [0]
    with pytest.raises(NotAllowedNow, match="cancelled"):
        cancellation(t, "acct1", None)
    with pytest.raises(NotAllowedNow):
        withdrawal(t, 1, "acct1", "owner")


def test_histogram_percentiles_are_the_upper_edge_of_the_bucket_holding_the_rank() -> None:
    latencies = [1.4, 2.0, 11.0, 11.5, 250.0]
    assert callstats.percentiles(latencies) == {"p50": 11.0, "p95": 250.0}
    hist = callstats.histogram(latencies)
    assert hist == {"2": 2, "12": 2, "270": 1}
    assert callstats.histogram_percentiles(hist) == {"p50": 12.0, "p95": 270.0}
    both = callstats.add(callstats.add(callstats.empty_totals(), {"calls": 2, "ok": 1, "hist": hist}),
                         {"calls": 1, "error": 1, "hist": {"2": 1}})
    assert both["calls"] == 3 and both["hist"]["2"] == 3
    assert callstats.subtract(both, {"calls": 1, "error": 1, "hist": {"2": 1}})["hist"] == hist


GOLDEN_RULES_1 = pathlib.Path(__file__).resolve().parents[1] / "golden" / "tournament-rules1-cathedral.zip"


def test_a_package_written_before_rules_2_still_verifies_and_any_byte_changed_in_it_is_caught() -> None:
    """``tests/golden/tournament-rules1-cathedral.zip`` was exported by commit 8daa0ab (a Swiss
    Cathedral tournament: two built-in and two push bots), before any of this existed."""
    data = GOLDEN_RULES_1.read_bytes()
    report = verify_package(data)
    assert report.ok and report.games == 4, report.describe()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        stream = [json.loads(line)["data"] for line in archive.read("tournament.jsonl").splitlines()]
    t = fold(stream)
    assert t.settings.version == 1 and t.status == "finished" and all(g.records is None for g in t.games)
    assert list(t.final_standings or ()) == standings(t)
    tampered = bytearray(data)
    tampered[data.index(b'"type":"GameFinished"') + 2] ^= 0x20
    assert not verify_package(bytes(tampered)).ok
