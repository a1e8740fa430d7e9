"""Accounts (issue 22): sign-up under the operator's policy, keys with scopes that are shown once
and stored as hashes, revocation and rotation, the operator's admin scope, seats bound to an
account, invitations on the account's stream, and a lobby that a joiner cannot empty."""
from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from conftest import auth, run_worker

from core.accounts import ALL_KEY, INVITES_KEY, KEYS_KEY, Accounts, account_key, digest, keys_key
from service.app import create_app
from tests.conftest import forget_games

BODY = {"game": "toy", "edition": "classic", "seats": [{"name": "Ann"}, {"kind": "open"}]}


@pytest.fixture
def accounts(conn: redis.Redis) -> Iterator[list[str]]:
    """Account ids to delete after the test."""
    ids: list[str] = []
    yield ids
    Accounts(conn).delete(ids)


def _app(conn: redis.Redis, **config: Any) -> Any:
    return create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "CLIENT_SEEDS": "any", "RATE_LIMIT": 0,
                       **config}).test_client()


def _name() -> str:
    return f"acct-{uuid.uuid4().hex[:10]}"


def sign_up(client: Any, accounts: list[str], **extra: Any) -> Any:
    response = client.post("/api/v1/accounts", json={"name": _name(), **extra},
                           environ_base={"REMOTE_ADDR": f"10.55.{random.randrange(256)}.{random.randrange(1, 255)}"})
    if response.status_code == 201:
        accounts.append(response.json["id"])
    return response


def test_sign_up_shows_the_key_once_and_keeps_only_its_hash(conn: redis.Redis, accounts: list[str]) -> None:
    client = _app(conn)
    made = sign_up(client, accounts)
    assert made.status_code == 201
    body = made.json
    assert body["key"].startswith(f"hga_{body['key_id']}_") and body["scopes"] == ["bots", "play", "tournaments"]
    stored = repr(conn.hgetall(account_key(body["id"]))) + repr(conn.hgetall(keys_key(body["id"]))) + repr(
        conn.hgetall(KEYS_KEY))
    assert body["key"] not in stored
    me = client.get("/api/v1/account", headers=auth(body["key"]))
    assert me.status_code == 200 and me.json["name"] == body["name"] and "key" not in me.json
    assert set(me.json["budgets"]) == {"requests", "work", "live_games"}
    listed = client.get("/api/v1/account/keys", headers=auth(body["key"])).json["keys"]
    assert [k["id"] for k in listed] == [body["key_id"]] and body["key"] not in json.dumps(listed)
    taken = client.post("/api/v1/accounts", json={"name": body["name"].upper()})
    assert taken.status_code == 409 and taken.json["kind"] == "NAME_TAKEN"
    assert client.post("/api/v1/accounts", json={"name": "x"}).status_code == 400


def test_keys_are_scoped_revocable_and_rotatable(conn: redis.Redis, accounts: list[str]) -> None:
    client = _app(conn)
    first = sign_up(client, accounts).json["key"]
    narrow = client.post("/api/v1/account/keys", json={"scopes": ["play"], "label": "phone"}, headers=auth(first))
    assert narrow.status_code == 201 and narrow.json["scopes"] == ["play"]
    key = narrow.json["key"]
    wider = client.post("/api/v1/account/keys", json={"scopes": ["play", "bots"]}, headers=auth(key))
    assert wider.status_code == 403  # a key gives only its own scopes
    admin = client.post("/api/v1/account/keys", json={"scopes": ["admin"]}, headers=auth(first))
    assert admin.status_code == 403
    tournament = client.post("/api/v1/tournaments", json={"game": "toy", "players_per_game": 2,
                                                          "entrants": [{"builtin": "random"}, {"builtin": "random"}]},
                             headers=auth(key))
    assert tournament.status_code == 403 and "tournaments" in tournament.json["detail"]
    rotated = client.post(f"/api/v1/account/keys/{narrow.json['key_id']}/rotate", headers=auth(first))
    assert rotated.status_code == 200 and rotated.json["key_id"] == narrow.json["key_id"]
    assert client.get("/api/v1/account", headers=auth(key)).status_code == 401  # the old secret is void
    assert client.get("/api/v1/account", headers=auth(rotated.json["key"])).status_code == 200
    assert client.delete(f"/api/v1/account/keys/{narrow.json['key_id']}", headers=auth(first)).status_code == 204
    assert client.get("/api/v1/account", headers=auth(rotated.json["key"])).status_code == 401
    assert client.delete("/api/v1/account/keys/nope", headers=auth(first)).status_code == 404


