"""How many times a POST move talks to Redis (issue 14: one round trip in the common case).

Counts what the app's connection sends: every command or pipeline written to a socket is one
round trip. Nothing here measures time.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.connection import Connection

from domain.core import SYSTEM
from service.app import create_app


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The first word of every write to Redis (a pipeline's writes count once)."""
    sent: list[str] = []
    real = Connection.send_packed_command

    def counting(self: Connection, command: Any, check_health: bool = True) -> None:
        first = command[0] if isinstance(command, list) else command
        head = bytes(first)[:60].split(b"\r\n")
        sent.append(head[2].decode() if len(head) > 2 else "?")
        real(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", counting)
    yield sent


@pytest.fixture
def limited_app(conn: redis.Redis) -> Any:
    """The app as served: every rate limit on, no worker behind it."""
    pool = redis.ConnectionPool.from_url(conn.connection_pool.connection_kwargs and _url(conn))
    return create_app({"REDIS": redis.Redis(connection_pool=pool), "TESTING": True, "CLIENT_SEEDS": "any",
                       "RATE_LIMIT": 600, "ADVANCE": lambda game_id, version: None})


def _url(conn: redis.Redis) -> str:
    kw = conn.connection_pool.connection_kwargs
    return f"redis://{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"


def _human_turn(client: Any, svc: Any, game_id: str, tokens: dict[int, str]) -> tuple[dict[str, str], dict[str, Any]]:
    game = svc.load(game_id)
    while SYSTEM in game.to_act:  # what a worker would do, through the same append path
        svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM), expected_version=game.version)
        game = svc.load(game_id)
    seat = min(a for a in game.to_act if isinstance(a, int))
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    moves = client.get(f"/api/v1/games/{game_id}/moves", headers=auth).get_json()
    return auth, moves


def test_a_move_is_one_round_trip(limited_app: Any, created: list[str], trips: list[str]) -> None:
    client = limited_app.test_client()
    svc = limited_app.extensions["hourglass"]
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": f"P{i}"} for i in range(2)]}
    made = client.post("/api/v1/games", json=body).get_json()
    created.append(made["id"])
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    counts = []
    for n in range(6):
        auth, moves = _human_turn(client, svc, made["id"], tokens)
        trips.clear()
        answer = client.post(f"/api/v1/games/{made['id']}/moves", json=moves["moves"][0],
                             headers={**auth, "If-Match": str(moves["version"]), "Idempotency-Key": f"k{n}"})
        assert answer.status_code == 200, answer.get_json()
        assert answer.headers["RateLimit-Limit"] == "600"
        counts.append(list(trips))
    print(counts)
    assert all(len(c) == 1 for c in counts), counts
