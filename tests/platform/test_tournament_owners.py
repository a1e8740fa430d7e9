"""Who may cancel a tournament, withdraw an entrant and read a bot's record, and what a stranger
with a script gets from each (issue 22's abuse cases for the endpoints of issue 23's tournament
side): another account's tournament or bot is a 403 and the stream does not change; the record is
public, holds nothing private, and costs the same fixed number of Redis commands whatever the
bot's history."""
from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from core import callstats
from core.botrecords import SHOWN_GAMES, SHOWN_TOURNAMENTS, BotRecords, keys
from core.bots import BotRegistry
from core.tournament_store import TournamentStore
from core.tournaments import Settings, fold
from tests.platform.conftest import auth, new_account, unique
from tests.platform.tourney_helpers import SECRET, bot_server, push_bot, run_to_end


def create(client: Any, owner: dict[str, Any], made: dict[str, list[str]], entrants: list[dict[str, Any]]) -> str:
    body = {"game": "artificium", "players_per_game": 2, "parallel": 1, "entrants": entrants}
    response = client.post("/api/v1/tournaments", json=body, headers=auth(owner["key"]))
    assert response.status_code == 201, response.get_data(as_text=True)
    made["tournaments"].append(response.json["id"])
    return str(response.json["id"])


def version(conn: redis.Redis, tid: str) -> int:
    return TournamentStore(conn).load(tid).version


def test_only_the_organiser_cancels_and_a_stranger_changes_nothing(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]]) -> None:
    tid = create(client, owner, made, [{"builtin": "random"}, {"builtin": "greedy"}])
    before = version(conn, tid)
    stranger = new_account(conn, made, "stranger")
    url = f"/api/v1/tournaments/{tid}/cancel"
    answers = [client.post(url, json={}, headers=auth(stranger["key"])),
               client.post(url, json={}),
               client.post(url, json={}, headers=auth("hga_not-a-key"))]
    assert [a.status_code for a in answers] == [403, 401, 401]
    assert all(a.mimetype == "application/problem+json" for a in answers)
    assert "organiser" in answers[0].json["detail"]
    assert client.post("/api/v1/tournaments/tnosuch/cancel", json={}, headers=auth(owner["key"])).status_code == 404
    assert client.post(url, json={"reason": "x" * 201}, headers=auth(owner["key"])).status_code == 400
    assert client.post(url, json={"reason": 7}, headers=auth(owner["key"])).status_code == 400
    assert client.post(url, json={"reason": "two\nlines"}, headers=auth(owner["key"])).status_code == 400
    assert version(conn, tid) == before  # nothing any of them sent reached the stream
    done = client.post(url, json={}, headers=auth(owner["key"]))
    assert done.status_code == 200 and done.json["status"] == "cancelled" and done.json["cancelled"]["reason"] is None
    again = client.post(url, json={}, headers=auth(owner["key"]))
    assert again.status_code == 409 and "cancelled" in again.json["detail"]
    assert version(conn, tid) == before + 1


def test_a_key_without_the_tournaments_scope_cannot_cancel(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]]) -> None:
    tid = create(client, owner, made, [{"builtin": "random"}, {"builtin": "greedy"}])
    key = client.post("/api/v1/account/keys", json={"scopes": ["play"]}, headers=auth(owner["key"]))
    assert key.status_code == 201, key.get_data(as_text=True)
    answer = client.post(f"/api/v1/tournaments/{tid}/cancel", json={}, headers=auth(key.json["key"]))
    assert answer.status_code == 403 and "scope" in answer.json["detail"]


