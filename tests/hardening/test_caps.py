"""Finding 4: caps on open event streams and on live games, and TTLs on finished and abandoned games.

Before: 200 SSE streams from one address made the API time out for everyone, 2,000 games were
created in 11 s from one address, and no key of any game ever expired.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core.games import GameService
from core.retention import LIVE_KEY, Retention, game_keys
from core.store import meta_key
from service.app import create_app
from workers import jobs, sweeper

HUMANS = [{"name": "Ann"}, {"name": "Bob"}]
BOTS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "R2", "kind": "bot", "bot": "random"}]


@pytest.fixture
def app_factory(conn: redis.Redis, created: list[str]) -> Iterator[Any]:
    apps: list[Any] = []

    def make(**config: Any) -> Any:
        app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "CLIENT_SEEDS": "any",
                          "RATE_LIMIT": 10_000, "ANON_RATE_LIMIT": 10_000, "CREATE_RATE_LIMIT": 10_000,
                          "SSE_HEARTBEAT": 0.2, **config})
        apps.append(app)
        return app

    yield make
    for app in apps:
        created.extend(app.extensions.get("test.created", []))


def fresh_address() -> str:
    """A documentation-range address of this run alone (counts of earlier runs may linger): a /64
    of its own, since an IPv6 requester is its /64 block (service.auth.client_address)."""
    return f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"


ADDRESS = fresh_address()


def create(client: Any, seats: list[dict[str, Any]], created: list[str], **extra: Any) -> Any:
    response = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic", "seats": seats, **extra},
                           environ_base={"REMOTE_ADDR": ADDRESS})
    if response.status_code == 201:
        created.append(response.json["id"])
    return response


def test_open_streams_are_capped_per_address_and_per_token(app_factory: Any, created: list[str]) -> None:
    client = app_factory(SSE_PER_ADDRESS=3, SSE_PER_TOKEN=2).test_client()
    client.environ_base["REMOTE_ADDR"] = fresh_address()
    game = create(client, HUMANS, created).json
    path = f"/api/v1/games/{game['id']}/events/stream"
    auth = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    spectators = [client.get(path, buffered=False) for _ in range(3)]
    assert all(s.status_code == 200 for s in spectators)
    refused = client.get(path, buffered=False)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.json["kind"] == "TOO_MANY_STREAMS" and int(refused.headers["Retry-After"]) >= 1
    spectators.pop().close()  # a stream that ends frees its place at once
    spectators.append(client.get(path, buffered=False))
    assert spectators[-1].status_code == 200
    for s in reversed(spectators):  # the test client's streamed contexts unwind last-in, first-out
        s.close()
    seat = [client.get(path, headers=auth, buffered=False) for _ in range(2)]
    assert [s.status_code for s in seat] == [200, 200]
    third = client.get(path, headers=auth, buffered=False)
    assert third.status_code == 429 and "this token" in third.json["detail"]
    for s in reversed(seat):
        s.close()


def test_live_games_are_capped_per_creating_address_and_overall(
        app_factory: Any, conn: redis.Redis, created: list[str]) -> None:
    global ADDRESS
    ADDRESS = fresh_address()
    app = app_factory(MAX_LIVE_GAMES_PER_ADDRESS=2)
    client = app.test_client()
    first, second = (create(client, HUMANS, created) for _ in range(2))
    assert first.status_code == second.status_code == 201
    third = create(client, HUMANS, created)
    assert third.status_code == 429 and third.json["kind"] == "TOO_MANY_GAMES" and int(third.headers["Retry-After"]) >= 60
    other = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic", "seats": HUMANS},
                        environ_base={"REMOTE_ADDR": fresh_address()})
    assert other.status_code == 201  # another address is not held back
    created.append(other.json["id"])
    svc: GameService = app.extensions["hourglass"]
    bots = create(app_factory(MAX_LIVE_GAMES_PER_ADDRESS=3).test_client(), BOTS, created, seed="caps-bots")
    while jobs.run_advance(svc, bots.json["id"]).get("continued"):
        pass
    assert conn.zscore(LIVE_KEY, bots.json["id"]) is None  # a finished game is no longer live
    assert create(app_factory(MAX_LIVE_GAMES_PER_ADDRESS=3).test_client(), HUMANS, created).status_code == 201

    total = int(conn.zcard(LIVE_KEY))  # type: ignore[arg-type]
    full = app_factory(MAX_LIVE_GAMES_PER_ADDRESS=100, MAX_LIVE_GAMES=total + 1).test_client()
    assert create(full, HUMANS, created).status_code == 201
    at_capacity = create(full, HUMANS, created)
    assert at_capacity.status_code == 503 and at_capacity.json["kind"] == "AT_CAPACITY"
    assert int(at_capacity.headers["Retry-After"]) >= 60


def test_a_finished_game_keeps_its_keys_for_the_retention_period(
        conn: redis.Redis, created: list[str], queue_name: str) -> None:
    svc = GameService(conn, client_seeds="any", retention=Retention(finished_ttl_s=3600))
    game_id = svc.create({"game": "orleans", "edition": "classic", "seats": BOTS, "seed": "ttl-finished"})["id"]
    created.append(game_id)
    assert conn.ttl(meta_key(game_id)) == -1  # a live game never expires by itself
    while jobs.run_advance(svc, game_id).get("continued"):
        pass
    assert svc.load(game_id).finished
    ttls = {key: conn.ttl(key) for key in game_keys(game_id) if conn.exists(key)}
    assert ttls and all(0 < ttl <= 3600 for ttl in ttls.values()), ttls
    svc.store.store_bundle(game_id, "bundle")
    assert 0 < conn.ttl(f"hg:{{{game_id}}}:bundle") <= 3600


def test_an_abandoned_game_expires_refuses_moves_and_its_keys_get_a_ttl(
        app_factory: Any, conn: redis.Redis, created: list[str], queue_name: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_factory()
    client = app.test_client()
    game = create(client, [{"name": "Ann"}, {"name": "R", "kind": "bot", "bot": "random"}], created).json
    svc = GameService(conn, retention=Retention(abandon_after_s=1, expired_ttl_s=600))
    jobs.run_advance(svc, game["id"])
    time.sleep(1.2)
    assert game["id"] in svc.live.idle()
    every_idle = svc.live.idle  # only this test's game: others of the run are not this test's to expire
    monkeypatch.setattr(svc.live, "idle", lambda limit=100: [g for g in every_idle(limit) if g == game["id"]])
    assert sweeper.expire_abandoned(svc) == 1
    summary = client.get(f"/api/v1/games/{game['id']}").json
    assert summary["status"] == "expired"
    assert all(0 < conn.ttl(key) <= 600 for key in game_keys(game["id"]) if conn.exists(key))
    auth = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    move = client.get(f"/api/v1/games/{game['id']}/moves", headers=auth).json["moves"][0]
    refused = client.post(f"/api/v1/games/{game['id']}/moves", json=move, headers=auth)
    assert refused.status_code == 422 and refused.json["kind"] == "GAME_OVER" and "expired" in refused.json["detail"]
    assert jobs.run_advance(svc, game["id"])["status"] == "expired"  # a late job does nothing
