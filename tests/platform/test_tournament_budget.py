"""Issue 22: tournaments were an unlimited game factory (25 tournaments of 896 games accepted within
seconds, 1,608 live games against a cap of 20 per address). A tournament now belongs to an
account, costs its organiser every game it will play when it is accepted, and its games count
toward the organiser's live games while they run."""
from __future__ import annotations

from typing import Any

import pytest
import redis

from core.retention import LiveCaps, creator_key
from core.tournament_store import TournamentStore
from service.app import create_app
from tests.platform.conftest import auth, new_account, unique


@pytest.fixture
def limited(conn: redis.Redis) -> Any:
    return create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 600,
                       "ACCOUNT_WORK_BUDGET": 40, "MAX_LIVE_GAMES_PER_ACCOUNT": 4}).test_client()


def entrants(limited: Any, key: dict[str, str], made: dict[str, list[str]], n: int) -> list[dict[str, str]]:
    """The organiser's own pull bots (one rating per entrant, so no two built-ins of a name)."""
    out = []
    for _ in range(n):
        bot = limited.post("/api/v1/bots", json={"name": unique("entrant"), "kind": "pull"}, headers=key).json
        made["bots"].append(bot["id"])
        out.append({"bot_id": bot["id"]})
    return out


def body(field: list[dict[str, str]], n: int, **extra: Any) -> dict[str, Any]:
    return {"game": "artificium", "players_per_game": 2, "entrants": field[:n], "parallel": 2, **extra}


def test_a_tournament_is_charged_in_full_and_refused_beyond_the_budget(
        limited: Any, conn: redis.Redis, made: dict[str, list[str]]) -> None:
    organiser = new_account(conn, made, "organiser")
    key = auth(organiser["key"])
    field = entrants(limited, key, made, 8)
    assert limited.post("/api/v1/tournaments", json=body(field, 3)).status_code == 401  # nobody's: refused
    first = limited.post("/api/v1/tournaments", json=body(field, 4), headers=key)  # C(4,2) * 2 rotations = 12 games
    assert first.status_code == 201, first.json
    made["tournaments"].append(first.json["id"])
    left = limited.get("/api/v1/account", headers=key).json["budgets"]["work"]["left"]
    assert 27.9 < left <= 28.1
    huge = limited.post("/api/v1/tournaments", json=body(field, 8), headers=key)  # 56 games: more than 40 ever
    assert huge.status_code == 429 and huge.json["kind"] == "WORK_BUDGET" and huge.json["cost"] == 56
    assert "grant" in huge.json["detail"] and int(huge.headers["Retry-After"]) > 0
    second = limited.post("/api/v1/tournaments", json=body(field, 5), headers=key)  # 20 games: 28 left, fits
    assert second.status_code == 201
    made["tournaments"].append(second.json["id"])
    third = limited.post("/api/v1/tournaments", json=body(field, 4), headers=key)  # 12 more: 8 left, refused
    assert third.status_code == 429 and third.json["left"] < 12
    too_wide = limited.post("/api/v1/tournaments", json=body(field, 2, parallel=5), headers=key)
    assert too_wide.status_code == 422 and "live games" in too_wide.json["detail"]
    assert limited.get("/api/v1/account", headers=key).json["budgets"]["work"]["left"] < 12


def test_a_tournaments_games_count_toward_its_organisers_live_games(
        limited: Any, conn: redis.Redis, made: dict[str, list[str]]) -> None:
    from workers.tournaments import TournamentRunner

    organiser = new_account(conn, made, "organiser")
    key = auth(organiser["key"])
    created = limited.post("/api/v1/tournaments", json=body(entrants(limited, key, made, 4), 4, parallel=4),
                           headers=key).json
    made["tournaments"].append(created["id"])
    TournamentRunner(conn).run(created["id"])
    live = conn.zrange(creator_key(f"acct:{organiser['id']}"), 0, -1)
    assert len(live) == 4  # parallel games, all the organiser's
    direct = limited.post("/api/v1/games", json={"game": "artificium", "seats": [{"name": "A"}, {"name": "B"}]},
                          headers=key)
    assert direct.status_code == 429 and direct.json["kind"] == "TOO_MANY_GAMES"
    assert TournamentStore(conn).runner_caps(created["id"]) == (f"acct:{organiser['id']}", LiveCaps(4, 10_000))
