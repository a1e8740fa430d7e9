"""Golden playthroughs: a fixed seed and bots must give exactly the recorded game.

Regenerate on purpose only (after a deliberate rule change) with:
    HOURGLASS_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/domain/test_golden.py

The ``orleans-4-*`` files were written by rules 4 (engine orleans-4) before rules 5 changed the
Gunpowder Tower's copies; they are never regenerated: a new game recorded by rules 4 must still
play out the same under the rules its config names.
"""
from __future__ import annotations

import json
import os
import pathlib

import pytest

from domain.canonical import canonical_json
from domain.core import GameRules
from domain.orleans import RULES
from domain.orleans.game import RULES_4
from domain.selfplay import play

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
CASES = [("classic", 4, "orleans-classic-4p.jsonl"), ("2023", 5, "orleans-2023-5p.jsonl")]
RULES_4_CASES = [("classic", 4, "orleans-4-classic-4p.jsonl"), ("2023", 5, "orleans-4-2023-5p.jsonl")]


def transcript(edition: str, players: int, rules: GameRules = RULES) -> list[str]:
    config = rules.config_from_json({"edition": edition, "players": players})
    game = play(rules, config, b"golden-seed", f"golden-{edition}-{players}", ["random"])
    lines = [canonical_json({"config": rules.config_to_json(config), "seed": "golden-seed"})]
    for command, events in game.batches:
        lines.append(canonical_json({
            "command": None if command is None else rules.command_to_json(command),
            "events": [rules.event_to_json(e) for e in events],
        }))
    lines.append(canonical_json({"result": rules.result(game.state)}))
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


@pytest.mark.parametrize("edition,players,name", RULES_4_CASES)
def test_rules_4_playthroughs_still_match_their_golden_files(edition, players, name):
    recorded = (GOLDEN / name).read_text(encoding="utf-8").splitlines()
    assert json.loads(recorded[0])["config"]["rules_version"] == 4
    assert transcript(edition, players, RULES_4) == recorded
