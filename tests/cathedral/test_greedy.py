"""The Cathedral's greedy bot: picked per game, pure, better than random, blind to the game's own
future draws; and `hourglass selfplay --game cathedral` prints the common line shape."""
from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

from domain.bots import bot_rng, cathedral_greedy, get_bot, greedy
from domain.cathedral import RULES
from domain.cathedral.data import Space
from domain.cathedral.model import PlaceFollower
from domain.selfplay import lines, play
from tests.cathedral.test_hidden import positions

SEEDS = [f"cathedral-greedy-vs-random-{i}" for i in range(4)]


def test_greedy_is_chosen_per_game() -> None:
    assert get_bot("greedy", "cathedral") is cathedral_greedy.choose
    assert get_bot("greedy", "orleans") is greedy.choose
    assert get_bot("random", "cathedral") is get_bot("random")


def test_the_bot_is_pure() -> None:
    for module in ("cathedral_greedy", "cathedral_estimate"):
        tree = ast.parse((Path(cathedral_greedy.__file__).parent / f"{module}.py").read_text("utf-8"))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert imported <= {"__future__", "collections", "dataclasses", "types", "typing", "domain"}, imported


def test_greedy_builds_more_than_random_on_the_same_seeds() -> None:
    config = RULES.config_from_json({"edition": "standard", "players": 3})
    built = {"greedy": 0, "random": 0}
    for i, seed in enumerate(SEEDS):
        for bot in built:
            game = play(RULES, config, seed.encode(), f"g{i}", [bot])
            result = RULES.result(game.state)
            assert result is not None
            built[bot] += result["sections_built"]
    assert built["greedy"] >= 2 * len(SEEDS) + built["random"], built


def test_greedy_never_rings_the_bell_while_anything_else_fits() -> None:
    """C-rules l.303-309: as late as possible; ending a round early only wastes actions."""
    states, _ = positions(3, "standard", 600)
    checked = 0
    for version, state in enumerate(states):
        if RULES.is_finished(state):
            continue
        moves = RULES.legal_moves(state, state.active)
        bell = PlaceFollower(state.active, Space.BT)
        if bell not in moves or len(moves) == 1:
            continue
        assert cathedral_greedy.choose(RULES, state, state.active, moves,
                                       bot_rng(b"s", "g", state.active, version)) != bell
        checked += 1
    assert checked > 3


def test_greedy_ignores_the_games_own_draw_counter() -> None:
    """The game's future draws are Rng(seed, game, state.draws): a bot that peeked would choose
    differently when the counter differs. Its lookahead uses its own streams only."""
    states, _ = positions(2, "expert", 700)
    checked = 0
    for version, state in enumerate(states[3::6]):
        if RULES.is_finished(state):
            continue
        moves = RULES.legal_moves(state, state.active)
        if len(moves) < 2:
            continue
        mine = cathedral_greedy.choose(RULES, state, state.active, moves, bot_rng(b"s", "g", state.active, version))
        other = replace(state, draws=state.draws + 1000)
        assert cathedral_greedy.choose(RULES, other, state.active, moves,
                                       bot_rng(b"s", "g", state.active, version)) == mine
        checked += 1
    assert checked > 10


def test_selfplay_prints_the_common_line_for_the_cathedral() -> None:
    """`hourglass selfplay --game cathedral ...`: the same line shape as the other games."""
    args = ["--game", "cathedral", "--edition", "expert", "--players", "2", "--games", "2", "--seed", "s",
            "--bots", "greedy,random"]
    first, second = list(lines(args)), list(lines(args))
    assert first == second and len(first) == 2 and first[0] != first[1]
    row = json.loads(first[0])
    assert set(row) == {"seed", "edition", "players", "rounds", "decisions", "events", "scores", "winners",
                        "final_hash"}
    assert row["edition"] == "expert" and row["players"] == 2 and row["rounds"] in (1, 2, 3)
    assert len(set(row["scores"])) == 1 and row["winners"] in ([], [0, 1])
