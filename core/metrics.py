"""Operator metrics that add up across every process: counters and histograms kept in Redis.

Any process (a gunicorn worker, an RQ worker, the caller, the stream process) records with
:func:`count` and :func:`observe`; the figures collect in a process-local buffer that a daemon
thread adds to one Redis hash (``hg:metrics``, on the queue server) about once a second, with one
pipeline of ``HINCRBY``/``HINCRBYFLOAT``. ``GET /metrics`` (``service.metrics``) reads that hash
and renders it in Prometheus' text format, so a scrape of any web process sees the sum over all
processes on all machines.

Why not prometheus-client's multiprocess mode: it sums the processes that share one directory on
one machine, and needs ``PROMETHEUS_MULTIPROC_DIR`` set before the first import in each of them
and clean-up after every dead pid; hourglass runs workers and callers on other machines than the
web (docs/topology.md), whose figures would be lost. Redis already joins those processes, and
the queue depths a scrape reports are Redis facts anyway. The cost is one pipeline per process
per second, whatever the traffic.

Names and labels are fixed here; a label value is never a game id, a token or a URL. Bot labels
are bot names (public on standings and the leaderboard), ``unregistered`` for a seat's own URL,
and at most ``MAX_BOT_LABELS`` distinct names (then ``other``), so registering bots cannot grow
the scrape without bound.
"""
from __future__ import annotations

import atexit
import json
import logging
import os
import threading
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import redis

from core.connection import get_redis, plain_redis

log = logging.getLogger(__name__)

KEY = "hg:metrics"
BOTS_KEY = "hg:metrics:bots"  # the bot names that have a label of their own
DEPTHS_KEY = "hg:metrics:depths"  # lists whose length is a queue depth (besides RQ's queues)
FLUSH_S = 1.0
MAX_BOT_LABELS = 200

# name -> (kind, help, bucket upper bounds for histograms)
METRICS: dict[str, tuple[str, str, tuple[float, ...]]] = {
    "hourglass_job_slice_seconds": ("histogram", "time one advance job held a game (one slice), by lane",
                                    (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)),
    "hourglass_job_steps": ("histogram", "appends one advance job made, by lane", (0, 1, 2, 5, 10, 25, 50, 100, 500)),
    "hourglass_bot_call_seconds": ("histogram", "push-bot round trips, by bot and outcome",
                                   (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)),
    "hourglass_bot_forfeits_total": ("counter", "seats forfeited after failed decisions in a row, by seat kind", ()),
    "hourglass_http_problems_total": ("counter", "problem+json answers, by status (429: a limit, 503: unavailable)",
                                      ()),
    "hourglass_stream_lag_seconds": ("histogram", "how far a live stream's subscribers were behind a batch",
                                     (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)),
    "hourglass_stream_drops_total": ("counter", "live-stream backlogs dropped: replaced by a resync line (resync) "
                                                "or cut off (cut)", ()),
}


class _Buffer:
    """Increments not yet in Redis; a daemon thread flushes them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.adds: dict[str, float] = defaultdict(float)
        self.bots: set[str] = set()
        self.conn: redis.Redis | None = None
        self.thread: threading.Thread | None = None
        self.stop = threading.Event()

    def target(self) -> redis.Redis | None:
        """Where to write: the connection given to :func:`use`, else ``REDIS_URL``'s server (never
        an embedded server started just for this)."""
        if self.conn is None and os.environ.get("REDIS_URL"):
            self.conn = plain_redis(get_redis())
        return self.conn

    def add(self, field: str, by: float) -> None:
        with self.lock:
            self.adds[field] += by
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="hourglass-metrics", daemon=True)
                self.thread.start()
                atexit.register(self.flush)

    def _run(self) -> None:
        while not self.stop.wait(FLUSH_S):
            self.flush()

    def flush(self) -> None:
        with self.lock:
            adds, self.adds = self.adds, defaultdict(float)
        if not adds:
            return
        try:
            conn = self.target()
            if conn is None:  # nowhere to write yet: keep them (a fixed set of series, so bounded)
                raise redis.ConnectionError("no Redis to record metrics to")
            pipe = conn.pipeline(transaction=False)
            for field, by in adds.items():
                if by == int(by):
                    pipe.hincrby(KEY, field, int(by))
                else:
                    pipe.hincrbyfloat(KEY, field, by)
            pipe.execute()
        except redis.RedisError:  # (connection errors included) keep them for the next try: a scrape lags, nothing is lost
            with self.lock:
                for field, by in adds.items():
                    self.adds[field] += by


_BUFFER = _Buffer()


def use(conn: redis.Redis) -> None:
    """Record to ``conn``'s queue server (the web app, the worker and the caller call it with the
    event store they open; without it, ``REDIS_URL``'s server)."""
    _BUFFER.conn = plain_redis(conn)


def flush() -> None:
    """Write what this process recorded now (tests; the daemon thread does it every second)."""
    _BUFFER.flush()


