"""Finding 4: while Redis is unreachable every endpoint answers 503 problem+json with
Retry-After, promptly, and the app recovers by itself when Redis is back.

The app runs under Flask's test client on a private redis-server (rate limits on, so the
limiter's own Redis calls are covered too), which is SIGKILLed and then started again, empty.
"""
from __future__ import annotations

import time
from typing import Any

import pytest

from core.connection import connect
from service.app import create_app
from tests.hardening.conftest import RedisServer

PROMPT_S = 5.0  # a 503 must not wait out a long reconnect schedule


@pytest.fixture
def client(private_redis: RedisServer) -> Any:
    app = create_app({"REDIS": connect(private_redis.url), "TESTING": True, "ADVANCE": "off",
                      "CLIENT_SEEDS": "any"})
    return app.test_client()


def test_every_endpoint_is_503_while_redis_is_down_and_recovers(client: Any, private_redis: RedisServer) -> None:
    game = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic",
                                              "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    assert game.status_code == 201
    gid, token = game.json["id"], game.json["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    move = {"type": "DrawFollowers", "count": 4}
    new_game = {"game": "orleans", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]}

    private_redis.kill()
    calls = [
        ("get", f"/api/v1/games/{gid}", {}, None),
        ("get", f"/api/v1/games/{gid}/state", auth, None),
        ("get", f"/api/v1/games/{gid}/moves", auth, None),
        ("get", f"/api/v1/games/{gid}/events?after=0", auth, None),
        ("get", f"/api/v1/games/{gid}/events/stream", auth, None),
        ("get", f"/api/v1/games/{gid}/states/1", {}, None),
        ("get", f"/api/v1/games/{gid}/replay", {}, None),
        ("get", "/openapi.json", {}, None),
        ("post", "/api/v1/games", {}, new_game),
        ("post", f"/api/v1/games/{gid}/moves", {**auth, "Idempotency-Key": "k1"}, move),
    ]
    for method, path, headers, body in calls:
        started = time.monotonic()
        response = getattr(client, method)(path, headers=headers, json=body)
        took = time.monotonic() - started
        assert response.status_code == 503, (path, response.status_code, response.get_data(as_text=True)[:300])
        assert response.mimetype == "application/problem+json" and int(response.headers["Retry-After"]) >= 1
        assert response.json["kind"] == "UNAVAILABLE" and response.json["status"] == 503
        assert took < PROMPT_S, f"{path} took {took:.1f} s to answer 503"
    assert "Idempotency-Key" in response.json["detail"]  # the move POST: retry it with the same key

    private_redis.start()
    assert client.get("/api/v1/games/0000000000000000").status_code == 404  # back by itself
    assert client.post("/api/v1/games", json=new_game).status_code == 201
