"""Each seat's record in one game, from the log alone: what a bot's standing and public record show.

Every push call leaves its outcome code and latency in the meta of the batch it caused
(``{"http": {"outcome", "rtt_ms"}}``, ``workers.pushcalls``); a clock that ran out leaves a
SYSTEM ``ApplyTimeout`` naming the seat; a move the seat made itself is a batch by the seat
without ``default`` in its meta. :func:`seat_records` folds the batch heads of a game (stored
entries or a replay bundle's lines: both carry actor, command and meta) into, per seat:

- ``calls``, and by outcome ``ok``, ``timeout``, ``error`` (every other failure: bad_signature,
  http_status, garbage, illegal, too_large, rejected_url, error) and ``outcomes`` (each code);
  ``latency_ms`` p50 and p95 over the calls (nearest rank), null without calls;
- ``moves`` (real moves), ``timeouts`` (clock timeouts: a pull bot's or a human's missed turns),
  ``defaults`` (moves played for the seat after a failure or after it left).

Everything here is public: the same meta is in the replay bundle.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from core.table import COMMAND_TYPES

FAILED_AS_TIMEOUT = frozenset({"timeout"})
NOT_A_CALL = frozenset({"no_moves"})  # the seat had no choice: nothing was sent


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 3)


def seat_records(heads: Iterable[tuple[Any, Mapping[str, Any] | None, Mapping[str, Any] | None]],
                 seats: int) -> list[dict[str, Any]]:
    """One record per seat from the (actor, command, meta) of every batch, in log order."""
    outcomes: list[Counter[str]] = [Counter() for _ in range(seats)]
    latencies: list[list[float]] = [[] for _ in range(seats)]
    moves, timeouts, defaults = [0] * seats, [0] * seats, [0] * seats
    for actor, command, meta in heads:
        command, meta = command or {}, meta or {}
        if command.get("type") == "ApplyTimeout" and isinstance(command.get("target"), int):
            if 0 <= command["target"] < seats:
                timeouts[command["target"]] += 1
            continue
        if not isinstance(actor, int) or not 0 <= actor < seats or command.get("type") in COMMAND_TYPES:
            continue
        http = meta.get("http") or {}
        outcome = http.get("outcome")
        if outcome is not None and outcome not in NOT_A_CALL:
            outcomes[actor][outcome] += 1
            if isinstance(http.get("rtt_ms"), (int, float)):
                latencies[actor].append(float(http["rtt_ms"]))
        if meta.get("default"):
            defaults[actor] += 1
        else:
            moves[actor] += 1
    return [_record(seat, outcomes[seat], latencies[seat], moves[seat], timeouts[seat], defaults[seat])
            for seat in range(seats)]


def _record(seat: int, outcomes: Counter[str], latencies: list[float], moves: int, timeouts: int,
            defaults: int) -> dict[str, Any]:
    calls = sum(outcomes.values())
    ok = outcomes["ok"]
    timed_out = sum(n for o, n in outcomes.items() if o in FAILED_AS_TIMEOUT)
    return {"seat": seat, "calls": calls, "ok": ok, "timeout": timed_out, "error": calls - ok - timed_out,
            "outcomes": dict(sorted(outcomes.items())),
            "latency_ms": {"p50": _percentile(latencies, 0.50), "p95": _percentile(latencies, 0.95)},
            "moves": moves, "timeouts": timeouts, "defaults": defaults}


def from_entries(entries: Iterable[Any], seats: int) -> list[dict[str, Any]]:
    """:func:`seat_records` of stored entries (``core.store.StoredEntry``)."""
    return seat_records(((e.actor, e.command, e.entry.get("meta")) for e in entries if e.command is not None), seats)
