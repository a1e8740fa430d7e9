"""docs/adding-a-game.md says the toy game is its own package plus one registration line; this
test holds the page to it."""
from __future__ import annotations

import re
from pathlib import Path

from domain.games import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
PRODUCT = ("domain", "core", "service", "workers", "replays", "bench")


def _listed_files() -> list[str]:
    return re.findall(r"^\| `([\w/.]+\.py)` \|", GUIDE, re.M)


def test_the_guide_lists_exactly_the_files_of_the_reference_package() -> None:
    listed = _listed_files()
    package = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "domain" / "toy").glob("*.py"))
    assert sorted(f for f in listed if f.startswith("domain/toy/")) == package
    assert [f for f in listed if not f.startswith("domain/toy/")] == ["domain/games.py"]


def test_outside_its_package_only_the_registration_line_names_the_reference_game() -> None:
    assert "domain.toy" in PACKAGES
    mentions = []
    for top in PRODUCT:
        for path in (ROOT / top).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("domain", "toy"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"domain[./]toy\b|[\"']toy[\"']", line):
                    mentions.append(f"{rel}:{number}: {line.strip()}")
    assert [m.split(":")[0] for m in mentions] == ["domain/games.py"], mentions
    assert mentions[0].endswith('"domain.toy",'), mentions
