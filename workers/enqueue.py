"""How the web process (and the jobs themselves) ask a worker to advance a game.

Jobs take ids, never pickled state, and use RQ's JSON serializer. The job id is derived from
(game, version) so that enqueueing twice for the same version is a no-op while the first job is
still waiting or running; the append path's idempotency keys make a duplicate run harmless
anyway. A job whose work horse dies is retried (RQ ``Retry``), and ``advance`` re-reads the
game, so a retry continues where the store is, not where the dead job was.

Each lane (``workers.lanes``) is a queue: ``<base>`` for the fast lane, ``<base>-slow`` for the
slow one, where ``<base>`` is ``hourglass`` unless ``HOURGLASS_QUEUE`` names another (tests use
one per test). A job enqueues follow-up work under the base name it came from, on the lane the
work belongs to; clock timeouts and delayed tournament ticks go to the fast lane, a tournament
tick woken at once (a game ended) to the now lane (``workers.tournaments.enqueue_tick``).

RQ cannot run on a Redis Cluster (its scripts and transactions span keys of many slots): every
function here takes the event-store client and puts jobs on ``core.connection.plain_redis`` of
it, the same server for a single Redis, the ``HOURGLASS_QUEUE_URL`` server beside a cluster.
"""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from redis import Redis
from rq import Queue, Retry, get_current_job
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from core.connection import plain_redis
from workers.lanes import FAST, NOW, QUEUE_LANES, SLOW, Lane, base_of_queue, queue_suffix
from workers.lease import held

QUEUE_NAME = "hourglass"
QUEUE_ENV = "HOURGLASS_QUEUE"
ADVANCE_TIMEOUT_S = 600
ADVANCE_RESULT_TTL_S = 60  # a finished advance job's record (its result, its retries) is kept this long
PENDING = frozenset({JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED})


def base_name() -> str:
    """The queues' base name: that of the running job's queue, else ``HOURGLASS_QUEUE`` or ``hourglass``."""
    job = get_current_job()
    if job is not None and job.origin:
        return base_of_queue(job.origin)
    return os.environ.get(QUEUE_ENV) or QUEUE_NAME


def queue_name(lane: Lane = FAST) -> str:
    """The name of ``lane``'s queue."""
    return base_name() + queue_suffix(lane)


def queue(conn: Redis, name: str | None = None, lane: Lane = FAST) -> Queue:
    """An RQ queue on the queue server: ``name``, else ``lane``'s queue."""
    return Queue(name or queue_name(lane), connection=plain_redis(conn), serializer=JSONSerializer)


def lane_queues(conn: Redis, lanes: tuple[Lane, ...] = QUEUE_LANES) -> list[Queue]:
    """The lanes' queues, in the order given (a worker takes from them in that order)."""
    return [queue(conn, lane=lane) for lane in lanes]


@dataclass(frozen=True)
class Waiting:
    """What waits in the lanes' queues: advance jobs on the now lane (a game's news), and how
    many jobs on the fast and the slow lane."""

    news: int
    fast: int
    slow: int


def queued_jobs(conn: Redis) -> Waiting:
    """What waits in the lanes' queues now, in one round trip (the now lane is short: news and
    tournament ticks, each taken before any fast-lane job)."""
    pipe = plain_redis(conn).pipeline(transaction=False)
    now, fast, slow = lane_queues(conn, (NOW, FAST, SLOW))
    pipe.lrange(now.key, 0, -1)
    pipe.llen(fast.key)
    pipe.llen(slow.key)
    ids, on_fast, on_slow = pipe.execute()
    news = sum(1 for job_id in ids if (job_id if isinstance(job_id, bytes) else job_id.encode()).startswith(b"advance-"))
    return Waiting(news, int(on_fast), int(on_slow))


def retry_policy() -> Retry:
    """First retry at once (a dead horse, a lost connection), then back off (needs the scheduler)."""
    return Retry(max=5, interval=[0, 2, 10, 30, 60])


def _status(q: Queue, job_id: str) -> JobStatus | None:
    try:
        job = Job.fetch(job_id, connection=q.connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return None
    return job.get_status(refresh=False)


def _pending(q: Queue, job_id: str) -> bool:
    return _status(q, job_id) in PENDING


def enqueue_advance(conn: Redis, game_id: str, version: int, lane: Lane = NOW) -> None:
    """Schedule ``workers.jobs.advance(game_id)`` after the game reached ``version``, at the back
    of ``lane``'s queue (a job on the wrong lane moves the game to the right one). The default,
    ``now``, is for news from outside (a creation, a move through the API); the workers' own
    continuations name their lane.

    Call it after every accepted append that leaves SYSTEM or a non-human seat to act, and after
    every append in a game with clocks (the worker starts the next seat's clock).

    The job id is ``advance-<game>-<version>``: nothing is enqueued while that job waits, nor while
    it runs holding the game's lease (it reads the game again before every step). The running job
    itself (handing the game to another lane at the same version), one whose worker died with it
    (its lease lapsed), one a dead worker popped and never started (``_waiting``: queued in
    status, on no list), or one that has ended (its hash is kept for its result) gets a fresh job
    under a new id instead.

    A job id is put on a queue at most once (RQ's ``unique`` enqueue, one script): the id is the
    lease's token (``workers.jobs.advance``), so the same id queued twice would be two jobs that
    both hold the game at once. Two processes that looked at once (one job releasing the game, a
    second taking it, finding nothing for its lane and handing it on at the same version) each
    saw no job; the one whose enqueue loses looks again.
    """
    base = f"advance-{game_id}-{version}"
    q = queue(conn, lane=lane)
    while True:
        job_id = _advance_job_id(conn, q, game_id, base)
        if job_id is None:
            return
        try:
            q.enqueue("workers.jobs.advance", game_id, job_id=job_id, result_ttl=ADVANCE_RESULT_TTL_S, failure_ttl=86_400,
                      job_timeout=ADVANCE_TIMEOUT_S, retry=retry_policy(), unique=True)
            return
        except DuplicateJobError:  # another process queued this id since we looked: look again
            continue


def _advance_job_id(conn: Redis, q: Queue, game_id: str, base: str) -> str | None:
    """The id to enqueue the game's advance job under: ``base`` while no job has it, a fresh one
    when that job cannot be counted on; None when it will run (waiting, or holding the game)."""
    status = _status(q, base)
    if status is None:
        return base
    if status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED) and _waiting(q, base):
        return None
    if status == JobStatus.STARTED:
        current = get_current_job()
        if (current is None or current.id != base) and held(conn, game_id):
            return None
    return f"{base}-{secrets.token_hex(3)}"  # lost, ended, or this very job handing over


