"""Fixtures for the replay tests: the bundles the tampering tests attack, and a GameService on the
test Redis (``conn`` from tests/conftest.py) whose games are deleted afterwards."""
from __future__ import annotations

import random
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
import redis

from core.games import GameService
from replays.verify import verify_bundle
from service.app import create_app
from tests.replays.replay_helpers import bundle_text, toy_bundle
from tests.replays.replay_redis import cleanup, play_to_end
from tests.replays.replay_toy_game import toy_rules


@pytest.fixture(scope="session")
def small_bundle() -> str:
    """A finished 2-player classic game's bundle."""
    return bundle_text("classic", 2)


@pytest.fixture(params=["toy", "orleans"], scope="session")
def subject(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """(bundle text, verify function) for the game-agnostic tampering tests."""
    if request.param == "toy":
        return toy_bundle(), partial(verify_bundle, rules_for=toy_rules)
    return bundle_text("classic", 2), verify_bundle


@pytest.fixture(scope="module")
def finished(service: GameService) -> str:
    """A finished 2-player game in the store."""
    game_id = play_to_end(service, "classic", 2, seed=f"api-{random.random()}")
    service.created.append(game_id)  # type: ignore[attr-defined]
    return game_id


@pytest.fixture(scope="module")
def client(service: GameService) -> Any:
    app = create_app({"REDIS": service.store.conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0})
    return app.test_client()


@pytest.fixture(scope="module")
def service(conn: redis.Redis) -> Iterator[GameService]:
    svc = GameService(conn)
    svc.created = []  # type: ignore[attr-defined]
    yield svc
    cleanup(svc, svc.created)  # type: ignore[attr-defined]
