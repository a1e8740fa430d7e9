"""The chaos run (``tests/hardening/chaos.py``): a quick one in ``make test``, the full one, at
least 10,000 operations with more faults, in ``make chaos`` (``HOURGLASS_CHAOS_OPS``)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.hardening.chaos import Chaos
from tests.hardening.conftest import Children, RedisServer

OPS = int(os.environ.get("HOURGLASS_CHAOS_OPS", "300"))


def faults(ops: int) -> list[tuple[float, str]]:
    """Quick: one worker kill, one Redis kill. Full: a fault every ~2,000 operations."""
    if ops < 2000:
        return [(0.3, "worker"), (0.6, "redis")]
    count = ops // 2000
    return [((i + 0.5) / count, "worker" if i % 2 == 0 else "redis") for i in range(count)]


def test_chaos(tmp_path: Path, children: Children) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("needs the redis-server binary on PATH")
    server = RedisServer(tmp_path, durable=True)
    server.start()
    try:
        report = Chaos(server, children, ops=OPS, seed=int(os.environ.get("HOURGLASS_CHAOS_SEED", "15")),
                       faults=faults(OPS)).run()
    finally:
        children.stop_all()
        server.kill()
    print("\n" + "\n".join(report.lines()))
    assert sum(report.operations.values()) == OPS
    assert len(report.acks) > OPS // 20, "too few moves were acknowledged for the run to prove anything"
    assert len(report.recoveries) >= len(faults(OPS)), "a fault was not recovered from"
    assert report.games_checked and report.events_checked
    assert not report.failures, "\n".join(report.failures[:20])
    assert report.leaks == 0