def test_an_entrant_is_withdrawn_by_its_owner_only(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    author = new_account(conn, made, "author")
    with bot_server(monkeypatch) as server:
        theirs = push_bot(client, author, made, unique("open"), server.url + "/good")
        client.patch(f"/api/v1/bots/{theirs['id']}", json={"open": True}, headers=auth(author["key"]))
        tid = create(client, owner, made, [{"bot_id": theirs["id"]}, {"builtin": "random"}, {"builtin": "greedy"}])
    before = version(conn, tid)
    url = f"/api/v1/tournaments/{tid}/entrants/{{}}/withdraw"
    # the organiser may not withdraw another account's bot, the bot's author not a built-in entrant
    assert client.post(url.format(0), headers=auth(owner["key"])).status_code == 403
    assert client.post(url.format(1), headers=auth(author["key"])).status_code == 403
    assert client.post(url.format(0)).status_code == 401
    assert client.post(url.format(0), headers=auth(theirs["token"])).status_code == 401  # a bot token is no account key
    assert client.post(url.format(9), headers=auth(owner["key"])).status_code == 404
    assert client.post("/api/v1/tournaments/tnosuch/entrants/0/withdraw", headers=auth(owner["key"])).status_code == 404
    assert version(conn, tid) == before
    mine = client.post(url.format(0), headers=auth(author["key"]))
    assert mine.status_code == 200 and mine.json["entrants"][0]["withdrawn"]["by"] == author["id"]
    assert client.post(url.format(1), headers=auth(owner["key"])).status_code == 200
    twice = client.post(url.format(1), headers=auth(owner["key"]))
    assert twice.status_code == 409 and "withdrawn already" in twice.json["detail"]
    t = TournamentStore(conn).load(tid).tournament
    assert {n: w.reason for n, w in t.withdrawn.items()} == {0: "owner", 1: "owner"}


def test_a_finished_tournament_cannot_be_cancelled_or_withdrawn_from(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]]) -> None:
    tid = create(client, owner, made, [{"builtin": "random"}, {"builtin": "greedy"}])
    run_to_end(conn, tid)
    for url in (f"/api/v1/tournaments/{tid}/cancel", f"/api/v1/tournaments/{tid}/entrants/0/withdraw"):
        answer = client.post(url, json={}, headers=auth(owner["key"]))
        assert answer.status_code == 409 and "finished" in answer.json["detail"]


