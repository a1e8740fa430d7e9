"""One budget per requester (issue 22; before it, issue 15's per-address limits).

A request is charged to its account (account key, bot token, a seat bound to the account) or
else to its address; the seat tokens of an address share one window apart from its tokenless
requests; a token that names nobody is an anonymous request and counts toward the address's
401 allowance; work (games, joins) draws from a work budget.
"""
from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
import redis
from conftest import auth

from core.accounts import Accounts
from service.app import create_app

LIMITS = {"RATE_LIMIT": 100, "RATE_LIMIT_WINDOW": 60, "ANON_RATE_LIMIT": 5, "AUTH_FAIL_LIMIT": 3,
          "WORK_BUDGET": 2, "ACCOUNT_WORK_BUDGET": 3}
BODY = {"game": "toy", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}]}


@pytest.fixture
def limited(conn: redis.Redis) -> Any:
    app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", **LIMITS})
    return app.test_client()


@pytest.fixture
def account(conn: redis.Redis) -> Any:
    """A fresh account's key (deleted afterwards)."""
    registry = Accounts(conn)
    made = registry.create(f"limits-{uuid.uuid4().hex[:8]}")
    yield made["key"]
    registry.delete([made["id"]])


def _address() -> dict[str, str]:
    """A fresh client address per test (WSGI environ only), so counters never carry over."""
    return {"REMOTE_ADDR": f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"}


def _create(client: Any, created: list[str], address: dict[str, str], headers: dict[str, str] | None = None) -> Any:
    response = client.post("/api/v1/games", json=BODY, environ_base=address, headers=headers or {})
    if response.status_code == 201:
        created.append(response.json["id"])
    return response


def test_anonymous_calls_are_limited_per_address(limited: Any, created: list[str]) -> None:
    game = _create(limited, created, _address()).json
    flood = _address()
    answers = [limited.get(f"/api/v1/games/{game['id']}", environ_base=flood) for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    assert answers[0].headers["RateLimit-Limit"] == "5" and answers[0].headers["RateLimit-Remaining"] == "4"
    assert answers[4].headers["RateLimit-Remaining"] == "0"
    assert 1 <= int(answers[0].headers["RateLimit-Reset"]) <= 60  # seconds, never an epoch
    assert "Retry-After" not in answers[0].headers  # only a refusal says when to retry
    assert answers[-1].mimetype == "application/problem+json" and answers[-1].json["kind"] == "RATE_LIMITED"
    assert int(answers[-1].headers["Retry-After"]) >= 1 and answers[-1].json["budget"] == "requests"
    assert limited.get(f"/api/v1/games/{game['id']}", environ_base=_address()).status_code == 200  # others fine


def test_a_bearer_header_that_names_nobody_is_an_anonymous_request(limited: Any, created: list[str]) -> None:
    """Issue 22: any ``Authorization: Bearer x`` skipped the anonymous limit (1,600 of 1,600 answered)."""
    prober = _address()
    codes = [limited.get("/api/v1/games", headers=auth("x"), environ_base=prober).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    other = _address()
    assert limited.get("/openapi.json", headers=auth("x"), environ_base=other).status_code == 200


def test_forged_tokens_are_throttled_per_address(limited: Any, created: list[str]) -> None:
    game = _create(limited, created, _address()).json
    prober = _address()
    codes = [limited.get(f"/api/v1/games/{game['id']}/state", headers=auth(f"guess-{i}"), environ_base=prober).status_code
             for i in range(5)]
    assert codes == [401, 401, 401, 429, 429]
    refused = limited.get(f"/api/v1/games/{game['id']}/state", headers=auth("guess-again"), environ_base=prober)
    assert refused.json["kind"] == "AUTH_FAILURES"
    keys = [limited.get("/api/v1/account", headers=auth(f"hga_{i}_forged"), environ_base=_address()).status_code
            for i in range(2)]
    assert keys == [401, 401]  # a forged account key is a 401 wherever it is sent


def test_seat_tokens_of_one_address_share_one_window(conn: redis.Redis, created: list[str]) -> None:
    """Issue 22: each seat token had its own window (three tokens, three allowances)."""
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", **LIMITS, "RATE_LIMIT": 4}).test_client()
    here = _address()
    games = [_create(client, created, here).json for _ in range(2)]
    tokens = [(g["id"], s["token"]) for g in games for s in g["seats"]]
    codes = [client.get(f"/api/v1/games/{gid}/state", headers=auth(token), environ_base=here).status_code
             for gid, token in tokens + tokens[:1]]
    assert codes == [200] * 4 + [429]
    gid, token = tokens[0]
    assert client.get(f"/api/v1/games/{gid}/state", headers=auth(token), environ_base=_address()).status_code == 200


def test_seat_holders_are_served_through_an_anonymous_flood(limited: Any, created: list[str]) -> None:
    game = _create(limited, created, _address()).json
    token = game["seats"][0]["token"]
    shared = _address()  # even from the flooding address itself
    for _ in range(10):
        limited.get(f"/api/v1/games/{game['id']}", environ_base=shared)
    mine = limited.get(f"/api/v1/games/{game['id']}/state", headers=auth(token), environ_base=shared)
    assert mine.status_code == 200
    assert mine.headers["RateLimit-Limit"] == "100" and int(mine.headers["RateLimit-Remaining"]) == 99


def test_an_account_is_one_requester_wherever_it_calls_from(limited: Any, account: str, created: list[str]) -> None:
    headers = auth(account)
    first = limited.get("/api/v1/account", headers=headers, environ_base=_address())
    second = limited.get("/api/v1/account", headers=headers, environ_base=_address())
    assert first.status_code == second.status_code == 200
    assert int(first.headers["RateLimit-Remaining"]) - int(second.headers["RateLimit-Remaining"]) == 1
    game = _create(limited, created, _address(), headers).json  # its seats are bound to the account
    here = _address()
    seat = limited.get(f"/api/v1/games/{game['id']}/state", headers=auth(game["seats"][0]["token"]), environ_base=here)
    assert seat.headers["RateLimit-Limit"] == "100"
    assert int(seat.headers["RateLimit-Remaining"]) < int(second.headers["RateLimit-Remaining"])


def test_work_is_charged_to_the_creator_and_refused_past_its_budget(
        limited: Any, account: str, created: list[str]) -> None:
    creator = _address()
    answers = [_create(limited, created, creator) for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 429]
    refused = answers[-1].json
    assert refused["kind"] == "WORK_BUDGET" and refused["budget"] == "work" and refused["capacity"] == 2
    assert int(answers[-1].headers["Retry-After"]) >= 1
    assert _create(limited, created, _address()).status_code == 201  # another address has its own
    mine = [_create(limited, created, creator, auth(account)).status_code for _ in range(4)]  # the account's budget
    assert mine == [201, 201, 201, 429]


def test_a_join_costs_work_like_creating(limited: Any, created: list[str]) -> None:
    game = limited.post("/api/v1/games", json={**BODY, "seats": [{"name": "Ann"}, {"kind": "open"}]},
                        environ_base=_address()).json
    created.append(game["id"])
    joiner = _address()
    for _ in range(2):  # the joiner's budget, used up
        created.append(limited.post("/api/v1/games", json=BODY, environ_base=joiner).json["id"])
    refused = limited.post(f"/api/v1/games/{game['id']}/seats/1/join", json={"name": "Cleo"}, environ_base=joiner)
    assert refused.status_code == 429 and refused.json["kind"] == "WORK_BUDGET"
    # nothing changed (read from an address of its own: 127.0.0.1's window is every other test's too)
    assert limited.get(f"/api/v1/games/{game['id']}", environ_base=_address()).json["status"] == "open"


def test_an_ipv6_requester_is_its_64_block(limited: Any, created: list[str]) -> None:
    block = f"2001:db8:{random.randrange(65536):x}:{random.randrange(65536):x}"
    answers = [limited.get("/api/v1/games", environ_base={"REMOTE_ADDR": f"{block}::{i + 1:x}"}) for i in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]


def test_zero_switches_every_limit_off(conn: redis.Redis, created: list[str]) -> None:
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", **LIMITS, "RATE_LIMIT": 0}).test_client()
    address = _address()
    assert {_create(client, created, address).status_code for _ in range(4)} == {201}


def test_a_known_seat_token_is_served_where_its_address_used_up_the_401_allowance(
        limited: Any, created: list[str]) -> None:
    """A seat holder and a token guesser behind one address: the guesses are refused once the
    address's 401 allowance is used up; the seat's token still resolves and is served."""
    shared = _address()
    game = _create(limited, created, _address()).json
    token = game["seats"][0]["token"]
    url = f"/api/v1/games/{game['id']}"
    assert limited.get(f"{url}/state", headers=auth(token), environ_base=shared).status_code == 200
    guesses = [limited.get(f"{url}/state", headers=auth(f"guess-{i}"), environ_base=shared).status_code for i in range(4)]
    assert guesses == [401, 401, 401, 429]
    held = limited.get(f"{url}/moves", headers=auth(token), environ_base=shared)
    assert held.status_code == 200 and held.headers["RateLimit-Limit"] == "100"
    assert limited.get(f"{url}/state", headers=auth(token), environ_base=shared).status_code == 200
    assert limited.get(f"{url}/state", headers=auth("guess-again"), environ_base=shared).status_code == 429


def test_every_limited_answer_says_its_reset_in_seconds_and_only_a_refusal_says_retry_after(
        limited: Any, created: list[str]) -> None:
    """Issue 25: anonymous, seat-token and failed-auth answers (a 200, a bad-JSON 400, a 401, both
    kinds of 429) carry RateLimit-Reset in seconds, within the window (60 s here, never an epoch);
    Retry-After comes with a 429 only."""
    game = _create(limited, created, _address()).json
    gid, token = game["id"], game["seats"][0]["token"]
    seat, anonymous, guesser = _address(), _address(), _address()
    answers = {
        "seat 200": limited.get(f"/api/v1/games/{gid}/state", headers=auth(token), environ_base=seat),
        "seat bad JSON": limited.post(f"/api/v1/games/{gid}/moves", data="{", environ_base=seat,
                                      headers={**auth(token), "Content-Type": "application/json"}),
        "anonymous 200": limited.get(f"/api/v1/games/{gid}", environ_base=anonymous),
        "anonymous bad JSON": limited.post("/api/v1/games", data="{", headers={"Content-Type": "application/json"},
                                           environ_base=anonymous),
        "failed auth 401": limited.get(f"/api/v1/games/{gid}/state", headers=auth("forged"), environ_base=guesser),
    }
    for _ in range(3):
        answers["failed auth 429"] = limited.get(f"/api/v1/games/{gid}/state", headers=auth("forged"),
                                                 environ_base=guesser)
    for _ in range(5):
        answers["anonymous 429"] = limited.get(f"/api/v1/games/{gid}", environ_base=anonymous)
    assert [name for name, a in answers.items() if a.status_code == 429] == ["failed auth 429", "anonymous 429"]
    for name, answer in answers.items():
        assert 1 <= int(answer.headers["RateLimit-Reset"]) <= 60, name
        assert int(answer.headers["RateLimit-Remaining"]) <= int(answer.headers["RateLimit-Limit"]), name
        assert ("Retry-After" in answer.headers) == (answer.status_code == 429), name
        if answer.status_code == 429:
            assert 1 <= int(answer.headers["Retry-After"]) <= 60 and answer.headers["RateLimit-Remaining"] == "0", name
    assert answers["seat bad JSON"].status_code == 400
    assert int(answers["seat bad JSON"].headers["RateLimit-Remaining"]) == 98  # counted like any request of the seat
