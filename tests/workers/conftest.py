"""Fixtures for the worker tests: the real (shared) Redis, a private RQ queue per test, and
clean-up of every game a test created. Nothing here flushes a database.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from core import timing
from core.games import GameService
from tests.conftest import delete_queue, forget_games
from tests.workers.transports import ask_bot  # noqa: F401 (a fixture: either push-call transport)
from workers import jobs

REDIS_URL = os.environ["HOURGLASS_TEST_REDIS_URL"]  # settled by tests/conftest.py, with ``conn``


@pytest.fixture
def queue_name(conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A queue of this test's own; jobs run with REDIS_URL pointing at the test Redis."""
    name = f"hg-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("REDIS_URL", REDIS_URL)
    monkeypatch.setenv("HOURGLASS_QUEUE", name)
    yield name
    delete_queue(conn, name)


@pytest.fixture
def created(conn: redis.Redis) -> Iterator[list[str]]:
    """Game ids to delete (events, meta, idempotency and clock keys) after the test."""
    ids: list[str] = []
    yield ids
    forget_games(conn, ids)


@pytest.fixture
def svc(conn: redis.Redis) -> GameService:
    return GameService(conn, client_seeds="any")


@pytest.fixture
def new_game(svc: GameService, created: list[str]) -> Callable[..., dict[str, Any]]:
    """Create an Orléans game; ``seats`` entries may carry ``clock`` (the service stores it, and
    the secret of each http seat)."""

    def make(seats: list[dict[str, Any]], seed: str = "workers-test", edition: str = "classic") -> dict[str, Any]:
        body = {"game": "orleans", "edition": edition, "seats": seats, "seed": seed}
        out = svc.create(body)
        created.append(out["id"])
        return out

    return make


@pytest.fixture(autouse=True)
def fresh_job_caches() -> Iterator[None]:
    """Each test starts without the jobs module's per-process caches."""
    jobs._SERVICES.clear()
    timing.forget_folded()
    yield
    jobs._SERVICES.clear()
    timing.forget_folded()
