"""HTTP bot seats played by advance() against a local bot server: a good bot, a slow one, one
answering garbage, one answering an illegal move, and a host that is not on the allow-list."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from core import seats
from core.games import GameService
from domain.core import Rejected
from tests.workers.hg_botserver import BotServer
from workers import jobs

SECRET = "seat-secret-for-tests"


@pytest.fixture
def bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[BotServer]:
    monkeypatch.setenv(jobs.DEADLINE_ENV, "0.3")  # keep the slow bot's timeouts short
    with BotServer(SECRET, slow_s=2.0) as server:
        monkeypatch.setenv(seats.HOSTS_ENV, server.url.split("//", 1)[1])  # 127.0.0.1:<its port>, exactly
        yield server


def trust_created_secrets(bots: BotServer, created_game: dict[str, Any]) -> str:
    """The service generates each http seat's secret; the bot server must accept those."""
    bots.secrets.update(s["secret"] for s in created_game["seats"] if s.get("secret"))
    return created_game["id"]


def seat_batches(svc: GameService, game_id: str, seat: int) -> list[dict[str, Any]]:
    return [e.entry for e in svc.entries(game_id) if e.command is not None and e.actor == seat]


def test_http_seats_play_or_fall_back_to_the_default_move(
        conn: redis.Redis, svc: GameService, bots: BotServer, new_game: Callable[..., dict[str, Any]]) -> None:
    paths = ["/good", "/slow", "/garbage", "/illegal"]
    seats = [{"name": p.strip("/"), "kind": "http", "url": bots.url + p} for p in paths]
    game_id = trust_created_secrets(bots, new_game(seats, seed="http-1"))

    jobs.run_advance(svc, game_id, limit=40)

    expected = {0: ("ok", False), 1: ("timeout", True), 2: ("garbage", True), 3: ("illegal", True)}
    for seat, (outcome, default) in expected.items():
        batches = seat_batches(svc, game_id, seat)
        assert batches, f"seat {seat} never moved"
        for entry in batches:
            http = entry["meta"]["http"]
            assert http == {"kind": "http", "outcome": outcome, "rtt_ms": http["rtt_ms"]}  # nothing the bot sent
            assert http["rtt_ms"] >= 0 and entry["meta"].get("default", False) is default
    assert all(r["signed"] for r in bots.requests) and bots.bad_signatures == 0


def test_the_good_bot_gets_its_view_and_moves_and_its_answer_is_played(
        conn: redis.Redis, svc: GameService, bots: BotServer, new_game: Callable[..., dict[str, Any]]) -> None:
    seats = [{"name": "good", "kind": "http", "url": bots.url + "/good"}, {"name": "human"}]
    game_id = trust_created_secrets(bots, new_game(seats, seed="http-2"))
    jobs.run_advance(svc, game_id, limit=5)
    request = bots.requests[0]["payload"]
    assert request["game"] == game_id and request["seat"] == 0
    first = seat_batches(svc, game_id, 0)[0]
    game_before = svc.state_at(game_id, first["seq"] - 1)
    assert request["version"] == game_before.version
    assert request["view"] == game_before.rules.view(game_before.state, 0)
    assert request["moves"] == [game_before.rules.move_to_json(m) for m in game_before.rules.legal_moves(
        game_before.state, 0)]
    assert first["command"] == {**request["moves"][-1], "seat": 0}  # what /good chose


def test_a_seat_whose_host_left_the_allow_list_gets_the_default(
        conn: redis.Redis, svc: GameService, bots: BotServer, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = trust_created_secrets(bots, new_game(
        [{"name": "b", "kind": "http", "url": bots.url + "/good"}, {"name": "human"}], seed="http-3"))
    monkeypatch.setenv(seats.HOSTS_ENV, "bots.example.org")
    jobs.run_advance(svc, game_id, limit=3)
    meta = seat_batches(svc, game_id, 0)[0]["meta"]
    assert meta["http"]["outcome"] == "rejected_url" and meta["default"] is True and bots.requests == []


def test_a_host_not_on_the_allow_list_is_rejected_at_game_creation(svc: GameService, created: list[str]) -> None:
    body = {"game": "orleans", "edition": "classic", "seed": "http-4",
            "seats": [{"name": "far", "kind": "http", "url": "http://bots.example.com/play"}, {"name": "human"}]}
    try:
        out = svc.create(body)
    except Rejected as exc:
        assert "allow-list" in exc.message
        return
    created.append(out["id"])
    raise AssertionError("an http seat on a host off the allow-list was accepted")
