"""Fixtures for Artificium through the service: an app on the test Redis, its client, game
clean-up, and the worker tests' private RQ queue (shared with tests/workers)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core.games import GameService
from service.app import create_app
from tests.conftest import forget_games
from tests.workers.conftest import fresh_job_caches, queue_name  # noqa: F401 (fixtures used by name)

API = "/api/v1/games"


@pytest.fixture
def created(conn: redis.Redis) -> Iterator[list[str]]:
    """Game ids to delete (events, meta, idempotency, clock keys) after the test."""
    ids: list[str] = []
    yield ids
    forget_games(conn, ids)


@pytest.fixture
def app(conn: redis.Redis) -> Any:
    """The real app; worker steps are run by the tests themselves (``ADVANCE`` off)."""
    return create_app({"REDIS": conn, "TESTING": True, "CLIENT_SEEDS": "any", "SSE_HEARTBEAT": 0.2,
                       "RATE_LIMIT": 0, "ADVANCE": "off"})


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def svc(app: Any) -> GameService:
    service: GameService = app.extensions["hourglass"]
    return service


def auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}
