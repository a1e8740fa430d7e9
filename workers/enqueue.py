"""How the web process asks a worker to advance a game.

Jobs take ids, never pickled state, and use RQ's JSON serializer. The job id is derived from
(game, version) so that enqueueing twice for the same version is a no-op while the first job is
still known to RQ; the append path's idempotency keys make a duplicate run harmless anyway.
"""
from __future__ import annotations

from redis import Redis
from rq import Queue
from rq.serializers import JSONSerializer

QUEUE_NAME = "hourglass"


def queue(conn: Redis) -> Queue:
    return Queue(QUEUE_NAME, connection=conn, serializer=JSONSerializer)


def enqueue_advance(conn: Redis, game_id: str, version: int) -> None:
    """Schedule ``workers.jobs.advance(game_id)`` after the game reached ``version``."""
    job_id = f"advance-{game_id}-{version}"
    q = queue(conn)
    if q.fetch_job(job_id) is not None:
        return
    q.enqueue("workers.jobs.advance", game_id, job_id=job_id, result_ttl=60, failure_ttl=3600)
