"""docs/replay-format.md: the reference recipe runs, stays within 50 lines, and the field tables
name exactly the fields the bundle has."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from replays.bundle import BATCH_ENTRY_KEYS, BATCH_KEYS, FOOTER_KEYS, HEADER_KEYS
from tests.replays.replay_helpers import bundle_text

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "replay-format.md").read_text(encoding="utf-8")


def _recipe() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC, re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_recipe_is_at_most_50_lines() -> None:
    assert len(_recipe().strip().splitlines()) <= 50


def test_recipe_recomputes_every_bag_draw(tmp_path: Path) -> None:
    script, bundle = tmp_path / "recompute_draws.py", tmp_path / "game.jsonl"
    script.write_text(_recipe(), encoding="utf-8")
    bundle.write_text(bundle_text("classic", 4), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script), str(bundle)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert run.returncode == 0, run.stderr
    count = int(run.stdout.split()[0])
    drawn = sum(1 for line in bundle.read_text().splitlines() if '"type":"FollowersDrawn"' in line)
    assert count >= drawn > 0


def test_recipe_catches_a_changed_draw(tmp_path: Path) -> None:
    script, bundle = tmp_path / "recompute_draws.py", tmp_path / "game.jsonl"
    script.write_text(_recipe(), encoding="utf-8")
    lines = bundle_text("classic", 2).splitlines()
    for i, line in enumerate(lines):
        obj = json.loads(line)
        for entry in obj["entries"] if obj["kind"] == "batch" else []:
            tiles = entry["data"].get("tiles") if entry["type"] == "FollowersDrawn" else None
            if tiles and len(set(tiles)) > 1:
                j = next(k for k, t in enumerate(tiles) if t != tiles[0])
                tiles[0], tiles[j] = tiles[j], tiles[0]
                lines[i] = json.dumps(obj)
                break
        else:
            continue
        break
    bundle.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(script), str(bundle)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert run.returncode != 0 and "bundle says" in run.stderr


def _table_fields(heading: str) -> set[str]:
    """The backticked names in the first column of the first table after ``heading``."""
    table: list[str] = []
    for line in DOC.split(heading, 1)[1].splitlines()[1:]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    return {m.group(1) for line in table if (m := re.match(r"\| `([a-z_]+)`", line))}


def test_field_tables_match_the_bundle() -> None:
    assert _table_fields("## Header (line 1)") == HEADER_KEYS
    assert _table_fields("## Batch (lines 2") == BATCH_KEYS
    assert _table_fields("Each element of `entries`") == BATCH_ENTRY_KEYS
    assert _table_fields("## Footer (line n)") == FOOTER_KEYS
