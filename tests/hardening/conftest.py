"""Fixtures for the hardening tests: a private ``redis-server`` that a test may SIGKILL and
restart on the same port, and child processes (``hourglass worker``, ``hourglass serve``) run in
their own process groups and always cleaned up. Every wait is bounded.

The private servers are empty servers of their own, started with ``--save '' --appendonly no``
so a restart comes back empty (or, ``durable``, with an append-only file fsynced on every write, so
a restart comes back with everything it acknowledged). Tests that need the shared test Redis use the worker tests'
fixtures (``svc``, ``new_game``, ``created``, ``queue_name``), which clean up after themselves.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from tests.live import PATIENCE_S
from tests.workers.conftest import ask_bot, created, new_game, queue_name, svc  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(predicate: Callable[[], Any], timeout: float, interval: float = 0.1, what: str = "") -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        time.sleep(interval)


class RedisServer:
    """A ``redis-server`` child on a fixed free port that can be killed and started again."""

    def __init__(self, directory: Path, durable: bool = False) -> None:
        self.port = free_port()
        self.directory = directory
        self.durable = durable  # append-only file, fsync on every write: a kill loses nothing acknowledged
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=2, socket_connect_timeout=2)

    def start(self) -> None:
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.durable else ["--appendonly", "no"]
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                   *persistence, "--dir", str(self.directory)]
        with open(self.directory / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(self._answers, PATIENCE_S, 0.05, "redis-server to answer")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no save; clients see a reset, then refused connections."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except (redis.RedisError, OSError):
            return False


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("needs the redis-server binary on PATH")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc), children before grandchildren."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with suppress(OSError):
                kids = [int(p) for p in (task / "children").read_text().split()]
                found += kids
                todo += kids
    return found


class Children:
    """Child processes of one test, each in its own session (process group), logs under tmp."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.procs: list[subprocess.Popen[bytes]] = []

    def spawn(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        with open(self.directory / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env}, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def hourglass(self, name: str, *args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
        return self.spawn(name, [sys.executable, "-m", "service.cli", *args], env)

    def log(self, name: str) -> str:
        path = self.directory / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    @staticmethod
    def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)

    @staticmethod
    def kill_tree(proc: subprocess.Popen[bytes]) -> list[int]:
        """SIGKILL the process and every descendant, whatever group it moved to (an RQ work
        horse calls setpgrp): what a host or container crash does to a worker. Frozen first,
        so nobody reacts to the others' deaths."""
        tree = descendants(proc.pid) + [proc.pid]
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in tree:
                with suppress(ProcessLookupError):
                    os.kill(pid, sig)
        return tree

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                self.kill_group(proc, signal.SIGTERM)
        for proc in self.procs:
            with suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=15)
            self.kill_group(proc, signal.SIGKILL)  # stragglers in the group: horses, schedulers
            if proc.poll() is None:
                proc.wait(timeout=5)


@pytest.fixture
def children(tmp_path: Path) -> Iterator[Children]:
    kids = Children(tmp_path)
    try:
        yield kids
    finally:
        kids.stop_all()


def answers(base: str) -> bool:
    """Whether the service at ``base`` serves its OpenAPI document (it is up)."""
    with suppress(requests.RequestException):
        return requests.get(f"{base}/openapi.json", timeout=2).status_code == 200
    return False


@dataclass
class Serving:
    base: str
    port: int
    proc: subprocess.Popen[bytes]
    redis: RedisServer


@contextmanager
def serving(tmp: Path, env: dict[str, str], *args: str) -> Iterator[Serving]:
    """``hourglass serve --no-worker`` (with ``args``) on a private Redis, no advance jobs,
    ``env`` on top, once it answers; stopped with its Redis after."""
    redis_server = RedisServer(tmp)
    redis_server.start()
    kids = Children(tmp)
    port = free_port()
    try:
        proc = kids.hourglass("serve", "serve", "--no-worker", "--port", str(port), *args,
                              env={"REDIS_URL": redis_server.url, "HOURGLASS_ADVANCE": "off", **env})
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: answers(base), PATIENCE_S, 0.2, "hourglass serve to answer")
        yield Serving(base, port, proc, redis_server)
    finally:
        kids.stop_all()
        redis_server.kill()
