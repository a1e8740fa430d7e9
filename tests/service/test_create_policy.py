"""Game creation: who may choose the seed, and where the player count and edition come from.

Issue 15, findings 6 and 7: a client-chosen seed with human seats let a spectator recompute
every hidden draw from the public commitment; ``options.players``/``options.edition`` could
override the seat list and make a game that never finishes.
"""
from __future__ import annotations

import hashlib
from typing import Any

import pytest
import redis

from core.games import GameService
from core.store import EventStore
from service.app import create_app

HUMANS = [{"name": "Ann"}, {"name": "Bob"}]
BOTS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "R2", "kind": "bot", "bot": "random"}]


@pytest.fixture
def strict_client(conn: redis.Redis, created: list[str]) -> Any:
    """An app with the production default: client seeds only for games without humans."""
    app = create_app({"REDIS": conn, "TESTING": True, "RATE_LIMIT": 0, "ADVANCE": "off"})
    return app.test_client()


def _create(client: Any, created: list[str], **body: Any) -> Any:
    response = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic", **body})
    if response.status_code == 201:
        created.append(response.json["id"])
    return response


def test_a_client_seed_with_a_human_seat_is_refused(strict_client: Any, created: list[str], conn: redis.Redis) -> None:
    before = len(list(conn.scan_iter("hg:{*}:meta", count=1000)))
    response = _create(strict_client, created, seats=HUMANS, seed="demo")
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert response.json["kind"] == "INVALID_CONFIG" and "seed" in response.json["detail"]
    assert len(list(conn.scan_iter("hg:{*}:meta", count=1000))) == before  # nothing created


def test_without_a_seed_the_server_draws_one_the_client_cannot_know(strict_client: Any, created: list[str]) -> None:
    body = _create(strict_client, created, seats=HUMANS).json
    assert body["seed_commitment"] != hashlib.sha256(b"demo").hexdigest()
    assert "seed" not in body


def test_an_all_bot_game_may_name_its_seed(strict_client: Any, created: list[str]) -> None:
    response = _create(strict_client, created, seats=BOTS, seed="demo")
    assert response.status_code == 201
    assert response.json["seed_commitment"] == hashlib.sha256(b"demo").hexdigest()


def test_the_any_policy_is_an_explicit_operator_choice(conn: redis.Redis, created: list[str]) -> None:
    svc = GameService(conn, client_seeds="any")
    created.append(svc.create({"game": "orleans", "edition": "classic", "seats": HUMANS, "seed": "demo"})["id"])
    with pytest.raises(ValueError):
        GameService(conn, client_seeds="sometimes")


@pytest.mark.parametrize("options", [{"players": 4}, {"edition": "2023"}, {"players": 2, "edition": "classic"}])
def test_options_cannot_override_the_seat_list_or_the_edition(strict_client: Any, created: list[str],
                                                              options: dict[str, Any]) -> None:
    response = _create(strict_client, created, seats=HUMANS, options=options)
    assert response.status_code == 422 and response.json["kind"] == "INVALID_CONFIG"
    assert "seat list" in response.json["detail"]


def test_real_options_still_reach_the_game(strict_client: Any, created: list[str], conn: redis.Redis) -> None:
    response = _create(strict_client, created, seats=HUMANS, options={"exclusion": True, "start_player": 1})
    assert response.status_code == 201
    meta = EventStore(conn).meta(response.json["id"])
    assert meta is not None and '"exclusion":true' in meta["config"] and '"players":2' in meta["config"]


def test_a_bot_seat_must_play_the_game(strict_client: Any, created: list[str]) -> None:
    """``search`` plays Orléans and Artificium, not the Cathedral: a 422 that names the bots it has."""
    seats = [{"name": "Ann"}, {"kind": "bot", "bot": "search"}]
    response = strict_client.post("/api/v1/games", json={"game": "cathedral", "seats": seats})
    assert response.status_code == 422 and response.json["kind"] == "INVALID_CONFIG"
    assert "does not play cathedral; bots for it: greedy, random" in response.json["detail"]
    accepted = _create(strict_client, created, seats=[{"name": "Ann"}, {"kind": "bot", "bot": "search"}])
    assert accepted.status_code == 201
