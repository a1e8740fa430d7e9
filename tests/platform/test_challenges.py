"""Challenges (issue 26): a bot or an account challenges a bot; the bot answers on its event stream
or its owner's policy answers at once; declined and expired challenges are events on both sides'
streams; the challenger pays and challenge spam is capped."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from core.challenges import DUE_KEY, MAX_PENDING_BY, Challenges
from core.games import GameService
from core.ladder import LADDERS_KEY, LadderStore, ladder_key, parse_ladder
from service.app import create_app
from tests.platform.conftest import auth, new_account

BODY = {"game": "artificium", "players": 2, "deadline_s": 2.0}


@pytest.fixture(autouse=True)
def clean_challenges(conn: redis.Redis) -> Iterator[None]:
    yield
    keys = list(conn.scan_iter(match="hg:ch:*", count=1000))
    if keys:
        conn.delete(*keys)


def events(client: Any, bot: dict[str, Any]) -> list[dict[str, Any]]:
    page = client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(bot["token"]))
    assert page.status_code == 200
    return list(page.json["events"])


def account_events(client: Any, account: dict[str, Any]) -> list[dict[str, Any]]:
    page = client.get("/api/v1/account/events", headers=auth(account["key"]))
    assert page.status_code == 200
    return list(page.json["events"])


def challenge(client: Any, token: str, bot_id: str, **extra: Any) -> Any:
    return client.post("/api/v1/challenges", json={**BODY, "bot_id": bot_id, **extra}, headers=auth(token))


@pytest.fixture
def challenger(conn: redis.Redis, made: dict[str, list[str]]) -> dict[str, Any]:
    return new_account(conn, made, "challenger")


def test_a_bot_accepts_a_challenge_through_its_stream(
        client: Any, conn: redis.Redis, owner: dict[str, Any], challenger: dict[str, Any],
        made: dict[str, list[str]], register: Callable[..., dict[str, Any]]) -> None:
    bot = register("target-" + owner["id"][:6])
    made_challenge = challenge(client, challenger["key"], bot["id"], seat=1)
    assert made_challenge.status_code == 201, made_challenge.json
    cid = made_challenge.json["id"]
    assert made_challenge.json["status"] == "pending" and made_challenge.json["challenger"]["kind"] == "account"
    offered = [e for e in events(client, bot) if e["event"] == "challenge"]
    assert [e["data"]["id"] for e in offered] == [cid]
    assert offered[0]["data"]["game"] == "artificium" and "payer" not in offered[0]["data"]
    # nobody else answers it
    stranger = new_account(conn, made, "stranger")
    assert client.post(f"/api/v1/challenges/{cid}/accept", headers=auth(stranger["key"])).status_code == 403
    assert client.post(f"/api/v1/challenges/{cid}/accept", headers=auth(challenger["key"])).status_code == 403
    accepted = client.post(f"/api/v1/challenges/{cid}/accept", headers=auth(bot["token"]))
    assert accepted.status_code == 200 and accepted.json["status"] == "accepted"
    game_id = accepted.json["game_id"]
    made["games"].append(game_id)
    assert accepted.json["viewer"] == f"/games/{game_id}"
    game = GameService(conn).load(game_id)
    assert game.info.seats[0].bot_id == bot["id"] and game.info.accounts == {1: challenger["id"]}
    assert game.info.seats[1].clock == {"move_s": 2.0}
    assert client.post(f"/api/v1/challenges/{cid}/decline", headers=auth(bot["token"])).status_code == 409
    assert [e["data"]["game_id"] for e in events(client, bot) if e["event"] == "challenge_accepted"] == [game_id]
    assert [e["data"]["id"] for e in account_events(client, challenger) if e["event"] == "challenge_accepted"] == [cid]


def test_declined_and_expired_challenges_are_events_on_both_sides(
        client: Any, conn: redis.Redis, owner: dict[str, Any], register: Callable[..., dict[str, Any]]) -> None:
    target = register("target-" + owner["id"][:6])
    sparring = register("sparring-" + owner["id"][:6])
    first = challenge(client, sparring["token"], target["id"]).json
    assert first["challenger"] == {"kind": "bot", "name": sparring["name"], "bot_id": sparring["id"], "account": None}
    declined = client.post(f"/api/v1/challenges/{first['id']}/decline", json={"reason": "busy"},
                           headers=auth(owner["key"]))  # the owner answers for its bot
    assert declined.status_code == 200 and declined.json["status"] == "declined" and declined.json["reason"] == "busy"
    second = challenge(client, sparring["token"], target["id"], expires_s=5).json
    conn.zadd(DUE_KEY, {second["id"]: 1})  # as if its time had passed
    assert Challenges(conn).expire_due() == 1
    third = challenge(client, sparring["token"], target["id"], expires_s=5).json
    stored = Challenges(conn).get(third["id"])
    conn.set(f"hg:ch:{{{third['id']}}}", json.dumps({**stored, "expires": "2000-01-01T00:00:00.000Z"}))
    assert client.get(f"/api/v1/challenges/{third['id']}").json["status"] == "expired"  # read: expired at once
    assert client.get(f"/api/v1/challenges/{second['id']}").json["status"] == "expired"
    assert client.post(f"/api/v1/challenges/{second['id']}/accept", headers=auth(target["token"])).status_code == 409
    for bot in (target, sparring):
        kinds = [(e["event"], e["data"]["id"]) for e in events(client, bot) if e["event"].startswith("challenge_")]
        assert kinds == [("challenge_declined", first["id"]), ("challenge_expired", second["id"]),
                         ("challenge_expired", third["id"])]


def test_the_owners_policy_answers_at_once(
        client: Any, conn: redis.Redis, owner: dict[str, Any], challenger: dict[str, Any],
        made: dict[str, list[str]], register: Callable[..., dict[str, Any]]) -> None:
    target = register("target-" + owner["id"][:6])
    peer = register("peer-" + owner["id"][:6])
    stranger = new_account(conn, made, "stranger")
    policy = f"/api/v1/bots/{target['id']}/challenge-policy"
    assert client.get(policy).json == {"policy": "ask"}
    assert client.put(policy, json={"policy": "accept_all"}, headers=auth(stranger["key"])).status_code == 403
    assert client.put(policy, json={"policy": "sometimes"}, headers=auth(owner["key"])).status_code == 400

    assert client.put(policy, json={"policy": "decline_all"}, headers=auth(owner["key"])).status_code == 200
    assert challenge(client, challenger["key"], target["id"]).json["status"] == "declined"

    assert client.put(policy, json={"policy": "accept_rated_peers"}, headers=auth(owner["key"])).status_code == 200
    unrated = challenge(client, peer["token"], target["id"]).json
    assert unrated["status"] == "declined" and "rated" in unrated["reason"]
    conn.hset(f"{ladder_key('artificium-2')}:ratings", peer["id"], '{"games":3,"mu":26.0,"name":"p","sigma":7.0}')
    conn.sadd(LADDERS_KEY, "artificium-2")
    try:
        rated = challenge(client, peer["token"], target["id"]).json
    finally:
        conn.delete(f"{ladder_key('artificium-2')}:ratings", LADDERS_KEY)
    assert rated["status"] == "accepted"
    made["games"].append(rated["game_id"])

    assert client.put(policy, json={"policy": "accept_all"}, headers=auth(owner["key"])).status_code == 200
    accepted = challenge(client, challenger["key"], target["id"], builtin="greedy", players=3, seat=2).json
    assert accepted["status"] == "accepted"
    made["games"].append(accepted["game_id"])
    seats = GameService(conn).load(accepted["game_id"]).info.seats
    assert [s.bot for s in seats] == [None, "greedy", None] and seats[1].kind == "bot"
    assert seats[0].bot_id == target["id"]  # the seat after the challenger's (seat 2), wrapping round
    assert [e["event"] for e in events(client, target) if e["event"].startswith("challenge")] == [
        "challenge_declined", "challenge_declined", "challenge_accepted", "challenge_accepted"]
    assert parse_ladder("artificium-2").players == 2 and LadderStore(conn).ladders() == []


def test_bad_challenges_are_problems(client: Any, owner: dict[str, Any], challenger: dict[str, Any],
                                     register: Callable[..., dict[str, Any]]) -> None:
    bot = register("target-" + owner["id"][:6])
    assert challenge(client, challenger["key"], "nosuchbot").status_code == 404
    assert challenge(client, challenger["key"], bot["id"], game="chess").status_code == 422
    assert challenge(client, challenger["key"], bot["id"], players=9).status_code == 400
    assert challenge(client, challenger["key"], bot["id"], seat=2).status_code == 422
    assert challenge(client, challenger["key"], bot["id"], builtin="nosuchbot").status_code == 422
    assert challenge(client, bot["token"], bot["id"]).status_code == 422  # itself
    assert challenge(client, challenger["key"], bot["id"], as_bot=bot["id"]).status_code == 403  # not its bot
    own = register("own-" + owner["id"][:6])
    as_bot = challenge(client, owner["key"], bot["id"], as_bot=own["id"])
    assert as_bot.status_code == 201 and as_bot.json["challenger"]["bot_id"] == own["id"]
    assert client.post("/api/v1/challenges", json={**BODY, "bot_id": bot["id"]}).status_code == 401
    assert client.get("/api/v1/challenges/cnosuch").status_code == 404


def test_challenge_spam_is_capped_and_the_challenger_pays(
        conn: redis.Redis, owner: dict[str, Any], challenger: dict[str, Any], made: dict[str, list[str]],
        register: Callable[..., dict[str, Any]]) -> None:
    bot = register("target-" + owner["id"][:6])
    paying = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 10_000,
                         "ACCOUNT_WORK_BUDGET": MAX_PENDING_BY + 2}).test_client()
    answers = [challenge(paying, challenger["key"], bot["id"]) for _ in range(MAX_PENDING_BY + 1)]
    assert [a.status_code for a in answers] == [201] * MAX_PENDING_BY + [429]
    assert answers[-1].json["kind"] == "TOO_MANY_CHALLENGES" and answers[-1].headers["Retry-After"]
    for a in answers[:2]:  # answered ones make room again
        paying.post(f"/api/v1/challenges/{a.json['id']}/decline", headers=auth(bot["token"]))
    assert challenge(paying, challenger["key"], bot["id"]).status_code == 201
    broke = challenge(paying, challenger["key"], bot["id"])  # 5 + the refused one + 1: the budget of 7 is spent
    assert broke.status_code == 429 and broke.json["kind"] == "WORK_BUDGET"
    others = new_account(conn, made, "other")
    assert challenge(paying, others["key"], bot["id"]).status_code == 201  # one challenger's spam costs nobody else
