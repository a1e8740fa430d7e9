"""How far behind the live streams of this process are: the lag bound and the measured lag.

The **lag** of a batch on one subscriber is the time from the batch's append (its first entry's
``time``, the appender's clock) to the moment its last byte went onto that subscriber's socket
(``service.streams``). A subscriber whose unwritten bytes are older than the **bound**
(``STREAM_LAG_S``, env ``HOURGLASS_STREAM_LAG_S``) has them replaced by one resync line with
the latest state; one whose socket has taken nothing for :data:`STALL_S` is cut off.

:data:`STATS` keeps this process's figures in a form meant for export: a histogram of lags
(fixed bucket edges, counts), the exact worst, and counters of resyncs and cut-offs.
:meth:`LagStats.snapshot` renders them as a plain dict; an exporter (a Prometheus collector, a
log line) either reads that or registers a listener (:meth:`LagStats.listen`), which is called
with every observation as it is made.
"""
from __future__ import annotations

import bisect
import math
import threading
from collections.abc import Callable
from typing import Any

DEFAULT_LAG_S = 1.0  # bench/streams.py --hub --burn 2 (1,000 spectators, both cores busy): worst lag 0.42-0.50 s
STALL_S = 20.0  # a socket that took no byte of a waiting frame for this long is cut off (the client resumes)
EDGES: tuple[float, ...] = tuple(round(0.0005 * 1.25 ** i, 6) for i in range(56))  # 0.5 ms .. ~134 s, 25% steps

LagListener = Callable[[float, int], None]
DropListener = Callable[[str], None]


class LagStats:
    """Lag observations of one process: a histogram over :data:`EDGES`, the worst, the counts of
    resync lines and cut-offs. Thread-safe; an observation costs a lock and a bisect."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lag_listeners: list[LagListener] = []
        self._drop_listeners: list[DropListener] = []
        self.reset()

    def reset(self) -> None:
        """Forget every observation (listeners stay)."""
        with self._lock:
            self.counts = [0] * (len(EDGES) + 1)  # the last bucket: above the top edge
            self.writes = 0
            self.total_s = 0.0
            self.worst_s = 0.0
            self.resyncs = 0
            self.cuts = 0

    def listen(self, on_lag: LagListener | None = None, on_drop: DropListener | None = None) -> None:
        """Call ``on_lag(seconds, count)`` for every observation and ``on_drop(kind)`` ("resync"
        or "cut") for every dropped backlog, from the thread that made it (keep them cheap)."""
        with self._lock:  # the same listener twice (an app built again in one process) is kept once
            if on_lag is not None and on_lag not in self._lag_listeners:
                self._lag_listeners.append(on_lag)
            if on_drop is not None and on_drop not in self._drop_listeners:
                self._drop_listeners.append(on_drop)

    def observe(self, seconds: float, count: int = 1) -> None:
        """``count`` subscribers got a batch ``seconds`` after it was appended."""
        if count <= 0:
            return
        seconds = max(0.0, seconds)
        with self._lock:
            self.counts[bisect.bisect_left(EDGES, seconds)] += count
            self.writes += count
            self.total_s += seconds * count
            self.worst_s = max(self.worst_s, seconds)
            listeners = self._lag_listeners
        for listener in listeners:
            listener(seconds, count)

    def dropped(self, kind: str) -> None:
        """A subscriber's backlog was replaced by a resync line (``"resync"``) or it was cut off (``"cut"``)."""
        with self._lock:
            if kind == "resync":
                self.resyncs += 1
            else:
                self.cuts += 1
            listeners = self._drop_listeners
        for listener in listeners:
            listener(kind)

    def quantile(self, q: float) -> float:
        """The upper edge of the bucket holding the ``q`` quantile (at most 25% above the true
        value; the exact worst for the top bucket); NaN before any observation."""
        with self._lock:
            if not self.writes:
                return math.nan
            rank = q * self.writes
            seen = 0
            for index, count in enumerate(self.counts):
                seen += count
                if count and seen >= rank:
                    return min(EDGES[index], self.worst_s) if index < len(EDGES) else self.worst_s
            return self.worst_s

    def snapshot(self, bound_s: float | None = None) -> dict[str, Any]:
        """The figures as plain data: ``writes``, ``worst_s``, ``mean_s``, ``p50_s``, ``p99_s``,
        ``resyncs``, ``cuts``, ``buckets`` (cumulative counts by upper edge, Prometheus-style,
        empty buckets left out) and ``bound_s`` when given."""
        p50, p99 = self.quantile(0.5), self.quantile(0.99)
        with self._lock:
            cumulative, buckets = 0, {}
            for edge, count in zip([*EDGES, math.inf], self.counts):
                cumulative += count
                if count:
                    buckets["+Inf" if edge == math.inf else f"{edge:g}"] = cumulative
            out: dict[str, Any] = {
                "writes": self.writes, "worst_s": self.worst_s,
                "mean_s": self.total_s / self.writes if self.writes else None,
                "p50_s": None if math.isnan(p50) else p50, "p99_s": None if math.isnan(p99) else p99,
                "resyncs": self.resyncs, "cuts": self.cuts, "buckets": buckets}
        if bound_s is not None:
            out["bound_s"] = bound_s
        return out


STATS = LagStats()
