"""The ladder (issue 26): owners opt bots in, the matchmaker (a worker step, here run in-process)
starts rated games by rating, never the same table twice in a row, within the owners' work
budgets, a cap per owner and a service-wide cap; finished games are rated with history; an
opted-out bot gets no new game; a bot that times out is recorded and its games still end."""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from core.games import GameService
from core.ladder import (
    Candidate,
    LadderFull,
    LadderLimits,
    LadderStore,
    bot_games_key,
    bot_history_key,
    choose_table,
    ladder_key,
    parse_ladder,
)
from tests.platform.conftest import auth, new_account, unique
from tests.platform.ladder_helpers import wipe_ladders
from tests.platform.tourney_helpers import bot_server, push_bot
from workers.jobs import run_advance
from workers.ladder import Matchmaker

LADDER = "artificium-2"


@pytest.fixture(autouse=True)
def clean_ladders(conn: redis.Redis) -> Iterator[None]:
    """Ladders are named by game and player count, so every test starts and ends with none."""
    wipe_ladders(conn)
    yield
    wipe_ladders(conn)


def limits(**overrides: Any) -> LadderLimits:
    return LadderLimits(**{"games_total": 10, "games_per_owner": 4, "bots_per_owner": 5, "spread": 4,
                           "budgets": False, **overrides})


def matchmaker(conn: redis.Redis, **overrides: Any) -> Matchmaker:
    return Matchmaker(GameService(conn), limits(**overrides), random.Random(7))


def opt_in(client: Any, key: str, bot_id: str, ladder: str = LADDER, **extra: Any) -> Any:
    return client.post(f"/api/v1/ladders/{ladder}/entries", json={"bot_id": bot_id, **extra}, headers=auth(key))


def play_out(conn: redis.Redis, made: dict[str, list[str]], ladder: str = LADDER) -> list[str]:
    """Play every live game of the ladder in this process; their ids."""
    svc = GameService(conn)
    live = sorted(LadderStore(conn).live(ladder))
    made["games"] += live
    for game_id in live:
        for _ in range(40):
            run_advance(svc, game_id)
            if svc.load(game_id).finished:
                break
        assert svc.load(game_id).finished, f"ladder game {game_id} did not end"
    return live


@pytest.fixture
def bots(client: Any, owner: dict[str, Any], made: dict[str, list[str]],
         monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., dict[str, Any]]]:
    with bot_server(monkeypatch, slow_s=1.0) as server:
        def make(path: str = "/good", who: dict[str, Any] | None = None) -> dict[str, Any]:
            return push_bot(client, who or owner, made, unique("lad"), server.url + path)
        yield make


def test_only_the_owner_opts_a_bot_in_and_out(client: Any, conn: redis.Redis, owner: dict[str, Any],
                                              made: dict[str, list[str]], bots: Callable[..., dict[str, Any]]) -> None:
    bot = bots()
    stranger = new_account(conn, made, "stranger")
    refused = opt_in(client, stranger["key"], bot["id"])
    assert refused.status_code == 403 and refused.json["kind"] == "FORBIDDEN"
    assert opt_in(client, "", bot["id"]).status_code == 401
    assert opt_in(client, owner["key"], bot["id"], "nosuchgame-2").status_code == 404
    assert opt_in(client, owner["key"], bot["id"], "artificium-9").status_code == 404  # no such player count
    assert opt_in(client, owner["key"], bot["id"], deadline_s=0).status_code == 400
    entered = opt_in(client, owner["key"], bot["id"], deadline_s=1.5)
    assert entered.status_code == 201 and entered.json["deadline_s"] == 1.5 and entered.json["owner"] == owner["id"]
    listed = client.get("/api/v1/ladders").json["ladders"]
    assert [(row["id"], row["members"]) for row in listed] == [(LADDER, 1)]
    standings = client.get(f"/api/v1/ladders/{LADDER}").json["standings"]
    assert [(r["name"], r["games"], r["opted_in"]) for r in standings] == [(bot["name"], 0, True)]
    assert client.delete(f"/api/v1/ladders/{LADDER}/entries/{bot['id']}", headers=auth(stranger["key"])).status_code == 403
    assert client.delete(f"/api/v1/ladders/{LADDER}/entries/{bot['id']}", headers=auth(owner["key"])).status_code == 204
    assert client.delete(f"/api/v1/ladders/{LADDER}/entries/{bot['id']}", headers=auth(owner["key"])).status_code == 404


