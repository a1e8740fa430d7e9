"""A bot's decisions in figures: counts by outcome and latency percentiles, per game and summed.

One record per seat of a game (``replays.seatstats`` derives it from the game's replay bundle;
tournaments keep it in ``GameFinished``). ``calls`` are a push bot's HTTP calls or a pull bot's
turns; each ends ``ok`` (a move it chose), ``timeout`` (no answer within its deadline, or its
clock ran out) or ``error`` (any other failed call: refused signature, garbage, an illegal move…).

Latency percentiles are by nearest rank. A game's are exact (from every latency of the game);
across games (a tournament, a bot's whole record) they are read from a histogram the records
carry, whose buckets are the E12 series (1–9 ms, then 10, 12, 15, 18, 22, 27, 33, 39, 47, 56,
68, 82 per decade: about 20 % wide): the figure is the upper edge of the bucket that holds that
rank. The buckets are part of the tournament audit format: changing them changes what
``GameFinished`` records and what the verifier re-derives.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from typing import Any

_E12 = (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82)
EDGES_MS: tuple[int, ...] = (*range(1, 10), *(e * 10 ** k for k in range(5) for e in _E12), 1_000_000)
COUNTS = ("calls", "ok", "timeout", "error")


def bucket(ms: float) -> int:
    """The upper edge (ms) of the bucket holding ``ms`` (the last edge takes everything above it)."""
    return EDGES_MS[min(bisect_left(EDGES_MS, ms), len(EDGES_MS) - 1)]


def nearest_rank(ordered: list[float], q: float) -> float:
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def percentiles(latencies: Iterable[float]) -> dict[str, float | None]:
    """Exact p50 and p95 (nearest rank) of one game's latencies; nulls without any."""
    ordered = sorted(latencies)
    if not ordered:
        return {"p50": None, "p95": None}
    return {"p50": nearest_rank(ordered, 0.50), "p95": nearest_rank(ordered, 0.95)}


def histogram(latencies: Iterable[float]) -> dict[str, int]:
    """Latencies counted by bucket: ``{"<upper edge ms>": count}``, empty buckets left out."""
    counts: dict[str, int] = {}
    for ms in latencies:
        key = str(bucket(ms))
        counts[key] = counts.get(key, 0) + 1
    return counts


def merge(into: dict[str, int], more: Mapping[str, int]) -> dict[str, int]:
    for key, count in more.items():
        into[key] = into.get(key, 0) + int(count)
    return into


def histogram_percentiles(counts: Mapping[str, int]) -> dict[str, float | None]:
    """p50 and p95 of a histogram: the upper edge of the bucket holding each rank."""
    edges = sorted((int(k), int(n)) for k, n in counts.items() if int(n) > 0)
    total = sum(n for _, n in edges)
    if not total:
        return {"p50": None, "p95": None}
    out: dict[str, float | None] = {}
    for name, q in (("p50", 0.50), ("p95", 0.95)):
        rank, seen = max(1, math.ceil(q * total)), 0
        for edge, n in edges:
            seen += n
            if seen >= rank:
                out[name] = float(edge)
                break
    return out


def empty_totals() -> dict[str, Any]:
    return {**dict.fromkeys(COUNTS, 0), "hist": {}}


def add(totals: dict[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """Add one game's seat record (or another total) to ``totals``."""
    for name in COUNTS:
        totals[name] += int(record.get(name) or 0)
    merge(totals["hist"], record.get("hist") or {})
    return totals


def subtract(totals: dict[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """Take a total added before out of ``totals`` again (a projection replacing an older figure)."""
    for name in COUNTS:
        totals[name] -= int(record.get(name) or 0)
    for key, count in (record.get("hist") or {}).items():
        left = totals["hist"].get(key, 0) - int(count)
        if left > 0:
            totals["hist"][key] = left
        else:
            totals["hist"].pop(key, None)
    return totals


def summary(totals: Mapping[str, Any]) -> dict[str, Any]:
    """The public figures of a total: the counts and the histogram's p50/p95."""
    return {**{name: int(totals.get(name) or 0) for name in COUNTS},
            "latency_ms": histogram_percentiles(totals.get("hist") or {})}
