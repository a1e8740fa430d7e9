"""The verifier reads a bundle as a stream (replays.lines, replays.verify.verify_stream): the same
report for any chunking, no further than a divergence in line 1 needs, memory bounded by a line."""
from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from replays.lines import MAX_LINE, BundleLines, Unreadable
from replays.verify import Interrupted, verify_bundle, verify_stream
from tests.replays.replay_helpers import toy_bundle
from tests.replays.replay_toy_game import toy_rules


def _chunked(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i:i + size] for i in range(0, len(data), size))


class Counting:
    """Chunks from ``source``, counting how many bytes the verifier pulled."""

    def __init__(self, source: Iterator[bytes]) -> None:
        self.source, self.pulled = source, 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.source:
            self.pulled += len(chunk)
            yield chunk


def _toy_variants() -> list[bytes]:
    data = toy_bundle().encode("utf-8")
    lines = data.split(b"\n")[:-1]
    middle = len(data) // 2
    return [
        data,
        data[:middle] + b"\xe2\x82" + data[middle:],  # a cut multi-byte character
        data[:middle] + b"\xff" + data[middle:],
        data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1:],
        data[:-1],  # no final newline
        b"".join(line + b"\n" for line in lines[:2] + lines[3:]),  # a dropped batch
        b"".join(line + b"\n" for line in lines[:-1]),  # no footer
        data + b"\xff",
        b"",
    ]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 1000, 1 << 20])
def test_the_report_does_not_depend_on_how_the_bytes_arrive(size: int) -> None:
    verify = partial(verify_stream, rules_for=toy_rules)
    for data in _toy_variants():
        assert verify(_chunked(data, size)) == verify_bundle(data, rules_for=toy_rules), (size, data[:80])


def test_a_bundle_wrong_in_line_1_is_refused_after_its_first_chunk() -> None:
    """64 MiB of newlines and more: the first line is not JSON; nothing after it is read."""
    endless = Counting(itertools.repeat(b"\n" * 65536))
    report = verify_stream(endless)
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 1 and "not JSON" in report.divergence.what
    assert endless.pulled == 65536


def test_a_line_longer_than_the_cap_stops_the_reading() -> None:
    endless = Counting(itertools.repeat(b"x" * 65536))
    report = verify_stream(endless)
    assert report.divergence is not None and report.divergence.line == 1
    assert "longer than" in report.divergence.what
    assert endless.pulled <= MAX_LINE + 2 * 65536


def test_a_long_line_after_a_divergence_is_caught_while_counting() -> None:
    data = toy_bundle().encode("utf-8")
    lines = data.split(b"\n")[:-1]
    forged = b"".join(line + b"\n" for line in lines[:2] + [b"{}", b"y" * (3 * 1024)] + lines[2:])
    report = verify_stream(_chunked(forged, 1000), rules_for=toy_rules, max_line=1024)
    assert report.divergence is not None and report.divergence.line == 4 and "longer than 1024" in report.divergence.what


def test_the_line_reader_counts_and_keeps_the_last_line() -> None:
    reader = BundleLines(_chunked(b"a\nbb\n" + b"c\n" * 1000 + b"last\n", 3))
    assert reader.next_line() == "a"
    assert reader.rest() == (1003, "last")
    with pytest.raises(Unreadable, match="empty"):
        BundleLines([]).next_line()


def test_a_divergence_in_a_batch_is_outranked_by_a_missing_footer() -> None:
    """As when the whole file was read first: after a divergence the rest is read to rank it."""
    lines = toy_bundle().encode("utf-8").split(b"\n")[:-1]
    forged = b"".join(line + b"\n" for line in lines[:2] + [b"{}"] + lines[3:-1])
    report = verify_stream(_chunked(forged, 16), rules_for=toy_rules)
    assert report.divergence is not None and "missing footer" in report.divergence.what
    assert report.lines == len(lines) - 1


def test_pace_sees_every_batch_line_and_may_stop_the_verification() -> None:
    data = toy_bundle().encode("utf-8")
    seen: list[int] = []
    report = verify_stream([data], rules_for=toy_rules, pace=seen.append)
    assert report.ok and seen == list(range(2, report.lines))

    def stop(number: int) -> None:
        raise Interrupted(f"over budget at line {number}")

    with pytest.raises(Interrupted, match="line 2"):
        verify_stream([data], rules_for=toy_rules, pace=stop)


def test_an_interrupting_source_is_raised_on_even_after_a_divergence() -> None:
    def source() -> Iterator[bytes]:
        yield b"{}\n"
        raise Interrupted("too large")

    lines = toy_bundle().encode("utf-8").split(b"\n")
    with pytest.raises(Interrupted, match="too large"):
        verify_stream(itertools.chain([lines[0] + b"\n"], source()), rules_for=toy_rules)


def _memory_peak(chunks: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        report = verify_stream(chunks, rules_for=toy_rules)
        return report, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_holds_a_line_not_the_bundle() -> None:
    """32 MiB after a valid header: read to the end (to count lines), never held."""
    header = toy_bundle().encode("utf-8").split(b"\n")[0] + b"\n"
    body = itertools.chain([header, b"{}\n"], itertools.repeat(b"[]\n" * 21845 + b"\n", 512))
    report, peak = _memory_peak(body)
    assert report.divergence is not None and report.lines == 2 + 512 * 21846
    assert peak < 2 * MAX_LINE + (1 << 20), peak


def test_the_format_page_states_the_line_cap() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "replay-format.md").read_text(encoding="utf-8")
    assert f"at most {MAX_LINE // 1024} KiB long (`replays.lines.MAX_LINE`" in page
