"""Finding 1a: a Redis outage does not end ``hourglass worker``, nor its scheduler for long.

A private redis-server is SIGKILLed while the worker runs a long advance job (a game with an
HTTP seat that answers after 0.2 s), then started again, empty, on the same port. The worker
must still be alive and play a bot-only game created afterwards to its end. An outage while the
worker is idle kills RQ's scheduler process; clock timeouts must fire again soon after.
"""
from __future__ import annotations

import os
import time
from typing import Any

import pytest
import redis

from core.games import GameService
from core.seats import HOSTS_ENV
from tests.hardening.conftest import PATIENCE_S, Children, RedisServer, wait_until
from tests.workers.hg_botserver import BotServer
from workers.enqueue import enqueue_advance

BOTS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "R2", "kind": "bot", "bot": "random"}]
CLOCKED = [{"name": "A", "clock": {"initial_s": 1}}, {"name": "B", "clock": {"initial_s": 1}}]


def start_game(url: str, seats: list[dict[str, Any]], seed: str) -> tuple[GameService, str]:
    svc = GameService(redis.Redis.from_url(url), client_seeds="any")
    game_id = svc.create({"game": "orleans", "edition": "classic", "seats": seats, "seed": seed})["id"]
    enqueue_advance(svc.store.conn, game_id, svc.load(game_id).version)
    return svc, game_id


def version(svc: GameService, game_id: str) -> int:
    try:
        return svc.store.version(game_id)
    except (redis.RedisError, OSError):
        return 0


def timed_out(svc: GameService, game_id: str) -> bool:
    try:
        return any(e.command and e.command["type"] == "ApplyTimeout" for e in svc.entries(game_id))
    except (redis.RedisError, OSError):
        return False


def finished(svc: GameService, game_id: str) -> bool:
    try:
        return svc.store.meta_field(game_id, "status") == "finished"
    except (redis.RedisError, OSError):
        return False


def test_the_worker_survives_a_redis_kill_mid_job_and_plays_on(
        private_redis: RedisServer, children: Children, monkeypatch: pytest.MonkeyPatch) -> None:
    with BotServer("unused", slow_s=0.2) as bots:
        allowed = bots.url.split("//", 1)[1]  # 127.0.0.1:<its port>, exactly
        monkeypatch.setenv(HOSTS_ENV, allowed)  # the game is created in this process
        env = {"REDIS_URL": private_redis.url, "HOURGLASS_BOT_DEADLINE_S": "2", HOSTS_ENV: allowed}
        worker = children.hourglass("worker", "worker", env=env)
        seats = [{"name": "slow", "kind": "http", "url": bots.url + "/slow"}, BOTS[0]]
        svc, slow_game = start_game(private_redis.url, seats, "outage-slow")
        bots.secrets.update(s for s in [svc.store.meta_field(slow_game, "secret:0")] if s)
        start = svc.load(slow_game).version
        wait_until(lambda: version(svc, slow_game) > start + 2, PATIENCE_S, what="the slow game to be under way")
        private_redis.kill()  # mid-job: the horse is waiting on the bot or appending
        time.sleep(3)
        private_redis.start()
    time.sleep(2)
    assert worker.poll() is None, "hourglass worker exited:\n" + children.log("worker")[-3000:]
    svc, game_id = start_game(private_redis.url, BOTS, "outage-after")
    wait_until(lambda: finished(svc, game_id), PATIENCE_S, 0.2, "the bot game after the outage to finish")
    assert worker.poll() is None


def test_clock_timeouts_fire_again_soon_after_an_outage_while_idle(
        private_redis: RedisServer, children: Children) -> None:
    worker = children.hourglass("worker", "worker", env={"REDIS_URL": private_redis.url})
    queue = os.environ["HOURGLASS_QUEUE"]  # the run's own queues, every lane (tests/conftest.py, workers/lanes.py)

    def scheduler_started() -> bool:  # RQ names the queues in a set's order: any order
        lines = [line for line in children.log("worker").splitlines() if "Scheduler for " in line and " started" in line]
        return any(set(line.split("Scheduler for ", 1)[1].split(" started", 1)[0].split(", "))
                   == {f"{queue}-now", queue, f"{queue}-slow"} for line in lines)

    wait_until(scheduler_started, PATIENCE_S, what="the scheduler")
    private_redis.kill()
    time.sleep(3)
    private_redis.start()
    svc, game_id = start_game(private_redis.url, CLOCKED, "outage-clock")
    started = time.monotonic()
    wait_until(lambda: timed_out(svc, game_id), PATIENCE_S, 0.2, "a clock timeout after the outage")
    print(f"first timeout {time.monotonic() - started:.1f} s after the game was created")
    assert worker.poll() is None
