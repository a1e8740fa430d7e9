"""Every form of tampering the issue lists is caught, and the report points at the right line.

Two kinds of forger: a careless one who edits bytes (caught by the hashes), and a careful one who
edits the game and recomputes every hash in the bundle (caught only by re-running the engine
with the revealed seed).
"""
from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

from domain.canonical import GENESIS_HASH, canonical_json, entry_hash, json_hash
from replays.bundle import build_bundle, dumps
from replays.entries import chain_hashes, hashed_part
from replays.verify import verify_bundle
from tests.replays.replay_helpers import played


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1]


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _fails_at(text: str | bytes, line: int, what: str = "", verify=verify_bundle) -> Any:
    report = verify(text)
    assert not report.ok, "tampered bundle verified"
    assert report.divergence is not None
    assert report.divergence.line == line, report.describe()
    assert what in report.divergence.what, report.describe()
    return report


def _line_of_offset(text: bytes, offset: int) -> int:
    return text[:offset].count(b"\n") + 1


def test_untampered_bundle_verifies(subject) -> None:
    small_bundle, verify = subject
    assert verify(small_bundle).ok
    assert verify(small_bundle.encode("utf-8")).ok


def test_every_flipped_byte_of_the_header_is_caught(subject) -> None:
    small_bundle, verify = subject
    data = small_bundle.encode("utf-8")
    header_end = data.index(b"\n")
    for offset in range(header_end + 1):
        flipped = data[:offset] + bytes([data[offset] ^ 0x01]) + data[offset + 1:]
        report = verify(flipped)
        assert not report.ok, f"flip at byte {offset} verified"
        assert report.divergence is not None and report.divergence.line in (1, 2), report.describe()


