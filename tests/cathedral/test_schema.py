"""The published schema of the Cathedral's view and result fits every position of real games.

tests/service/test_openapi_views.py validates sampled views of short random games through the live
OpenAPI document; random seats end rounds early at the Bell Tower, so most of the view's optional
parts never show up there. Here greedy and patient-random playouts (both variants, 2-4 seats) are
validated at every decision point, and the test also proves it saw each optional part both empty
and filled (a pending Cart move with its route, an active order of each kind, rewards owed, an Hour
Glass tile, a result of each outcome), so the schema is checked against the shapes it describes.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from jsonschema import Draft202012Validator

from domain.cathedral import RULES
from domain.cathedral.schema import RESULT, SCHEMA, VIEW
from domain.games import fold
from domain.selfplay import play
from tests.cathedral.test_playout import playout

GREEDY = [(2, "standard", 0), (3, "expert", 1), (4, "standard", 2), (3, "standard", 3), (2, "expert", 4)]
RANDOM = [(2, "expert", 20), (3, "standard", 21), (4, "expert", 22)]


def shapes(view: dict[str, Any]) -> set[str]:
    """The optional parts this view shows, by name (for the coverage check)."""
    seen = {f"stage:{view['stage']}"}
    for key in ("pending", "hour_glass", "drawn", "result"):
        seen.add(f"{key}:{'none' if view[key] is None else 'some'}")
    if view["pending"] and view["pending"]["route"]:
        seen.add("pending:route")
    if view["events"]["order"]:
        seen.add(f"order:{view['events']['order']['condition']}")
    if view["rewards"]:
        seen.add("rewards")
    if any(s["knapsack"] for s in view["seats"]):
        seen.add("knapsack")
    if view["result"]:
        seen.add(f"outcome:{view['result']['outcome']}")
    return seen


def test_views_and_results_of_whole_games_fit_the_schema() -> None:
    views, results = Draft202012Validator(dict(VIEW)), Draft202012Validator(dict(RESULT))
    Draft202012Validator.check_schema(dict(VIEW))
    seen: Counter[str] = Counter()
    games = [play(RULES, RULES.config_from_json({"edition": e, "players": n}), f"schema-{i}".encode(),
                  f"schema-{i}", ["greedy"]) for n, e, i in GREEDY]
    logs = [[event for _, batch in game.batches for event in batch] for game in games]
    logs += [playout(n, e, i)[1] for n, e, i in RANDOM]
    for log in logs:
        state: Any = None
        for n, event in enumerate(log):
            state = fold(RULES, [event], state)  # every version: time travel may ask for any
            for seat in (None, *range(state.config.players)) if n % 10 == 0 else (None,):
                view = RULES.view(state, seat)
                errors = [f"{list(e.absolute_path)}: {e.message[:160]}" for e in views.iter_errors(view)]
                assert not errors, f"{type(event).__name__} (seat {seat}): {errors[:3]}"
            seen.update(shapes(view))
        final = RULES.result(state)
        assert final is not None and not list(results.iter_errors(final))
    expected = {"pending:none", "pending:some", "pending:route", "hour_glass:none", "hour_glass:some", "drawn:some",
                "drawn:none", "result:some", "result:none", "rewards", "knapsack", "order:builder_at",
                "order:two_builders", "order:rosettes", "outcome:won", "outcome:lost",
                *(f"stage:{s}" for s in ("draw", "place", "action", "reward", "turn_end", "finished"))}
    assert expected <= set(seen), f"never seen: {sorted(expected - set(seen))}"


def test_the_schema_publishes_every_seat_move_and_the_config() -> None:
    assert {cls.__name__ for cls in SCHEMA.moves} == {
        "DrawFollower", "PlaceFollower", "Travel", "TakeItem", "Deliver", "MakeGlass", "PaintGlass", "FinishAction",
        "GiveRosette", "PutMonk", "Forgo", "Rest", "EndTurn", "MakeRoom"}
    assert "ApplyTimeout" not in {cls.__name__ for cls in SCHEMA.moves}  # the service's own step, never posted
    assert SCHEMA.config is type(RULES.config_from_json({"players": 2}))
