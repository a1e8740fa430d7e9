"""A real Redis Cluster for the tests in this directory: three masters started from the
``redis-server`` binary (``--cluster-enabled yes``) under a temporary directory, joined with
``redis-cli --cluster create``, and torn down at the end of the session.

The tests skip, saying why, when either binary is missing (CI has them in /usr/bin). Ports are
free ones found at start-up (a node also needs its port + 10000 for the cluster bus);
``HOURGLASS_TEST_CLUSTER_PORT=<p>`` pins the first node to ``p`` (then ``p+1``, ``p+2``).
The queues and the other keys a cluster cannot hold go to the suite's plain test Redis
(``HOURGLASS_QUEUE_URL``), under a queue name of the test's own.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis

from core.connection import QUEUE_URL_ENV, connect
from tests.conftest import REDIS_URL, delete_queue
from workers import jobs

MASTERS = 3
START_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Cluster:
    ports: tuple[int, ...]
    procs: dict[int, subprocess.Popen[bytes]]
    argv: dict[int, list[str]]

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports[:2])

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, decode_responses=False)

    def owner(self, key: str) -> int:
        """The port of the master that serves ``key``'s slot."""
        slot = int(self.node(self.ports[0]).cluster("keyslot", key))  # type: ignore[no-untyped-call]
        for start, end, master, *_ in self.node(self.ports[0]).execute_command("CLUSTER", "SLOTS"):
            if int(start) <= slot <= int(end):
                return int(master[1])
        raise LookupError(key)

    def stop(self, port: int) -> None:
        self.procs[port].terminate()
        self.procs[port].wait(timeout=10)

    def start(self, port: int) -> None:
        """Start a stopped node again: it rejoins with its slots (nodes.conf) and its keys (the
        append-only file, as docs/topology.md asks of an event store)."""
        self.procs[port] = _spawn(self.argv[port])
        _wait(lambda: b"cluster_state:ok" in redis.Redis(port=port).execute_command("CLUSTER", "INFO"),
              f"node {port} is back in the cluster")


def _free(port: int) -> bool:
    for p in (port, port + 10_000):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                return False
    return True


def _ports() -> list[int]:
    pinned = os.environ.get("HOURGLASS_TEST_CLUSTER_PORT")
    if pinned:
        return [int(pinned) + i for i in range(MASTERS)]
    found: list[int] = []
    while len(found) < MASTERS:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port < 55_000 and port not in found and _free(port):
            found.append(port)
    return found


def _wait(check: object, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except (redis.RedisError, OSError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the test Redis Cluster did not come up: {what}")


def _spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        pytest.skip("Redis Cluster tests need the redis-server and redis-cli binaries on PATH "
                    "(apt install redis-server; CI has them in /usr/bin)")
    directory = tempfile.mkdtemp(prefix="hourglass-cluster-")
    ports = _ports()
    procs: dict[int, subprocess.Popen[bytes]] = {}
    argv: dict[int, list[str]] = {}
    try:
        for port in ports:
            home = os.path.join(directory, str(port))
            os.mkdir(home)
            argv[port] = [server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                          "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000", "--save", "",
                          "--appendonly", "yes", "--dir", home, "--logfile", "redis.log"]
            procs[port] = _spawn(argv[port])
        for port in ports:
            _wait(lambda p=port: redis.Redis(port=p, socket_connect_timeout=0.5).ping(), f"node {port} answers")
        subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-replicas", "0",
                        "--cluster-yes"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        for port in ports:
            _wait(lambda p=port: b"cluster_state:ok" in redis.Redis(port=p).execute_command("CLUSTER", "INFO"),
                  f"node {port} reports cluster_state:ok")
        yield Cluster(tuple(ports), procs, argv)
    finally:
        for proc in procs.values():
            proc.terminate()
        for proc in procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def cluster_env(cluster: Cluster, conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This test's queue name; REDIS_URL is the cluster, HOURGLASS_QUEUE_URL the plain test Redis."""
    name = f"hg-test-cluster-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("REDIS_URL", cluster.url)
    monkeypatch.setenv(QUEUE_URL_ENV, REDIS_URL)
    monkeypatch.setenv("HOURGLASS_QUEUE", name)
    jobs._SERVICES.clear()
    yield name
    jobs._SERVICES.clear()
    delete_queue(conn, name)


@pytest.fixture
def cconn(cluster_env: str, cluster: Cluster) -> redis.Redis:
    """A client of the cluster (``core.connection.connect`` of a ``redis+cluster://`` URL)."""
    return connect(cluster.url)