def test_a_bots_record_is_public_and_shows_nothing_private(
        conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with bot_server(monkeypatch) as server:
        bot = push_bot(client, owner, made, unique("public"), server.url + "/good")
        tid = create(client, owner, made, [{"bot_id": bot["id"]}, {"builtin": "random"}])
        run_to_end(conn, tid)
    answer = client.get(f"/api/v1/bots/{bot['id']}/record")  # no token at all
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    for private in (server.url, SECRET, bot["token"], "secret", "token", "url"):
        assert private not in text
    record = answer.json
    assert record["bot"]["id"] == bot["id"] and record["overall"]["tournaments"] == 1
    assert record["overall"]["games"] == 2 and record["overall"]["calls"] == record["overall"]["ok"] > 0
    (mine,) = record["tournaments"]
    assert mine["tournament"] == tid and mine["page"] == f"/tournaments/{tid}" and mine["status"] == "finished"
    assert len(record["games"]) == 2 and all(g["viewer"] == f"/games/{g['game_id']}" for g in record["games"])
    assert client.get("/api/v1/bots/nosuchbot/record").status_code == 404


def test_reading_a_record_costs_the_same_whatever_the_bots_history(
        conn: redis.Redis, made: dict[str, list[str]], client: Any, register: Any, commands: list[int]) -> None:
    busy, idle = register(unique("busy"), "pull"), register(unique("idle"), "pull")
    records = BotRecords(conn)
    for n in range(SHOWN_TOURNAMENTS + 15):  # more history than any answer shows
        records.update(*_finished_tournament(f"tbusy{n:03d}", busy["id"], games=3))
    records.update(*_finished_tournament("tidle000", idle["id"], games=1))

    def cost(bot_id: str) -> tuple[int, int, int]:
        before = commands[0]  # this thread's own (the server's total counts every client of it)
        answer = client.get(f"/api/v1/bots/{bot_id}/record")
        spent = commands[0] - before
        return spent, len(answer.json["tournaments"]), len(answer.json["games"])

    busy_cost, shown_tournaments, shown_games = cost(busy["id"])
    idle_cost, _, _ = cost(idle["id"])
    assert 0 < busy_cost == idle_cost  # a fixed number of commands (answers capped below)
    assert shown_tournaments == SHOWN_TOURNAMENTS and shown_games == SHOWN_GAMES
    overall = client.get(f"/api/v1/bots/{busy['id']}/record").json["overall"]
    assert overall["tournaments"] == SHOWN_TOURNAMENTS + 15 and overall["games"] == 3 * (SHOWN_TOURNAMENTS + 15)
    assert overall["calls"] == 2 * overall["games"] and overall["latency_ms"]["p50"] == 150.0
    BotRegistry(conn).delete([busy["id"]])  # the record goes with the bot
    made["bots"].remove(busy["id"])
    assert not any(conn.exists(key) for key in keys(busy["id"]).values())


def _finished_tournament(tid: str, bot_id: str, games: int) -> tuple[Any, int, dict[int, tuple[int, str]]]:
    """A rules-2 tournament of ``games`` two-player games, all won by the bot (entrant 0)."""
    from core.ratings import RatingModel

    model = RatingModel()
    settings = Settings(tid, None, "artificium", None, 2, "swiss", games, 1, 5.0, 1, (1.0, 0.0), "c" * 64, "e",
                        model.describe(), "2026-01-01T00:00:00.000Z", "acct", 2)
    events: list[dict[str, Any]] = [{"type": "TournamentCreated", "settings": settings.to_json()}]
    for n, (key, bot) in enumerate(((f"bot:{bot_id}", bot_id), ("builtin:random", None))):
        events.append({"type": "EntrantRegistered", "entrant": n, "key": key, "name": key, "kind": "pull",
                       "bot_id": bot, "builtin": None if bot else "random", "mu": 25.0, "sigma": 25 / 3})
    finished: dict[int, tuple[int, str]] = {}
    record = {"calls": 2, "ok": 2, "timeout": 0, "error": 0, "moves": 2, "latency_ms": {"p50": 140.0, "p95": 140.0},
              "hist": callstats.histogram([140.0, 140.0])}
    for index in range(games):
        events += [{"type": "RoundPaired", "round": index, "games": [{"index": index, "seats": [0, 1]}]},
                   {"type": "GameStarted", "index": index, "game_id": f"{tid}g{index:04d}", "seed_commitment": "c"},
                   {"type": "GameFinished", "index": index, "game_id": f"{tid}g{index:04d}", "bundle_sha256": "0" * 64,
                    "final_hash": "h", "departed": [],
                    "ranking": [{"seat": 0, "rank": 1, "score": 1}, {"seat": 1, "rank": 2, "score": 0}],
                    "records": [{"seat": 0, **record}, {"seat": 1, **record, "calls": 0, "ok": 0, "hist": {}}]}]
        finished[index] = (len(events), f"2026-01-01T00:{index // 60:02d}:{index % 60:02d}.000Z")
    return fold(events), len(events), finished


@pytest.mark.parametrize("field, value", [("name", "\ud800"), ("name", "two\nlines"), ("entrant", "\x07bell"),
                                          ("bot_id", "\ud800")])
def test_names_that_cannot_be_stored_are_a_400_not_a_500(
        conn: redis.Redis, client: Any, owner: dict[str, Any], field: str, value: str) -> None:
    body: dict[str, Any] = {"game": "artificium", "players_per_game": 2,
                            "entrants": [{"builtin": "random"}, {"builtin": "greedy"}]}
    if field == "name":
        body["name"] = value
    elif field == "bot_id":
        body["entrants"][0] = {"bot_id": value}
    else:
        body["entrants"][0]["name"] = value
    before = TournamentStore(conn).listing()
    answer = client.post("/api/v1/tournaments", data=json.dumps(body), content_type="application/json",
                         headers=auth(owner["key"]))
    assert answer.status_code == 400 and answer.mimetype == "application/problem+json"
    assert TournamentStore(conn).listing() == before