def field(name: str, labels: Mapping[str, str], suffix: str) -> str:
    """The hash field of one series: ``name|{labels as sorted JSON}|suffix``."""
    return f"{name}|{json.dumps(dict(labels), sort_keys=True, separators=(',', ':'))}|{suffix}"


def parse_field(raw: str) -> tuple[str, dict[str, str], str]:
    name, labels, suffix = raw.split("|", 2)
    return name, json.loads(labels), suffix


def count(name: str, labels: Mapping[str, str] | None = None, by: float = 1) -> None:
    """Add ``by`` to a counter."""
    _check(name, "counter")
    _BUFFER.add(field(name, labels or {}, "total"), by)


def observe(name: str, value: float, labels: Mapping[str, str] | None = None, times: int = 1) -> None:
    """Record ``times`` observations of one value in a histogram (its bucket, count and sum)."""
    buckets = _check(name, "histogram")
    chosen = labels or {}
    bucket = next((b for b in buckets if value <= b), None)
    _BUFFER.add(field(name, chosen, f"le={'+Inf' if bucket is None else repr(float(bucket))}"), times)
    _BUFFER.add(field(name, chosen, "count"), times)
    _BUFFER.add(field(name, chosen, "sum"), value * times)


def _check(name: str, kind: str) -> tuple[float, ...]:
    declared = METRICS.get(name)
    if declared is None or declared[0] != kind:
        raise ValueError(f"{name} is not a declared {kind} (core.metrics.METRICS)")
    return declared[2]


# --- the hooks other parts call ------------------------------------------------------------------


def bot_label(name: str | None, conn: redis.Redis | None = None) -> str:
    """A bot's label: its public name while fewer than MAX_BOT_LABELS names have one, else ``other``;
    ``unregistered`` for a seat that named its own URL (the URL is never a label)."""
    if not name:
        return "unregistered"
    if name in _BUFFER.bots:
        return name
    try:
        target = plain_redis(conn) if conn is not None else _BUFFER.target()
        if target is None:
            return "other"
        if target.sismember(BOTS_KEY, name) or (target.scard(BOTS_KEY) < MAX_BOT_LABELS  # type: ignore[operator]
                                                 and target.sadd(BOTS_KEY, name)):
            _BUFFER.bots.add(name)
            return name
    except redis.RedisError:
        pass
    return "other"


def bot_call(bot: str, outcome: str, seconds: float) -> None:
    """A push call's round trip (``bot`` from :func:`bot_label`, ``outcome`` a fixed code)."""
    observe("hourglass_bot_call_seconds", seconds, {"bot": bot, "outcome": outcome})


def job_slice(lane: str, seconds: float, steps: int) -> None:
    """One advance job: how long it held its game, and how many appends it made."""
    observe("hourglass_job_slice_seconds", seconds, {"lane": lane})
    observe("hourglass_job_steps", steps, {"lane": lane})


def problem(status: int) -> None:
    """A problem+json answer was sent (``service.problems.problem_response``)."""
    count("hourglass_http_problems_total", {"status": str(status)})


def stream_lag(seconds: float, subscribers: int = 1) -> None:
    """How far behind a batch ``subscribers`` live streams were when it reached them: the hook of
    the fan-out's lag figures (``service.streamlag.STATS.listen``, wired by the app factory)."""
    observe("hourglass_stream_lag_seconds", max(0.0, seconds), times=subscribers)


def stream_drop(kind: str) -> None:
    """A live stream's backlog was replaced by a resync line (``resync``) or the stream cut (``cut``)."""
    count("hourglass_stream_drops_total", {"kind": kind})


def forfeit(kind: str) -> None:
    count("hourglass_bot_forfeits_total", {"kind": kind})


def register_depth(conn: redis.Redis, list_key: str) -> None:
    """Report the length of Redis list ``list_key`` as a queue depth (the caller's tickets)."""
    plain_redis(conn).sadd(DEPTHS_KEY, list_key)


def read(conn: redis.Redis) -> dict[str, Any]:
    """Everything recorded so far and the queue depths, for the collector: ``{"series": {field:
    value}, "depths": {queue: length}}``. RQ's queues are found in its own ``rq:queues`` set."""
    plain = plain_redis(conn)
    raw: dict[Any, Any] = plain.hgetall(KEY)  # type: ignore[assignment]
    series = {_text(k): float(_text(v)) for k, v in raw.items()}
    queues: set[Any] = plain.smembers("rq:queues")  # type: ignore[assignment]
    lists: set[Any] = plain.smembers(DEPTHS_KEY)  # type: ignore[assignment]
    names = sorted(_text(q) for q in queues) + sorted(_text(k) for k in lists)
    pipe = plain.pipeline(transaction=False)
    for name in names:
        pipe.llen(name)
    depths = {name.removeprefix("rq:queue:"): int(n) for name, n in zip(names, pipe.execute())}
    return {"series": series, "depths": depths}


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
