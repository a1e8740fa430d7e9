"""How the web process (and the jobs themselves) ask a worker to advance a game.

Jobs take ids, never pickled state, and use RQ's JSON serializer. The job id is derived from
(game, version) so that enqueueing twice for the same version is a no-op while the first job is
still waiting or running; the append path's idempotency keys make a duplicate run harmless
anyway. A job whose work horse dies is retried (RQ ``Retry``), and ``advance`` re-reads the
game, so a retry continues where the store is, not where the dead job was.

The queue is ``hourglass`` unless ``HOURGLASS_QUEUE`` names another (tests use one per test);
a job re-enqueues follow-up work on the queue it came from.

RQ cannot run on a Redis Cluster (its scripts and transactions span keys of many slots): every
function here takes the event-store client and puts jobs on ``core.connection.plain_redis`` of
it, the same server for a single Redis, the ``HOURGLASS_QUEUE_URL`` server beside a cluster.
"""
from __future__ import annotations

import os
from datetime import UTC, datetime

from redis import Redis
from rq import Queue, Retry, get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from core.connection import plain_redis

QUEUE_NAME = "hourglass"
QUEUE_ENV = "HOURGLASS_QUEUE"
ADVANCE_TIMEOUT_S = 600
PENDING = frozenset({JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED})


def queue_name() -> str:
    job = get_current_job()
    if job is not None and job.origin:
        return job.origin
    return os.environ.get(QUEUE_ENV) or QUEUE_NAME


def queue(conn: Redis, name: str | None = None) -> Queue:
    return Queue(name or queue_name(), connection=plain_redis(conn), serializer=JSONSerializer)


def retry_policy() -> Retry:
    """First retry at once (a dead horse, a lost connection), then back off (needs the scheduler)."""
    return Retry(max=5, interval=[0, 2, 10, 30, 60])


def _pending(q: Queue, job_id: str) -> bool:
    try:
        job = Job.fetch(job_id, connection=q.connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return False
    return job.get_status(refresh=False) in PENDING


def enqueue_advance(conn: Redis, game_id: str, version: int) -> None:
    """Schedule ``workers.jobs.advance(game_id)`` after the game reached ``version``.

    Call it after every accepted append that leaves SYSTEM or a non-human seat to act, and after
    every append in a game with clocks (the worker starts the next seat's clock).
    """
    job_id = f"advance-{game_id}-{version}"
    q = queue(conn)
    if _pending(q, job_id):
        return
    q.enqueue("workers.jobs.advance", game_id, job_id=job_id, result_ttl=60, failure_ttl=86_400,
              job_timeout=ADVANCE_TIMEOUT_S, retry=retry_policy())


def requeue_advance(conn: Redis, game_id: str, version: int, attempt: int) -> bool:
    """The sweeper's enqueue of job ``advance-<game>-<version>-sweep<attempt>``, unless the
    version's own job or the previous sweep's is still waiting to run (False then).

    A job that claims to be running does not count (the sweeper only asks when no job holds the
    game's lease: its worker died without a word), nor does one that a dead worker popped: RQ
    moves a job to the queue's intermediate list as a worker takes it, and a worker whose
    blocking pop outlived it (its socket held open by a forked child) leaves it there.
    """
    base = f"advance-{game_id}-{version}"
    q = queue(conn)
    for job_id in [base] + ([f"{base}-sweep{attempt - 1}"] if attempt > 1 else []):
        if _waiting(q, job_id):
            return False
    q.enqueue("workers.jobs.advance", game_id, job_id=f"{base}-sweep{attempt}", result_ttl=60,
              failure_ttl=86_400, job_timeout=ADVANCE_TIMEOUT_S, retry=retry_policy(),
              at_front=True)  # overdue already: it does not queue up again behind newer work
    return True


def _waiting(q: Queue, job_id: str) -> bool:
    try:
        status = Job.fetch(job_id, connection=q.connection, serializer=JSONSerializer).get_status(refresh=False)
    except NoSuchJobError:
        return False
    popped_by_the_dead = q.connection.lpos(q.intermediate_queue_key, job_id) is not None
    return status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED) and not popped_by_the_dead


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
    """Drop the still-scheduled timeout jobs of a stint that has ended (they would be no-ops)."""
    dropped = False
    for job_id in (timeout_job_id(game_id, seat, stint), timeout_job_id(game_id, seat, stint, again=True)):
        try:
            job = Job.fetch(job_id, connection=plain_redis(conn), serializer=JSONSerializer)
        except NoSuchJobError:
            continue
        if job.get_status(refresh=False) == JobStatus.SCHEDULED:
            job.delete()
            dropped = True
    return dropped
