"""The verifier's walk over a batch line's text (``replays.verify._Replayer.walk``) accepts exactly
the lines its ordered checks accept, and refuses the rest with the report they give.

The walk reads a batch line once against the text the engine's batch must have and parses only
what the bundle alone records (actor, command, each entry's time and meta); any difference sends
the line to the ordered checks. These tests verify edited bundles twice, once as the verifier
does and once with the walk switched off, and expect the same report.
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import replays.verify as verify_module
from replays.bundle import build_bundle
from replays.verify import Report, verify_bundle
from tests.replays.replay_helpers import played


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1]


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _both(monkeypatch: pytest.MonkeyPatch, verify: Callable[[Any], Report], data: Any) -> Report:
    """The report of ``verify(data)``, checked equal to the one the ordered checks alone give."""
    report = verify(data)
    with monkeypatch.context() as m:
        m.setattr(verify_module._Replayer, "walk", lambda self, number, index, text: False)
        ordered = verify(data)
    assert report == ordered
    return report


def _edited(text: str, number: int, old: str, new: str) -> str:
    """The bundle with the first ``old`` in line ``number`` (1-based) written as ``new``."""
    lines = _lines(text)
    assert old in lines[number - 1], (old, lines[number - 1][:200])
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    return _join(lines)


def test_an_untampered_bundle_is_walked_not_parsed(subject, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch line of a genuine bundle passes the walk: only the header and footer are parsed."""
    text, verify = subject
    loaded: list[int] = []
    real = verify_module._load

    def counted(number: int, line: str) -> dict[str, Any]:
        loaded.append(number)
        return real(number, line)

    monkeypatch.setattr(verify_module, "_load", counted)
    assert verify(text).ok
    assert loaded == [1, len(_lines(text))]


def test_flipped_bytes_in_batch_lines_give_the_ordered_report(subject, monkeypatch: pytest.MonkeyPatch) -> None:
    text, verify = subject
    data = text.encode("utf-8")
    body = range(data.index(b"\n") + 1, data.rindex(b"\n", 0, len(data) - 1))
    for offset in sorted(random.Random(27).sample(body, 40)):
        flipped = data[:offset] + bytes([data[offset] ^ 0x01]) + data[offset + 1:]
        assert not _both(monkeypatch, verify, flipped).ok, f"flip at byte {offset} verified"


# Text a parser reads as the same value, but not canonical JSON: the walk must not take it.
SAME_VALUE_OTHER_TEXT = [
    ('"actor":', '"actor": '),
    (',"seq":', ', "seq":'),
    ('"meta":null', '"meta":nul\\u006c'),  # not JSON at all
    ('"kind":"batch"', '"kind":"b\\u0061tch"'),
    ('"state_hash":null', '"state_hash":null '),
]


@pytest.mark.parametrize("old,new", SAME_VALUE_OTHER_TEXT)
def test_non_canonical_text_is_refused_as_before(subject, monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    text, verify = subject
    line = next(n for n, t in enumerate(_lines(text), start=1) if n > 2 and old in t)
    report = _both(monkeypatch, verify, _edited(text, line, old, new))
    assert not report.ok and report.divergence is not None and report.divergence.line == line, report.describe()


def test_escaped_time_and_unsorted_meta_are_refused_as_not_canonical(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values the walk parses (the time, the meta, the command) must be written canonically."""
    text = build_bundle(*played("classic", 2))
    time = json.loads(_lines(text)[2])["entries"][0]["time"]
    escaped = _edited(text, 3, json.dumps(time), '"\\u00' + format(ord(time[0]), "02x") + time[1:] + '"')
    report = _both(monkeypatch, verify_bundle, escaped)
    assert report.divergence is not None and "canonical" in report.divergence.what
    command = json.loads(_lines(text)[3])["command"]
    unsorted = json.dumps(command, sort_keys=False, separators=(",", ":"))
    reordered = "{" + ",".join(reversed(unsorted[1:-1].split(","))) + "}"
    if len(command) > 1 and reordered != unsorted:
        report = _both(monkeypatch, verify_bundle, _edited(text, 4, unsorted, reordered))
        assert report.divergence is not None and report.divergence.line == 4


def test_entries_with_other_keys_or_counts_are_refused_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    text = build_bundle(*played("classic", 2))
    lines = _lines(text)
    line = json.loads(lines[3])
    for edit in (
        lambda obj: obj["entries"][0].update(extra=1),  # a key the entry does not have
        lambda obj: obj["entries"].append(dict(obj["entries"][-1])),  # one entry too many
        lambda obj: obj["entries"][0].update(seq=float(obj["entries"][0]["seq"])),  # 5.0 is not 5
        lambda obj: obj["entries"][0].update(actor=[obj["entries"][0]["actor"]]),
        lambda obj: obj.update(chain_hash=obj["chain_hash"].upper()),
        lambda obj: obj.update(view_heads=obj["view_heads"][:-1]),
        lambda obj: obj.update(extra=None),
    ):
        obj = json.loads(lines[3])
        edit(obj)
        forged = _join(lines[:3] + [json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)]
                       + lines[4:])
        report = _both(monkeypatch, verify_bundle, forged)
        assert not report.ok and report.divergence is not None and report.divergence.line == 4, report.describe()
    duplicated = lines[3].replace('"seq":', '"seq":0,"seq":', 1)  # a parser keeps the last of two keys
    report = _both(monkeypatch, verify_bundle, _join(lines[:3] + [duplicated] + lines[4:]))
    assert not report.ok and report.divergence is not None and report.divergence.line == 4
    assert line  # the line itself verifies untouched (test_an_untampered_bundle_is_walked_not_parsed)


def test_text_after_the_line_object_is_refused_as_before(subject, monkeypatch: pytest.MonkeyPatch) -> None:
    text, verify = subject
    lines = _lines(text)
    for tail in ("{}", " ", ",", "0"):
        report = _both(monkeypatch, verify, _join(lines[:2] + [lines[2] + tail] + lines[3:]))
        assert not report.ok and report.divergence is not None and report.divergence.line == 3


def test_recorded_times_and_metas_are_the_bundles_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the engine does not derive may be anything canonical: a bundle rebuilt with other
    times and metas verifies, walked or not."""
    game_id, meta, entries = played("classic", 2)
    for n, entry in enumerate(entries):
        entry["time"] = f"2030-01-0{1 + n % 9}T00:00:00.000Z"
        if entry.get("command") is not None and n % 3 == 0:
            entry["meta"] = {"note": "é\u2028", "n": n, "x": [1.5, None, True]}
    report = _both(monkeypatch, verify_bundle, build_bundle(game_id, meta, entries))
    assert report.ok, report.describe()


def test_commands_and_actors_known_by_their_text_change_no_report(subject, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command or actor read before is taken again by its text (up to ``KNOWN`` of them): with
    none remembered, a bundle whose lines repeat earlier ones gets the same reports."""
    text, verify = subject
    lines = _lines(text)
    repeated = [_join(lines[:4] + [lines[3]] + lines[4:]), _join(lines[:3] + [lines[3], lines[2]] + lines[4:])]
    remembered = [verify(data) for data in [text, *repeated]]
    monkeypatch.setattr(verify_module, "KNOWN", 0)
    assert [verify(data) for data in [text, *repeated]] == remembered
    assert remembered[0].ok and not any(report.ok for report in remembered[1:])
