"""Bundle formats 2 and 3 hash the state at checkpoints only; format 1 bundles (a state hash after
every batch) keep verifying, and neither format can be passed off as the other. (Format 3 adds
the signature: tests/replays/test_replay_signature.py.)"""
from __future__ import annotations

import json

import pytest

from domain.canonical import canonical_json, json_hash
from replays.bundle import CHECKPOINT, FORMAT, FORMAT_1, FORMAT_2, FORMATS, build_bundle
from replays.verify import verify_bundle
from tests.replays.replay_helpers import CONFIGS, bundle_text, played


def format_1_text(edition: str, players: int) -> str:
    """The same game as ``bundle_text(edition, players)``, exported in format 1."""
    game_id, meta, entries = played(edition, players)
    return build_bundle(game_id, meta, entries, fmt=FORMAT_1)


def _objs(text: str) -> list[dict]:
    return [json.loads(line) for line in text.split("\n")[:-1]]


def _text(objs: list[dict]) -> str:
    return "".join(canonical_json(o) + "\n" for o in objs)


def _reheader(objs: list[dict], **changes) -> list[dict]:
    """A careful forger's edit of the header: the footer's header_hash recomputed to match."""
    header = {**objs[0], **changes}
    footer = {**objs[-1], "header_hash": json_hash(header)}
    return [header, *objs[1:-1], footer]


def test_export_writes_format_4_with_a_state_hash_on_checkpoint_batches_only(small_bundle: str) -> None:
    header, *batches, footer = _objs(small_bundle)
    assert FORMAT == "hourglass-replay/4" and header["format"] == FORMAT
    assert len(batches) > 2 * CHECKPOINT  # the game crosses several checkpoints
    for b in batches:
        assert (b["state_hash"] is not None) == (b["batch"] % CHECKPOINT == 0), b["batch"]
    assert isinstance(footer["final_state_hash"], str) and len(footer["final_state_hash"]) == 64


def test_both_formats_hash_the_same_states() -> None:
    game_id, meta, entries = played("classic", 2)
    new, old = _objs(build_bundle(game_id, meta, entries)), _objs(build_bundle(game_id, meta, entries, fmt=FORMAT_1))
    assert old[0]["format"] == FORMAT_1 and all(b["state_hash"] for b in old[1:-1])
    for a, b in zip(new[1:-1], old[1:-1]):
        assert a["state_hash"] in (None, b["state_hash"])
        assert {**a, "state_hash": None, "view_heads": None} == {**b, "state_hash": None, "view_heads": None}
    assert new[-1]["final_state_hash"] == old[-1]["final_state_hash"] == old[-2]["state_hash"]


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_format_1_bundles_still_verify(edition: str, players: int) -> None:
    report = verify_bundle(format_1_text(edition, players))
    assert report.ok, report.describe()


def test_a_state_hash_between_checkpoints_is_caught(small_bundle: str) -> None:
    objs = _objs(small_bundle)
    objs[2] = {**objs[2], "state_hash": _objs(format_1_text("classic", 2))[2]["state_hash"]}
    report = verify_bundle(_text(objs))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 3 and "null between checkpoints" in report.divergence.what


def test_a_changed_checkpoint_hash_is_caught(small_bundle: str) -> None:
    objs = _objs(small_bundle)
    line = 1 + CHECKPOINT  # objs[line] is batch CHECKPOINT (objs[0] is the header); file line line + 1
    objs[line] = {**objs[line], "state_hash": "0" * 64}
    report = verify_bundle(_text(objs))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == line + 1 and report.divergence.what == "state hash after the batch"


def format_2_text(edition: str, players: int) -> str:
    game_id, meta, entries = played(edition, players)
    return build_bundle(game_id, meta, entries, fmt=FORMAT_2)


def test_a_format_2_bundle_relabelled_format_1_is_caught() -> None:
    objs = _reheader(_objs(format_2_text("classic", 2)), format=FORMAT_1)
    report = verify_bundle(_text(objs))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 3 and report.divergence.what == "state hash after the batch"


def test_a_format_1_bundle_relabelled_format_2_is_caught() -> None:
    objs = _reheader(_objs(format_1_text("classic", 2)), format=FORMAT_2)
    report = verify_bundle(_text(objs))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 3 and "null between checkpoints" in report.divergence.what


def test_an_unknown_format_is_caught_on_the_header() -> None:
    objs = _reheader(_objs(bundle_text("classic", 2)), format="hourglass-replay/9")
    report = verify_bundle(_text(objs))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 1 and report.divergence.what == "format"
    assert all(f in report.divergence.expected for f in FORMATS)


def test_export_refuses_an_unknown_format() -> None:
    game_id, meta, entries = played("classic", 2)
    with pytest.raises(ValueError, match="unknown bundle format"):
        build_bundle(game_id, meta, entries, fmt="hourglass-replay/0")
