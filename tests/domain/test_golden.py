"""Golden playthroughs: a fixed seed and bots must give exactly the recorded game.

Regenerate on purpose only (after a deliberate rule change) with:
    HOURGLASS_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/domain/test_golden.py
"""
from __future__ import annotations

import json
import os
import pathlib

import pytest

from domain.canonical import canonical_json
from domain.orleans import RULES
from domain.selfplay import play

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
CASES = [("classic", 4, "orleans-classic-4p.jsonl"), ("2023", 5, "orleans-2023-5p.jsonl")]


def transcript(edition: str, players: int) -> list[str]:
    config = RULES.config_from_json({"edition": edition, "players": players})
    game = play(RULES, config, b"golden-seed", f"golden-{edition}-{players}", ["random"])
    lines = [canonical_json({"config": RULES.config_to_json(config), "seed": "golden-seed"})]
    for command, events in game.batches:
        lines.append(canonical_json({
            "command": None if command is None else RULES.command_to_json(command),
            "events": [RULES.event_to_json(e) for e in events],
        }))
    lines.append(canonical_json({"result": RULES.result(game.state)}))
    return lines


@pytest.mark.parametrize("edition,players,name", CASES)
def test_playthrough_matches_golden_file(edition, players, name):
    path = GOLDEN / name
    lines = transcript(edition, players)
    if os.environ.get("HOURGLASS_REGENERATE_GOLDEN"):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = path.read_text(encoding="utf-8").splitlines()
    assert len(recorded) == len(lines)
    for i, (want, got) in enumerate(zip(recorded, lines)):
        assert got == want, f"{name} line {i + 1} differs"
    assert json.loads(recorded[-1])["result"]["winners"]