def test_flipped_bytes_anywhere_are_caught_at_their_line(subject) -> None:
    small_bundle, verify = subject
    data = small_bundle.encode("utf-8")
    newlines = [i for i, b in enumerate(data) if b == 0x0A]
    starts = [0] + [i + 1 for i in newlines[:-1]]
    picks = set(random.Random(5).sample(range(len(data)), 60))
    picks |= {starts[1], newlines[1] - 1, starts[-1], len(data) - 2, len(data) - 1, newlines[len(newlines) // 2]}
    for offset in sorted(picks):
        flipped = data[:offset] + bytes([data[offset] ^ 0x01]) + data[offset + 1:]
        report = verify(flipped)
        assert not report.ok, f"flip at byte {offset} verified"
        line = _line_of_offset(data, offset)
        assert report.divergence is not None
        # a flipped newline merges two lines (or cuts the file short); otherwise the line itself
        assert report.divergence.line in (line, line + 1, 1), (offset, report.describe())


def test_dropped_lines_are_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    _fails_at(_join(lines[1:]), 1, "header", verify=verify)
    _fails_at(_join(lines[:1] + lines[2:]), 2, "batch number", verify=verify)
    middle = len(lines) // 2
    _fails_at(_join(lines[:middle] + lines[middle + 1:]), middle + 1, "batch number", verify=verify)
    _fails_at(_join(lines[:-2] + lines[-1:]), len(lines) - 1, "", verify=verify)


def test_duplicated_lines_are_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    middle = len(lines) // 2
    _fails_at(_join(lines[:middle + 1] + [lines[middle]] + lines[middle + 1:]), middle + 2, "batch number", verify=verify)
    _fails_at(_join(lines + [lines[-1]]), len(lines), "line kind", verify=verify)
    _fails_at(_join(lines[:1] + lines), 2, "line kind", verify=verify)


def test_reordered_lines_are_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    middle = len(lines) // 2
    swapped = lines[:middle] + [lines[middle + 1], lines[middle]] + lines[middle + 2:]
    _fails_at(_join(swapped), middle + 1, "batch number", verify=verify)


def test_truncated_bundles_are_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    _fails_at(_join(lines[:-1]), len(lines), "missing footer", verify=verify)
    _fails_at(small_bundle[:-1], len(lines), "not terminated", verify=verify)
    _fails_at(small_bundle[: len(small_bundle) // 2], small_bundle[: len(small_bundle) // 2].count("\n") + 1, "", verify=verify)
    _fails_at(_join(lines[:1]), 2, "missing footer", verify=verify)
    _fails_at("", 1, "empty", verify=verify)


def test_changed_score_in_the_footer_is_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    footer = json.loads(lines[-1])
    footer["result"] = _bump_first_int(footer["result"])
    _fails_at(_join(lines[:-1] + [canonical_json(footer)]), len(lines), "result", verify=verify)


def _bump_first_int(value: Any) -> Any:
    """The same JSON with its first integer (depth-first) increased by one."""
    done = [False]

    def walk(v: Any) -> Any:
        if done[0]:
            return v
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            done[0] = True
            return v + 1
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(v[k]) for k in sorted(v)}
        return v

    out = walk(value)
    assert done[0], "no integer to change"
    return out


# -- the careful forger: edit the game, then recompute every hash --------------------------------


def _forge(entries: list[dict[str, Any]], seq: int, edit) -> list[dict[str, Any]]:
    """Entries with entry ``seq``'s data edited and the chain recomputed from there."""
    forged = copy.deepcopy(entries)
    edit(forged[seq - 1]["data"])
    for entry, digest in zip(forged, chain_hashes([hashed_part(e) for e in forged])):
        entry["hash"] = digest
    return forged


def _first(entries: list[dict[str, Any]], type_: str, where=lambda d: True) -> dict[str, Any]:
    return next(e for e in entries if e["type"] == type_ and where(e["data"]))


def _batch_line_of(text: str, seq: int) -> int:
    for number, line in enumerate(_lines(text), start=1):
        obj = json.loads(line)
        if obj["kind"] == "batch" and any(e["seq"] == seq for e in obj["entries"]):
            return number
    raise AssertionError(f"seq {seq} not in the bundle")


def test_changed_draw_with_recomputed_hashes_is_caught() -> None:
    game_id, meta, entries = played("classic", 2)
    target = _first(entries, "FollowersDrawn", lambda d: len(set(d["tiles"])) > 1)

    def swap(data: dict[str, Any]) -> None:
        tiles = data["tiles"]
        j = next(i for i, t in enumerate(tiles) if t != tiles[0])
        tiles[0], tiles[j] = tiles[j], tiles[0]

    forged = _forge(entries, target["seq"], swap)
    text = build_bundle(game_id, meta, forged)
    _fails_at(text, _batch_line_of(text, target["seq"]), "event")


def test_changed_coins_with_recomputed_hashes_is_caught() -> None:
    game_id, meta, entries = played("classic", 2)
    target = _first(entries, "CoinsChanged", lambda d: d["seat"] != "system" and d["amount"] > 0)

    def more(data: dict[str, Any]) -> None:
        data["amount"] += 1

    text = build_bundle(game_id, meta, _forge(entries, target["seq"], more))
    _fails_at(text, _batch_line_of(text, target["seq"]), "event")


def test_changed_final_score_with_recomputed_hashes_is_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    footer = json.loads(lines[-1])
    footer["result"] = _bump_first_int(footer["result"])
    header = json.loads(lines[0])
    footer["header_hash"] = json_hash(header)
    _fails_at(_join(lines[:-1] + [canonical_json(footer)]), len(lines), "result", verify=verify)


def test_replaced_seed_is_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    header, footer = json.loads(lines[0]), json.loads(lines[-1])
    header["seed"] = hashlib.sha256(b"another seed").hexdigest()
    footer["header_hash"] = json_hash(header)
    _fails_at(_join([canonical_json(header)] + lines[1:-1] + [canonical_json(footer)]), 1, "seed commitment", verify=verify)


def test_replaced_seed_and_commitment_is_caught_by_the_draws(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    header, footer = json.loads(lines[0]), json.loads(lines[-1])
    other = b"a seed the forger likes better"
    header["seed"], header["seed_commitment"] = other.hex(), hashlib.sha256(other).hexdigest()
    footer["header_hash"] = json_hash(header)
    report = _fails_at(_join([canonical_json(header)] + lines[1:-1] + [canonical_json(footer)]), 2, "event", verify=verify)
    assert report.divergence.expected != report.divergence.found


def test_edited_command_with_recomputed_hashes_is_caught() -> None:
    game_id, meta, entries = played("classic", 2)
    forged = copy.deepcopy(entries)
    victim = next(e for e in forged if e["command"] is not None and e["command"].get("type") == "PlaceFollower")
    victim["command"]["space"] = victim["command"]["space"] + 7
    for entry, digest in zip(forged, chain_hashes([hashed_part(e) for e in forged])):
        entry["hash"] = digest
    text = build_bundle(game_id, meta, forged)
    _fails_at(text, _batch_line_of(text, victim["seq"]), "")


def test_non_canonical_spacing_is_caught(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    spaced = json.dumps(json.loads(lines[3]), sort_keys=True)
    _fails_at(_join(lines[:3] + [spaced] + lines[4:]), 4, "canonical", verify=verify)


def test_garbage_never_raises() -> None:
    for text in ["{}\n", "[]\n", "not json\n", '{"kind":"header"}\n{"kind":"footer"}\n', "\n\n", b"\xff\xfe\n"]:
        report = verify_bundle(text)
        assert not report.ok and report.divergence is not None
        assert report.to_json()["divergence"]["line"] >= 1


def test_dumps_roundtrip_is_stable(subject) -> None:
    small_bundle, verify = subject
    objs = [json.loads(line) for line in _lines(small_bundle)]
    assert dumps(objs) == small_bundle
    assert GENESIS_HASH == "0" * 64


# -- values Python takes for equal and JSON does not ----------------------------------------------


def _rechained(text: str, edit) -> str:
    """The bundle with ``edit`` applied to its parsed lines and every chain hash recomputed, as a
    careful forger who edits the bundle's text (not the game) would write it."""
    lines = [json.loads(line) for line in _lines(text)]
    edit(lines)
    chain = GENESIS_HASH
    for line in lines[1:-1]:
        for position, entry in enumerate(line["entries"]):
            chain = entry_hash(chain, {**entry, "command": line["command"] if position == 0 else None})
        line["chain_hash"] = chain
    lines[-1]["final_hash"] = chain
    return _join([canonical_json(line) for line in lines])


def _coins_line(lines: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """The first batch line with a CoinsChanged event of a positive amount, and that entry."""
    return next((number, entry) for number, line in enumerate(lines, start=1) if line["kind"] == "batch"
                for entry in line["entries"] if entry["type"] == "CoinsChanged" and entry["data"]["amount"] > 0)


def test_an_event_value_of_another_json_type_is_caught() -> None:
    """3.0 and true equal 3 and 1 in Python: the verifier compares the events as JSON."""
    small_bundle, verify = build_bundle(*played("classic", 2)), verify_bundle
    assert verify(_rechained(small_bundle, lambda lines: None)).ok  # the forger's tool changes nothing by itself
    for other in (float, lambda amount: True):
        found: list[int] = []

        def edit(lines: list[dict[str, Any]], other=other, found=found) -> None:
            number, entry = _coins_line(lines)
            entry["data"]["amount"] = other(entry["data"]["amount"])
            found.append(number)

        forged = _rechained(small_bundle, edit)
        _fails_at(forged, found[0], "event", verify=verify)


def test_a_line_both_not_canonical_and_not_playable_is_named_not_canonical(subject) -> None:
    small_bundle, verify = subject
    lines = _lines(small_bundle)
    line = json.loads(lines[3])
    line["command"] = {"type": "NoSuchMove"}
    _fails_at(_join(lines[:3] + [json.dumps(line, sort_keys=True)] + lines[4:]), 4, "canonical", verify=verify)