def test_an_owner_enters_a_bounded_number_of_bots_on_a_ladder(client: Any, owner: dict[str, Any],
                                                              bots: Callable[..., dict[str, Any]],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOURGLASS_LADDER_BOTS_PER_OWNER", "2")
    mine = [bots() for _ in range(3)]
    assert [opt_in(client, owner["key"], b["id"]).status_code for b in mine] == [201, 201, 409]
    assert opt_in(client, owner["key"], mine[0]["id"], deadline_s=3).status_code == 201  # a change, not a third


def test_the_matchmaker_plays_rated_games_with_no_organiser_and_never_the_same_table_twice(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]]) -> None:
    a, b = bots(), bots("/first")
    for bot in (a, b):
        assert opt_in(client, owner["key"], bot["id"], deadline_s=2).status_code == 201
    mm = matchmaker(conn)
    tables = []
    for _ in range(3):
        counts = mm.run()
        live = LadderStore(conn).live(LADDER)
        assert counts["started"] == 1 and len(live) == 1  # two bots: one table at a time
        tables.append(tuple(next(iter(live.values()))["seats"]))
        assert mm.run()["started"] == 0  # both are playing
        play_out(conn, made)
    assert mm.run()["settled"] == 1
    assert all(x != y for x, y in zip(tables, tables[1:]))  # a pair swaps seats, never repeats the table
    store = LadderStore(conn)
    ratings = store.ratings(LADDER)
    assert {r["games"] for r in ratings.values()} == {3}
    assert all(r["sigma"] < 25 / 3 for r in ratings.values())  # rated: the model grew surer of both
    for game in store.recent_games(LADDER):  # a winner's mu rises, a loser's falls; a tie moves only sigma
        first, second = sorted(game["seats"], key=lambda seat: seat["rank"])
        if first["rank"] < second["rank"]:
            assert first["after"]["mu"] > first["before"]["mu"] and second["after"]["mu"] < second["before"]["mu"]
    history = store.history(LADDER)
    assert len(history) == 3 and all(len(h["seats"]) == 2 for h in history)
    for bot in (a, b):
        points = store.bot_history(bot["id"])
        assert len(points) == 3 and points[-1]["mu"] == ratings[bot["id"]]["mu"]
    games = client.get(f"/api/v1/ladders/{LADDER}").json["games"]
    assert len(games) == 3 and all(g["rated"] and g["viewer"] == f"/games/{g['game_id']}" for g in games)
    replay = client.get(f"/api/v1/games/{games[0]['game_id']}/replay")
    assert replay.status_code == 200  # an ordinary game with an ordinary replay
    record = client.get(f"/api/v1/bots/{a['id']}/record").json
    assert [row["ladder"] for row in record["ladders"]] == [LADDER]
    assert len(record["ladders"][0]["history"]) == 3 and len(record["ladder_games"]) == 3
    assert record["ladder_games"][0]["calls"] > 0 and record["ladder_games"][0]["latency_ms"]["p50"] is not None


