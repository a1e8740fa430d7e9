"""Golden playthrough: a fixed seed and bots must give exactly the recorded 3-seat game.

The greedy team plays, so the transcript runs through Workshops, Hour Glasses, Events, Blueprints
and rests. Regenerate on purpose only (after a deliberate change to the rules or to the greedy bot)
with:
    HOURGLASS_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/cathedral/test_golden.py
"""
from __future__ import annotations

import json
import os
import pathlib

from domain.canonical import canonical_json
from domain.cathedral import RULES
from domain.selfplay import play

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
NAME = "cathedral-3p.jsonl"


def transcript() -> list[str]:
    config = RULES.config_from_json({"edition": "standard", "players": 3})
    game = play(RULES, config, b"golden-seed", "golden-cathedral-3", ["greedy"])
    lines = [canonical_json({"config": RULES.config_to_json(config), "seed": "golden-seed",
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
    lines = transcript()
    if os.environ.get("HOURGLASS_REGENERATE_GOLDEN"):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = path.read_text(encoding="utf-8").splitlines()
    assert len(recorded) == len(lines)
    for i, (want, got) in enumerate(zip(recorded, lines)):
        assert got == want, f"{NAME} line {i + 1} differs"


def test_golden_file_replays_through_the_fold() -> None:
    """The recorded events alone rebuild the recorded result (no seed, no rules run)."""
    recorded = (GOLDEN / NAME).read_text(encoding="utf-8").splitlines()
    state = None
    for line in recorded[1:-1]:
        for data in json.loads(line)["events"]:
            state = RULES.evolve(state, RULES.event_from_json(data))
    result = json.loads(recorded[-1])["result"]
    assert RULES.result(state) == result and result["outcome"] in ("won", "lost")
    kinds = {json.loads(line)["events"][0]["type"] for line in recorded[1:-1] if json.loads(line)["events"]}
    assert len(kinds) > 3
