"""advance(game_id) through the real Redis and RQ: equals in-process self-play, appends each step
once under races and duplicate jobs, and survives a work horse dying before its append."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis
from rq import Queue, Worker
from rq.job import Job
from rq.registry import FinishedJobRegistry
from rq.serializers import JSONSerializer

from core.games import GameService
from domain.orleans import RULES
from workers import enqueue, jobs, lanes
from workers.enqueue import enqueue_advance, lane_queues
from workers.policy import decide_builtin, next_actor
from workers.selfplay import play

SEATS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "G1", "kind": "bot", "bot": "greedy"},
         {"name": "R2", "kind": "bot", "bot": "random"}, {"name": "G2", "kind": "bot", "bot": "greedy"}]
CONFIG = {"edition": "classic", "players": 4}


def burst(conn: redis.Redis, queue_name: str) -> None:
    """Work every lane's queue (workers.lanes) until all are empty."""
    Worker(lane_queues(conn), connection=conn, serializer=JSONSerializer).work(burst=True, logging_level="WARNING")


def stored_commands(svc: GameService, game_id: str) -> list[tuple[Any, dict[str, Any]]]:
    entries = svc.entries(game_id)
    return [(e.actor, e.command) for e in entries[1:] if e.command is not None]


def reference(game_id: str, seed: str) -> Any:
    return play(RULES, CONFIG, seed.encode(), game_id, SEATS)