def test_opting_out_stops_new_games_but_the_one_in_play_is_rated(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]]) -> None:
    a, b = bots(), bots()
    for bot in (a, b):
        opt_in(client, owner["key"], bot["id"])
    mm = matchmaker(conn)
    assert mm.run()["started"] == 1
    assert client.delete(f"/api/v1/ladders/{LADDER}/entries/{a['id']}", headers=auth(owner["key"])).status_code == 204
    play_out(conn, made)
    counts = mm.run()
    assert counts["settled"] == 1 and counts["started"] == 0
    standings = {r["name"]: r for r in client.get(f"/api/v1/ladders/{LADDER}").json["standings"]}
    assert standings[a["name"]]["games"] == 1 and not standings[a["name"]]["opted_in"]


def test_an_owner_with_many_bots_cannot_take_the_whole_ladder(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]]) -> None:
    other = new_account(conn, made, "rival")
    many = [bots() for _ in range(5)]
    few = [bots(who=other) for _ in range(2)]
    for bot in many:
        assert opt_in(client, owner["key"], bot["id"]).status_code == 201
    for bot in few:
        assert opt_in(client, other["key"], bot["id"]).status_code == 201
    mm = matchmaker(conn, games_per_owner=2, games_total=3)
    started = mm.run()["started"]
    live = LadderStore(conn).live(LADDER)
    assert 2 <= started == len(live) <= 3  # 3: the service-wide cap; 2: both owners at their cap
    owners = [set(g["owners"]) for g in live.values()]
    assert sum(owner["id"] in o for o in owners) <= 2 and sum(other["id"] in o for o in owners) <= 2
    assert any(other["id"] in o for o in owners)  # the owner of two bots is not crowded out
    assert mm.run()["started"] == 0  # at a cap: nothing more until a game ends


def test_ladder_games_draw_from_the_owners_work_budgets(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]]) -> None:
    other = new_account(conn, made, "payer")
    a, b = bots(), bots(who=other)
    opt_in(client, owner["key"], a["id"])
    opt_in(client, other["key"], b["id"])
    mm = matchmaker(conn, budgets=True, work_capacity=1, work_period_s=3600.0)
    assert mm.run()["started"] == 1  # one unit from each owner
    play_out(conn, made)
    counts = mm.run()
    assert counts["settled"] == 1 and counts["started"] == 0 and counts["resting"] >= 1  # both budgets are dry
    rest: Any = conn.hgetall(f"{ladder_key(LADDER)}:rest")
    assert rest, "the bot of the owner whose budget ran dry rests"


def test_a_bot_that_times_out_is_recorded_and_its_games_still_end(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]]) -> None:
    slow, good = bots("/slow"), bots()
    opt_in(client, owner["key"], slow["id"], deadline_s=0.2)
    opt_in(client, owner["key"], good["id"], deadline_s=2)
    mm = matchmaker(conn)
    assert mm.run()["started"] == 1
    (game_id,) = play_out(conn, made)
    assert mm.run()["settled"] == 1
    (game,) = client.get(f"/api/v1/ladders/{LADDER}").json["games"]
    assert game["game_id"] == game_id and game["rated"]
    seats = {s["bot_id"]: s for s in game["seats"]}
    assert seats[slow["id"]]["timeout"] > 0 and seats[slow["id"]]["moves"] == 0
    assert seats[slow["id"]]["rank"] > seats[good["id"]]["rank"]  # a seat that never moved ranks last
    record = client.get(f"/api/v1/bots/{slow['id']}/record").json["ladder_games"][0]
    assert record["timeout"] == seats[slow["id"]]["timeout"]


def test_a_deleted_bot_leaves_its_ladders(client: Any, conn: redis.Redis, owner: dict[str, Any],
                                          bots: Callable[..., dict[str, Any]]) -> None:
    bot = bots()
    opt_in(client, owner["key"], bot["id"])
    assert client.delete(f"/api/v1/bots/{bot['id']}", headers=auth(owner["key"])).status_code == 204
    assert LadderStore(conn).members(LADDER) == {}


