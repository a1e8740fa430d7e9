"""Random playouts over many seeds and every player count, with invariants after every event.

"Accepted ⇔ listed" with near misses, the JSON round trips and warm/cold listings are checked
for every game alike by tests/contract/. At the end the incremental state must equal the fold of
the whole log.
"""
from __future__ import annotations

from typing import Any

import pytest

from domain.artificium import RULES
from domain.artificium import data as D
from domain.artificium.model import EVENTS, GameStarted, Phase, TimeoutApplied, TurnStarted
from domain.core import SYSTEM
from domain.games import fold
from domain.rng import Rng
from domain.selfplay import play
from tests.artificium.invariants import check, check_between_commands

PLAYERS = (2, 3, 4, 5, 6)
SEEDS = range(6)
TIMEOUT_ODDS = 12  # one decision in 12 is a timeout instead of the seat's own move


def playout(players: int, seed_index: int) -> tuple[Any, list[Any]]:
    seed = f"playout-{seed_index}".encode()
    game_id = f"playout-{players}-{seed_index}"
    rng = Rng(seed, game_id, 0)
    events = RULES.setup(RULES.config_from_json({"edition": "standard", "players": players}), rng)
    state = fold(RULES, events)
    check(state)
    log = list(events)
    chooser = Rng(seed, game_id + ":test", 0)
    while not RULES.is_finished(state):
        acting = sorted(RULES.to_act(state), key=str)
        assert acting, "someone must be able to act"
        actor = acting[chooser.below(len(acting))]
        if actor != SYSTEM and chooser.below(TIMEOUT_ODDS) == 0:
            actor = SYSTEM  # a clock ran out: the system applies some acting seat's default move
        moves = RULES.legal_moves(state, actor)
        assert moves, f"{actor} is to act but has no move"
        command = moves[chooser.below(len(moves))]
        new_events, after = RULES.step(state, command, Rng(seed, game_id, state.draws))
        for event in new_events:
            state = RULES.evolve(state, event)
            check(state)
        assert state == after
        check_between_commands(state)
        log.extend(new_events)
        assert len(log) < 20_000
    return state, log


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed_index", SEEDS)
def test_random_playout_keeps_every_invariant(players: int, seed_index: int) -> None:
    state, log = playout(players, seed_index)
    assert state.phase is Phase.FINISHED
    assert [e.turn for e in log if isinstance(e, TurnStarted)] == [1, 2, 3, 4], "exactly 4 turns"
    assert fold(RULES, log) == state, "the incremental state is the fold of the whole log"
    result = RULES.result(state)
    assert result is not None and result["winners"]
    assert isinstance(log[0], GameStarted)
    assert any(isinstance(e, TimeoutApplied) for e in log)


def test_many_more_playouts_end_in_four_turns() -> None:
    """Without the per-move checks: many seeds per player count."""
    finished = 0
    for players in PLAYERS:
        for seed_index in range(100, 130):
            state, log = playout(players, seed_index)
            assert sum(isinstance(e, TurnStarted) for e in log) == D.TURNS
            finished += 1
    assert finished == 150


def test_greedy_playouts_reach_every_rule_and_keep_every_invariant() -> None:
    """Random bots rarely build a chain; greedy seats reach Castles, Wizards, bonus spaces and
    reshuffles, so the invariants are checked on those paths too (every count, two games each)."""
    seen: set[str] = set()
    for players in PLAYERS:
        for seed_index in range(2):
            config = RULES.config_from_json({"edition": "standard", "players": players})
            game = play(RULES, config, f"greedy-{seed_index}".encode(), f"greedy-{players}-{seed_index}",
                        ["greedy", "random"] if seed_index else ["greedy"])
            state = None
            for _, events in game.batches:
                for event in events:
                    state = RULES.evolve(state, event)
                    check(state)
                    seen.add(type(event).__name__)
                check_between_commands(state)
            assert state == game.state and state.phase is Phase.FINISHED
    # EverythingSold is rules 1's final sale; rules 2 counts it without moving tokens (A§5.1)
    assert {e.__name__ for e in EVENTS} - seen <= {"TimeoutApplied", "EverythingSold"}, "greedy seats reach every rule"
