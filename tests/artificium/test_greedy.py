"""The Artificium greedy bot: beats random, is picked per game, and never reads hidden cards."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from domain.artificium import RULES
from domain.bots import artificium_greedy, bot_rng, get_bot, greedy
from domain.core import SYSTEM
from domain.selfplay import play
from tests.artificium.test_hidden import disguise, positions

WIN_SEEDS = [f"artificium-greedy-vs-random-{i}" for i in range(40)]  # the greedy seat rotates over seats 0-3


def test_greedy_wins_at_least_90_percent_of_four_player_games_against_three_random_bots() -> None:
    config = RULES.config_from_json({"edition": "standard", "players": 4})
    wins = 0
    for i, seed in enumerate(WIN_SEEDS):
        seat = i % 4
        bots = ["greedy" if s == seat else "random" for s in range(4)]
        game = play(RULES, config, seed.encode(), f"g{i}", bots)
        result = RULES.result(game.state)
        assert result is not None
        wins += result["winners"] == [seat]
    assert wins / len(WIN_SEEDS) >= 0.9, f"greedy won {wins} of {len(WIN_SEEDS)}"


def test_greedy_is_chosen_per_game() -> None:
    assert get_bot("greedy", "artificium") is artificium_greedy.choose
    assert get_bot("greedy", "orleans") is greedy.choose
    assert get_bot("random", "artificium") is get_bot("random")


def test_the_bot_is_pure() -> None:
    tree = ast.parse(Path(artificium_greedy.__file__).read_text("utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "collections", "dataclasses", "typing", "domain"}, imported


@pytest.mark.parametrize("players,seed_index", [(3, 11), (5, 12)])
def test_greedy_ignores_what_its_seat_cannot_see(players: int, seed_index: int) -> None:
    """The same choice when other hands, sealed cards and the deck order are different."""
    states, _ = positions(players, seed_index)
    checked = 0
    for version, state in enumerate(states[::2]):
        for seat in sorted(a for a in RULES.to_act(state) if a != SYSTEM):
            moves = RULES.legal_moves(state, seat)
            if len(moves) < 2:
                continue
            rng = bot_rng(b"bot-seed", "hidden", seat, version)
            mine = artificium_greedy.choose(RULES, state, seat, moves, rng)
            rng = bot_rng(b"bot-seed", "hidden", seat, version)
            assert artificium_greedy.choose(RULES, disguise(state, seat), seat, moves, rng) == mine
            checked += 1
    assert checked > 20
