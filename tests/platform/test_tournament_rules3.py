"""Tournament rules 3 (issue 26), on the fold alone: cooperative games scored by the team's outcome
with ratings that move, and Swiss rounds that repeat no pairing while any alternative exists."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
import redis
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from core.games import GameService
from core.ratings import RatingModel
from core.scoring import ratings_due, standings
from core.store import StoredEntry
from core.tournament_store import TournamentStore
from core.tournaments import RULES, Tournament, evolve, finish_due, next_round, swiss_groups
from domain.canonical import GENESIS_HASH, canonical_json, entry_hash
from replays.tournament import build_package, package_from_store, verify_package
from tests.platform.conftest import auth, unique
from tests.platform.tourney_helpers import bot_server, push_bot, run_to_end

MODEL = RatingModel()


def created(n: int, players: int, fmt: str = "swiss", rounds: int | None = 3, game: str = "cathedral",
            version: int = RULES) -> Tournament:
    s = {"id": "tR3", "name": None, "game": game, "edition": "standard", "players_per_game": players,
         "format": fmt, "rounds": rounds if fmt == "swiss" else players, "games_per_pairing": 1, "deadline_s": 2.0,
         "parallel": 4, "points": [float(players - 1 - i) for i in range(players)], "seed_commitment": "c" * 64,
         "engine_version": "e", "rating_model": MODEL.describe(), "created": "2026-01-01T00:00:00.000Z",
         "version": version}
    t = evolve(None, {"type": "TournamentCreated", "settings": s})
    for i in range(n):
        t = evolve(t, {"type": "EntrantRegistered", "entrant": i, "key": f"builtin:b{i}", "name": f"b{i}",
                       "kind": "builtin", "bot_id": None, "builtin": "greedy", "mu": 25.0, "sigma": 25 / 3})
    return t


def coop_result(t: Tournament, index: int, sections: int, won: bool = False) -> Tournament:
    game = t.games[index]
    t = evolve(t, {"type": "GameStarted", "index": index, "game_id": t.game_id(index), "seed_commitment": "c"})
    ranking = [{"seat": s, "rank": 1, "score": sections} for s in range(len(game.seats))]
    t = evolve(t, {"type": "GameFinished", "index": index, "game_id": t.game_id(index), "ranking": ranking,
                   "bundle_sha256": "0" * 64, "final_hash": "0" * 64, "departed": [],
                   "records": [{"seat": s, "calls": 3, "ok": 3, "moves": 3} for s in range(len(game.seats))],
                   "outcome": "won" if won else "lost"})
    return t


def rate(t: Tournament) -> Tournament:
    for event in ratings_due(MODEL, t):
        t = evolve(t, event)
    return t


def test_a_team_that_built_more_sections_ranks_above_and_gains_rating() -> None:
    t = created(4, 2, rounds=1)
    paired = next_round(t)
    assert paired is not None
    t = evolve(t, paired)
    (a, b), (c, d) = (g.seats for g in t.games)
    t = coop_result(t, 0, sections=6)
    assert ratings_due(MODEL, t) == []  # the round's games are rated together, once it is over
    t = rate(coop_result(t, 1, sections=2))
    assert t.rated == 2 and finish_due(t)
    table = standings(t)
    order = [row["entrant"] for row in table]
    assert set(order[:2]) == {a, b} and set(order[2:]) == {c, d}
    assert all(row["ranked_by"] == "team" and row["team_lost"] == 1 and row["wins"] == 0 for row in table)
    assert [row["score"] for row in table] == [6.0, 6.0, 2.0, 2.0]
    mu = {row["entrant"]: row["mu"] for row in table}
    assert mu[a] == mu[b] > 25 > mu[c] == mu[d]  # ratings move, in the tournament's own order
    assert [row["ordinal"] for row in table] == sorted((row["ordinal"] for row in table), reverse=True)


def test_a_won_game_ranks_above_any_number_of_sections_lost() -> None:
    t = created(4, 2, rounds=1)
    t = evolve(t, next_round(t) or {})
    t = rate(coop_result(coop_result(t, 0, sections=8, won=True), 1, sections=7))
    table = standings(t)
    winners = set(t.games[0].seats)
    assert {row["entrant"] for row in table[:2]} == winners
    assert all(row["wins"] == 1 and row["team_won"] == 1 and row["points"] == 1.0 for row in table[:2])
    assert all(row["wins"] == 0 and row["points"] == 0.0 for row in table[2:])


def test_rules_2_cooperative_tournaments_score_as_they_did() -> None:
    """A rules-2 stream (no outcome recorded) keeps its per-game ratings and shared places."""
    t = created(4, 2, rounds=1, version=2)
    t = evolve(t, next_round(t) or {})
    for i in range(2):
        t = evolve(t, {"type": "GameStarted", "index": i, "game_id": t.game_id(i), "seed_commitment": "c"})
        t = evolve(t, {"type": "GameFinished", "index": i, "game_id": t.game_id(i), "bundle_sha256": "0" * 64,
                       "final_hash": "0" * 64, "departed": [], "records": [],
                       "ranking": [{"seat": 0, "rank": 1, "score": 4}, {"seat": 1, "rank": 1, "score": 4}]})
    assert [e["index"] for e in ratings_due(MODEL, t)] == [0, 1]
    t = rate(t)
    assert all(row["wins"] == 1 and row["mu"] == 25.0 and "ranked_by" not in row for row in standings(t))


def play_swiss(n: int, players: int, rounds: int, seed: int, coop: bool = False) -> Tournament:
    rng = random.Random(seed)
    t = created(n, players, rounds=rounds, game="cathedral" if coop else "orleans")
    while (paired := next_round(t)) is not None:
        t = evolve(t, paired)
        for game in t.games[t.rated:]:
            if coop:
                t = coop_result(t, game.index, rng.randrange(9))
                continue
            t = evolve(t, {"type": "GameStarted", "index": game.index, "game_id": t.game_id(game.index),
                           "seed_commitment": "c"})
            ranks = [rng.randint(1, players) for _ in game.seats]
            t = evolve(t, {"type": "GameFinished", "index": game.index, "game_id": t.game_id(game.index),
                           "ranking": [{"seat": s, "rank": r, "score": 0} for s, r in enumerate(ranks)],
                           "bundle_sha256": "0" * 64, "final_hash": "0" * 64, "departed": [], "records": []})
        t = rate(t)
    return t


def pairings(t: Tournament) -> Counter[frozenset[int]]:
    return Counter(frozenset(pair) for g in t.games for pair in itertools.combinations(g.seats, 2))


@hsettings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), coop=st.booleans())
def test_six_entrants_over_five_rounds_repeat_no_pairing(seed: int, coop: bool) -> None:
    t = play_swiss(6, 2, 5, seed, coop)
    assert t.rounds_paired == 5 and len(t.games) == 15
    assert max(pairings(t).values()) == 1  # all 15 pairs, each once: a round robin by Swiss


@hsettings(max_examples=30, deadline=None)
@given(data=st.data())
def test_swiss_repeats_no_pairing_while_one_is_avoidable(data: st.DataObject) -> None:
    """Shapes where a whole schedule without a rematch exists: two seats, an even field and at most
    n-1 rounds (a round robin's rounds); three seats, nine entrants and at most four rounds (the
    parallel classes of the affine plane of order 3)."""
    players = data.draw(st.sampled_from([2, 2, 3]))
    n = 2 * data.draw(st.integers(2, 5)) if players == 2 else 9
    rounds = data.draw(st.integers(1, n - 1 if players == 2 else 4))
    t = play_swiss(n, players, rounds, data.draw(st.integers(0, 2**32 - 1)))
    assert max(pairings(t).values()) == 1


@pytest.mark.parametrize("n, rounds", [(16, 15), (20, 19), (24, 20)])
def test_a_long_swiss_of_a_larger_field_repeats_no_pairing(n: int, rounds: int) -> None:
    """Late rounds leave few partners each: the search led by the tightest entrant finds them."""
    t = play_swiss(n, 2, rounds, seed=3)
    assert t.rounds_paired == rounds and max(pairings(t).values()) == 1


def test_more_rounds_than_opponents_repeat_as_few_pairs_as_possible() -> None:
    t = play_swiss(4, 2, 5, seed=7)  # 3 rounds meet everyone once; rounds 4 and 5 must repeat
    assert t.rounds_paired == 5 and sorted(pairings(t).values()) == [1, 1, 2, 2, 2, 2]


def test_the_standard_swiss_choice_when_nothing_was_played() -> None:
    """First against second, third against fourth: the top entrant meets the next one it has not met."""
    assert swiss_groups([5, 3, 1, 0], 2, {}, 0) == [(5, 3), (1, 0)]
    assert swiss_groups([5, 3, 1, 0], 2, {frozenset({5, 3}): 1}, 0) == [(5, 1), (3, 0)]


def test_a_pairing_that_would_trap_a_later_round_is_not_chosen() -> None:
    """After {0-1, 2-3, 4-5} and {0-5, 1-3, 2-4}, the first rematch-free round in preference order,
    0-2 1-4 3-5, leaves two triangles (0-3-4, 1-2-5): no round 4 without a rematch. The search looks
    ahead and picks another."""
    seen = {frozenset(p): 1 for p in [(0, 1), (2, 3), (4, 5), (0, 5), (1, 3), (2, 4)]}
    groups = swiss_groups([0, 1, 2, 3, 4, 5], 2, seen, 2)
    assert groups == [(0, 2), (1, 5), (3, 4)]
    later = {**seen, **{frozenset(g): 1 for g in groups}}
    for _ in range(2):
        nxt = swiss_groups([0, 1, 2, 3, 4, 5], 2, later, 0)
        assert not any(frozenset(g) in later for g in nxt)
        later = {**later, **{frozenset(g): 1 for g in nxt}}


def test_byes_go_once_each_while_possible() -> None:
    t = created(6, 2, rounds=5, game="orleans")
    t = evolve(t, {"type": "EntrantWithdrawn", "entrant": 5, "by": "acct", "reason": "owner"})
    byes: Counter[int] = Counter()
    while (paired := next_round(t)) is not None:
        byes.update(paired.get("byes", []))
        t = evolve(t, paired)
        for game in t.games[t.rated:]:
            t = evolve(t, {"type": "GameStarted", "index": game.index, "game_id": t.game_id(game.index),
                           "seed_commitment": "c"})
            t = evolve(t, {"type": "GameFinished", "index": game.index, "game_id": t.game_id(game.index),
                           "ranking": [{"seat": 0, "rank": 1, "score": 1}, {"seat": 1, "rank": 2, "score": 0}],
                           "bundle_sha256": "0" * 64, "final_hash": "0" * 64, "departed": [], "records": []})
        t = rate(t)
    assert sorted(byes.values()) == [1, 1, 1, 1, 1] and t.byes == dict(byes)
    assert max(pairings(t).values()) == 1
    assert canonical_json(standings(t))  # byes in the table


def test_an_in_process_cathedral_swiss_scores_teams_and_its_package_verifies(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner records each Cathedral game's outcome; the round is rated as one match; the
    standings rank by the team's result and say so; the package verifies, and a forged outcome
    does not."""
    store = TournamentStore(conn)
    with bot_server(monkeypatch) as server:
        bots = [push_bot(client, owner, made, unique(f"coop{i}"), server.url + "/good") for i in range(2)]
        response = client.post("/api/v1/tournaments", headers=auth(owner["key"]), json={
            "game": "cathedral", "players_per_game": 2, "format": "swiss", "rounds": 2, "parallel": 4,
            "deadline_s": 2.0, "entrants": [{"builtin": "greedy"}, {"builtin": "random"},
                                            *({"bot_id": b["id"]} for b in bots)]})
        assert response.status_code == 201, response.get_data(as_text=True)
        tid = response.json["id"]
        made["tournaments"].append(tid)
        t = run_to_end(conn, tid)
    assert t.settings.version == RULES == 3
    entries = store.entries(tid)
    finished = [e.data for e in entries if e.type == "GameFinished"]
    assert len(finished) == 4 and all(f["outcome"] in ("won", "lost") for f in finished)
    rated = [e.data for e in entries if e.type == "RatingsUpdated"]
    assert [r["index"] for r in rated] == [1, 3] and all(len(r["ratings"]) == 4 for r in rated)  # one per round
    table = standings(t)
    assert all(row["ranked_by"] == "team" for row in table)
    keys = [(-row["points"], -row["score"]) for row in table]
    assert keys == sorted(keys)  # won games first, then sections built
    assert max(pairings(t).values()) == 1  # round 2 met new partners
    sections = {row["entrant"]: row["score"] for row in table}
    if len(set(sections.values())) > 1:  # some team built more than another: ratings moved apart
        assert len({round(row["mu"], 9) for row in table}) > 1

    package = package_from_store(conn, tid)
    assert verify_package(package).ok, verify_package(package).describe()
    forged = [dict(e.entry, hash=e.hash) for e in entries]
    first = next(i for i, e in enumerate(forged) if e["data"]["type"] == "GameFinished")
    forged[first]["data"] = {**forged[first]["data"],
                             "outcome": "won" if forged[first]["data"]["outcome"] == "lost" else "lost"}
    bundles = {g.index: GameService(conn).store.stored_bundle(g.game_id or "") or "" for g in t.bundled()}
    chained, previous = [], GENESIS_HASH  # a forger re-chains the stream after the change
    for e in forged:
        entry = {k: v for k, v in e.items() if k != "hash"}
        previous = entry_hash(previous, entry)
        chained.append(StoredEntry(entry["seq"], entry, previous))
    report = verify_package(build_package(chained, bundles))
    assert not report.ok and report.where == f"tournament.jsonl line {first + 1}", report.describe()
    assert "outcome" in (report.problem or "")


def test_a_cancelled_round_of_cooperative_games_is_rated_and_the_tournament_can_finish() -> None:
    t = created(6, 2, rounds=2)
    t = evolve(t, next_round(t) or {})
    t = coop_result(t, 0, sections=5)
    t = evolve(t, {"type": "GameStarted", "index": 1, "game_id": t.game_id(1), "seed_commitment": "c"})
    t = evolve(t, {"type": "TournamentCancelled", "by": "acct"})
    assert ratings_due(MODEL, t) == [] and not finish_due(t)  # game 1 is still being called off
    t = evolve(t, {"type": "GameCalledOff", "index": 1, "game_id": t.game_id(1), "bundle_sha256": "0" * 64,
                   "final_hash": "0" * 64})
    (update,) = ratings_due(MODEL, t)  # game 2 never starts: the round is over with game 0 alone
    assert update["index"] == 2 and set(update["ratings"]) == {str(n) for n in t.games[0].seats}
    assert finish_due(rate(t))