def test_sign_up_follows_the_operators_policy(conn: redis.Redis, accounts: list[str]) -> None:
    closed = _app(conn, SIGNUP="closed")
    refused = sign_up(closed, accounts)
    assert refused.status_code == 403 and refused.json["kind"] == "SIGNUP_REFUSED"
    by_invite = _app(conn, SIGNUP="invite")
    assert sign_up(by_invite, accounts).status_code == 403
    code = Accounts(conn).invite()
    assert sign_up(by_invite, accounts, invite="hgi_forged").status_code == 403
    assert sign_up(by_invite, accounts, invite=code).status_code == 201
    assert sign_up(by_invite, accounts, invite=code).status_code == 403  # single use
    assert not conn.hexists(INVITES_KEY, digest(code))


def test_sign_ups_are_limited_per_address(conn: redis.Redis, accounts: list[str]) -> None:
    client = _app(conn, RATE_LIMIT=600, SIGNUPS_PER_ADDRESS=2)
    here = {"REMOTE_ADDR": f"10.56.{random.randrange(256)}.{random.randrange(1, 255)}"}
    codes = []
    for _ in range(3):
        answer = client.post("/api/v1/accounts", json={"name": _name()}, environ_base=here)
        if answer.status_code == 201:
            accounts.append(answer.json["id"])
        codes.append(answer.status_code)
    assert codes == [201, 201, 429]


def test_the_admin_scope_disables_grants_and_invites(conn: redis.Redis, accounts: list[str]) -> None:
    client = _app(conn)
    registry = Accounts(conn)
    operator = registry.create(_name(), ["admin"], allow_admin=True)
    accounts.append(operator["id"])
    player = sign_up(client, accounts).json
    assert client.get("/api/v1/accounts", headers=auth(player["key"])).status_code == 403
    everyone = client.get("/api/v1/accounts", headers=auth(operator["key"]))
    assert everyone.status_code == 200 and player["id"] in {a["id"] for a in everyone.json["accounts"]}
    granted = client.put(f"/api/v1/accounts/{player['name']}/grants", json={"work": 5000},
                         headers=auth(operator["key"]))
    assert granted.status_code == 200 and registry.get(player["id"]).grants == {"work": 5000}
    off = client.post(f"/api/v1/accounts/{player['id']}/disable", headers=auth(operator["key"]))
    assert off.status_code == 200 and off.json["status"] == "disabled"
    assert client.get("/api/v1/account", headers=auth(player["key"])).status_code == 401
    on = client.post(f"/api/v1/accounts/{player['id']}/enable", headers=auth(operator["key"]))
    assert on.status_code == 200 and client.get("/api/v1/account", headers=auth(player["key"])).status_code == 200
    invite = client.post("/api/v1/accounts/invites", headers=auth(operator["key"]))
    assert invite.status_code == 201 and invite.json["invite"].startswith("hgi_")
    assert conn.hdel(INVITES_KEY, digest(invite.json["invite"])) == 1
    assert conn.zscore(ALL_KEY, player["id"]) is not None