def test_a_script_reading_the_pages_and_ladders_draws_from_its_request_window(conn: redis.Redis) -> None:
    """The pages and the ladder and challenge reads are ordinary requests: a stranger's script is
    counted against its address's window and gets 429 problem+json once it is spent."""
    from service.app import create_app

    limited = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 100,
                          "ANON_RATE_LIMIT": 4, "RATE_LIMIT_WINDOW": 3600}).test_client()
    address = {"REMOTE_ADDR": f"10.26.{random.randrange(256)}.{random.randrange(1, 255)}"}
    paths = ["/leaderboard/artificium", "/tournaments", f"/api/v1/ladders/{LADDER}", "/api/v1/challenges/cnosuch"]
    answers = [limited.get(path, environ_base=address) for path in paths]
    assert [a.status_code for a in answers] == [200, 200, 200, 404]
    refused = limited.get("/bots/nosuchbot", environ_base=address)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.json["kind"] == "RATE_LIMITED" and int(refused.headers["Retry-After"]) > 0


def test_a_table_pairs_the_longest_waiting_bot_with_rivals_near_its_rating() -> None:
    pool = [Candidate(f"b{i}", f"o{i}", float(i), waited_since=100 + i) for i in range(10)]
    pool[5] = Candidate("b5", "o5", 5.0, waited_since=1)  # waited longest: the anchor
    for seed in range(30):
        table = choose_table(pool, 2, {}, {}, per_owner=4, spread=2, rng=random.Random(seed))
        assert table is not None and "b5" in table
        (rival,) = set(table) - {"b5"}
        assert rival in ("b4", "b6")  # its two nearest by ordinal
    four = choose_table(pool, 4, {}, {}, per_owner=4, spread=4, rng=random.Random(1))
    assert four is not None and len(set(four)) == 4 and "b5" in four
    assert {int(b[1:]) for b in four} <= {1, 2, 3, 4, 5, 6, 7, 8, 9} and all(abs(int(b[1:]) - 5) <= 2 for b in four)


def test_a_table_is_never_the_last_one_of_its_bots_and_respects_owner_caps() -> None:
    pair = [Candidate("a", "x", 0.0), Candidate("b", "y", 0.0)]
    for seed in range(20):
        last = {"a": ["a", "b"], "b": ["a", "b"]}
        assert choose_table(pair, 2, last, {}, 4, 4, random.Random(seed)) == ("b", "a")
    trio = [*pair, Candidate("c", "z", 0.0)]
    last = {"a": ["a", "b"], "b": ["a", "b"]}
    tables = {choose_table(trio, 2, last, {}, 4, 4, random.Random(seed)) for seed in range(40)}
    assert ("a", "b") not in tables and None not in tables
    assert choose_table(pair, 2, {}, {"x": 4}, 4, 4, random.Random(0)) is None  # owner x is at its cap
    same_owner = [Candidate("a", "x", 0.0), Candidate("b", "x", 0.0)]
    assert choose_table(same_owner, 2, {}, {"x": 3}, 4, 4, random.Random(0)) is not None  # one game, one slot


def test_a_pass_that_died_before_creating_its_game_leaves_nothing_to_rate(
        client: Any, conn: redis.Redis, owner: dict[str, Any], bots: Callable[..., dict[str, Any]]) -> None:
    a, b = bots(), bots()
    for bot in (a, b):
        opt_in(client, owner["key"], bot["id"])
    store = LadderStore(conn)
    store.started(LADDER, "0000deadpass0000", [a["id"], b["id"]], [owner["id"], owner["id"]])  # then it died
    counts = matchmaker(conn).run()
    assert counts["settled"] == 0 and counts["started"] == 1  # the entry is dropped, the bots are free again
    assert "0000deadpass0000" not in store.live(LADDER) and store.recent_games(LADDER) == []


class Died(Exception):
    """A matchmaker killed mid-step (the worker process ended there)."""


