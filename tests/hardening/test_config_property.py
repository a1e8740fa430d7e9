"""Finding 7, as a property: any creation body is either refused with a 4xx problem, or makes a
game that workers play to its end.

Bodies are generated for every registered game (``domain.games.game_names()``, so games added
later are covered), with their editions and junk ones, seat lists of every length with built-in
bot seats (so an accepted game needs no human to finish), unknown seat kinds and bots, http seats
off the allow-list, and options that try to override the seat list, the edition or anything else.
Before: ``options.players = 4`` with two seats gave 201 and a game whose worker raised IndexError
for ever.
"""
from __future__ import annotations

import os
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from core.games import GameService
from service.app import create_app
from tests.conftest import forget_games, package_games
from workers import jobs

GAMES = package_games()
EXAMPLES = int(os.environ.get("HOURGLASS_PROPERTY_EXAMPLES", "40"))
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 9), st.text(max_size=8), st.lists(st.integers(), max_size=2))
OPTION_KEYS = st.sampled_from(["players", "edition", "exclusion", "start_player", "rounds", "seed", "x"])
EDITIONS = st.one_of(st.sampled_from(["classic", "2023", "standard"]), JUNK)


def seats() -> st.SearchStrategy[Any]:
    bot = st.fixed_dictionaries({"name": st.text(max_size=6), "kind": st.just("bot"),
                                 "bot": st.sampled_from(["random", "random", "random", "greedy", "no-such-bot"])})
    odd = st.one_of(
        st.fixed_dictionaries({"kind": st.sampled_from(["robot", "", "HUMAN"])}),
        st.fixed_dictionaries({"kind": st.just("http"), "url": st.sampled_from(["http://169.254.169.254/", "ftp://x", "x"])}),
        st.fixed_dictionaries({"kind": st.just("bot")}),
        JUNK,
    )
    entry = st.one_of(bot, bot, bot, odd)
    return st.one_of(st.lists(entry, min_size=0, max_size=7), JUNK)


BOT_SEATS = st.lists(st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C"]), "kind": st.just("bot"),
                                           "bot": st.sampled_from(["random", "greedy"])}), min_size=1, max_size=6)
PLAUSIBLE = st.fixed_dictionaries(  # near a valid body, so many are accepted and played
    {"game": st.sampled_from(GAMES), "edition": st.sampled_from(["classic", "2023", "standard"]),
     "seats": BOT_SEATS},
    optional={"options": st.dictionaries(st.sampled_from(["exclusion", "start_player"]), st.integers(0, 1), max_size=1)})
BODIES = st.one_of(
    PLAUSIBLE,
    PLAUSIBLE,
    st.fixed_dictionaries(
        {"game": st.one_of(st.sampled_from(GAMES), JUNK), "edition": EDITIONS, "seats": seats()},
        optional={"options": st.one_of(st.dictionaries(OPTION_KEYS, JUNK, max_size=3), JUNK),
                  "seed": st.one_of(st.text(max_size=10), JUNK)}),
    JUNK,
)


@pytest.fixture(scope="module")
def client(conn: redis.Redis) -> Any:
    return create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0,
                       "CLIENT_SEEDS": "any"}).test_client()


@pytest.fixture(scope="module")
def svc(conn: redis.Redis) -> GameService:
    return GameService(conn)


def play_to_the_end(svc: GameService, game_id: str) -> None:
    for _ in range(20):  # each call plays up to 500 batches
        if not jobs.run_advance(svc, game_id).get("continued"):
            break
    game = svc.load(game_id)
    assert game.finished, f"game {game_id} stopped at version {game.version} with {sorted(map(str, game.to_act))} to act"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=BODIES)
@example(body={"game": "orleans", "edition": "classic", "options": {"players": 4},  # finding 7 as reported
               "seats": [{"name": "A", "kind": "bot", "bot": "random"}, {"name": "B", "kind": "bot", "bot": "random"}]})
@example(body={"game": "orleans", "edition": "classic", "options": {"edition": "2023"},
               "seats": [{"name": "A", "kind": "bot", "bot": "random"}, {"name": "B", "kind": "bot", "bot": "random"}]})
def test_a_creation_body_is_refused_or_plays_to_the_end(client: Any, svc: GameService, conn: redis.Redis,
                                                         body: Any) -> None:
    response = client.post("/api/v1/games", json=body)
    event(f"status {response.status_code}")
    if response.status_code != 201:
        assert 400 <= response.status_code < 500, (body, response.status_code, response.get_data(as_text=True)[:300])
        assert response.mimetype == "application/problem+json" and response.json["kind"]
        return
    game_id = response.json["id"]
    try:
        assert all(s["kind"] == "bot" for s in response.json["seats"])
        assert len(response.json["seats"]) == len(body["seats"])  # the seat list is the player count
        play_to_the_end(svc, game_id)
        summary = client.get(f"/api/v1/games/{game_id}").json
        assert summary["status"] == "finished" and summary["result"] is not None
        assert summary["edition"] == body["edition"]  # the top-level edition is the only one
    finally:
        forget_games(svc.store.conn, [game_id])


@pytest.mark.parametrize("name", GAMES)
def test_every_registered_game_accepts_a_bot_table_in_some_edition_and_plays_it_out(  # each built-in bot too
        client: Any, svc: GameService, name: str) -> None:
    accepted = []
    for edition in ("classic", "2023", "standard"):
        for players in (2, 3):
            seats = [{"name": f"B{i}", "kind": "bot", "bot": ("random", "greedy")[i % 2]} for i in range(players)]
            response = client.post("/api/v1/games", json={"game": name, "edition": edition, "seats": seats})
            assert response.status_code in (201, 422), response.get_data(as_text=True)[:300]
            if response.status_code == 201:
                accepted.append(response.json["id"])
    assert accepted, f"{name}: no edition of classic, 2023, standard accepted two or three bot seats"
    try:
        for game_id in accepted:
            play_to_the_end(svc, game_id)
    finally:
        forget_games(svc.store.conn, accepted)
