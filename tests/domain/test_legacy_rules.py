"""Games recorded under an older Orléans engine keep verifying and keep their rules.

The two bundles in tests/golden/orleans-2-bundle-*.jsonl were written by engine ``orleans-2``
(commit 430a54d, before the orleans-3 rule fixes) from greedy-bot games with the expert place-tile
exclusion switched on and a Gunpowder Tower loaded during planning, so they exercise exactly the
rules orleans-3 changed. They are never regenerated: they are what an old tournament archive holds.
"""
from __future__ import annotations

import json
import pathlib

import pytest

from replays.verify import verify_bundle

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
LEGACY_BUNDLES = ["orleans-2-bundle-classic-4p.jsonl", "orleans-2-bundle-2023-3p.jsonl"]


@pytest.mark.parametrize("name", LEGACY_BUNDLES)
def test_an_orleans_2_bundle_still_verifies(name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8")
    assert json.loads(text.splitlines()[0])["engine_version"] == "orleans-2"
    report = verify_bundle(text)
    assert report.ok, report.describe()


@pytest.mark.parametrize("name", LEGACY_BUNDLES)
def test_a_flipped_byte_in_an_orleans_2_bundle_is_still_caught(name: str) -> None:
    lines = (GOLDEN / name).read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines[40].index('"chain_hash":"') + len('"chain_hash":"')
    flipped = "0" if lines[40][at] != "0" else "1"
    lines[40] = lines[40][:at] + flipped + lines[40][at + 1:]
    report = verify_bundle("".join(lines))
    assert not report.ok and report.divergence is not None and report.divergence.line == 41
