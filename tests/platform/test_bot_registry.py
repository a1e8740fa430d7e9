"""Bots as identities: registration, ownership, secrets at rest, rotation, seats that name a bot, no leaks."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
import redis

from core.bots import BotRegistry, bot_key, token_sha256
from tests.platform.conftest import auth, new_account, unique

BOT_URL = "http://127.0.0.1:9/move"


@pytest.fixture(autouse=True)
def allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOURGLASS_BOT_HOSTS", "127.0.0.1:9")


def redis_dump(conn: redis.Redis, bot_id: str) -> bytes:
    """Everything Redis holds about bots, as one blob to search for plaintext."""
    parts = [repr(conn.hgetall(bot_key(bot_id))).encode(), repr(conn.hgetall("hg:bots:tokens")).encode(),
             repr(conn.hgetall("hg:bots:names")).encode()]
    return b"\n".join(parts)


def test_a_pull_bot_gets_a_token_once_and_redis_keeps_only_its_hash(
        client: Any, conn: redis.Redis, register: Callable[..., dict[str, Any]]) -> None:
    bot = register(unique("puller"))
    assert bot["kind"] == "pull" and bot["token"].startswith("hgb_") and "secret" not in bot
    stored = redis_dump(conn, bot["id"])
    assert bot["token"].encode() not in stored and token_sha256(bot["token"]).encode() in stored
    public = client.get(f"/api/v1/bots/{bot['id']}").json
    assert public == {"id": bot["id"], "name": bot["name"], "kind": "pull", "created": bot["created"],
                      "owner": bot["owner"], "open": False}


def test_an_http_bot_secret_is_encrypted_at_rest_and_usable_to_sign(
        conn: redis.Redis, register: Callable[..., dict[str, Any]]) -> None:
    generated = register(unique("pusher"), "http", url=BOT_URL)
    chosen_secret = "s" * 40
    chosen = register(unique("pusher"), "http", url=BOT_URL, secret=chosen_secret)
    assert len(generated["secret"]) == 64 and "secret" not in chosen
    for bot, secret in ((generated, generated["secret"]), (chosen, chosen_secret)):
        stored = redis_dump(conn, bot["id"])
        assert secret.encode() not in stored and bot["token"].encode() not in stored
        assert BotRegistry(conn).secret(bot["id"]) == secret  # the worker can sign with it


@pytest.mark.parametrize("body, status, kind", [
    ({"kind": "http", "url": "http://10.1.2.3:9/move"}, 422, "INVALID_CONFIG"),  # not on the allow-list
    ({"kind": "http"}, 422, "INVALID_CONFIG"),
    ({"kind": "http", "url": BOT_URL, "secret": "short"}, 422, "INVALID_CONFIG"),
    ({"kind": "pull", "url": BOT_URL}, 422, "INVALID_CONFIG"),
    ({"kind": "carrier-pigeon"}, 400, "MALFORMED"),
])
def test_bad_registrations_are_problems(client: Any, owner: dict[str, Any], body: dict[str, Any], status: int,
                                       kind: str) -> None:
    response = client.post("/api/v1/bots", json={"name": unique("bad"), **body}, headers=auth(owner["key"]))
    assert response.status_code == status and response.json["kind"] == kind
    assert response.mimetype == "application/problem+json"


def test_names_are_unique_ignoring_case(client: Any, owner: dict[str, Any], register: Callable[..., dict[str, Any]]) -> None:
    name = unique("Twin")
    register(name)
    response = client.post("/api/v1/bots", json={"name": name.lower(), "kind": "pull"}, headers=auth(owner["key"]))
    assert response.status_code == 409 and response.json["kind"] == "NAME_TAKEN"


def test_token_rotation_voids_the_old_token_at_once(client: Any, owner: dict[str, Any],
                                                    register: Callable[..., dict[str, Any]]) -> None:
    bot = register(unique("rotor"))
    other = register(unique("other"))
    assert client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(bot["token"])).status_code == 200
    assert client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(other["token"])).status_code == 403
    assert client.get(f"/api/v1/bots/{bot['id']}/events").status_code == 401
    assert client.post(f"/api/v1/bots/{bot['id']}/token", headers=auth(bot["token"])).status_code == 401  # the owner's
    rotated = client.post(f"/api/v1/bots/{bot['id']}/token", headers=auth(owner["key"]))
    assert rotated.status_code == 200 and rotated.json["token"] != bot["token"]
    assert client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(bot["token"])).status_code == 401
    assert client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(rotated.json["token"])).status_code == 200


def test_secret_rotation_changes_what_the_worker_signs_with(
        client: Any, conn: redis.Redis, owner: dict[str, Any], register: Callable[..., dict[str, Any]]) -> None:
    bot = register(unique("signer"), "http", url=BOT_URL)
    response = client.post(f"/api/v1/bots/{bot['id']}/secret", headers=auth(owner["key"]), json={})
    assert response.status_code == 200 and response.json["rotated"] is True
    assert response.json["secret"] != bot["secret"] and BotRegistry(conn).secret(bot["id"]) == response.json["secret"]
    chosen = "c" * 48
    response = client.post(f"/api/v1/bots/{bot['id']}/secret", headers=auth(owner["key"]), json={"secret": chosen})
    assert response.status_code == 200 and "secret" not in response.json
    assert BotRegistry(conn).secret(bot["id"]) == chosen
    puller = register(unique("nosecret"))
    refused = client.post(f"/api/v1/bots/{puller['id']}/secret", headers=auth(owner["key"]), json={})
    assert refused.status_code == 422


def test_a_seat_names_a_bot_and_its_token_plays_that_seat_only(
        client: Any, owner: dict[str, Any], register: Callable[..., dict[str, Any]], made: dict[str, list[str]]) -> None:
    bot = register(unique("seated"))
    response = client.post("/api/v1/games", json={
        "game": "artificium", "seed": "seat-test",
        "seats": [{"bot_id": bot["id"], "deadline_s": 30}, {"name": "Rand", "kind": "bot", "bot": "random"}]},
        headers=auth(owner["key"]))
    assert response.status_code == 201, response.json
    game = response.json
    made["games"].append(game["id"])
    seat = game["seats"][0]
    assert seat["name"] == bot["name"] and seat["kind"] == "pull" and "token" not in seat and "secret" not in seat
    summary = client.get(f"/api/v1/games/{game['id']}").json
    assert summary["seats"][0]["bot_id"] == bot["id"] and summary["seats"][0]["clock"] == {"move_s": 30}
    moves = client.get(f"/api/v1/games/{game['id']}/moves", headers=auth(bot["token"]))
    assert moves.status_code == 200 and moves.json["seat"] == 0
    stranger = register(unique("stranger"))
    assert client.get(f"/api/v1/games/{game['id']}/moves", headers=auth(stranger["token"])).status_code == 401
    twice = client.post("/api/v1/games", json={"game": "artificium", "seed": "x",
                                                "seats": [{"bot_id": bot["id"]}, {"bot_id": bot["id"]}]},
                        headers=auth(owner["key"]))
    assert twice.status_code == 422
    unknown = client.post("/api/v1/games", json={"game": "artificium", "seed": "x",
                                                  "seats": [{"bot_id": "nope"}, {"name": "A"}]})
    assert unknown.status_code == 422 and "no bot" in unknown.json["detail"]


def test_no_response_or_log_line_other_than_registration_and_rotation_shows_a_token_or_secret(
        client: Any, owner: dict[str, Any], register: Callable[..., dict[str, Any]], made: dict[str, list[str]],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    pusher = register(unique("leakp"), "http", url=BOT_URL)
    puller = register(unique("leakq"))
    rotated = client.post(f"/api/v1/bots/{puller['id']}/token", headers=auth(owner["key"])).json["token"]
    secrets = [pusher["token"], pusher["secret"], puller["token"], rotated, owner["key"]]
    game = client.post("/api/v1/games", json={"game": "artificium", "seed": "leaks",
                                              "seats": [{"bot_id": pusher["id"]}, {"bot_id": puller["id"]}]},
                       headers=auth(owner["key"])).json
    made["games"].append(game["id"])
    bodies = [str(game)]
    for path in ("/api/v1/bots", f"/api/v1/bots/{pusher['id']}", f"/api/v1/bots/{puller['id']}",
                 f"/api/v1/games/{game['id']}", f"/api/v1/games/{game['id']}/state", f"/api/v1/games/{game['id']}/events",
                 "/openapi.json"):
        bodies.append(client.get(path).get_data(as_text=True))
    for token in (pusher["token"], rotated):
        bot_id = pusher["id"] if token == pusher["token"] else puller["id"]
        bodies.append(client.get(f"/api/v1/bots/{bot_id}/events", headers=auth(token)).get_data(as_text=True))
        bodies.append(client.get(f"/api/v1/bots/{bot_id}", headers=auth(token)).get_data(as_text=True))
        bodies.append(client.get(f"/api/v1/games/{game['id']}/state", headers=auth(token)).get_data(as_text=True))
    for path in ("/api/v1/account", "/api/v1/account/keys", "/api/v1/account/games", "/api/v1/account/events",
                 f"/api/v1/bots/{pusher['id']}"):
        bodies.append(client.get(path, headers=auth(owner["key"])).get_data(as_text=True))
    everything = "\n".join(bodies) + caplog.text
    assert pusher["name"] in everything  # the search looked at real answers
    for secret in secrets:
        assert secret not in everything


def test_only_the_owner_enters_rotates_opens_or_deletes_its_bot(
        client: Any, conn: redis.Redis, owner: dict[str, Any], register: Callable[..., dict[str, Any]],
        made: dict[str, list[str]]) -> None:
    """Issue 22: any caller could enter any registered bot into any tournament."""
    bot = register(unique("mine"))
    stranger = new_account(conn, made, "stranger")
    theirs = auth(stranger["key"])
    seats = [{"bot_id": bot["id"]}, {"name": "R", "kind": "bot", "bot": "random"}]
    body = {"game": "artificium", "seed": "owned", "seats": seats}
    for headers in (theirs, {}):  # another account, and nobody
        entered = client.post("/api/v1/games", json=body, headers=headers)
        assert entered.status_code == 403 and entered.json["kind"] == "FORBIDDEN", entered.json
    tournament = {"game": "artificium", "players_per_game": 2, "entrants": [{"bot_id": bot["id"]}, {"builtin": "random"}]}
    refused = client.post("/api/v1/tournaments", json=tournament, headers=theirs)
    assert refused.status_code == 403 and "belongs to another account" in refused.json["detail"]
    for method, path in (("post", "token"), ("post", "secret")):
        answer = getattr(client, method)(f"/api/v1/bots/{bot['id']}/{path}", headers=theirs, json={})
        assert answer.status_code == 403, (path, answer.json)
    assert client.patch(f"/api/v1/bots/{bot['id']}", json={"open": True}, headers=theirs).status_code == 403
    assert client.delete(f"/api/v1/bots/{bot['id']}", headers=theirs).status_code == 403
    assert client.get(f"/api/v1/bots/{bot['id']}").status_code == 200  # all of it changed nothing
    assert client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(bot["token"])).status_code == 200

    opened = client.patch(f"/api/v1/bots/{bot['id']}", json={"open": True}, headers=auth(owner["key"]))
    assert opened.status_code == 200 and opened.json["open"] is True
    game = client.post("/api/v1/games", json=body, headers=theirs)  # an open bot: anyone may enter it
    assert game.status_code == 201, game.json
    made["games"].append(game.json["id"])
    busy = client.delete(f"/api/v1/bots/{bot['id']}", headers=auth(owner["key"]))
    assert busy.status_code == 409 and busy.json["kind"] == "BOT_BUSY"  # it sits in a live game


def test_registering_needs_an_account_key_with_the_bots_scope(
        client: Any, conn: redis.Redis, owner: dict[str, Any], made: dict[str, list[str]]) -> None:
    anonymous = client.post("/api/v1/bots", json={"name": unique("anon"), "kind": "pull"})
    assert anonymous.status_code == 401 and anonymous.json["kind"] == "UNAUTHORIZED"
    narrow = client.post("/api/v1/account/keys", json={"scopes": ["play"]}, headers=auth(owner["key"]))
    assert narrow.status_code == 201
    refused = client.post("/api/v1/bots", json={"name": unique("narrow"), "kind": "pull"}, headers=auth(narrow.json["key"]))
    assert refused.status_code == 403 and "bots" in refused.json["detail"]


def test_the_owner_deletes_an_idle_bot_and_its_name_and_token_go_with_it(
        client: Any, owner: dict[str, Any], register: Callable[..., dict[str, Any]], made: dict[str, list[str]]) -> None:
    bot = register(unique("gone"))
    deleted = client.delete(f"/api/v1/bots/{bot['id']}", headers=auth(owner["key"]))
    assert deleted.status_code == 204
    assert client.get(f"/api/v1/bots/{bot['id']}").status_code == 404
    assert client.get(f"/api/v1/bots/{bot['id']}/events", headers=auth(bot["token"])).status_code == 404
    again = client.post("/api/v1/bots", json={"name": bot["name"], "kind": "pull"}, headers=auth(owner["key"]))
    assert again.status_code == 201
    made["bots"].append(again.json["id"])
