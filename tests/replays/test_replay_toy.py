"""The verifier is game-agnostic: a tiny game behind the same contract verifies and is caught."""
from __future__ import annotations

import json

from domain.canonical import canonical_json, json_hash
from replays.bundle import build_bundle
from replays.verify import verify_bundle
from tests.replays.replay_helpers import play_rules
from tests.replays.replay_toy_game import TOY, toy_rules


def _bundle(seed: str = "toy") -> str:
    game_id, meta, entries = play_rules(TOY, {"players": 3}, seed, "toy-game-1")
    return build_bundle(game_id, meta, entries, rules_for=toy_rules)


def test_toy_game_verifies() -> None:
    for seed in ("a", "b", "c"):
        report = verify_bundle(_bundle(seed), rules_for=toy_rules)
        assert report.ok, report.describe()
        assert report.result["winners"]


def test_toy_draw_change_is_caught_by_rerunning_decide() -> None:
    lines = _bundle().split("\n")[:-1]
    draws = [n for n, text in enumerate(lines[1:-1], start=2) if json.loads(text)["entries"][0]["type"] == "Drew"]
    assert draws, "no draw in the game"
    number = draws[0]
    batch = json.loads(lines[number - 1])
    entry = batch["entries"][0]
    report = verify_bundle(_bundle(), rules_for=toy_rules)
    assert report.ok
    # swap the drawn tile for another one still in the bag: only re-running decide can tell
    entry["data"]["tile"] = 10 - entry["data"]["tile"] if entry["data"]["tile"] != 5 else 4
    forged = lines[: number - 1] + [canonical_json(batch)] + lines[number:]
    report = verify_bundle("".join(line + "\n" for line in forged), rules_for=toy_rules)
    assert not report.ok
    assert report.divergence.line == number and "event" in report.divergence.what


def test_unknown_game_is_reported_on_the_header() -> None:
    text = _bundle()
    report = verify_bundle(text)  # the real registry has no "bagrace" game
    assert not report.ok and report.divergence.line == 1 and "unknown game" in report.divergence.what
    header = json.loads(text.split("\n")[0])
    assert json.loads(text.split("\n")[-2])["header_hash"] == json_hash(header)
