"""Random playouts for 2-4 seats in both variants, with invariants after every event.

One decision in 12 is a clock timeout (the system applies the seat's default move). "Accepted ⇔
listed", the JSON round trips and warm/cold listings are checked for every game alike by
tests/contract/. At the end the incremental state must equal the fold of the whole log.
"""
from __future__ import annotations

from typing import Any

import pytest

from domain.cathedral import RULES, RULES_2
from domain.cathedral import data as D
from domain.cathedral.model import GameStarted, PlaceFollower, RoundBegan, State
from domain.core import SYSTEM
from domain.games import fold
from domain.rng import Rng
from domain.selfplay import play
from tests.cathedral.invariants import check, check_decision_point

PLAYERS = (2, 3, 4)
EDITIONS = ("standard", "expert")


def patient_choice(moves: list[Any], chooser: Rng) -> Any:
    """Random, but the Bell Tower only one time in ten while anything else fits (longer rounds)."""
    others = [m for m in moves if not (isinstance(m, PlaceFollower) and m.space is D.Space.BT)]
    pool = others if others and chooser.below(10) else moves
    return pool[chooser.below(len(pool))]


def playout(players: int, edition: str, seed_index: int) -> tuple[State, list[Any]]:
    seed = f"playout-{seed_index}".encode()
    game_id = f"playout-{players}-{edition}-{seed_index}"
    events = RULES.setup(RULES.config_from_json({"edition": edition, "players": players}), Rng(seed, game_id, 0))
    state: Any = None
    for event in events:
        state = RULES.evolve(state, event)
        check(state)
    log = list(events)
    chooser = Rng(seed, game_id + ":test", 0)
    while not RULES.is_finished(state):
        check_decision_point(state)
        acting = sorted(RULES.to_act(state), key=str)
        assert len(acting) == 1, "one seat acts at a time"
        moves = RULES.legal_moves(state, acting[0])
        assert moves, f"{acting[0]} is to act but has no move"
        command = patient_choice(moves, chooser)
        if chooser.below(12) == 0:  # now and then the seat's clock runs out instead
            command = RULES.legal_moves(state, SYSTEM)[0]
            assert RULES.default_move(state, acting[0]) in moves
        new_events, after = RULES.step(state, command, Rng(seed, game_id, state.draws))
        for event in new_events:
            state = RULES.evolve(state, event)
            check(state)
        assert state == after
        log.extend(new_events)
        assert len(log) < 5_000
    check_decision_point(state)
    return state, log


def check_log(state: State, log: list[Any]) -> None:
    assert isinstance(log[0], GameStarted)
    assert [e.round for e in log if isinstance(e, RoundBegan)] in ([1], [1, 2], [1, 2, 3]), "3 rounds at most"
    assert fold(RULES, log) == state, "the incremental state is the fold of the whole log"
    result = RULES.result(state)
    assert result is not None and result["outcome"] in ("won", "lost")


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("seed_index", range(3))
def test_random_playout_keeps_every_invariant_and_accepts_exactly_what_it_lists(
        players: int, edition: str, seed_index: int) -> None:
    state, log = playout(players, edition, seed_index)
    check_log(state, log)


def test_many_more_playouts_end_within_three_rounds() -> None:
    """Without the per-move checks: many seeds per player count and variant."""
    seen: set[str] = set()
    for players in PLAYERS:
        for edition in EDITIONS:
            for seed_index in range(100, 115):
                state, log = playout(players, edition, seed_index)
                check_log(state, log)
                seen.update(type(e).__name__ for e in log)
    assert {"OrderFulfilled", "BlueprintTurned", "Rested", "GlassMade", "HourGlassExpired", "TimeoutApplied",
            "RosetteGiven", "MonkAdded", "ItemPutBack", "HourGlassCompleted"} <= seen


def test_greedy_playouts_reach_every_rule_and_keep_every_invariant() -> None:
    """Random seats rarely fill a Workshop or build the roof; greedy seats do, so the invariants
    are checked on those paths too (2-4 seats, both variants, one game each, under the current
    tables and under rules 2's: the rules-3 games of these seeds happen to fill no Workshop)."""
    seen: set[str] = set()
    for rules, players, edition in [(r, n, e) for r in (RULES, RULES_2) for n in PLAYERS for e in EDITIONS]:
        config = rules.config_from_json({"edition": edition, "players": players})
        game = play(rules, config, f"greedy-{edition}".encode(), f"greedy-{players}-{edition}",
                    ["greedy", "random"] if edition == "expert" else ["greedy"])
        state: Any = None
        for command, events in game.batches:
            if command is not None:
                check_decision_point(state)
            for event in events:
                state = RULES.evolve(state, event)
                check(state)
                seen.add(type(event).__name__)
        assert state == game.state and RULES.is_finished(state)
    assert {"WorkshopCompleted", "HourGlassCompleted", "SectionBuilt", "Delivered", "GlassPainted", "Rested",
            "GameEnded"} <= seen
