"""Finding 3: a game that needs a worker and has no live job is back on the queue within seconds,
and a game that fails at one version again and again is marked stuck instead of retried for ever.

Before: a worker killed with its whole process group left its job in RQ's started registry until
the job timeout (600 s) ran out, ~13.5 minutes with RQ's maintenance; nothing re-enqueued a game
in which only bots act, and a job that raised was retried five times, then forgotten.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from core.games import GameService
from core.seats import HOSTS_ENV
from core.worklist import DUE_KEY, STATS_KEY
from service.app import create_app
from tests.hardening.conftest import PATIENCE_S, Children, RedisServer, wait_until
from tests.workers.hg_botserver import BotServer
from workers import jobs, sweeper
from workers.enqueue import enqueue_advance
from workers.lanes import NOW, SLOW, queue_suffix
from workers.lease import Lease, lease_key


def version(svc: GameService, game_id: str) -> int:
    try:
        return svc.store.version(game_id)
    except (redis.RedisError, OSError):
        return 0


def test_a_game_whose_worker_was_killed_mid_job_finishes_with_a_fresh_worker(
        private_redis: RedisServer, children: Children, monkeypatch: pytest.MonkeyPatch) -> None:
    with BotServer("unused", slow_s=0.03) as bots:
        allowed = bots.url.split("//", 1)[1]
        monkeypatch.setenv(HOSTS_ENV, allowed)
        env = {"REDIS_URL": private_redis.url, HOSTS_ENV: allowed, "HOURGLASS_SWEEP_S": "1"}
        first = children.hourglass("worker-1", "worker", env=env)
        svc = GameService(redis.Redis.from_url(private_redis.url), client_seeds="any")
        seats = [{"name": "slow", "kind": "http", "url": bots.url + "/slow"}, {"name": "R", "kind": "bot", "bot": "random"}]
        created = svc.create({"game": "orleans", "edition": "classic", "seats": seats, "seed": "sweeper-kill"})
        game_id = created["id"]
        bots.secrets.add(created["seats"][0]["secret"])
        enqueue_advance(svc.store.conn, game_id, svc.load(game_id).version)
        start = svc.load(game_id).version
        wait_until(lambda: version(svc, game_id) > start + 20, PATIENCE_S, what="the game to be under way")
        Children.kill_tree(first)  # SIGKILL the worker, its work horse and its scheduler at once
        first.wait(timeout=10)
        killed_at, killed_version = time.monotonic(), version(svc, game_id)
        time.sleep(0.5)
        assert version(svc, game_id) == killed_version, "something else is still advancing the game"
        children.hourglass("worker-2", "worker", env=env)
        wait_until(lambda: version(svc, game_id) > killed_version, PATIENCE_S, 0.2, "a fresh worker to take the game on")
        recovered = time.monotonic() - killed_at
        wait_until(lambda: svc.load(game_id).finished, 120, 0.5, "the game to finish")
    print(f"game moved again {recovered:.1f} s after its worker was killed")
    # within PATIENCE_S (120 s), so not RQ's 600 s cleanup: the sweeper requeued the job the dead
    # worker held, or (a game advances in short slices, workers.lanes) the dead worker was between
    # slices and the next slice's job was waiting in the queue
    log = children.log("worker-2")
    assert "'requeued': 1" in log or f"advance-{game_id}-" in log
    assert not svc.store.conn.zscore(DUE_KEY, game_id)


@pytest.fixture
def bot_game(svc: GameService, created: list[str]) -> str:
    body = {"game": "orleans", "edition": "classic", "seed": "sweeper-stuck",
            "seats": [{"name": "A", "kind": "bot", "bot": "random"}, {"name": "B", "kind": "bot", "bot": "random"}]}
    game_id: str = svc.create(body)["id"]
    created.append(game_id)
    return game_id


def test_an_engine_exception_marks_the_game_stuck_after_max_tries(
        conn: redis.Redis, svc: GameService, bot_game: str, queue_name: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("engine bug in next_actor")

    monkeypatch.setattr(jobs, "next_actor", broken)
    stuck_before = int(conn.hget(STATS_KEY, "games_stuck") or 0)  # type: ignore[arg-type]
    assert conn.zscore(DUE_KEY, bot_game) is not None  # the core put it on the work list at creation
    for _ in range(sweeper.MAX_TRIES - 1):
        with pytest.raises(RuntimeError, match="engine bug"):
            jobs.advance(bot_game)  # RQ would retry each of these
    with caplog.at_level("ERROR", logger="hourglass.sweeper"):
        out = jobs.advance(bot_game)
    assert out["stuck"]["tries"] == sweeper.MAX_TRIES and "engine bug" in out["stuck"]["reason"]
    assert "is stuck at version" in caplog.text
    assert int(conn.hget(STATS_KEY, "games_stuck") or 0) == stuck_before + 1  # type: ignore[arg-type]
    assert conn.zscore(DUE_KEY, bot_game) is None  # never retried for ever
    assert jobs.advance(bot_game)["stuck"]  # a late job neither raises nor tries again
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0}).test_client()
    summary = client.get(f"/api/v1/games/{bot_game}").json
    assert summary["stuck"]["version"] == svc.load(bot_game).version and summary["status"] == "active"


def test_the_sweeper_requeues_a_lost_enqueue_and_gives_up_on_a_game_no_worker_can_move(
        conn: redis.Redis, svc: GameService, bot_game: str, queue_name: str) -> None:
    conn.zadd(DUE_KEY, {bot_game: 0})  # due now: its enqueue was lost (this test enqueued nothing)
    out = sweeper.sweep_once(svc)
    assert out["requeued"] >= 1
    jobs_waiting = [j for j in conn.lrange(f"rq:queue:{queue_name}", 0, -1) if bot_game.encode() in j]  # type: ignore[union-attr]
    assert jobs_waiting, "the sweeper did not enqueue an advance job"
    job = Lease(conn, bot_game)
    assert job.take()
    conn.zadd(DUE_KEY, {bot_game: 0})
    assert sweeper.sweep_once(svc)["leased"] >= 1  # a live job holds it: left alone
    job.release()
    conn.zadd(DUE_KEY, {bot_game: 0})
    assert sweeper.sweep_once(svc)["waiting"] >= 1  # its job is queued behind others: a backlog is no failure
    assert svc.worklist.tries(bot_game, svc.load(bot_game).version) == 1
    for _ in range(sweeper.MAX_TRIES):  # every requeued job vanishes without a word
        Queue(queue_name, connection=conn, serializer=JSONSerializer).empty()
        conn.zadd(DUE_KEY, {bot_game: 0})
        sweeper.sweep_once(svc)
    assert svc.worklist.stuck(bot_game) is not None and conn.zscore(DUE_KEY, bot_game) is None


def test_a_job_a_killed_worker_popped_but_never_started_is_requeued(
        conn: redis.Redis, svc: GameService, bot_game: str, queue_name: str) -> None:
    """A worker taking from several lanes pops with BLPOP; killed before it marks the job started,
    it leaves the job ``queued`` in status and on no list. Before: the sweeper took it for a
    backlog ("waiting") for ever, and the game never moved again (a CI tournament, 420 s)."""
    version = svc.load(bot_game).version
    enqueue_advance(conn, bot_game, version, lane=NOW)  # a creation's job goes to the "now" lane
    job_id = f"advance-{bot_game}-{version}"
    now_lane = Queue(queue_name + queue_suffix(NOW), connection=conn, serializer=JSONSerializer)
    assert job_id in now_lane.job_ids
    conn.zadd(DUE_KEY, {bot_game: 0})
    assert sweeper.sweep_once(svc)["waiting"] >= 1  # really queued: a backlog, left alone
    conn.lrem(now_lane.key, 0, job_id)  # what BLPOP does; the worker dies before the job starts
    assert Job.fetch(job_id, connection=conn, serializer=JSONSerializer).get_status() == JobStatus.QUEUED
    conn.zadd(DUE_KEY, {bot_game: 0})
    assert sweeper.sweep_once(svc)["requeued"] >= 1
    fast_lane = Queue(queue_name, connection=conn, serializer=JSONSerializer)
    assert f"{job_id}-sweep1" in fast_lane.job_ids
    for lane in (now_lane, fast_lane):
        lane.empty()
    conn.delete(f"rq:job:{job_id}")


def test_an_enqueue_does_not_wait_on_a_job_a_killed_worker_popped(
        conn: redis.Redis, svc: GameService, bot_game: str, queue_name: str) -> None:
    """The same lost job seen from an enqueue: a job handing the game to the slow lane, or a
    tournament's nudge, found ``advance-<game>-<version>`` queued in status and did nothing, so
    the game's push seat was never asked again (CI: a tournament game still at version 29 after
    420 s, through four sweeps)."""
    version = svc.load(bot_game).version
    slow_lane = Queue(queue_name + queue_suffix(SLOW), connection=conn, serializer=JSONSerializer)
    enqueue_advance(conn, bot_game, version, lane=SLOW)
    job_id = f"advance-{bot_game}-{version}"
    enqueue_advance(conn, bot_game, version, lane=SLOW)
    assert slow_lane.job_ids == [job_id]  # really waiting: one job
    conn.lrem(slow_lane.key, 0, job_id)  # popped by a worker that died before it started the job
    enqueue_advance(conn, bot_game, version, lane=SLOW)
    (fresh,) = slow_lane.job_ids
    assert fresh.startswith(f"{job_id}-") and fresh != job_id
    slow_lane.empty()
    conn.delete(f"rq:job:{job_id}")


def test_advance_retires_a_game_that_waits_for_humans(
        conn: redis.Redis, svc: GameService, new_game: Callable[..., dict[str, Any]], queue_name: str) -> None:
    game_id = new_game([{"name": "Ann"}, {"name": "R", "kind": "bot", "bot": "random"}], seed="sweeper-retire")["id"]
    assert conn.zscore(DUE_KEY, game_id) is not None
    jobs.run_advance(svc, game_id)
    assert conn.zscore(DUE_KEY, game_id) is None and not conn.exists(lease_key(game_id))
