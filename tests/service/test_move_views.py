"""A move's answer and its view chains from the events as decided (issue 27): the seats' views are
the ones the stored JSON renders, the heads the ones a fold from the store derives, and both the
same as ``core.viewchain.advance`` seat by seat. Random games of every game, and the toy."""
from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from core import viewchain
from core.games import GameService
from domain.core import SYSTEM
from domain.games import game_names
from tests.conftest import forget_games


@pytest.mark.parametrize("name", sorted({*game_names(), "toy"}))
def test_the_views_a_move_decides_on_are_what_its_stored_json_shows(conn: redis.Redis, name: str) -> None:
    svc = GameService(conn)
    edition = {"edition": "classic"} if name == "toy" else {}  # the toy has no default edition
    created = svc.create({"game": name, **edition, "seats": [{"name": f"P{i}"} for i in range(2)]})
    rng = random.Random(name)
    try:
        game = svc.load(created["id"])
        for _ in range(60):
            if game.finished:
                break
            actor = SYSTEM if SYSTEM in game.to_act else rng.choice(sorted(game.to_act))
            moves = ([game.rules.default_move(game.state, SYSTEM)] if actor == SYSTEM
                     else game.rules.legal_moves(game.state, actor))
            before = game
            applied = svc.apply(game.game_id, actor, rng.choice(moves), expected_version=game.version)
            game = applied.game
            batch = [e.data for e in applied.entries]
            assert list(applied.views) == viewchain.batch_views(game.rules, batch, len(game.info.seats))
            heads = before.view_heads or viewchain.genesis_heads(len(game.info.seats))
            assert game.view_heads == viewchain.advance_all(game.rules, heads, game.version, batch) == tuple(
                viewchain.advance(h, s, game.version, applied.views[s]) for s, h in enumerate(heads))
        assert game.version > 5
        assert GameService(conn).load(game.game_id).view_heads == game.view_heads  # a fold from the store
    finally:
        forget_games(conn, [created["id"]])


@pytest.mark.parametrize("events", [[], [{"type": "A", "n": 1}], [{"type": "B", "s": "é\u2028", "x": [1.5, None]}]])
def test_a_link_built_around_encoded_events_is_the_canonical_link(events: list[dict[str, Any]]) -> None:
    hidden = [{"type": "Hidden"}] * len(events)
    views = [events, hidden, events, list(events)]
    heads = viewchain.genesis_heads(4)
    assert viewchain.advance_views(heads, 12, views) == tuple(
        viewchain.advance(h, s, 12, views[s]) for s, h in enumerate(heads))


def test_a_move_answer_shows_its_events_as_the_event_page_shows_them_to_the_mover(client: Any, created: list[str],
                                                                                  svc: GameService) -> None:
    made = client.post("/api/v1/games", json={"game": "orleans", "seats": [{"name": "A"}, {"name": "B"}]}).json
    created.append(made["id"])
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    rng = random.Random(5)
    answered = 0
    for _ in range(12):
        game = svc.load(made["id"])
        while SYSTEM in game.to_act:  # what a worker would play
            game = svc.apply(game.game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM),
                             expected_version=game.version).game
        if game.finished:
            break
        seat = min(game.to_act)
        move = game.rules.move_to_json(rng.choice(game.rules.legal_moves(game.state, seat)))
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        answer = client.post(f"/api/v1/games/{made['id']}/moves", json=move, headers=auth)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        page = client.get(f"/api/v1/games/{made['id']}/events?after={game.version}", headers=auth).json
        assert answer.json["events"] == page["events"] and answer.json["events"]
        answered += 1
    assert answered == 12
