"""Golden playthroughs: a fixed seed and bots must give exactly the recorded games.

``artificium-4p.jsonl``: four random seats, re-played bots and all. ``artificium-5p-greedy.jsonl``:
greedy and random seats that reach Castles, Wizards, Exploration, Theft and reshuffles; its test
re-decides the recorded commands (not the bots), so only a rule change can break it.

Regenerate on purpose only (after a deliberate rule change) with:
    HOURGLASS_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/artificium/test_golden.py
"""
from __future__ import annotations

import json
import os
import pathlib

from domain.artificium import RULES
from domain.canonical import canonical_json
from domain.games import fold
from domain.rng import Rng
from domain.selfplay import play

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
NAME = "artificium-4p.jsonl"
GREEDY = "artificium-5p-greedy.jsonl"
GREEDY_GAME = ("golden-greedy-seed", "golden-artificium-greedy-5")


def transcript(players: int, bots: tuple[str, ...] = ("random",), seed: str = "golden-seed",
               game_id: str | None = None) -> list[str]:
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


def test_playthrough_matches_golden_file() -> None:
    path = GOLDEN / NAME
    lines = transcript(4)
    if os.environ.get("HOURGLASS_REGENERATE_GOLDEN"):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = path.read_text(encoding="utf-8").splitlines()
    assert len(recorded) == len(lines)
    for i, (want, got) in enumerate(zip(recorded, lines)):
        assert got == want, f"{NAME} line {i + 1} differs"
    assert json.loads(recorded[-1])["result"]["winners"]


def test_golden_file_replays_through_the_fold() -> None:
    """The recorded events alone rebuild the recorded result (no seed, no rules run)."""
    recorded = (GOLDEN / NAME).read_text(encoding="utf-8").splitlines()
    state = None
    for line in recorded[1:-1]:
        for data in json.loads(line)["events"]:
            state = RULES.evolve(state, RULES.event_from_json(data))
    assert RULES.result(state) == json.loads(recorded[-1])["result"]


def test_greedy_playthrough_re_decides_to_its_golden_file() -> None:
    """Every recorded command, decided again with the recorded seed, gives the recorded events."""
    path = GOLDEN / GREEDY
    seed, game_id = GREEDY_GAME
    if os.environ.get("HOURGLASS_REGENERATE_GOLDEN"):
        lines = transcript(5, ("greedy", "random", "greedy"), seed, game_id)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header, batches, footer = recorded[0], recorded[1:-1], recorded[-1]
    assert header["seed"] == seed and header["engine_version"] == RULES.engine_version
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
