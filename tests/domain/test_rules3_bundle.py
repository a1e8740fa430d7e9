"""A game recorded by engine ``orleans-3`` keeps verifying and keeps its rules.

tests/golden/orleans-3-bundle-classic-3p.jsonl was written by engine ``orleans-3`` (commit
8785bec) through the service's own store: three human seats played by a script, greedy moves
except that seat 0 alternated PlaceFollower and TakeBackFollower 28 times in the planning of
rounds 1 and 2 (14 take-backs each), and every Gunpowder Tower owner was timed out in phase 3
(one timeout drew and began the loading, one more per LoadTower/FinishLoading ended it). So it
holds exactly what later rules changed. It is never regenerated: it is what an archive holds.
"""
from __future__ import annotations

import json
import pathlib
from collections import Counter
from typing import Any

from domain.games import fold
from domain.orleans import RULES
from domain.rng import Rng
from replays.verify import verify_bundle

BUNDLE = pathlib.Path(__file__).resolve().parents[1] / "golden" / "orleans-3-bundle-classic-3p.jsonl"


def _lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in BUNDLE.read_text(encoding="utf-8").splitlines()]


def test_the_orleans_3_bundle_verifies_by_its_own_rules_without_a_warning() -> None:
    text = BUNDLE.read_text(encoding="utf-8")
    assert json.loads(text.splitlines()[0])["engine_version"] == "orleans-3"
    report = verify_bundle(text)
    assert report.ok and report.warnings == (), report.describe()


def test_the_orleans_3_bundle_holds_long_take_back_loops_and_timeouts_while_loading() -> None:
    batches = [line for line in _lines() if line["kind"] == "batch"]
    take_backs = Counter(b["command"]["seat"] for b in batches if b["command"]["type"] == "TakeBackFollower")
    assert take_backs[0] == 28
    timed_out = Counter(e["data"]["move"] for b in batches for e in b["entries"] if e["type"] == "TimeoutApplied")
    assert timed_out["DrawFollowers"] >= 5 and timed_out["LoadTower"] >= 5


def test_a_game_recorded_by_orleans_3_keeps_its_rules_when_loaded_today() -> None:
    """The service folds a stored game's events and decides with today's RULES: the rules version
    in the recorded config brings back every orleans-3 rule."""
    lines = _lines()
    batches = [line for line in lines if line["kind"] == "batch"]
    state = fold(RULES, (RULES.event_from_json(e["data"]) for e in batches[0]["entries"]))
    assert state.config.rules_version == 3
    seed = bytes.fromhex(lines[0]["seed"])
    for batch in batches[1:]:
        command = RULES.command_from_json(batch["command"])
        events = RULES.decide(state, command, Rng(seed, lines[0]["game_id"], state.draws))
        assert [RULES.event_to_json(e) for e in events] == [e["data"] for e in batch["entries"]]
        state = fold(RULES, events, state)
    assert RULES.result(state) == lines[-1]["result"]
