"""Fixtures for the service tests: the real Redis, the toy game, an app, game clean-up.

Every game gets a random id, so tests never collide with each other or with other engineers'
keys on the shared Redis; each fixture deletes the games it saw. Nothing here flushes a db.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

import domain.games
from core.games import GameService
from domain.core import SYSTEM
from service.app import create_app
from tests.conftest import forget_games

domain.games.show("toy")  # the unlisted reference game, domain/toy/

REDIS_URL = os.environ["HOURGLASS_TEST_REDIS_URL"]  # settled by tests/conftest.py, with ``conn``


@pytest.fixture
def created(conn: redis.Redis) -> Iterator[list[str]]:
    """Game ids to delete after the test."""
    ids: list[str] = []
    yield ids
    forget_games(conn, ids)


@pytest.fixture
def advanced() -> list[tuple[str, int]]:
    """(game id, version) of every advance the app asked a worker for."""
    return []


@pytest.fixture
def app(conn: redis.Redis, advanced: list[tuple[str, int]]) -> Any:
    return create_app({"REDIS": conn, "TESTING": True, "CLIENT_SEEDS": "any", "SSE_HEARTBEAT": 0.2, "RATE_LIMIT": 0,
                       "ADVANCE": lambda game_id, version: advanced.append((game_id, version))})


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def svc(app: Any) -> GameService:
    return app.extensions["hourglass"]


@pytest.fixture
def new_game(client: Any, created: list[str]) -> Callable[..., dict[str, Any]]:
    """POST a game (toy by default) and remember its id for clean-up."""

    def make(**body: Any) -> dict[str, Any]:
        payload = {"game": "toy", "edition": "classic",
                   "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": "test-seed", **body}
        response = client.post("/api/v1/games", json=payload)
        assert response.status_code == 201, response.get_data(as_text=True)
        created.append(response.json["id"])
        return response.json

    return make


def run_worker(svc: GameService, game_id: str) -> int:
    """What workers.jobs.advance does: play SYSTEM and bot seats until a human is to act."""
    steps = 0
    while True:
        game = svc.load(game_id)
        movers = sorted((a for a in game.to_act if a == SYSTEM or game.info.seat_kind(a) != "human"), key=str)
        if not movers:
            return steps
        actor = movers[0]
        command = game.rules.default_move(game.state, actor)
        svc.apply(game_id, actor, command, expected_version=game.version,
                  idempotency_key=f"advance:{game.version}")
        steps += 1


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