def test_seats_created_or_joined_with_a_key_belong_to_the_account(
        conn: redis.Redis, accounts: list[str], created: list[str]) -> None:
    client = _app(conn)
    ann, cleo = (sign_up(client, accounts).json for _ in range(2))
    game = client.post("/api/v1/games", json=BODY, headers=auth(ann["key"])).json
    created.append(game["id"])
    joined = client.post(f"/api/v1/games/{game['id']}/seats/1/join", json={"name": "Cleo"}, headers=auth(cleo["key"]))
    assert joined.status_code == 200
    for who, seat in ((ann, 0), (cleo, 1)):
        listed = client.get("/api/v1/account/games", headers=auth(who["key"])).json["games"]
        assert [(g["id"], g["seat"]) for g in listed] == [(game["id"], seat)]
        state = client.get(f"/api/v1/games/{game['id']}/state", headers=auth(who["key"]))
        assert state.status_code == 200 and state.json["seat"] == seat  # the account key speaks for its seat
    stranger = sign_up(client, accounts).json
    assert client.get(f"/api/v1/games/{game['id']}/state", headers=auth(stranger["key"])).json["seat"] is None
    events = client.get("/api/v1/account/events", headers=auth(cleo["key"])).json["events"]
    assert [e["event"] for e in events][:1] == ["game_started"] and events[0]["data"]["seat"] == 1
    past = client.get("/api/v1/account/events?after=99999999999999-0", headers=auth(cleo["key"]))
    assert past.status_code == 400  # a resume point past the end is refused, never a silent skip


def test_an_open_seat_kept_for_an_account_is_announced_on_its_stream(
        conn: redis.Redis, accounts: list[str], created: list[str]) -> None:
    client = _app(conn)
    ann, bob, eve = (sign_up(client, accounts).json for _ in range(3))
    body = {**BODY, "seats": [{"name": "Ann"}, {"kind": "open", "invite_account": bob["name"]}]}
    game = client.post("/api/v1/games", json=body, headers=auth(ann["key"])).json
    created.append(game["id"])
    invite = client.get("/api/v1/account/events", headers=auth(bob["key"])).json["events"]
    assert [e["event"] for e in invite] == ["invite_received"]
    assert invite[0]["data"] == {"game": game["id"], "seat": 1, "game_type": "toy", "edition": "classic",
                                 "from": ann["name"]}
    assert game["id"] not in {g["id"] for g in client.get("/api/v1/games?open=true&limit=100").json["games"]}
    stolen = client.post(f"/api/v1/games/{game['id']}/seats/1/join", json={"name": "Eve"}, headers=auth(eve["key"]))
    assert stolen.status_code == 403
    taken = client.post(f"/api/v1/games/{game['id']}/seats/1/join", json={"name": "Bob"}, headers=auth(bob["key"]))
    assert taken.status_code == 200 and taken.json["status"] == "active"
    unknown = client.post("/api/v1/games", json={**BODY, "seats": [{"name": "A"}, {"kind": "open",
                                                                                   "invite_account": "nobody-here"}]})
    assert unknown.status_code == 422


def test_a_joiner_who_aborts_or_leaves_early_gives_the_seat_back_and_the_game_stays_listed(
        conn: redis.Redis, created: list[str]) -> None:
    """Issue 22: join an open seat, then abort — a script emptied 10 of 10 public open games."""
    client = _app(conn)
    game = client.post("/api/v1/games", json=BODY).json
    created.append(game["id"])
    url = f"/api/v1/games/{game['id']}"
    svc = client.application.extensions["hourglass"]
    for action in ("abort", "leave"):
        joined = client.post(f"{url}/seats/1/join", json={"name": "Grief"}).json
        run_worker(svc, game["id"])
        gave_back = client.post(f"{url}/{action}", headers=auth(joined["token"]))
        assert gave_back.status_code == 200 and gave_back.json["events"][0]["type"] == "SeatVacated", gave_back.json
        summary = client.get(url).json
        assert summary["status"] == "open" and summary["seats"][1]["status"] == "open"
        assert summary["seats"][1]["kind"] == "open" and summary["result"] is None
        assert game["id"] in {g["id"] for g in client.get("/api/v1/games?open=true&limit=100").json["games"]}
        assert client.get(f"{url}/state", headers=auth(joined["token"])).status_code == 401  # its token is void
    creator = game["seats"][0]["token"]
    player = client.post(f"{url}/seats/1/join", json={"name": "Player"}).json
    run_worker(svc, game["id"])
    first = client.get(f"{url}/moves", headers=auth(creator)).json["moves"][0]
    assert client.post(f"{url}/moves", json=first, headers=auth(creator)).status_code == 200
    late = client.post(f"{url}/abort", headers=auth(player["token"]))
    assert late.status_code == 422 and "only the seats the game was created with" in late.json["detail"]
    assert client.post(f"{url}/leave", headers=auth(player["token"])).status_code == 422
    assert client.post(f"{url}/leave", headers=auth(creator)).status_code == 422  # not a joined seat
    assert client.get(url).json["status"] == "active"


