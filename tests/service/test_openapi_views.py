"""The published schemas cannot drift from what the games really send (issue 13).

For every registered game: views of random playouts (every seat and a spectator, all through
the game), every legal move as GET .../moves lists it, the config, and the result are validated
against the components of the live OpenAPI document with a JSON Schema 2020-12 validator (the
dialect of OpenAPI 3.1).
"""
from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from core.table import Departure, Table, result
from domain.apischema import find
from domain.games import fold, game_names, get_game
from domain.selfplay import play
from service.openapi import component_prefix

CONFIGS = {
    "orleans": [{"edition": "classic", "players": 3, "exclusion": True}, {"edition": "2023", "players": 5, "start_player": 2}],
    "artificium": [{"players": 2}, {"players": 6}],
    "cathedral": [{"edition": "standard", "players": 2}, {"edition": "expert", "players": 3},
                  {"edition": "standard", "players": 4}, {"edition": "expert", "players": 4}],
    "toy": [{"edition": "classic", "players": 2, "rounds": 4}, {"edition": "classic", "players": 4}],
}
SAMPLES_PER_GAME = 25  # states sampled along each playout


@pytest.fixture(scope="module")
def spec(app: Any) -> dict[str, Any]:
    return dict(app.test_client().get("/openapi.json").json)


@pytest.fixture(scope="module")
def app(conn: Any) -> Any:
    from service.app import create_app

    return create_app({"REDIS": conn, "ADVANCE": "off", "RATE_LIMIT": 0})


def validator(spec: dict[str, Any], component: str) -> Draft202012Validator:
    registry: Registry = Registry().with_resource(
        "urn:hourglass:openapi", Resource.from_contents(spec, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": f"urn:hourglass:openapi#/components/schemas/{component}"}, registry=registry)


def check(v: Draft202012Validator, value: Any, what: str) -> None:
    errors = sorted(v.iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, f"{what}: " + "; ".join(f"{list(e.absolute_path)}: {e.message[:200]}" for e in errors[:5])


def test_every_game_publishes_a_schema() -> None:
    missing = [name for name in game_names() if find(name, get_game(name)) is None]
    assert not missing, f"add domain/<game>/schema.py (see domain/apischema.py) for: {missing}"


@pytest.mark.parametrize("name", game_names())
def test_views_moves_configs_and_results_match_the_published_schema(spec: dict[str, Any], name: str) -> None:
    rules, prefix = get_game(name), component_prefix(name)
    views, moves = validator(spec, "GameView"), validator(spec, f"{prefix}Move")
    own_view, configs, results = (validator(spec, f"{prefix}{c}") for c in ("View", "Config", "Result"))
    any_result, any_move = validator(spec, "GameResult"), validator(spec, "Move")
    for i, raw in enumerate(CONFIGS.get(name, [])):
        config = rules.config_from_json(raw)
        check(configs, rules.config_to_json(config), f"{name} config {raw}")
        game = play(rules, config, f"views-{i}".encode(), f"{name}-views-{i}", ["random"])
        state, step = None, max(1, len(game.batches) // SAMPLES_PER_GAME)
        for n, (_command, events) in enumerate(game.batches):
            state = fold(rules, events, state)
            if n % step and n != len(game.batches) - 1:
                continue
            for seat in [None, *range(raw["players"])]:
                view = rules.view(state, seat)
                check(own_view, view, f"{name} view for {seat} after batch {n}")
                check(views, view, f"{name} view (GameView) after batch {n}")
                for move in rules.legal_moves(state, seat) if seat is not None else []:
                    check(moves, rules.move_to_json(move), f"{name} move {move}")
                    check(any_move, rules.move_to_json(move), f"{name} move {move} as Move")
        final = rules.result(state)
        assert final is not None
        check(results, final, f"{name} result")
        check(any_result, final, f"{name} result as GameResult")
        demoted = result(rules, state, Table(departed=(Departure(0, "resigned"),)))
        assert demoted is not None and demoted["departed"] == [{"seat": 0, "reason": "resigned"}]
        check(results, demoted, f"{name} result with a resigned seat")
    decided = result(rules, state, Table(departed=(Departure(1, "abandoned"),), winners=(0,), decided_by="abandonment"))
    check(any_result, decided, f"{name} result decided by a departure")
