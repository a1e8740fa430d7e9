"""The sweeper: puts games that need a worker, and have none, back on the queue within seconds.

Every ``hourglass worker`` runs :class:`Sweeper` in a thread next to RQ's loop; a Redis lock lets
one of them sweep per interval, so it needs no process of its own. A pass reads the games that
are due on the work list (``core.worklist``: marked by the core before every append that leaves
work, due ``GRACE_MS`` later) and, for each one whose lease nobody holds (``workers.lease``: a running
job renews it every second, the caller process while a push call is open), looks at the game:

- gone, finished or stuck: off the list;
- nothing for a machine to do and no clock: retired (a spurious mark);
- otherwise a fresh advance job is enqueued (``workers.enqueue.requeue_advance``): the worker
  that held the job crashed, its retries ran out, or the enqueue after the append was lost.

Each requeue of one game at one version counts as a try (``WorkList.count_try``; a job still
waiting in the queue does not: a backlog is no failure), and so does each failed job
(``workers.jobs``): after ``MAX_TRIES`` the game is marked stuck, logged and counted instead of
being retried for ever. The pass also expires abandoned games: live games with no
append for ``HOURGLASS_ABANDON_AFTER_S`` (``core.retention``), and compacts the games that ended
(``replays.compaction``: the stream becomes the compressed bundle, the archive gets a copy).
After each pass the thread runs the ladders' matchmaker (``workers.ladder``, under a lock of its own).
"""
from __future__ import annotations

import logging
import threading
import uuid
from datetime import UTC, datetime
from typing import Any

import redis

from core.connection import UNAVAILABLE, copy_client
from core.games import GameNotFound, GameService, iso_time
from core.retention import LIVE_KEY
from core.worklist import GRACE_MS, WorkList, now_ms
from replays.compaction import Archive, archive_from_env, compact_due
from workers import ladder
from workers.enqueue import requeue_advance
from workers.lease import held
from workers.policy import next_actor

log = logging.getLogger("hourglass.sweeper")

INTERVAL_S = 2.0
BATCH = 100
MAX_TRIES = 4  # failed or swept-up attempts at one version before the game is marked stuck
LOCK_KEY = "hg:{sweep}:lock"
REDIS_DOWN = UNAVAILABLE  # core.connection: a cluster adds its own ways of being away


def give_up(work: WorkList, game_id: str, version: int, reason: str, tries: int) -> dict[str, Any]:
    record = work.mark_stuck(game_id, version, reason, tries)
    log.error("hourglass: game %s is stuck at version %d after %d tries: %s", game_id, version, tries, reason)
    return record


def sweep_once(svc: GameService, limit: int = BATCH, archive: Archive | None = None) -> dict[str, int]:
    """One pass over the due games; counts of what it did (for logs and tests)."""
    conn, work = svc.store.conn, svc.worklist
    counts = {"due": 0, "leased": 0, "retired": 0, "requeued": 0, "waiting": 0, "stuck": 0}
    for game_id in work.due(limit=limit):
        counts["due"] += 1
        lease_left = held(conn, game_id)
        if lease_left > 0:  # a live job (or a caller's open call) holds the game: look again when it would lapse
            counts["leased"] += 1
            work.postpone(game_id, now_ms() + lease_left)
            continue
        counts[_sweep_game(svc, work, game_id)] += 1
    counts["expired"] = expire_abandoned(svc, limit)
    counts["compacted"] = compact_due(svc.store, svc.live, limit, archive)
    if counts["requeued"] or counts["stuck"] or counts["expired"]:
        work.count("sweeper_requeued", counts["requeued"])
        log.warning("hourglass sweeper: %s", counts)
    return counts


def expire_abandoned(svc: GameService, limit: int = BATCH) -> int:
    """Expire live games whose last append is older than the retention's ``abandon_after_s``."""
    expired = 0
    for game_id in svc.live.idle(limit):
        last = svc.store.last(game_id)
        if last is None:  # gone (deleted, or its keys expired): nothing to keep track of
            svc.live.forget(game_id)
            continue
        moved_ms = int(datetime.strptime(last.entry["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp() * 1000)
        if now_ms() - moved_ms < svc.live.retention.abandon_after_s * 1000:  # the index lagged behind
            svc.live.conn.zadd(LIVE_KEY, {game_id: moved_ms}, xx=True)
            continue
        svc.live.expire(game_id, iso_time(svc.clock()))
        svc.worklist.drop(game_id)
        log.warning("hourglass: game %s expired after %d s without a move", game_id, svc.live.retention.abandon_after_s)
        expired += 1
    return expired


def _sweep_game(svc: GameService, work: WorkList, game_id: str) -> str:
    generation = work.generation(game_id)
    try:
        game = svc.load(game_id)
    except GameNotFound:
        work.drop(game_id)
        return "retired"
    flags = svc.flags(game_id)
    if game.finished or flags["stuck"] is not None or flags["status"] == "expired":
        work.drop(game_id)
        return "retired"
    if next_actor(game.rules, game.state, game.info.seats) is None and not game.clocked:
        work.retire(game_id, generation)
        return "retired"
    tries = work.tries(game_id, game.version)
    if tries >= MAX_TRIES:
        give_up(work, game_id, game.version, "no worker could advance it (swept up too often)", tries)
        return "stuck"
    work.postpone(game_id, now_ms() + 2 * GRACE_MS)
    if not requeue_advance(conn=svc.store.conn, game_id=game_id, version=game.version, attempt=tries + 1):
        return "waiting"  # its job is still queued (a backlog is no failure): not a try
    work.count_try(game_id, game.version)
    return "requeued"


class Sweeper:
    """A daemon thread that sweeps every ``interval_s`` while it holds the sweep lock."""

    def __init__(self, conn: redis.Redis, interval_s: float = INTERVAL_S, queue_conn: redis.Redis | None = None) -> None:
        # a pool of its own: RQ forks its scheduler with the worker's sockets open, and a
        # connection the sweeper had returned to a shared pool could end up in that child
        own = copy_client(conn)
        self.svc = GameService(own)
        self.archive = archive_from_env()
        self.queue_conn = copy_client(queue_conn) if queue_conn is not None else own
        self.interval_s = interval_s
        self.stop = threading.Event()
        self.name = uuid.uuid4().hex
        self.thread = threading.Thread(target=self._run, name="hourglass-sweeper", daemon=True)

    def start(self) -> Sweeper:
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self.stop.wait(self.interval_s):
            try:
                if self._my_turn():
                    sweep_once(self.svc, archive=self.archive)
            except REDIS_DOWN:
                pass  # the worker's runner logs the outage; sweep again when Redis is back
            except Exception:
                log.exception("hourglass sweeper: pass failed")
            try:
                ladder.matchmake(self.svc, queue_conn=self.queue_conn)  # its own lock: one pass at a time
            except REDIS_DOWN:
                pass
            except Exception:
                log.exception("hourglass ladder: matchmaker pass failed")

    def _my_turn(self) -> bool:
        """One sweeper per interval across all workers (the lock lapses by itself)."""
        conn = self.svc.store.conn
        ttl = int(self.interval_s * 1000 * 0.9)
        return bool(conn.set(LOCK_KEY, self.name, px=ttl, nx=True))
