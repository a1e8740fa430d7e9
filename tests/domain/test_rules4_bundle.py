"""A game recorded by engine ``orleans-4`` keeps verifying and keeps its rules.

tests/golden/orleans-4-bundle-classic-3p.jsonl was written by engine ``orleans-4`` (commit
8a7d76e, in-process with ``core.store.build_entries`` and ``replays.bundle.build_bundle``, as
tests/replays/replay_helpers.py does): three greedy seats, except that a seat offered the
Gunpowder Tower took it, loaded a kind it held twice, and in planning, whenever the market and
the tower held one copy of a kind each, placed the market's copy, then the tower's, then took
back the first and the second. Rules 4 sent the first take-back to the tower (the market's
knight ended on the tower for a moment); rules 5 send it back to the market. It is never
regenerated: it is what an archive holds.
"""
from __future__ import annotations

import json
import pathlib
from collections import Counter
from typing import Any

from domain.games import fold
from domain.orleans import RULES
from domain.orleans.model import FollowerPlaced, FollowerTakenBack
from domain.rng import Rng
from replays.verify import verify_bundle

BUNDLE = pathlib.Path(__file__).resolve().parents[1] / "golden" / "orleans-4-bundle-classic-3p.jsonl"


def _lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in BUNDLE.read_text(encoding="utf-8").splitlines()]


def test_the_orleans_4_bundle_verifies_by_its_own_rules_without_a_warning() -> None:
    text = BUNDLE.read_text(encoding="utf-8")
    assert json.loads(text.splitlines()[0])["engine_version"] == "orleans-4"
    report = verify_bundle(text)
    assert report.ok and report.warnings == (), report.describe()


def test_a_game_recorded_by_orleans_4_keeps_its_rules_when_loaded_today() -> None:
    """Re-deciding every recorded command with today's RULES gives the recorded events, and the
    take-backs that rules 5 would send elsewhere went, under rules 4, to the tower."""
    lines = _lines()
    batches = [line for line in lines if line["kind"] == "batch"]
    state = fold(RULES, (RULES.event_from_json(e["data"]) for e in batches[0]["entries"]))
    assert state.config.rules_version == 4
    seed = bytes.fromhex(lines[0]["seed"])
    kinds: Counter[str] = Counter()
    for batch in batches[1:]:
        command = RULES.command_from_json(batch["command"])
        events = RULES.decide(state, command, Rng(seed, lines[0]["game_id"], state.draws))
        assert [RULES.event_to_json(e) for e in events] == [e["data"] for e in batch["entries"]]
        before = state
        state = fold(RULES, events, state)
        for e in events:
            if isinstance(e, FollowerTakenBack):
                p, q = before.players[e.seat], state.players[e.seat]
                placed = next(x for x in p.pending if (x.place, x.space) == (e.place, e.space))
                assert not placed.from_tower  # rules 4 placements name no copy
                kinds["to tower" if len(q.tower) > len(p.tower) else "to market"] += 1
                later = p.pending[p.pending.index(placed) + 1:]
                if any(x.tile is e.tile for x in later) and len(q.tower) > len(p.tower):
                    kinds["market copy to tower"] += 1  # placed first, so from the market (market first)
            kinds["placed"] += isinstance(e, FollowerPlaced)
    assert RULES.result(state) == lines[-1]["result"]
    assert kinds["to tower"] >= 3 and kinds["market copy to tower"] >= 3, kinds