def requeue_advance(conn: Redis, game_id: str, version: int, attempt: int) -> bool:
    """The sweeper's enqueue of job ``advance-<game>-<version>-sweep<attempt>``, unless the
    version's own job or the previous sweep's is still waiting to run (False then).

    A job that claims to be running does not count (the sweeper only asks when no job holds the
    game's lease: its worker died without a word), nor does one that a dead worker popped
    (``_waiting``: queued in status, but gone from its lane's list).
    """
    base = f"advance-{game_id}-{version}"
    q = queue(conn)
    for job_id in [base] + ([f"{base}-sweep{attempt - 1}"] if attempt > 1 else []):
        if _waiting(q, job_id):
            return False
    try:
        q.enqueue("workers.jobs.advance", game_id, job_id=f"{base}-sweep{attempt}", result_ttl=ADVANCE_RESULT_TTL_S,
                  failure_ttl=86_400, job_timeout=ADVANCE_TIMEOUT_S, retry=retry_policy(),
                  at_front=True, unique=True)  # overdue already: it does not queue up again behind newer work
    except DuplicateJobError:  # that attempt's job exists already (an id is queued once: enqueue_advance)
        return False
    return True


def _waiting(q: Queue, job_id: str) -> bool:
    """True while job ``job_id`` will still run without help: scheduled, deferred, or queued AND
    actually on its queue's list.

    A worker that takes from several lanes pops with BLPOP: a worker killed between that pop and
    marking the job started leaves it ``queued`` in status but on no list at all (a lost job, seen
    in CI as a tournament game that never moved again). A single-lane worker pops with BLMOVE into
    the queue's intermediate list, where a dead worker leaves it. Neither runs again by itself.
    """
    try:
        job = Job.fetch(job_id, connection=q.connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return False
    status = job.get_status(refresh=False)
    if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
        return True
    if status != JobStatus.QUEUED:
        return False
    origin = Queue(job.origin, connection=q.connection, serializer=JSONSerializer) if job.origin else q
    on_its_list = q.connection.lpos(origin.key, job_id) is not None
    popped_by_the_dead = q.connection.lpos(origin.intermediate_queue_key, job_id) is not None
    return on_its_list and not popped_by_the_dead


def timeout_job_id(game_id: str, seat: int, stint: int, again: bool = False) -> str:
    return f"timeout-{game_id}-{seat}-{stint}" + ("-again" if again else "")


def schedule_timeout(conn: Redis, game_id: str, seat: int, stint: int, deadline_ms: int,
                     again: bool = False) -> bool:
    """Schedule ``workers.jobs.timeout(game_id, seat, stint)`` at the stint's deadline, once.

    ``again`` names the re-check a job that ran early schedules for itself. Returns True when a
    job was scheduled now, False when one is already waiting for that stint.
    """
    job_id = timeout_job_id(game_id, seat, stint, again)
    q = queue(conn)
    if _pending(q, job_id):
        return False
    at = datetime.fromtimestamp(deadline_ms / 1000, tz=UTC)
    q.enqueue_at(at, "workers.jobs.timeout", game_id, seat, stint, job_id=job_id, result_ttl=300,
                 failure_ttl=86_400, job_timeout=ADVANCE_TIMEOUT_S, retry=retry_policy())
    return True


def cancel_timeout(conn: Redis, game_id: str, seat: int, stint: int) -> bool:
    """Drop the still-scheduled timeout jobs of a stint that has ended (they would be no-ops).

    The job leaves the scheduled registry in one ZREM, and only the caller whose ZREM removed it
    deletes its hash: RQ's scheduler, a second canceller or the job's own expiry may take it
    at the same moment, and RQ's ``Job.delete`` reads the status again first (a vanished hash
    raised ``InvalidJobOperation`` there and failed the advance job that cancelled).
    """
    q = queue(conn)
    registry = ScheduledJobRegistry(queue=q)  # type: ignore[no-untyped-call]  # rq: unannotated __init__
    dropped = False
    for job_id in (timeout_job_id(game_id, seat, stint), timeout_job_id(game_id, seat, stint, again=True)):
        if q.connection.zrem(registry.key, job_id):
            q.connection.delete(Job.key_for(job_id))
            dropped = True
    return dropped
