"""Issue 15, finding 4: anonymous clients, forged tokens and game creation are limited per
address, with RateLimit-* headers, and a flood from one address leaves seat holders served."""
from __future__ import annotations

import random
from typing import Any

import pytest
import redis
from conftest import auth

from service.app import create_app

LIMITS = {"RATE_LIMIT": 100, "RATE_LIMIT_WINDOW": 60, "ANON_RATE_LIMIT": 5, "AUTH_FAIL_LIMIT": 3,
          "CREATE_RATE_LIMIT": 2}
BODY = {"game": "toy", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}]}


@pytest.fixture
def limited(conn: redis.Redis) -> Any:
    app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", **LIMITS})
    return app.test_client()


def _address() -> dict[str, str]:
    """A fresh client address per test (WSGI environ only), so counters never carry over."""
    return {"REMOTE_ADDR": f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"}


def _create(client: Any, created: list[str], address: dict[str, str]) -> Any:
    response = client.post("/api/v1/games", json=BODY, environ_base=address)
    if response.status_code == 201:
        created.append(response.json["id"])
    return response


def test_anonymous_calls_are_limited_per_address(limited: Any, created: list[str]) -> None:
    game = _create(limited, created, _address()).json
    flood = _address()
    answers = [limited.get(f"/api/v1/games/{game['id']}", environ_base=flood) for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    # the headers describe the limit closest to exhaustion (here the 401 allowance, 3, or this one)
    assert answers[0].headers["RateLimit-Limit"] in {"3", "5"} and int(answers[0].headers["RateLimit-Remaining"]) <= 4
    assert answers[4].headers["RateLimit-Remaining"] == "0"
    assert answers[-1].mimetype == "application/problem+json" and answers[-1].json["kind"] == "RATE_LIMITED"
    assert int(answers[-1].headers["Retry-After"]) >= 1
    assert limited.get(f"/api/v1/games/{game['id']}", environ_base=_address()).status_code == 200  # others fine


def test_forged_tokens_are_throttled_per_address(limited: Any, created: list[str]) -> None:
    game = _create(limited, created, _address()).json
    prober = _address()
    codes = [limited.get(f"/api/v1/games/{game['id']}/state", headers=auth(f"guess-{i}"), environ_base=prober).status_code
             for i in range(5)]
    assert codes == [401, 401, 401, 429, 429]


def test_game_creation_is_limited_per_address(limited: Any, created: list[str]) -> None:
    creator = _address()
    assert [_create(limited, created, creator).status_code for _ in range(3)] == [201, 201, 429]
    assert _create(limited, created, _address()).status_code == 201


def test_seat_holders_are_served_through_an_anonymous_flood(limited: Any, created: list[str]) -> None:
    game = _create(limited, created, _address()).json
    token = game["seats"][0]["token"]
    shared = _address()  # even from the flooding address itself
    for _ in range(10):
        limited.get(f"/api/v1/games/{game['id']}", environ_base=shared)
    mine = limited.get(f"/api/v1/games/{game['id']}/state", headers=auth(token), environ_base=shared)
    assert mine.status_code == 200
    assert mine.headers["RateLimit-Limit"] == "100" and int(mine.headers["RateLimit-Remaining"]) == 99


def test_zero_switches_every_limit_off(conn: redis.Redis, created: list[str]) -> None:
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", **LIMITS, "RATE_LIMIT": 0}).test_client()
    address = _address()
    assert {_create(client, created, address).status_code for _ in range(4)} == {201}


def test_a_known_seat_token_is_served_where_its_address_used_up_the_401_allowance(
        limited: Any, created: list[str]) -> None:
    """Flask-Limiter's 401 allowance is not checked for a POST move or GET moves/state whose token
    this process knows as a seat token (it saves three round trips, service.limits); guesses from
    that address are still refused."""
    shared = _address()  # a seat holder and a token guesser behind one address
    game = _create(limited, created, _address()).json
    token = game["seats"][0]["token"]
    url = f"/api/v1/games/{game['id']}"
    assert limited.get(f"{url}/state", headers=auth(token), environ_base=shared).status_code == 200  # now cached
    guesses = [limited.get(f"{url}/state", headers=auth(f"guess-{i}"), environ_base=shared).status_code for i in range(4)]
    assert guesses == [401, 401, 401, 429]
    held = limited.get(f"{url}/moves", headers=auth(token), environ_base=shared)
    assert held.status_code == 200 and held.headers["RateLimit-Limit"] == "100"
    assert limited.get(f"{url}/state", headers=auth(token), environ_base=shared).status_code == 200
    assert limited.get(f"{url}/state", headers=auth("guess-again"), environ_base=shared).status_code == 429
