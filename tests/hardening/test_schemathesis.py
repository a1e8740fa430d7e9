"""Schemathesis against the live OpenAPI document of a real server, with every check it has.

``hourglass serve --no-worker`` runs on a free loopback port (gunicorn as shipped); the schema is
loaded from its ``/openapi.json`` and each operation gets ``HOURGLASS_SCHEMATHESIS_EXAMPLES``
generated cases (bounded; ``make chaos`` runs more), every one checked by all of schemathesis'
checks: no server error, status codes, content types, headers and bodies as documented, negative
data rejected, schema-valid data accepted, and the rest. Rate limits are off so a 429 cannot
stand for a real answer.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig

from tests.hardening.conftest import Children, free_port, wait_until
from tests.workers.conftest import REDIS_URL

EXAMPLES = int(os.environ.get("HOURGLASS_SCHEMATHESIS_EXAMPLES", "25"))
load_all_checks()
ALL_CHECKS = CHECKS.get_all()
# Schema-valid data may still be refused by rules the schema cannot express: a configuration the
# game does not support or a move the rules reject (422), a stale If-Match (412). Every other
# check keeps its defaults.
CONFIG = SchemathesisConfig.from_dict({"checks": {"positive_data_acceptance": {
    "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "429", "5xx"]}}})


@pytest.fixture(scope="module")
def live_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    kids = Children(tmp_path_factory.mktemp("schemathesis"))
    port = free_port()
    env = {"REDIS_URL": REDIS_URL, "HOURGLASS_RATE_LIMIT": "0", "HOURGLASS_ADVANCE": "off"}
    kids.hourglass("serve", "serve", "--no-worker", "--port", str(port), "--workers", "1", env=env)
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return requests.get(f"{base}/openapi.json", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_until(up, 30, 0.1, "the server to answer")
        yield schemathesis.openapi.from_url(f"{base}/openapi.json", config=CONFIG)
    finally:
        kids.stop_all()


def test_the_live_api_matches_its_spec(live_schema: Any) -> None:
    """Every operation, every check; the failures of all operations are reported together."""
    failures: dict[str, str] = {}
    operations = [result.ok() for result in live_schema.get_all_operations()]
    assert len(operations) >= 10
    for operation in operations:

        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            case.call_and_validate(checks=ALL_CHECKS, timeout=10)

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # schemathesis reports a group of failures
            failures[operation.label] = str(exc)[:1500]
    assert not failures, "\n\n".join(f"{label}:\n{text}" for label, text in failures.items())
