"""Golden playthroughs: a fixed seed and bots must give exactly the recorded games.

``artificium-4p.jsonl``: four random seats, re-played bots and all. ``artificium-5p-greedy.jsonl``:
greedy and random seats that reach Castles, Wizards, Exploration, Theft and reshuffles; its test
re-decides the recorded commands (not the bots), so only a rule change can break it. Both were
recorded by artificium-1 and replay with the rules that engine's games keep (``for_engine``: rules
1); ``artificium-2-4p.jsonl`` and ``artificium-2-6p-greedy.jsonl`` are the same kinds of game under
rules 2 (the 100-token bank, A§5). Regeneration rewrites only the current engine's files.

Regenerate on purpose only (after a deliberate rule change) with:
    HOURGLASS_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/artificium/test_golden.py
"""
from __future__ import annotations

import json
import os
import pathlib
from typing import Any

import pytest

from domain.artificium import LEGACY_RULES, RULES
from domain.canonical import canonical_json
from domain.games import fold, get_game
from domain.rng import Rng
from domain.selfplay import play

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
NAME = "artificium-4p.jsonl"
GREEDY = "artificium-5p-greedy.jsonl"
GREEDY_GAME = ("golden-greedy-seed", "golden-artificium-greedy-5")
NAME_2 = "artificium-2-4p.jsonl"
GREEDY_2 = "artificium-2-6p-greedy.jsonl"
GREEDY_GAME_2 = ("golden-greedy-seed", "golden-artificium-2-greedy-6")


def transcript(players: int, bots: tuple[str, ...] = ("random",), seed: str = "golden-seed",
               game_id: str | None = None, rules: Any = LEGACY_RULES) -> list[str]:
    RULES = rules  # noqa: N806 (the recorded engine's rules)
    config = RULES.config_from_json({"edition": "standard", "players": players})
    game = play(RULES, config, seed.encode(), game_id or f"golden-artificium-{players}", list(bots))
    lines = [canonical_json({"config": RULES.config_to_json(config), "seed": seed,
                             "engine_version": RULES.engine_version})]
    for command, events in game.batches:
        lines.append(canonical_json({
            "command": None if command is None else RULES.command_to_json(command),
            "events": [RULES.event_to_json(e) for e in events],
        }))
    lines.append(canonical_json({"result": RULES.result(game.state)}))
    return lines


@pytest.mark.parametrize("name,rules", [(NAME, LEGACY_RULES), (NAME_2, RULES)])
def test_playthrough_matches_golden_file(name: str, rules: Any) -> None:
    path = GOLDEN / name
    lines = transcript(4, rules=rules, game_id="golden-artificium-4")
    if os.environ.get("HOURGLASS_REGENERATE_GOLDEN") and rules is RULES:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(recorded[0])["engine_version"] == rules.engine_version
    assert len(recorded) == len(lines)
    for i, (want, got) in enumerate(zip(recorded, lines)):
        assert got == want, f"{name} line {i + 1} differs"
    assert json.loads(recorded[-1])["result"]["winners"]


@pytest.mark.parametrize("name", [NAME, NAME_2])
def test_golden_file_replays_through_the_fold(name: str) -> None:
    """The recorded events alone rebuild the recorded result (no seed, no rules run); the rules
    version comes from the recorded config, so either plugin folds either file."""
    recorded = (GOLDEN / name).read_text(encoding="utf-8").splitlines()
    state = None
    for line in recorded[1:-1]:
        for data in json.loads(line)["events"]:
            state = RULES.evolve(state, RULES.event_from_json(data))
    assert RULES.result(state) == json.loads(recorded[-1])["result"]


@pytest.mark.parametrize("name,players,game,rules", [(GREEDY, 5, GREEDY_GAME, LEGACY_RULES),
                                                     (GREEDY_2, 6, GREEDY_GAME_2, RULES)])
def test_greedy_playthrough_re_decides_to_its_golden_file(name: str, players: int, game: tuple[str, str],
                                                          rules: Any) -> None:
    """Every recorded command, decided again with the recorded seed, gives the recorded events."""
    path = GOLDEN / name
    seed, game_id = game
    if os.environ.get("HOURGLASS_REGENERATE_GOLDEN") and rules is RULES_NOW:  # an old engine's file stays as recorded
        lines = transcript(players, ("greedy", "random", "greedy"), seed, game_id, rules)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header, batches, footer = recorded[0], recorded[1:-1], recorded[-1]
    RULES = get_game("artificium", header["engine_version"])  # noqa: N806 (the recorded engine's rules)
    assert header["seed"] == seed and RULES is rules
    config = RULES.config_from_json(header["config"])
    events = RULES.setup(config, Rng(seed.encode(), game_id, 0))
    assert [RULES.event_to_json(e) for e in events] == batches[0]["events"]
    state = fold(RULES, events)
    kinds = set()
    for i, batch in enumerate(batches[1:], start=2):
        command = RULES.command_from_json(batch["command"])
        events = RULES.decide(state, command, Rng(seed.encode(), game_id, state.draws))
        assert [RULES.event_to_json(e) for e in events] == batch["events"], f"{GREEDY} line {i} differs"
        state = fold(RULES, events, state)
        kinds |= {type(e).__name__ for e in events}
    assert json.loads(json.dumps(RULES.result(state))) == footer["result"]
    assert {"MarkerPushedBack", "DiscardsOwed", "CardExplored", "ResourceStolen", "BonusCollected",
            "DeckReshuffled", "HandDiscarded"} <= kinds, "the greedy game reaches the rare rules"
    if rules is RULES_NOW:
        assert min(bank_after(header, batches)) >= 0, "rules 2: the bank never shows a negative count"


RULES_NOW = RULES


def bank_after(header: dict[str, Any], batches: list[dict[str, Any]]) -> list[int]:
    """The bank after every recorded event."""
    state, banks = None, []
    for batch in batches:
        for data in batch["events"]:
            state = RULES_NOW.evolve(state, RULES_NOW.event_from_json(data))
            banks.append(state.bank)
    return banks
