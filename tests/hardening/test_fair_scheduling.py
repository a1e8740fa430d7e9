"""Issue 23: fair scheduling between games, with real worker and caller processes.

- A push bot that holds its answer does not hold up another game: a fresh game of built-in bots
  is played to the end while the call stays open (with the caller, and with the slow lane asking
  inline the way ``hourglass serve``'s two workers do). Nothing here measures time: the open call
  is held by the test until the other game has finished.
- Two workers (and duplicate jobs thrown in, as nudges and sweeps do) never ask a push bot twice
  for one decision: every (game, version) the bot server sees, it sees once.
"""
from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

from core.games import GameService
from core.seats import HOSTS_ENV
from tests.hardening.conftest import PATIENCE_S, Children, RedisServer, wait_until
from tests.workers.hg_botserver import BotServer
from workers.enqueue import enqueue_advance, queue_name

BUILTIN = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "R2", "kind": "bot", "bot": "random"}]


def start(children: Children, env: dict[str, str], with_caller: bool, workers: list[list[str]]) -> None:
    for i, lanes in enumerate(workers):
        children.hourglass(f"worker-{i}", "worker", *lanes, env=env)
    if with_caller:
        children.hourglass("caller", "caller", env=env)


def caller_alive(conn: redis.Redis) -> bool:
    from workers.calls import alive

    return alive(conn)


def push_game(svc: GameService, bots: BotServer, path: str, seed: str, game: str = "cathedral") -> str:
    seats = [{"name": "push", "kind": "http", "url": bots.url + path}, {"name": "R", "kind": "bot", "bot": "random"}]
    created = svc.create({"game": game, "seats": seats, "seed": seed})
    bots.secrets.add(created["seats"][0]["secret"])
    enqueue_advance(svc.store.conn, created["id"], svc.load(created["id"]).version)
    return str(created["id"])


@pytest.mark.parametrize("with_caller", [True, False], ids=["caller", "slow-lane"])
def test_a_push_call_held_open_holds_up_no_other_game(
        private_redis: RedisServer, children: Children, monkeypatch: pytest.MonkeyPatch, with_caller: bool) -> None:
    with BotServer("unused") as bots:
        allowed = bots.url.split("//", 1)[1]
        monkeypatch.setenv(HOSTS_ENV, allowed)
        env = {"REDIS_URL": private_redis.url, HOSTS_ENV: allowed, "HOURGLASS_BOT_DEADLINE_S": "120"}
        # serve's layout: a fast-lane worker, and one on the slow lane first (it asks inline without a caller)
        start(children, env, with_caller, [["--lanes", "now,fast"], ["--lanes", "slow,now,fast"]])
        svc = GameService(private_redis.client(), client_seeds="any")
        if with_caller:
            wait_until(lambda: caller_alive(svc.store.conn), PATIENCE_S, 0.1, "the caller to start")
        held = push_game(svc, bots, "/gate", "fair-held")
        wait_until(lambda: bots.requests, PATIENCE_S, 0.1, "the push bot to be asked")
        fresh = svc.create({"game": "cathedral", "seats": BUILTIN, "seed": "fair-fresh"})["id"]
        enqueue_advance(svc.store.conn, fresh, svc.load(fresh).version)
        wait_until(lambda: svc.load(fresh).finished, 120, 0.2, "the fresh game to be played to the end")
        assert bots.open_now == 1 and not bots.gate.is_set()  # the push call was open all along
        held_version = svc.store.version(held)
        bots.gate.set()
        wait_until(lambda: svc.store.version(held) > held_version, PATIENCE_S, 0.1, "the held answer to be played")
    for name in ("worker-0", "worker-1"):
        assert ("http seat" in children.log(name)) is (not with_caller and name == "worker-1")


def test_two_workers_and_a_caller_ask_a_slow_bot_once_per_decision(
        private_redis: RedisServer, children: Children, monkeypatch: pytest.MonkeyPatch) -> None:
    with BotServer("unused", slow_s=0.2) as bots:
        allowed = bots.url.split("//", 1)[1]
        monkeypatch.setenv(HOSTS_ENV, allowed)
        env = {"REDIS_URL": private_redis.url, HOSTS_ENV: allowed, "HOURGLASS_BOT_DEADLINE_S": "1.5",
               "HOURGLASS_SWEEP_S": "1"}
        start(children, env, False, [[], []])  # two workers, no caller: the slow lane asks inline
        svc = GameService(private_redis.client(), client_seeds="any")
        games = [push_game(svc, bots, "/slow", f"once-{i}", "orleans") for i in range(2)]  # long games
        conn = svc.store.conn
        queues = [Queue(queue_name(lane), connection=conn, serializer=JSONSerializer) for lane in ("now", "fast", "slow")]

        def play_until(calls: int) -> None:
            deadline = time.monotonic() + 120
            while len(bots.requests) < calls and time.monotonic() < deadline:
                for game_id in games:  # duplicate jobs on both lanes, as tournament nudges and sweeps make
                    for q in queues:
                        q.enqueue("workers.jobs.advance", game_id, job_id=f"extra-{uuid.uuid4().hex[:8]}")
                time.sleep(0.15)

        play_until(12)
        children.hourglass("caller", "caller", env=env)  # halfway: the caller takes over the calls
        wait_until(lambda: caller_alive(conn), PATIENCE_S, 0.1, "the caller to start")
        play_until(len(bots.requests) + 12)
        asked = Counter((r["payload"]["game"], r["payload"]["version"]) for r in list(bots.requests))
    assert len(asked) >= 24, f"only {len(asked)} decisions were asked for"
    assert {key: n for key, n in asked.items() if n > 1} == {}
    assert "http seat" in children.log("caller")  # the second half went through the caller