def test_a_pass_that_died_between_rating_and_recording_leaves_no_gap_on_the_bot_pages(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The rating transaction commits, the first bot's record is written, then the worker dies before
    the second's: the game is in the ladder's outbox, and the next pass writes the missing record
    once (the first bot's is not written twice), so both pages show the game."""
    a, b = bots(), bots("/first")
    for bot in (a, b):
        opt_in(client, owner["key"], bot["id"])
    store = LadderStore(conn)
    assert matchmaker(conn).run()["started"] == 1
    (game_id,) = play_out(conn, made)
    first_bot = store.live(LADDER)[game_id]["seats"][0]
    original = LadderStore._record_bot
    calls: list[str] = []

    def dies_on_the_second(self: LadderStore, bot_id: str, *args: Any) -> None:
        calls.append(bot_id)
        if len(calls) > 1:
            raise Died(f"killed before recording {bot_id}")
        original(self, bot_id, *args)  # the first bot's record is written

    monkeypatch.setattr(LadderStore, "_record_bot", dies_on_the_second)
    with pytest.raises(Died):
        matchmaker(conn).run()
    ratings = store.ratings(LADDER)
    assert {r["games"] for r in ratings.values()} == {1} and game_id not in store.live(LADDER)  # rated once
    second_bot = next(x for x in (a["id"], b["id"]) if x != first_bot)
    assert [g["game_id"] for g in store.bot_games(first_bot)] == [game_id]
    assert store.bot_games(second_bot) == [] and store.bot_history(second_bot) == []  # the gap
    assert conn.zscore(f"{ladder_key(LADDER)}:unrecorded", game_id) is not None

    monkeypatch.setattr(LadderStore, "_record_bot", original)
    counts = matchmaker(conn).run()  # the next pass, by any worker
    assert counts["settled"] == 0  # nothing is rated twice
    assert store.ratings(LADDER) == ratings
    for bot_id in (a["id"], b["id"]):
        assert [g["game_id"] for g in store.bot_games(bot_id)] == [game_id]  # once each
        assert [p["game_id"] for p in store.bot_history(bot_id)] == [game_id]
        record = client.get(f"/api/v1/bots/{bot_id}/record").json
        assert [g["game_id"] for g in record["ladder_games"]] == [game_id]
        assert [len(row["history"]) for row in record["ladders"]] == [1]
    assert conn.zcard(f"{ladder_key(LADDER)}:unrecorded") == 0
    store.record_pending(LADDER)  # running the outbox again, or the same record twice, adds nothing
    store._per_bot(store.recent_games(LADDER)[0])
    assert all(len(store.bot_games(x)) == 1 and len(store.bot_history(x)) == 1 for x in (a["id"], b["id"]))


def test_a_deleted_bot_is_not_recreated_by_a_late_record(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]],
        bots: Callable[..., dict[str, Any]]) -> None:
    a, b = bots(), bots()
    for bot in (a, b):
        opt_in(client, owner["key"], bot["id"])
    store = LadderStore(conn)
    matchmaker(conn).run()
    play_out(conn, made)
    assert client.delete(f"/api/v1/bots/{b['id']}", headers=auth(owner["key"])).status_code == 204
    matchmaker(conn).run()
    assert len(store.bot_games(a["id"])) == 1
    assert not conn.exists(bot_games_key(b["id"]), bot_history_key(b["id"]))


def test_racing_opt_ins_never_pass_the_per_owner_cap(conn: redis.Redis, owner: dict[str, Any]) -> None:
    import threading

    ladder, store, outcomes = parse_ladder(LADDER), LadderStore(conn), []
    gate = threading.Barrier(6)

    def enter(i: int) -> None:
        gate.wait()
        try:
            store.opt_in(ladder, f"racer{i}", f"racer{i}", owner["id"], None, max_per_owner=2)
            outcomes.append("in")
        except LadderFull:
            outcomes.append("full")

    threads = [threading.Thread(target=enter, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["full"] * 4 + ["in"] * 2 and len(store.members(LADDER)) == 2
    conn.delete(*(f"hg:bot:{{racer{i}}}:ladder:in" for i in range(6)))
