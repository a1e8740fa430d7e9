"""Tournament rules without workers: ratings as openskill computes them, pairings, standings, the
Merkle root, and a whole in-process tournament whose package the CLI verifies (and refuses once
a byte changes)."""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

import pytest
import redis
from openskill.models import PlackettLuce

from core.games import GameService
from core.leaderboard import Leaderboard
from core.ratings import Rating, RatingModel
from core.scoring import place_points, ratings_due, standings
from core.tournament_store import Loaded, TournamentStore
from core.tournaments import (
    Entrant,
    Settings,
    Tournament,
    TournamentGame,
    TournamentRejected,
    check_settings,
    fold,
    merkle_root,
    round_robin_round,
    swiss_round,
)
from replays.tournament import package_from_store, verify_package
from replays.tournament_cli import main as tournament_cli
from workers.jobs import run_advance
from workers.tournaments import TournamentRunner

MODEL = RatingModel()


def settings(players: int = 3, fmt: str = "round_robin", rounds: int = 3) -> Settings:
    return Settings("tX", None, "artificium", None, players, fmt, rounds, 1, 5.0, 2,
                    (2.0, 1.0, 0.0)[:players], "c" * 64, "e1", MODEL.describe(), "2026-01-01T00:00:00.000Z")


def tournament(n: int, games: list[tuple[tuple[int, ...], list[int]]], players: int = 3) -> Tournament:
    entrants = tuple(Entrant(i, f"builtin:b{i}", f"b{i}", "builtin", None, "random", MODEL.initial()) for i in range(n))
    played = tuple(TournamentGame(i, 0, seats, f"g{i}", "c", tuple({"seat": s, "rank": r, "score": 10 - r}
                                                                     for s, r in enumerate(ranks)))
                   for i, (seats, ranks) in enumerate(games))
    return Tournament(settings(players), entrants, played, 1, {e.number: e.initial for e in entrants})


def test_ratings_move_exactly_as_openskill_plackett_luce_says_for_a_known_table() -> None:
    table = [((0, 1, 2), [1, 2, 3]), ((2, 0, 3), [1, 1, 3]), ((3, 1, 0), [2, 1, 3])]
    t = tournament(4, table)
    updates = ratings_due(MODEL, t)
    assert [u["index"] for u in updates] == [0, 1, 2]

    library = PlackettLuce()  # the library itself, game by game in index order
    ratings = {i: library.rating() for i in range(4)}
    for (seats, ranks), update in zip(table, updates):
        rated = library.rate([[ratings[e]] for e in seats], ranks=[float(r) for r in ranks])
        for e, team in zip(seats, rated):
            ratings[e] = team[0]
            assert update["ratings"][str(e)] == [team[0].mu, team[0].sigma]
    first = updates[0]["ratings"]
    assert first["0"][0] > 25 > first["2"][0]  # the winner of game 0 gained, the last lost
    assert first["1"][1] < 25 / 3  # everyone who played is more certain


def test_ratings_wait_for_a_running_game_with_a_lower_index() -> None:
    t = tournament(4, [((0, 1, 2), [1, 2, 3])])
    running = TournamentGame(1, 0, (1, 2, 3), "g1")
    finished_later = TournamentGame(2, 0, (0, 1, 3), "g2", "c", ({"seat": 0, "rank": 1, "score": 1},
                                                                {"seat": 1, "rank": 2, "score": 0},
                                                                {"seat": 2, "rank": 3, "score": 0}))
    t = Tournament(t.settings, t.entrants, (*t.games, running, finished_later), 1, t.ratings)
    assert [u["index"] for u in ratings_due(MODEL, t)] == [0]  # game 2 waits for game 1: index order


def test_round_robin_puts_every_entrant_in_every_seat_equally_often() -> None:
    n, k = 5, 3
    games = [g for r in range(k) for g in round_robin_round(n, k, r, 2, 0)]
    assert len(games) == 10 * 3 * 2
    seat_counts = Counter((e, seat) for g in games for seat, e in enumerate(g["seats"]))
    assert set(seat_counts.values()) == {6 * 2}  # C(4, 2) sets hold each entrant, once per rotation, twice each
    assert len(seat_counts) == n * k
    groups = Counter(frozenset(g["seats"]) for g in games)
    assert len(groups) == 10 and set(groups.values()) == {k * 2}


def test_swiss_groups_neighbours_by_rating() -> None:
    t = tournament(6, [], players=3)
    strong = {0: Rating(30, 2), 1: Rating(20, 2), 2: Rating(28, 2), 3: Rating(15, 2), 4: Rating(29, 2), 5: Rating(10, 2)}
    t = Tournament(t.settings, t.entrants, (), 1, strong)
    games, byes = swiss_round(t, 1)
    assert not byes
    assert [sorted(g["seats"]) for g in games] == [[0, 2, 4], [1, 3, 5]]
    assert games[0]["seats"][0] != 0  # round 1 rotates the seating


@pytest.mark.parametrize("players, entrants, fmt, rounds, message", [
    (4, 3, "round_robin", None, "cannot fill"),
    (3, 7, "swiss", 2, "not a multiple"),
    (3, 6, "swiss", None, "needs 'rounds'"),
    (2, 64, "round_robin", None, "use the swiss format"),
])
def test_impossible_settings_are_refused_with_a_reason(players: int, entrants: int, fmt: str, rounds: int | None,
                                                       message: str) -> None:
    with pytest.raises(TournamentRejected, match=message):
        check_settings(players, entrants, fmt, rounds, 1, None)


