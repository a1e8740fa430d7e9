"""The greedy bot: beats random, stays pure and deterministic, and ignores hidden planning."""
from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.bots import get_bot, greedy
from domain.core import SYSTEM
from domain.games import fold
from domain.orleans import RULES
from domain.orleans.model import Phase, Placement
from domain.rng import Rng
from workers.selfplay import play

WIN_SEEDS = [f"greedy-vs-random-{i}" for i in range(12)]


def seats_with_greedy_at(seat: int) -> list[dict[str, Any]]:
    return [{"kind": "bot", "bot": "greedy" if s == seat else "random"} for s in range(4)]


def test_greedy_wins_at_least_90_percent_of_four_player_games_against_three_random_bots() -> None:
    wins = 0
    for i, seed in enumerate(WIN_SEEDS):
        greedy_seat = i % 4
        game = play(RULES, {"edition": "classic", "players": 4}, seed.encode(), f"g{i}", seats_with_greedy_at(greedy_seat))
        result = RULES.result(game.state)
        assert result is not None
        wins += result["winners"] == [greedy_seat]
    assert wins / len(WIN_SEEDS) >= 0.9, f"greedy won {wins} of {len(WIN_SEEDS)}"


def test_greedy_is_registered_and_pure() -> None:
    assert get_bot("greedy") is greedy.choose
    tree = ast.parse(Path(greedy.__file__).read_text("utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "collections", "typing", "domain"}, imported


def planning_positions(seed: str, limit: int = 25) -> Iterator[Any]:
    """States of a random-bot game where seat 0 plans while another seat holds sealed placements."""
    game_id = "hidden"
    state = fold(RULES, RULES.setup(RULES.config_from_json({"edition": "classic", "players": 4}),
                                   Rng(seed.encode(), game_id, 0)))
    version, found = 0, 0
    while RULES.result(state) is None and found < limit:
        to_act = RULES.to_act(state)
        if (state.phase is Phase.PLANNING and 0 in to_act
                and any(p.pending for p in state.players[1:]) and len(RULES.legal_moves(state, 0)) > 1):
            found += 1
            yield state
        actor = SYSTEM if SYSTEM in to_act else max(a for a in to_act if a != SYSTEM)
        moves = RULES.legal_moves(state, actor)
        command = moves[0] if actor == SYSTEM else get_bot("random")(RULES, state, actor, moves,
                                                                      Rng(seed.encode(), "bots", version))
        state = fold(RULES, RULES.decide(state, command, Rng(seed.encode(), game_id, state.draws)), state)
        version += 1


def hide_others(state: Any, seat: int) -> Any:
    """The same position with every other seat's sealed plan replaced by a different one."""
    players = list(state.players)
    for s, p in enumerate(players):
        if s != seat:
            fake = (Placement(p.pending[0].tile, "scriptorium", 0),) if p.pending else ()
            players[s] = dataclasses.replace(p, pending=fake + p.pending[1:][::-1], tower_pending=())
    return dataclasses.replace(state, players=tuple(players))


@pytest.mark.parametrize("seed", ["hidden-1", "hidden-2"])
def test_greedy_ignores_other_seats_sealed_planning(seed: str) -> None:
    positions = list(planning_positions(seed))
    assert positions
    for state in positions:
        moves = RULES.legal_moves(state, 0)
        other = hide_others(state, 0)
        assert RULES.legal_moves(other, 0) == moves
        first = greedy.choose(RULES, state, 0, moves, Rng(b"k", "bot", 1))
        assert greedy.choose(RULES, other, 0, moves, Rng(b"k", "bot", 1)) == first
        assert greedy.choose(RULES, state, 0, moves, Rng(b"k", "bot", 1)) == first  # deterministic


def test_greedy_draws_the_maximum_and_plans_only_places_it_completes() -> None:
    seed, game_id = b"greedy-shape", "shape"
    state = fold(RULES, RULES.setup(RULES.config_from_json({"edition": "classic", "players": 2}),
                                   Rng(seed, game_id, 0)))
    checked_draws = checked_plans = 0
    while RULES.result(state) is None:
        to_act = RULES.to_act(state)
        actor = SYSTEM if SYSTEM in to_act else min(to_act)
        moves = RULES.legal_moves(state, actor)
        if actor == SYSTEM:
            command = moves[0]
        else:
            command = greedy.choose(RULES, state, actor, moves, Rng(seed, f"{game_id}:bot:{actor}", state.draws))
            if type(command).__name__ == "DrawFollowers":
                assert command.count == max(m.count for m in moves if hasattr(m, "count"))
                checked_draws += 1
            if type(command).__name__ == "FinishPlanning":
                p = state.players[actor]
                for place in {pl.place for pl in p.pending}:
                    slots = list(next(s.slots for s in p.places if s.place == place))
                    for pl in p.pending:
                        if pl.place == place:
                            slots[pl.space] = pl.tile.value
                    assert place == "town_hall" or None not in slots, (place, slots)
                checked_plans += 1
        state = fold(RULES, RULES.decide(state, command, Rng(seed, game_id, state.draws)), state)
    assert checked_draws >= 20 and checked_plans >= 20
