"""Finding 5: the bot allow-list names a host *and* a port, every resolved address is checked,
the worker connects to the address it checked, and nothing a bot answers reaches public data.

Before: any port of an allowed host was accepted (Redis on 6379, the API itself) and the first
120 characters of a bot's JSON answer were stored in the entry meta that ``/replay`` publishes.
"""
from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core import seats
from core.games import GameService
from core.seats import BotUrlRejected, check_bot_url, resolve_bot_url
from domain.core import Rejected
from service.app import create_app
from tests.hardening.hostile_botserver import INTERNAL_MARKER, HostileBotServer
from tests.workers.transports import AskBot
from workers import httpbot, jobs

MOVES = [{"type": "Pass", "seat": 1}]


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileBotServer]:
    with HostileBotServer() as server:
        monkeypatch.setenv(seats.HOSTS_ENV, server.url.split("//", 1)[1])
        monkeypatch.setenv(jobs.DEADLINE_ENV, "1")
        yield server


def fake_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> None:
    """``getaddrinfo`` that answers ``answers[host]`` (a rebinding resolver, say) for those hosts."""
    real = socket.getaddrinfo

    def resolve(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in answers:
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                    for a in answers[host]]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)


def test_redis_port_is_refused_unless_allow_listed_with_that_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "127.0.0.1:9000, localhost")
    for url in ("http://127.0.0.1:6379/", "http://localhost:6379/", "http://127.0.0.1/"):
        with pytest.raises(BotUrlRejected):
            check_bot_url(url)
    with pytest.raises(BotUrlRejected, match="not a public address"):  # localhost:80 matches, but is loopback
        resolve_bot_url("http://localhost/")
    monkeypatch.setenv(seats.HOSTS_ENV, "127.0.0.1:6379")
    assert resolve_bot_url("http://127.0.0.1:6379/").addresses == ("127.0.0.1",)


def test_creation_refuses_a_seat_on_an_unlisted_port(svc: GameService, created: list[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "127.0.0.1:9000")
    body = {"game": "orleans", "edition": "classic", "seed": "ssrf-1",
            "seats": [{"name": "r", "kind": "http", "url": "http://127.0.0.1:6379/"}, {"name": "b", "kind": "bot",
                                                                                       "bot": "random"}]}
    with pytest.raises(Rejected, match="allow-list"):
        created.append(svc.create(body)["id"])


def test_every_resolved_address_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "bots.example.org, *.arena.test")
    fake_dns(monkeypatch, {"bots.example.org": ["93.184.216.34", "10.0.0.5"], "a.arena.test": ["169.254.169.254"],
                           "b.arena.test": ["::ffff:127.0.0.1"], "c.arena.test": ["93.184.216.34", "2606:2800::1"]})
    for host in ("bots.example.org", "a.arena.test", "b.arena.test"):
        with pytest.raises(BotUrlRejected, match="not a public address"):
            resolve_bot_url(f"https://{host}/move")
    assert resolve_bot_url("https://c.arena.test/move").addresses == ("93.184.216.34", "2606:2800::1")


def test_the_worker_connects_to_the_checked_address_and_keeps_the_host_name(
        hostile: HostileBotServer, monkeypatch: pytest.MonkeyPatch, ask_bot: AskBot) -> None:
    port = hostile.url.rsplit(":", 1)[1]
    monkeypatch.setenv(seats.HOSTS_ENV, f"bots.example.org:{port}")  # exact host:port: loopback allowed
    fake_dns(monkeypatch, {"bots.example.org": ["127.0.0.1"]})
    body = httpbot.request_body("g1", 1, 7, {}, MOVES, time.time() + 1)
    call = ask_bot(f"http://bots.example.org:{port}/good", "s", body, 1.0, lambda m: m in MOVES)
    assert call.outcome == "ok" and hostile.hosts == [f"bots.example.org:{port}"]
    monkeypatch.setenv(seats.HOSTS_ENV, f"*.example.org:{port}")  # a wildcard never reaches loopback
    call = ask_bot(f"http://bots.example.org:{port}/good", "s", body, 1.0, lambda m: m in MOVES)
    assert call.outcome == "rejected_url" and len(hostile.hosts) == 1


def test_internal_looking_answers_never_reach_the_replay_or_the_event_feed(
        conn: redis.Redis, svc: GameService, hostile: HostileBotServer, created: list[str],
        caplog: pytest.LogCaptureFixture) -> None:
    paths = ["/internal-redis", "/internal-json", "/internal-500"]
    seats_ = [{"name": p.strip("/"), "kind": "http", "url": hostile.url + p} for p in paths]
    game_id = svc.create({"game": "orleans", "edition": "classic", "seed": "ssrf-replay", "seats": seats_})["id"]
    created.append(game_id)
    with caplog.at_level("INFO", logger="hourglass.httpbot"):
        while jobs.run_advance(svc, game_id, limit=2000).get("continued"):
            pass
    assert svc.load(game_id).finished
    assert INTERNAL_MARKER in caplog.text  # the operator still sees what the bot sent
    outcomes = {e.entry["meta"]["http"]["outcome"] for e in svc.entries(game_id)
                if e.entry["meta"] and "http" in e.entry["meta"]}
    assert outcomes <= set(httpbot.OUTCOMES) and {"error", "illegal", "http_status"} <= outcomes
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0}).test_client()
    for path in ("/replay", "/events?after=0", "/events/stream", "", "/state"):
        text = client.get(f"/api/v1/games/{game_id}{path}").get_data(as_text=True)
        assert INTERNAL_MARKER not in text and "redis_version" not in text and "requirepass" not in text, path
