"""Finding 2: an HTTP bot cannot hold a worker past its deadline, whatever it does on the wire.

Each call to a misbehaving server returns within the deadline plus a generous margin (a
correctness bound, not a benchmark), with the outcome that names what went wrong; in a game the
seat then plays its default move and the game goes on.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from core import seats
from core.games import GameService
from tests.hardening.hostile_botserver import HostileBotServer
from workers import asyncbot, httpbot, jobs

DEADLINE_S = 1.0
MARGIN_S = 1.5
MOVES = [{"type": "Pass", "seat": 1}, {"type": "TakeAction", "seat": 1, "place": "castle"}]


def legal(move: dict[str, Any]) -> bool:
    return move in MOVES


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileBotServer]:
    with HostileBotServer() as server:
        monkeypatch.setenv(seats.HOSTS_ENV, server.url.split("//", 1)[1])  # 127.0.0.1:<its port>, exactly
        yield server


async def _ask_async(url: str, body: bytes) -> httpbot.BotCall:
    async with asyncbot.client() as http:
        return await asyncbot.ask_bot(http, url, "s3cret", body, DEADLINE_S, legal)


def ask(server: HostileBotServer, path: str, transport: str = "thread") -> tuple[httpbot.BotCall, float]:
    """One call the way an inline job makes it (``thread``) or the caller process (``asyncio``)."""
    body = httpbot.request_body("g1", 1, 7, {"round": 3}, MOVES, time.time() + DEADLINE_S)
    started = time.monotonic()
    if transport == "asyncio":
        call = asyncio.run(_ask_async(server.url + path, body))
    else:
        call = httpbot.ask_bot(server.url + path, "s3cret", body, DEADLINE_S, legal)
    return call, time.monotonic() - started


TRANSPORTS = pytest.mark.parametrize("transport", ["thread", "asyncio"])


@TRANSPORTS
@pytest.mark.parametrize("path, outcome", [
    ("/slowloris", "timeout"), ("/slow-headers", "timeout"), ("/silent", "timeout"),
    ("/huge", "too_large"), ("/huge-unsized", "too_large"), ("/redirect", "http_status"),
])
def test_a_hostile_bot_gets_no_more_than_its_deadline(hostile: HostileBotServer, path: str, outcome: str,
                                                      transport: str) -> None:
    call, took = ask(hostile, path, transport)
    assert took < DEADLINE_S + MARGIN_S, f"{path} held the worker {took:.1f} s"
    assert call.outcome == outcome and call.move is None and call.detail


@TRANSPORTS
def test_a_redirect_is_not_followed(hostile: HostileBotServer, transport: str) -> None:
    call, _ = ask(hostile, "/redirect", transport)
    assert call.status == 302
    good, _ = ask(hostile, "/good", transport)
    assert good.outcome == "ok" and good.move == MOVES[-1]


def test_a_slowloris_seat_plays_its_default_move_and_the_game_goes_on(
        conn: redis.Redis, svc: GameService, hostile: HostileBotServer, queue_name: str,
        new_game: Callable[..., dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jobs.DEADLINE_ENV, str(DEADLINE_S))
    seats_ = [{"name": "loris", "kind": "http", "url": hostile.url + "/slowloris"},
              {"name": "bot", "kind": "bot", "bot": "random"}]
    game_id = new_game(seats_, seed="hostile-1")["id"]
    started = time.monotonic()
    out = jobs.run_advance(svc, game_id, limit=12)
    took = time.monotonic() - started
    batches = [e.entry for e in svc.entries(game_id) if e.command is not None and e.actor == 0]
    assert out["appended"] == 12 and len(batches) >= 2  # the game went on past the seat's defaults
    assert all(b["meta"]["http"]["outcome"] == "timeout" and b["meta"]["default"] for b in batches)
    assert took < len(batches) * (DEADLINE_S + MARGIN_S)
