"""``GET /metrics``: the operators' Prometheus endpoint (prometheus-client's text format).

What it shows (``core.metrics`` records it, summed over every process in Redis):

- ``hourglass_queue_depth{queue}``: jobs waiting in each RQ queue (the lanes, ``workers.lanes``)
  and push calls waiting for the caller (``hg:calls:<base>``);
- ``hourglass_job_slice_seconds{lane}`` and ``hourglass_job_steps{lane}``: how long each advance
  job held its game and how many appends it made;
- ``hourglass_bot_call_seconds{bot,outcome}``: every push call's latency and outcome code, by bot
  name (``unregistered`` for a seat's own URL; at most 200 names, then ``other``);
- ``hourglass_bot_forfeits_total{kind}``, ``hourglass_http_problems_total{status}`` (429: a limit
  said no; 503: unavailable or at capacity), ``hourglass_stream_lag_seconds``.

Operator-only: the scrape must carry ``Authorization: Bearer <HOURGLASS_METRICS_TOKEN>`` (app
setting ``METRICS_TOKEN``), compared in constant time. Without a configured token the endpoint
answers 404. A wrong or missing token is a 401 and counts against the address's failed-auth
budget like any other (``service.limits``). Nothing in it names a game, a seat token, a secret
or a URL, and it is not in the OpenAPI document (it is not part of the API).
"""
from __future__ import annotations

import hmac
from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, request

from core import metrics
from service import limits
from service.problems import ApiProblem
from service.web import service

if TYPE_CHECKING:
    from prometheus_client.core import Metric

TOKEN_ENV = "HOURGLASS_METRICS_TOKEN"

blp = Blueprint("metrics", __name__)


class RedisCollector:
    """Renders ``core.metrics.read``: the series every process added to Redis, and queue depths."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        depth = GaugeMetricFamily("hourglass_queue_depth", "jobs or push calls waiting, by queue", labels=["queue"])
        for queue, length in sorted(self.data["depths"].items()):
            depth.add_metric([queue], length)
        yield depth
        grouped: dict[str, dict[tuple[tuple[str, str], ...], dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
        for raw, value in self.data["series"].items():
            name, labels, suffix = metrics.parse_field(raw)
            if name in metrics.METRICS:
                grouped[name][tuple(sorted(labels.items()))][suffix] = value
        for name, (kind, help_text, buckets) in metrics.METRICS.items():
            series = grouped.get(name, {})
            names = sorted({k for key in series for k, _ in key})
            if kind == "counter":
                counter = CounterMetricFamily(name.removesuffix("_total"), help_text, labels=names)
                for key, values in sorted(series.items()):
                    counter.add_metric(_values(key, names), values.get("total", 0.0))
                yield counter
                continue
            histogram = HistogramMetricFamily(name, help_text, labels=names)
            for key, values in sorted(series.items()):
                histogram.add_metric(_values(key, names), _cumulative(values, buckets), values.get("sum", 0.0))
            yield histogram


def _values(labels: tuple[tuple[str, str], ...], names: list[str]) -> list[str]:
    found = dict(labels)
    return [found.get(n, "") for n in names]


def _cumulative(values: dict[str, float], buckets: tuple[float, ...]) -> list[tuple[str, float]]:
    out, running = [], 0.0
    for bound in buckets:
        running += values.get(f"le={float(bound)!r}", 0.0)
        out.append((repr(float(bound)), running))
    out.append(("+Inf", running + values.get("le=+Inf", 0.0)))
    return out


def _authorised() -> None:
    token = str(current_app.config.get("METRICS_TOKEN") or "")  # service.app reads it from TOKEN_ENV
    if not token:
        raise ApiProblem(404, "NOT_FOUND", f"metrics are off on this server (an operator sets {TOKEN_ENV})")
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if "Authorization" in request.headers:
        limits.refuse_guessers()  # guesses count as 401s (service.limits.finish) and are throttled
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise ApiProblem(401, "UNAUTHORIZED", "metrics need the operators' bearer token",
                         headers={"WWW-Authenticate": 'Bearer realm="metrics"'})


@blp.get("/metrics")
def scrape() -> Response:
    """The Prometheus text exposition of every process's figures (operators only)."""
    _authorised()
    # prometheus_client is imported by the first scrape, not by every web worker's start (issue 27)
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.exposition import CONTENT_TYPE_LATEST

    registry = CollectorRegistry(auto_describe=False)
    registry.register(RedisCollector(metrics.read(service().store.conn)))
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)
