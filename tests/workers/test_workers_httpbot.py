"""workers.httpbot on its own: allow-list, signatures, and the round trip against a local server."""
from __future__ import annotations

import json
import time
from typing import Any

import pytest

from core import seats
from core.seats import BotUrlRejected, check_bot_url
from tests.workers.hg_botserver import BotServer
from tests.workers.transports import AskBot
from workers import httpbot

MOVES = [{"type": "Pass", "seat": 1}, {"type": "TakeAction", "seat": 1, "place": "castle"}]


def legal(move: dict[str, Any]) -> bool:
    return move in MOVES


def body(deadline_s: float = 2.0) -> bytes:
    return httpbot.request_body("g1", 1, 7, {"round": 3}, MOVES, time.time() + deadline_s)


def test_nothing_is_allowed_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seats.HOSTS_ENV, raising=False)
    for url in ("http://127.0.0.1:8000/bot", "http://localhost/bot", "http://[::1]:9000/"):
        with pytest.raises(BotUrlRejected):
            check_bot_url(url)


@pytest.mark.parametrize("url", [
    "http://example.com/bot", "http://10.0.0.1/bot", "http://127.0.0.2/bot", "ftp://127.0.0.1/bot",
    "http://user:pw@127.0.0.1/bot", "not a url", "", "http:///nohost", "http://127.0.0.1:99999/",
    "http://127.0.0.1:6379/", "http://127.0.0.1/",
])
def test_other_hosts_ports_and_bad_urls_are_rejected(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "127.0.0.1:8000")
    with pytest.raises(BotUrlRejected):
        check_bot_url(url)


def test_allow_list_entries_hosts_ports_and_wildcards() -> None:
    env = {seats.HOSTS_ENV: "bots.example.org, *.arena.test, 10.1.2.3:8080, *.lab.test:9000, [::1]:7000"}
    assert check_bot_url("https://bots.example.org/play", env).port == 443
    assert check_bot_url("http://bots.example.org:80/play", env).port == 80
    assert check_bot_url("http://a.arena.test/", env)
    assert check_bot_url("http://10.1.2.3:8080/", env).entry.exact
    assert check_bot_url("http://x.lab.test:9000/", env).entry.wildcard
    assert check_bot_url("http://[::1]:7000/", env).host == "::1"
    for bad in ("http://arena.test/", "http://10.1.2.3:8081/", "http://127.0.0.1/", "http://evilbots.example.org/",
                "http://bots.example.org:6379/", "http://a.arena.test:8080/", "http://x.lab.test/", "http://[::1]/"):
        with pytest.raises(BotUrlRejected):
            check_bot_url(bad, env)


def test_signature_round_trip_and_secrets_are_fresh() -> None:
    secret = seats.new_seat_secret()
    assert len(secret) == 64 and secret != seats.new_seat_secret()
    payload = body()
    header = httpbot.sign(secret, payload)
    assert header.startswith("sha256=") and httpbot.verify_signature(secret, payload, header)
    assert not httpbot.verify_signature(secret, payload + b" ", header)
    assert not httpbot.verify_signature("other", payload, header)
    assert not httpbot.verify_signature(secret, payload, None)


def test_request_body_carries_the_protocol_fields() -> None:
    data = json.loads(body())
    assert set(data) == {"game", "seat", "version", "view", "moves", "deadline", "deadline_ms"}
    assert data["deadline"].endswith("Z") and data["moves"] == MOVES


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Any:
    with BotServer("s3cret", slow_s=2.0) as srv:
        monkeypatch.setenv(seats.HOSTS_ENV, srv.url.split("//", 1)[1])  # 127.0.0.1:<its port>, exactly
        yield srv


def test_good_bot_answers_a_legal_move(server: BotServer, ask_bot: AskBot) -> None:
    call = ask_bot(server.url + "/good", "s3cret", body(), 2.0, legal)
    assert call.outcome == "ok" and call.move == MOVES[-1] and call.rtt_ms > 0
    assert server.requests[-1]["signed"] and server.requests[-1]["payload"]["seat"] == 1
    assert call.meta() == {"kind": "http", "outcome": "ok", "rtt_ms": round(call.rtt_ms, 3)}


def test_bare_move_objects_are_accepted(server: BotServer, ask_bot: AskBot) -> None:
    assert ask_bot(server.url + "/first", "s3cret", body(), 2.0, legal).move == MOVES[0]


def test_slow_bot_times_out_at_the_deadline(server: BotServer, ask_bot: AskBot) -> None:
    started = time.monotonic()
    call = ask_bot(server.url + "/slow", "s3cret", body(0.3), 0.3, legal)
    assert call.outcome == "timeout" and call.move is None
    assert time.monotonic() - started < 1.5


def test_a_call_with_no_time_left_is_never_sent(server: BotServer) -> None:
    """A decision whose deadline_s the seat's earlier calls used up (core.timing.decision_left_s):
    the default move follows without asking the bot again."""
    call = httpbot.ask_bot(server.url + "/good", "s3cret", body(0.0), 0.0, legal)
    assert call.outcome == "timeout" and call.move is None and server.requests == []


@pytest.mark.parametrize("path, outcome", [
    ("/garbage", "garbage"), ("/illegal", "illegal"), ("/error", "http_status"), ("/redirect", "http_status"),
])
def test_bad_answers_give_no_move(server: BotServer, path: str, outcome: str, ask_bot: AskBot) -> None:
    call = ask_bot(server.url + path, "s3cret", body(), 2.0, legal)
    assert call.outcome == outcome and call.move is None and call.detail


def test_wrong_secret_is_refused_by_the_bot(server: BotServer, ask_bot: AskBot) -> None:
    call = ask_bot(server.url + "/good", "not-the-secret", body(), 2.0, legal)
    assert call.outcome == "bad_signature" and call.status == 401 and server.bad_signatures == 1


def test_unreachable_bot_is_an_error(monkeypatch: pytest.MonkeyPatch, ask_bot: AskBot) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "127.0.0.1:9")
    call = ask_bot("http://127.0.0.1:9/", "s", body(), 0.5, legal)
    assert call.outcome in ("error", "timeout") and call.move is None


def test_a_url_off_the_allow_list_is_never_called(server: BotServer, monkeypatch: pytest.MonkeyPatch,
                                                  ask_bot: AskBot) -> None:
    monkeypatch.setenv(seats.HOSTS_ENV, "bots.example.org")
    call = ask_bot(server.url + "/good", "s3cret", body(), 2.0, legal)
    assert call.outcome == "rejected_url" and server.requests == []
