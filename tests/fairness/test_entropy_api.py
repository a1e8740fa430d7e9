"""Seat entropy over HTTP (issue 29). Abuse cases: a contribution draws only on the request rate
limit (no work budget: it costs a Redis script call); a seat contributes once, for itself only,
at most 64 bytes, before the window closes (409 after); nobody learns another seat's bytes before
the game ends (the status says who contributed, never what)."""
from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.app import create_app
from tests.conftest import forget_games


@pytest.fixture()
def client(conn: redis.Redis) -> Iterator[Any]:
    app = create_app({"REDIS": conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0})
    made: list[str] = []
    app.made = made  # type: ignore[attr-defined]
    yield app.test_client()
    forget_games(conn, made)


def create(client: Any, window_s: float = 60) -> dict[str, Any]:
    body = {"game": "orleans", "seats": [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"},
                                         {"name": "Bot", "kind": "bot", "bot": "greedy"}],
            "entropy": {"window_s": window_s}}
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    created = response.get_json()
    client.application.made.append(created["id"])
    return created


def contribute(client: Any, game_id: str, token: str | None, entropy: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(f"/api/v1/games/{game_id}/entropy", json={"entropy": entropy}, headers=headers)


def problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["kind"] == kind, body
    return body


def test_seats_contribute_and_the_game_starts_with_their_entropy(client: Any) -> None:
    created = create(client)
    assert created["status"] == "seeding" and created["entropy"] == {"window_s": 60.0, "contributors": [0, 1]}
    game_id, (ann, bob) = created["id"], (created["seats"][0]["token"], created["seats"][1]["token"])
    problem(client.get(f"/api/v1/games/{game_id}/state"), 404, "NOT_FOUND")  # nothing to see before the set-up
    first = contribute(client, game_id, ann, "0123456789abcdef")
    assert first.status_code == 200 and first.get_json()["status"] == "seeding"
    assert first.get_json()["sha256"] == "55c53f5d490297900cefa825d0c8e8e9532ee8a118abe7d8570762cd38be9818"
    status = client.get(f"/api/v1/games/{game_id}/entropy").get_json()
    assert [(s["contributes"], s["contributed"]) for s in status["seats"]] == [(True, True), (True, False), (False, True)]
    assert "0123456789abcdef" not in json.dumps(status)
    assert contribute(client, game_id, bob, "ff").get_json()["status"] == "started"
    assert client.get(f"/api/v1/games/{game_id}/entropy").get_json() == {"id": game_id, "status": "started"}
    summary = client.get(f"/api/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and summary["seed"] is None and summary["version"] > 0


def test_abuse_cases(client: Any) -> None:
    created, other = create(client), create(client)
    game_id, ann = created["id"], created["seats"][0]["token"]
    problem(contribute(client, game_id, None, "ab"), 401, "UNAUTHORIZED")
    problem(contribute(client, game_id, other["seats"][0]["token"], "ab"), 401, "UNAUTHORIZED")  # another game's seat
    for bad in ("AB", "abc", "zz", "", "00" * 65, 17, None):
        problem(contribute(client, game_id, ann, bad), 400, "MALFORMED")
    assert contribute(client, game_id, ann, "ab").status_code == 200
    assert "contributed already" in problem(contribute(client, game_id, ann, "cd"), 409, "ENTROPY_CLOSED")["detail"]
    problem(contribute(client, "no-such-game", ann, "ab"), 404, "NOT_FOUND")
    problem(client.get("/api/v1/games/no-such-game/entropy"), 404, "NOT_FOUND")
    for window in (0, 601, "soon"):
        body = {"game": "orleans", "seats": [{"name": "A", "kind": "human"}, {"name": "B", "kind": "human"}],
                "entropy": {"window_s": window}}
        problem(client.post("/api/v1/games", json=body), 400, "MALFORMED")


def test_after_the_window_the_game_starts_without_the_silent_seat(client: Any) -> None:
    created = create(client, window_s=0.2)
    game_id, ann, bob = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    assert contribute(client, game_id, ann, "ab").status_code == 200
    time.sleep(0.25)
    assert client.get(f"/api/v1/games/{game_id}").status_code == 200  # the first read starts it
    late = problem(contribute(client, game_id, bob, "cd"), 409, "ENTROPY_CLOSED")
    assert "closed" in late["detail"]
