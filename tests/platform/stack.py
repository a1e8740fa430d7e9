"""A live stack for end-to-end tests: the app on a real HTTP port (threaded werkzeug, ADVANCE=rq)
and real ``hourglass worker`` processes on this run's RQ queue, all on the test Redis."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from werkzeug.serving import make_server

from service.app import create_app

ROOT = Path(__file__).resolve().parents[2]


class Stack:
    def __init__(self, conn: redis.Redis, redis_url: str, queue: str, env: dict[str, str]) -> None:
        self.conn, self.redis_url, self.queue, self.env = conn, redis_url, queue, env
        app = create_app({"REDIS": conn, "ADVANCE": "rq", "RATE_LIMIT": 0, "SSE_HEARTBEAT": 0.5,
                          "CLIENT_SEEDS": "any"})
        self.httpd = make_server("127.0.0.1", 0, app, threaded=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.workers: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def start(self, workers: int = 2) -> Stack:
        self.thread.start()
        for _ in range(workers):
            self.start_worker()
        return self

    def start_worker(self) -> subprocess.Popen[bytes]:
        log = ROOT / "tests" / "artifacts" / f"worker-{len(self.workers)}-{os.getpid()}.log"
        log.parent.mkdir(exist_ok=True)
        env = {**os.environ, **self.env, "REDIS_URL": self.redis_url, "HOURGLASS_QUEUE": self.queue}
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--queue", self.queue,
                                     "--logging-level", "WARNING"], cwd=ROOT, env=env, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self.workers.append(proc)
        self.logs.append(log)
        return proc

    def kill_worker(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL the worker and its work horse (its whole process group): nothing gets to clean up."""
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.workers:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.httpd.shutdown()


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, every: float = 0.2,
             explain: Callable[[], str] | None = None) -> Any:
    """``predicate()`` once it is true; after ``timeout`` s an AssertionError naming ``what`` and,
    with ``explain``, what the stack looked like (so a CI failure says where it stood)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            detail = f"\n{explain()}" if explain is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{detail}")
        time.sleep(every)
