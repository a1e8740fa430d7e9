"""A push bot's ``deadline_s`` covers a whole decision (issue 23): the calls of one stint together
may not take longer, what they took is read from the log, and with nothing left no request is
sent and the seat's default move is played (finishing its planning)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from core import seats, timing
from core.games import GameService
from domain.orleans.model import Phase
from tests.workers.hg_botserver import BotServer
from tests.workers.test_workers_http_seats import SECRET, trust_created_secrets
from workers import jobs

DEADLINE_S = 0.5


@pytest.fixture
def bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[BotServer]:
    monkeypatch.setenv(jobs.DEADLINE_ENV, str(DEADLINE_S))
    with BotServer(SECRET, loop_s=0.12) as server:
        monkeypatch.setenv(seats.HOSTS_ENV, server.url.split("//", 1)[1])
        yield server


def planning_batches(svc: GameService, game_id: str, seat: int) -> list[dict[str, Any]]:
    """The seat's batches in the first planning phase (from the batch that began it)."""
    entries = svc.entries(game_id)
    began = next(e.seq for e in entries if e.type == "PhaseBegan" and e.data.get("phase") == Phase.PLANNING.value)
    return [e.entry for e in entries if e.seq > began and e.command is not None and e.actor == seat
            and e.command["type"] in ("PlaceFollower", "TakeBackFollower", "FinishPlanning")]


def to_planning(svc: GameService, game_id: str) -> None:
    """The push seat draws (the worker asks it), then the human seat does: planning begins."""
    jobs.run_advance(svc, game_id)
    game = svc.load(game_id)
    svc.apply(game_id, 1, game.rules.legal_moves(game.state, 1)[-1])


def test_a_looping_push_bot_spends_its_deadline_once_per_planning_and_then_finishes(
        conn: redis.Redis, svc: GameService, bots: BotServer, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = trust_created_secrets(bots, new_game(
        [{"name": "looper", "kind": "http", "url": bots.url + "/loop"}, {"name": "human"}], seed="push-stint"))
    to_planning(svc, game_id)
    asked_before = len(bots.requests)
    jobs.run_advance(svc, game_id)  # the bot loops place/take-back until its decision's budget is spent

    batches = planning_batches(svc, game_id, 0)
    calls = [b["meta"]["http"] for b in batches]
    last = batches[-1]
    assert last["command"] == {"type": "FinishPlanning", "seat": 0} and last["meta"]["default"] is True
    assert calls[-1]["outcome"] == "timeout"  # cut at what was left, or nothing left: no request at all
    assert len(bots.requests) - asked_before in (len(calls), len(calls) - 1)
    assert all(c["outcome"] == "ok" for c in calls[:-1])
    # a call is made only while time is left (a call cut at the deadline may end a millisecond past it)
    assert sum(c["rtt_ms"] for c in calls[:-1]) < DEADLINE_S * 1000 + 50
    assert 2 <= len(calls) <= DEADLINE_S / 0.12 + 2  # a handful of moves, not a planning phase for ever
    assert 0 not in svc.load(game_id).to_act


def test_what_a_decision_spent_is_read_from_the_log_after_a_restart(
        conn: redis.Redis, svc: GameService, bots: BotServer, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = trust_created_secrets(bots, new_game(
        [{"name": "looper", "kind": "http", "url": bots.url + "/loop"}, {"name": "human"}], seed="push-restart"))
    to_planning(svc, game_id)
    jobs.run_advance(svc, game_id, limit=3)  # three planning calls, then the job hands over
    game = svc.load(game_id)
    spent = timing.decision_spent_ms(svc, game, 0)
    calls = [b["meta"]["http"]["rtt_ms"] for b in planning_batches(svc, game_id, 0)]
    assert len(calls) == 3 and spent == pytest.approx(sum(calls))

    timing.forget_folded()  # a new worker process: nothing folded, only the log
    fresh = GameService(conn)
    assert timing.decision_spent_ms(fresh, fresh.load(game_id), 0) == pytest.approx(spent)
    assert jobs._http_timeout(fresh, fresh.load(game_id), 0) == pytest.approx(max(0.0, DEADLINE_S - spent / 1000))
    assert timing.decision_spent_ms(fresh, fresh.load(game_id), 1) == 0.0  # the human seat makes no calls


def test_each_decision_starts_with_the_whole_deadline(
        conn: redis.Redis, svc: GameService, bots: BotServer, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = trust_created_secrets(bots, new_game(
        [{"name": "looper", "kind": "http", "url": bots.url + "/loop"}, {"name": "human"}], seed="push-fresh"))
    jobs.run_advance(svc, game_id)  # phase 3: the bot's draw is one call, which ends its decision
    game = svc.load(game_id)
    assert game.state.players[0].drew and 0 not in game.to_act
    assert timing.decision_spent_ms(svc, game, 0) == 0.0
    svc.apply(game_id, 1, game.rules.legal_moves(game.state, 1)[-1])  # planning begins: a new decision
    game = svc.load(game_id)
    assert 0 in game.to_act and jobs._http_timeout(svc, game, 0) == DEADLINE_S