def test_bot_game_through_redis_and_rq_equals_in_process_selfplay(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game(SEATS, seed="workers-eq-1")["id"]
    enqueue_advance(conn, game_id, svc.load(game_id).version)
    burst(conn, queue_name)

    game = svc.load(game_id)
    ref = reference(game_id, "workers-eq-1")
    assert game.finished and RULES.result(game.state) == RULES.result(ref.state)
    assert game.state == ref.state and game.version == ref.version
    assert stored_commands(svc, game_id) == ref.commands
    metas = [e.entry["meta"] for e in svc.entries(game_id) if e.command is not None and e.actor != "system"]
    assert {m["bot"] for m in metas} == {"random", "greedy"}
    assert len(ref.commands) > jobs.MAX_BATCHES_PER_JOB  # the game needed a follow-up job


def test_enqueue_is_deduplicated_per_version(conn: redis.Redis, queue_name: str) -> None:
    enqueue_advance(conn, "nosuchgame", 7)
    enqueue_advance(conn, "nosuchgame", 7)
    enqueue_advance(conn, "nosuchgame", 8)
    q = Queue(queue_name + "-now", connection=conn, serializer=JSONSerializer)  # news from outside: the now lane
    assert q.job_ids == ["advance-nosuchgame-7", "advance-nosuchgame-8"]
    job = q.fetch_job("advance-nosuchgame-7")
    assert job.func_name == "workers.jobs.advance" and job.args == ["nosuchgame"] and job.retries_left == 5
    burst(conn, queue_name)  # a job for a game that does not exist finishes quietly, no retries
    assert q.fetch_job("advance-nosuchgame-7").return_value() == {"game": "nosuchgame", "missing": True}


def test_two_processes_that_looked_at_once_queue_one_job(
        conn: redis.Redis, queue_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One job handing the game on at version 7 while another, which took the game after it, hands
    it on at the same version: both looked before either enqueued. The job id is the lease's token,
    so the same id queued twice would be two jobs holding the game at once (a push seat asked twice)."""
    enqueue_advance(conn, "nosuchgame", 7, lane=lanes.FAST)
    real, stale = enqueue._status, [None]  # the second process's look, taken before the first enqueued
    monkeypatch.setattr(enqueue, "_status", lambda q, job_id: stale.pop() if stale else real(q, job_id))
    enqueue_advance(conn, "nosuchgame", 7, lane=lanes.NOW)
    queued = [job_id for q in lane_queues(conn) for job_id in q.job_ids]
    assert queued == ["advance-nosuchgame-7"] and not stale


def test_two_writers_at_the_same_version_append_once(
        conn: redis.Redis, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game(SEATS, seed="workers-race")["id"]
    services = [GameService(conn), GameService(conn)]
    games = [s.load(game_id) for s in services]
    decisions = [decide_builtin(g.rules, g.state, next_actor(g.rules, g.state, g.info.seats), g.info.seats,
                                g.info.seed, game_id, g.version) for g in games]
    barrier = threading.Barrier(2)
    outcomes: list[int | None] = []

    def write(i: int) -> None:
        barrier.wait()
        outcomes.append(jobs.append(services[i], games[i], decisions[i], f"advance:{game_id}:{games[i].version}"))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 2
    assert outcomes.count(None) == 1 and max(o or 0 for o in outcomes) > games[0].version
    after = services[0].entries(game_id, after=games[0].version)
    assert len([e for e in after if e.command is not None]) == 1


def test_parallel_advance_jobs_play_the_game_once(
        conn: redis.Redis, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game(SEATS, seed="workers-parallel")["id"]
    results: list[dict[str, Any]] = []

    def run() -> None:
        results.append(jobs.run_advance(GameService(conn), game_id, limit=5_000))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    svc = GameService(conn)
    ref = reference(game_id, "workers-parallel")
    assert svc.load(game_id).finished
    assert stored_commands(svc, game_id) == ref.commands  # no step twice, none lost
    assert sum(r.get("appended", 0) for r in results) == len(ref.commands)
    assert any(r.get("busy") or r.get("appended") == 0 for r in results)  # the lease: one job served the game


def test_a_job_that_dies_before_appending_is_retried_and_the_game_continues(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = new_game(SEATS, seed="workers-die")["id"]
    deaths = f"hg-test:{queue_name}:deaths"
    real_apply = GameService.apply

    def apply_or_die(self: GameService, *args: Any, **kwargs: Any) -> Any:
        if self.load(game_id).version > 200 and conn.incr(deaths) == 1:
            os._exit(1)  # the work horse dies after computing, before appending
        return real_apply(self, *args, **kwargs)

    real_run = GameService.apply_planned

    def run_or_die(self: GameService, *args: Any, **kwargs: Any) -> Any:  # a run of steps in one append
        if self.load(game_id).version > 200 and conn.incr(deaths) == 1:
            os._exit(1)
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(GameService, "apply", apply_or_die)
    monkeypatch.setattr(GameService, "apply_planned", run_or_die)
    # the retried job's record is read after the burst, which may outlast a minute on a busy machine
    monkeypatch.setattr(enqueue, "ADVANCE_RESULT_TTL_S", 600)
    start = svc.load(game_id).version
    try:
        enqueue_advance(conn, game_id, start)
        burst(conn, queue_name)
        assert int(conn.get(deaths)) >= 1
    finally:
        conn.delete(deaths)
        monkeypatch.undo()
    game = GameService(conn).load(game_id)
    ref = reference(game_id, "workers-die")
    assert game.finished and stored_commands(svc, game_id) == ref.commands
    finished = [FinishedJobRegistry(queue_name + lanes.queue_suffix(lane), connection=conn, serializer=JSONSerializer)
                for lane in lanes.QUEUE_LANES]
    done = [job_id for registry in finished for job_id in registry.get_job_ids()]  # whichever lane the death hit
    retried = [job for job in Job.fetch_many(done, connection=conn, serializer=JSONSerializer)
               if job is not None and job.retries_left == 4]
    assert len(retried) == 1  # the job whose horse died: one retry used, and it took its lease back


def test_a_long_advance_hands_over_to_a_fresh_job(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = new_game(SEATS, seed="workers-handover")["id"]
    out = jobs.run_advance(svc, game_id, limit=3)
    assert out["continued"] and out["appended"] == 3
    q = Queue(queue_name, connection=conn, serializer=JSONSerializer)
    assert q.job_ids == [f"advance-{game_id}-{out['version']}"]
    monkeypatch.setattr(jobs, "MAX_SECONDS_PER_JOB", -1.0)  # out of time before the first step
    again = jobs.run_advance(svc, game_id)
    assert again["continued"] and again["appended"] == 0 and len(q.job_ids) == 1  # same version: deduplicated


def test_a_run_of_worker_steps_reads_the_game_once_and_appends_once(
        svc: GameService, new_game: Callable[..., dict[str, Any]], trips: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of fast-lane steps (SYSTEM and cheap bots) reads the game's tail once and appends
    every step in one pipeline (the work list's mark and the script): the steps are decided on
    the game in memory, each one's batch with its own command, key and result."""
    game_id = new_game(SEATS, seed="workers-trips")["id"]
    start = svc.load(game_id)  # warm, as a worker that ran the game's previous job
    continued: list[int] = []  # the next slice's enqueue is RQ's (a script of its own): not counted here
    monkeypatch.setattr(jobs, "enqueue_advance", lambda conn, gid, version, lane: continued.append(version))
    trips.clear()
    out = jobs.run_advance(svc, game_id, limit=5)
    appends = [w for w in trips if w in ("EVAL", "EVALSHA")]
    reads = [w for w in trips if w in ("XRANGE", "XREVRANGE")]
    assert out["appended"] == 5 and continued == [out["version"]]
    assert len(appends) == 1 + 2  # and the lease's take and release (workers.lease)
    assert len(reads) == 1 + 1, " ".join(trips)  # the run's first step, and the job's last look
    heads = [e for e in svc.entries(game_id, after=start.version) if e.command is not None]
    assert len(heads) == 5
    for head in heads:  # each step's key holds that step's own result, as if appended alone
        stored = svc.store.idempotent_result(game_id, f"advance:{game_id}:{head.seq - 1}")
        assert stored is not None and stored[1].first == head.seq
