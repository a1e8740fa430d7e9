"""The worker process: RQ's work loop, started again when Redis comes back instead of quitting.

RQ's ``Worker.work`` retries Redis by itself only while it waits for a job; a connection error
anywhere else (a job's bookkeeping, a heartbeat, maintenance, its own start-up or teardown) ends
the loop, and with it an ``rq worker`` process. :class:`Runner` runs the loop in a fresh worker
until a signal asks it to stop. After an unexpected end it stops the left-over work horse (the
job is run again by RQ's retry or ``workers.sweeper``; appends are idempotent), logs one line,
waits for Redis with capped exponential backoff and jitter (``workers.backoff``), and works on.

Next to the loop, unless ``--burst``, runs the sweeper thread (``workers.sweeper``) that puts
games with no live job back on the queue.

RQ's scheduler (clock timeouts, retry intervals) runs in a child process that dies with the
connection too, and RQ starts it again only in its maintenance pass. ``MAINTENANCE_S`` and
``WORKER_TTL_S`` bring that pass round every ~10 s instead of RQ's 10 minutes.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from types import FrameType
from typing import Any

import redis
from rq import SimpleWorker, Worker
from rq.worker import BaseWorker

from core.connection import UNAVAILABLE
from workers.backoff import Backoff
from workers.sweeper import Sweeper

REDIS_DOWN = UNAVAILABLE  # core.connection: a cluster adds its own ways of being away
MAINTENANCE_S = 10  # RQ's default is 600: clean registries, restart a dead scheduler
WORKER_TTL_S = 25  # RQ blocks on the queue for (ttl - 15) s, then looks at maintenance again
MONITOR_S = 10  # a busy worker's heartbeat (RQ's default is 30)
HEALTHY_S = 60.0  # a loop that ran this long starts the next backoff from the beginning
RETRY_CAP_S = 10.0  # RQ's own reconnect while waiting for a job, capped (its default is 60)

log = logging.getLogger("hourglass.worker")


class _Stoppable:
    """Records that SIGINT/SIGTERM asked for a stop, so an ended loop is not taken for a crash."""

    stop_event: threading.Event
    max_connection_wait_time = RETRY_CAP_S

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_event.set()
        super().request_stop(signum, frame)  # type: ignore[misc]


class HourglassWorker(_Stoppable, Worker):
    """RQ's forking worker (a work horse per job)."""


class HourglassSimpleWorker(_Stoppable, SimpleWorker):
    """RQ's worker that runs jobs in its own process (``--no-fork``)."""


WORKER_OPTIONS: dict[str, Any] = {"maintenance_interval": MAINTENANCE_S, "worker_ttl": WORKER_TTL_S,
                                  "job_monitoring_interval": MONITOR_S}


class Runner:
    """Runs ``build()``'s worker, and a fresh one after each unexpected end, until told to stop."""

    def __init__(self, build: Callable[[], BaseWorker], conn: redis.Redis, *, burst: bool = False,
                 logging_level: str = "INFO", sweep_s: float = 0.0, store: redis.Redis | None = None) -> None:
        self.build = build
        self.store = store  # the event store, when it is not the queue server ``conn``
        self.sweep_s = sweep_s
        self.conn = conn
        self.burst = burst
        self.logging_level = logging_level
        self.stop = threading.Event()
        self.backoff = Backoff()
        self.restarts = 0

    def run(self) -> int:
        """Work until SIGINT/SIGTERM (or, with ``burst``, until the queue is empty); the exit code."""
        store = self.conn if self.store is None else self.store
        sweeper = Sweeper(store, self.sweep_s, queue_conn=self.conn).start() if self.sweep_s > 0 and not self.burst else None
        try:
            return self._run()
        finally:
            if sweeper is not None:
                sweeper.stop.set()

    def _run(self) -> int:
        while True:
            started = time.monotonic()
            worker, error = self._work_once()
            if self.stop.is_set():
                return 0
            if self.burst:
                return 0 if error is None else 1
            _clean_up(worker)
            if time.monotonic() - started > HEALTHY_S:
                self.backoff.reset()
            self._trap_signals()
            if not self._wait_for_redis(error or "the work loop ended (RQ logged why above)"):
                return 0
            _bury(worker)
            self.restarts += 1

    def _work_once(self) -> tuple[BaseWorker | None, str | None]:
        """One life of one worker; the Redis error that ended it, if RQ let it out."""
        worker = None
        try:
            worker = self.build()
            worker.stop_event = self.stop  # type: ignore[attr-defined]
            worker.work(burst=self.burst, with_scheduler=True, logging_level=self.logging_level)
        except REDIS_DOWN as exc:  # RQ's start-up and teardown talk to Redis outside its own try
            return worker, f"{type(exc).__name__}: {exc}"
        return worker, None

    def _trap_signals(self) -> None:
        """Between two workers, SIGINT/SIGTERM just end the wait (RQ's handlers belong to a worker)."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda signum, frame: self.stop.set())

    def _wait_for_redis(self, reason: str) -> bool:
        """Back off until Redis answers a PING; False when a stop was asked for meanwhile."""
        delay = self.backoff.next()
        log.warning("hourglass worker: %s; working again in %.1f s", reason, delay)
        down_since: float | None = None
        while not self.stop.wait(delay):
            try:
                self.conn.ping()
            except REDIS_DOWN as exc:
                if down_since is None:
                    down_since = time.monotonic()
                    log.warning("hourglass worker: Redis unreachable (%s); retrying with backoff", exc)
                delay = self.backoff.next()
                continue
            if down_since is not None:
                log.warning("hourglass worker: Redis is back after %.1f s", time.monotonic() - down_since)
            return True
        return False


def _clean_up(worker: BaseWorker | None) -> None:
    """Stop what a worker that quit half-way left running: its horse, scheduler and pubsub thread."""
    if worker is None:
        return
    if worker.horse_pid:
        with suppress(OSError):
            worker.kill_horse(signal.SIGKILL)
            worker.wait_for_horse()
    if worker.scheduler is not None:
        with suppress(Exception):
            worker.stop_scheduler()  # type: ignore[no-untyped-call]  # rq leaves it unannotated
    if worker.pubsub_thread is not None:
        worker.pubsub_thread.stop()
        worker.pubsub_thread.join(timeout=3)
        with suppress(Exception):
            worker.pubsub.close()


def _bury(worker: BaseWorker | None) -> None:
    """Mark the old worker dead in Redis (best effort), so a ``--name`` can be registered again."""
    if worker is not None:
        with suppress(*REDIS_DOWN):
            worker.register_death()  # type: ignore[no-untyped-call]  # rq leaves it unannotated