def test_standings_share_points_on_ties_and_break_ties_by_score_then_wins() -> None:
    assert place_points((2.0, 1.0, 0.0), [1, 1, 3]) == [1.5, 1.5, 0.0]
    t = tournament(3, [((0, 1, 2), [1, 2, 3]), ((1, 2, 0), [1, 2, 3]), ((2, 0, 1), [1, 2, 3])])
    table = standings(t)
    assert [r["points"] for r in table] == [3.0, 3.0, 3.0]
    assert [r["place"] for r in table] == [1, 2, 3] and [r["wins"] for r in table] == [1, 1, 1]


def test_merkle_root_of_known_leaves() -> None:
    a, b, c = (hashlib.sha256(x).hexdigest() for x in (b"a", b"b", b"c"))
    ab = hashlib.sha256(bytes.fromhex(a) + bytes.fromhex(b)).digest()
    cc = hashlib.sha256(bytes.fromhex(c) * 2).digest()
    assert merkle_root([a, b, c]) == hashlib.sha256(ab + cc).hexdigest()
    assert merkle_root([a]) == a


def run_in_process(conn: redis.Redis, tid: str) -> Tournament:
    runner = TournamentRunner(conn)
    svc = GameService(conn)
    for _ in range(200):
        runner.run(tid)
        loaded = TournamentStore(conn).load(tid)
        t = loaded.tournament
        if t.finished:
            runner.close(loaded)
            return t
        for g in t.games:
            if g.game_id and not g.finished:
                run_advance(svc, g.game_id)
    raise AssertionError("the tournament did not finish")


def test_an_in_process_round_robin_replays_exactly_and_its_package_verifies_with_the_cli(
        conn: redis.Redis, made: dict[str, list[str]], tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    store, board = TournamentStore(conn), Leaderboard(conn)
    spec = {"game": "artificium", "players_per_game": 2, "format": "round_robin", "parallel": 3,
            "entrants": [{"builtin": "random"}, {"builtin": "greedy", "name": "Greedy"}, {"builtin": "random", "name": "r2"}]}
    with pytest.raises(TournamentRejected, match="entered twice"):
        store.create(spec, GameService(conn).bots, board)
    spec["entrants"] = spec["entrants"][:2]
    tid = store.create(spec, GameService(conn).bots, board)["id"]
    made["tournaments"].append(tid)
    t = run_in_process(conn, tid)
    assert len(t.games) == 2 and [g.seats for g in t.games] == [(0, 1), (1, 0)]
    entries = store.entries(tid)
    assert fold(e.data for e in entries) == t  # the stream is the whole truth
    types = [e.type for e in entries]
    assert types[:3] == ["TournamentCreated", "EntrantRegistered", "EntrantRegistered"]
    assert types.count("GameFinished") == types.count("RatingsUpdated") == 2 and types[-1] == "TournamentFinished"
    assert hashlib.sha256(bytes.fromhex(t.seed or "")).hexdigest() == t.settings.seed_commitment
    for cut in (3, len(entries) // 2, len(entries)):  # a runner reads its append back from where it was
        earlier = Loaded(fold(e.data for e in entries[:cut]), entries[cut - 1].seq, entries[cut - 1].hash,
                         tuple(entries[:cut]))
        assert store.reload(tid, earlier) == store.load(tid)

    path = tmp_path / "package.zip"
    path.write_bytes(package_from_store(conn, tid))
    assert tournament_cli(["verify", str(path), "--quiet"]) == 0
    assert "verified: tournament" in capsys.readouterr().out
    data = bytearray(path.read_bytes())
    offset = data.index(b'"type":"GameFinished"')
    data[offset + 2] ^= 0x20
    path.write_bytes(bytes(data))
    assert tournament_cli(["verify", str(path), "--quiet"]) == 1
    assert capsys.readouterr().err.startswith("tournament.jsonl: its bytes were changed")
    assert verify_package(b"not a zip").where == "package"

    before = {row["key"]: row for row in board.entries("artificium", t.settings.edition)}
    assert before["builtin:greedy"]["tournaments"] >= 1
    assert board.apply(t) is False  # applied once only


def test_bot_check_passes_a_good_bot_and_names_what_is_wrong_with_bad_ones(capsys: pytest.CaptureFixture[str]) -> None:
    from hourglass_client import Bot, Turn

    from workers.botcheck import main as check

    class Good(Bot):
        def choose(self, turn: Turn) -> dict[str, Any]:
            return turn.moves[-1]

    class Illegal(Bot):
        def choose(self, turn: Turn) -> dict[str, Any]:
            return {"type": "Nope"}

    secret = "z" * 40
    with Good().serve(secret) as good, Illegal().serve(secret) as illegal:
        assert check([good.url, "--secret", secret, "--decisions", "8"]) == 0
        assert "pass: nothing a tournament would reject" in capsys.readouterr().out
        assert check([illegal.url, "--secret", secret, "--decisions", "5"]) == 1
        assert "FAIL illegal" in capsys.readouterr().out
        assert check([good.url, "--secret", "y" * 40, "--decisions", "3"]) == 1  # we and the bot disagree on the key
        assert "FAIL bad_signature" in capsys.readouterr().out
    with _Gullible() as gullible:
        assert check([gullible.url, "--secret", secret, "--decisions", "3", "--deadline", "0.2"]) == 1
        out = capsys.readouterr().out
        assert "FAIL forged" in out and "FAIL timeout" in out  # the platform's names (issue 26)


class _Gullible:
    """A bot that answers everything, slowly, with text that is not JSON."""

    def __enter__(self) -> Any:
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(0.3)
                body = b"ok, sure"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()



