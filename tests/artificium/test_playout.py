"""Random playouts over many seeds and every player count, with invariants after every event.

Each decision also checks "accepted ⇔ listed": every listed move is accepted by ``decide``, and
moves near the chosen one (other cards, resources, seats, a missing or extra choice) are accepted
exactly when they are listed. At the end the incremental state must equal the fold of the whole
log, and the log must survive a JSON round trip.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from domain.artificium import RULES
from domain.artificium import data as D
from domain.artificium.model import EVENTS, GameStarted, Phase, TimeoutApplied, TurnStarted
from domain.core import SYSTEM, Rejected, RejectKind
from domain.games import fold
from domain.rng import Rng
from domain.selfplay import play
from tests.artificium.invariants import check, check_between_commands

PLAYERS = (2, 3, 4, 5, 6)
SEEDS = range(6)
TIMEOUT_ODDS = 12  # one decision in 12 is a timeout instead of the seat's own move


def near_misses(command: Any, players: int) -> Iterator[Any]:
    """Commands of the same type with one field changed (to a value its type allows, as JSON would)."""
    for f in dataclasses.fields(command):
        if f.name == "seat":
            continue
        value = getattr(command, f.name)
        optional = "None" in str(f.type)
        if f.name in ("target",):
            for other in (None, -1, 0, 1, players - 1, players):
                if other != value and (other is not None or optional):
                    yield dataclasses.replace(command, **{f.name: other})
        elif f.name in ("card", "give", "take"):
            for other in (None, D.Card.SAWMILL, D.Card.CASTLE, D.Card.FAIR, D.Card.RECONSTRUCTION):
                if other is not value and (other is not None or optional):
                    yield dataclasses.replace(command, **{f.name: other})
        elif f.name == "resource":
            for other in (None, D.Resource.WHEAT, D.Resource.BEER, D.Resource.SWORD):
                if other is not value and (other is not None or optional):
                    yield dataclasses.replace(command, **{f.name: other})


def accepted(state: Any, command: Any, rng: Rng) -> bool:
    try:
        RULES.decide(state, command, Rng(rng.seed, rng.game_id, state.draws))
        return True
    except Rejected:
        return False


def playout(players: int, seed_index: int, check_moves: bool = True) -> tuple[Any, list[Any]]:
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
        if check_moves:
            check_accepted_iff_listed(state, actor, moves, command, rng, players)
        new_events, after = RULES.step(state, command, Rng(seed, game_id, state.draws))
        for event in new_events:
            state = RULES.evolve(state, event)
            check(state)
        assert state == after
        check_between_commands(state)
        log.extend(new_events)
        assert len(log) < 20_000
    return state, log


def check_accepted_iff_listed(state: Any, actor: Any, moves: list[Any], command: Any, rng: Rng,
                              players: int) -> None:
    assert len(set(moves)) == len(moves), "no move is listed twice"
    for move in moves:
        assert accepted(state, move, rng), f"listed but rejected: {move}"
    for near in near_misses(command, players):
        assert accepted(state, near, rng) == (near in moves), f"accepted != listed for {near}"
    for seat in range(players):
        if seat not in RULES.to_act(state):
            assert RULES.legal_moves(state, seat) == []
            probe = dataclasses.replace(command, seat=seat) if actor != SYSTEM else None
            if probe is not None:
                with pytest.raises(Rejected) as info:
                    RULES.decide(state, probe, Rng(rng.seed, rng.game_id, state.draws))
                assert info.value.kind is RejectKind.NOT_YOUR_TURN


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed_index", SEEDS)
def test_random_playout_keeps_every_invariant(players: int, seed_index: int) -> None:
    state, log = playout(players, seed_index)
    assert state.phase is Phase.FINISHED
    assert [e.turn for e in log if isinstance(e, TurnStarted)] == [1, 2, 3, 4], "exactly 4 turns"
    assert fold(RULES, log) == state, "the incremental state is the fold of the whole log"
    encoded = [json.loads(json.dumps(RULES.event_to_json(e))) for e in log]
    assert [RULES.event_from_json(e) for e in encoded] == log, "events survive a JSON round trip"
    assert json.loads(json.dumps(RULES.state_to_json(state))) == RULES.state_to_json(state)
    result = RULES.result(state)
    assert result is not None and result["winners"]
    assert isinstance(log[0], GameStarted)
    assert any(isinstance(e, TimeoutApplied) for e in log)


def test_many_more_playouts_end_in_four_turns() -> None:
    """Without the per-move checks: many seeds per player count."""
    finished = 0
    for players in PLAYERS:
        for seed_index in range(100, 130):
            state, log = playout(players, seed_index, check_moves=False)
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
    assert {e.__name__ for e in EVENTS} - seen <= {"TimeoutApplied"}, "greedy seats reach every rule"
