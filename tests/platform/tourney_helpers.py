"""Shared by the tournament accountability tests: an in-process runner and push bots that fail."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis

from core.games import GameService
from core.tournament_store import TournamentStore
from core.tournaments import Tournament
from tests.workers.hg_botserver import BotServer
from workers.jobs import run_advance
from workers.tournaments import TournamentRunner

SECRET = "s" * 40


def run_until(conn: redis.Redis, tid: str, done: Any, steps: int = 300, play: bool = True) -> Tournament:
    """Tick the runner and play its games in-process until ``done(t)``; the tournament then."""
    runner, svc = TournamentRunner(conn), GameService(conn)
    for _ in range(steps):
        runner.run(tid)
        loaded = TournamentStore(conn).load(tid)
        t = loaded.tournament
        if t.finished:
            runner.close(loaded)
        if done(t):
            return t
        if play:
            for g in t.games:
                if g.game_id and not g.done:
                    run_advance(svc, g.game_id)
    raise AssertionError("the tournament never reached the state the test waits for")


def run_to_end(conn: redis.Redis, tid: str) -> Tournament:
    return run_until(conn, tid, lambda t: t.finished)


@contextmanager
def bot_server(monkeypatch: pytest.MonkeyPatch, slow_s: float = 3.0) -> Iterator[BotServer]:
    """A local push-bot server on the allow-list (``/good``, ``/error``, ``/slow``…)."""
    with BotServer(SECRET, slow_s=slow_s) as server:
        monkeypatch.setenv("HOURGLASS_BOT_HOSTS", server.url.split("//", 1)[1])
        yield server


def push_bot(client: Any, owner: dict[str, Any], made: dict[str, list[str]], name: str, url: str) -> dict[str, Any]:
    from tests.platform.conftest import auth

    response = client.post("/api/v1/bots", json={"name": name, "kind": "http", "url": url, "secret": SECRET},
                           headers=auth(owner["key"]))
    assert response.status_code == 201, response.get_data(as_text=True)
    made["bots"].append(response.json["id"])
    return dict(response.json)
