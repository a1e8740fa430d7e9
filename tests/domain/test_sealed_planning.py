"""Sealed planning leaks nothing (D10; issue 15, finding 10).

What another seat or a spectator may know of a planning seat is decided in domain/orleans/game.py:
its market and Gunpowder Tower as they stood when planning began, and whether it is done. The
property: over many random planning positions, replace one seat's hidden plan by other random
plans (placements from the market and from the tower, take-backs) made from the same position;
every other seat's view and the spectator's are identical, and every event of those plans shows
them the same ``SealedPlanning`` record.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from domain.core import SYSTEM
from domain.games import fold
from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.model import (
    FinishPlanning,
    Phase,
    PlaceFollower,
    PlaceTileTaken,
    State,
    TakeBackFollower,
)
from domain.rng import Rng
from tests.domain.scenario_helpers import K, S, fresh, in_planning, play, with_place, with_player

SEALED = {"type": "SealedPlanning", "hidden": True}


def planning_positions(edition: str, players: int, seed: str, limit: int) -> Iterator[State]:
    """States of a random game at the start of a planning phase (seat 0 owns the Gunpowder Tower)."""
    game_id = f"sealed-{seed}"
    config = RULES.config_from_json({"edition": edition, "players": players})
    state = fold(RULES, RULES.setup(config, Rng(seed.encode(), game_id, 0)))
    state = RULES.evolve(state, PlaceTileTaken(0, D.GUNPOWDER_TOWER))
    chooser = Rng(seed.encode(), game_id + ":moves", 0)
    found = 0
    while RULES.result(state) is None and found < limit:
        acting = sorted(RULES.to_act(state), key=str)
        actor = SYSTEM if SYSTEM in acting else acting[chooser.below(len(acting))]
        moves = RULES.legal_moves(state, actor)
        command = moves[chooser.below(len(moves))]
        before = state.phase
        state = RULES.step(state, command, Rng(seed.encode(), game_id, state.draws))[1]
        if state.phase is Phase.PLANNING and before is not Phase.PLANNING:
            found += 1
            yield state


def random_plan(state: State, seat: int, chooser: Rng, steps: int) -> tuple[State, list[Any]]:
    """Up to ``steps`` random placements and take-backs of ``seat`` (never done)."""
    events: list[Any] = []
    for _ in range(steps):
        moves = [m for m in RULES.legal_moves(state, seat) if isinstance(m, PlaceFollower | TakeBackFollower)]
        if not moves:
            break
        new, state = RULES.step(state, moves[chooser.below(len(moves))], Rng(b"plan", "plan", state.draws))
        events += new
    return state, events


def others_see(state: State, seat: int) -> list[Any]:
    return [RULES.view(state, v) for v in [None, *range(state.config.players)] if v != seat]


def assert_sealed(base: State, seat: int, chooser: Rng) -> None:
    seen = others_see(base, seat)
    for steps in (1, 3, 9):
        planned, events = random_plan(base, seat, chooser, steps)
        assert others_see(planned, seat) == seen
        for event in events:
            for viewer in [None, *range(base.config.players)]:
                if viewer != seat:
                    assert RULES.event_view(event, viewer) == {**SEALED, "seat": seat}


@pytest.mark.parametrize("edition,players", [("classic", 2), ("classic", 4), ("2023", 3), ("2023", 5)])
@pytest.mark.parametrize("seed", ["a", "b"])
def test_no_seat_or_spectator_sees_anything_of_another_seats_plan(edition: str, players: int, seed: str) -> None:
    chooser = Rng(seed.encode(), "chooser", 0)
    positions = 0
    for start in planning_positions(edition, players, seed, limit=6):
        # other seats hold plans of their own, made before the seat under test plans
        state = start
        for other in range(1, players):
            state, _ = random_plan(state, other, chooser, 2)
        for seat in range(players):
            assert_sealed(state, seat, chooser)
            positions += 1
    assert positions >= 6 * players


def test_a_character_leaving_the_tower_is_not_seen_by_others():
    s = in_planning(fresh("classic", 3))
    s = with_place(s, 0, "gunpowder_tower")
    s = with_player(s, 0, market=(K,), tower=(K, S))
    seen = others_see(s, 0)
    s1, _ = play(s, PlaceFollower(0, S, "scriptorium", 1, from_tower=True))  # S can only come from the tower
    s2, _ = play(s, PlaceFollower(0, K, "scriptorium", 0))  # K from the market
    s3, _ = play(s, PlaceFollower(0, K, "scriptorium", 0, from_tower=True))  # rules 5: the tower's K
    assert others_see(s1, 0) == others_see(s2, 0) == others_see(s3, 0) == seen
    assert RULES.view(s3, 1)["seats"][0]["tower"] == ["knight", "scholar"]
    assert RULES.view(s3, 0)["seats"][0]["tower"] == ["scholar"]
    assert RULES.view(s1, 1)["seats"][0]["tower"] == ["knight", "scholar"]
    assert RULES.view(s1, 0)["seats"][0]["tower"] == ["knight"]  # the seat itself sees its plan


def test_done_is_public_and_the_plan_shows_only_when_every_seat_is_done():
    s = in_planning(fresh("classic", 2))
    s = with_player(s, 0, market=(K,))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))
    s, _ = play(s, FinishPlanning(0))
    other = RULES.view(s, 1)["seats"][0]
    assert other["planning_done"] is True and other["market"] == ["knight"]
    s, _ = play(s, FinishPlanning(1))
    seat0 = RULES.view(s, 1)["seats"][0]
    ship = next(place for place in seat0["places"] if place["id"] == "ship")
    assert seat0["market"] == [] and ship["spaces"][2]["holds"] == "knight"