def test_listing_the_accounts_games_folds_only_the_live_ones(
        conn: redis.Redis, accounts: list[str], created: list[str], trips: list[str]) -> None:
    """What a page of ``GET /account/games`` costs: the game index, every game's meta in one
    pipeline, and a fold only for the games still being played (a stranger cannot make a page
    fold hundreds of finished games)."""
    client = _app(conn)
    key = sign_up(client, accounts).json["key"]
    games = [client.post("/api/v1/games", json={**BODY, "seats": [{"name": "A"}, {"name": "B"}]},
                         headers=auth(key)).json for _ in range(4)]
    created.extend(g["id"] for g in games)
    for game in games[1:]:
        assert client.post(f"/api/v1/games/{game['id']}/abort", headers=auth(game["seats"][0]["token"])).status_code == 200
    client.application.extensions["hourglass"].repository.forget()  # a process that holds none of them
    trips.clear()
    listed = client.get("/api/v1/account/games", headers=auth(key)).json["games"]
    assert len(listed) == 8 and {g["status"] for g in listed} == {"active", "aborted"}
    assert [g["to_act"] for g in listed if g["status"] == "active"] == [True, True]
    assert trips.count("XRANGE") == 1, trips  # the one live game, folded once for both of its seats


def test_the_accounts_game_index_keeps_its_newest_seats_and_drops_expired_games(
        conn: redis.Redis, accounts: list[str], created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The index of an account's seats is bounded: a script that plays for years keeps only the newest
    ``ACCOUNT_GAMES_KEPT`` entries, and a listing that meets a game gone from Redis (expired) removes
    its entry, so the index never points at nothing for long."""
    import core.botfeed
    from core.botfeed import games_key

    monkeypatch.setattr(core.botfeed, "ACCOUNT_GAMES_KEPT", 3)
    client = _app(conn)
    who = sign_up(client, accounts).json
    games = []
    for _ in range(3):
        game = client.post("/api/v1/games", json=BODY, headers=auth(who["key"])).json
        created.append(game["id"])
        games.append(game["id"])
        time.sleep(0.002)  # distinct creation times: the index is ordered by them
    assert conn.zcard(games_key(who["id"])) == 3
    newest = client.post("/api/v1/games", json=BODY, headers=auth(who["key"])).json["id"]
    created.append(newest)
    kept = {m.decode().rpartition(":")[0] for m in conn.zrange(games_key(who["id"]), 0, -1)}
    assert kept == {*games[1:], newest}  # the oldest seat fell out of the index
    forget_games(conn, [games[1]])  # as if it had expired: every key of it gone
    listed = client.get("/api/v1/account/games", headers=auth(who["key"])).json["games"]
    assert [g["id"] for g in listed] == [newest, games[2]]
    assert conn.zcard(games_key(who["id"])) == 2  # the listing removed the dangling entry


def test_a_listing_leaves_out_an_account_or_bot_removed_while_it_reads(conn: redis.Redis) -> None:
    """The index and the records are read in two steps: an entry whose record went in between
    (deleted by an operator, a bot retired) is left out, never a 500 for the whole listing."""
    from core.bots import ALL_KEY as BOTS_KEY
    from core.bots import BotRegistry

    ghost = f"ghost{uuid.uuid4().hex[:10]}"
    conn.zadd(ALL_KEY, {ghost: 0})
    conn.zadd(BOTS_KEY, {ghost: 0})
    try:
        assert ghost not in {a.account_id for a in Accounts(conn).listing(limit=10_000)}
        assert ghost not in {b.bot_id for b in BotRegistry(conn).listing(limit=10_000)}
    finally:
        conn.zrem(ALL_KEY, ghost)
        conn.zrem(BOTS_KEY, ghost)
