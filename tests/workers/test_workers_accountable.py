"""Issue 23, accountable bots at the game level: a push bot that keeps failing and a pull bot that
keeps missing its turns forfeit after N failed decisions in a row; a seat whose decisions all
failed ranks below every seat that played and wins nothing; the replay verifier re-derives all of
it; and each seat's record (calls, outcomes, latency) comes from the log's meta."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from freezegun import freeze_time

from core import clocks, seatrecord, seats
from core.games import GameService
from replays.bundle import build_bundle
from replays.source import load_game
from replays.verify import verify_bundle
from service.app import create_app
from tests.workers.hg_botserver import BotServer
from workers import forfeits, jobs

T0 = datetime(2031, 1, 1, 12, 0, 0, tzinfo=UTC)
RANDOM = {"kind": "bot", "bot": "random"}


@pytest.fixture
def bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[BotServer]:
    monkeypatch.setenv(jobs.DEADLINE_ENV, "0.5")
    with BotServer("unused") as server:
        monkeypatch.setenv(seats.HOSTS_ENV, server.url.split("//", 1)[1])
        yield server


def create(svc: GameService, created: list[str], game: str, specs: list[dict[str, Any]], seed: str) -> dict[str, Any]:
    out = svc.create({"game": game, "seats": specs, "seed": seed})
    created.append(out["id"])
    return out


def verified(svc: GameService, game_id: str) -> Any:
    meta, entries = load_game(svc.store, game_id)
    report = verify_bundle(build_bundle(game_id, meta, entries))
    assert report.ok, report.describe()
    return report


def test_a_push_bot_that_keeps_failing_forfeits_and_ranks_last(
        svc: GameService, created: list[str], bots: BotServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forfeits.FORFEIT_ENV, "3")
    specs = [{"name": "dead", "kind": "http", "url": bots.url + "/error"}, {"name": "R1", **RANDOM},
             {"name": "R2", **RANDOM}]
    out = create(svc, created, "cathedral", specs, "forfeit-push")
    bots.secrets.update(s["secret"] for s in out["seats"] if s.get("secret"))
    jobs.run_advance(svc, out["id"], limit=5000)

    game = svc.load(out["id"])
    assert game.finished and len(bots.requests) == 3  # three failed calls, then never asked again
    heads = [(e.actor, e.command, e.entry["meta"]) for e in svc.entries(out["id"]) if e.command is not None]
    forfeit = [h for h in heads if (h[1] or {}).get("type") == "Forfeit"]
    assert forfeit == [("system", {"type": "Forfeit", "seat": 0, "after": 3}, None)]
    assert [h[2]["http"]["outcome"] for h in heads if h[0] == 0 and "http" in (h[2] or {})] == ["http_status"] * 3
    result = game.result
    assert result is not None and result["departed"] == [{"seat": 0, "reason": "forfeited"}]
    assert result["unplayed"] == [0] and 0 not in result["winners"]
    assert next(r["rank"] for r in result["ranking"] if r["seat"] == 0) == 3  # below every seat that played
    assert game.seats()[0]["status"] == "forfeited"
    assert verified(svc, out["id"]).result == result  # the verifier re-derives the forfeit and the ranking


def test_a_dead_push_bot_is_no_winner_even_without_a_forfeit(
        svc: GameService, created: list[str], bots: BotServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's bot: 0 ok of every call, tied on score, and scored a win. Forfeits off here."""
    monkeypatch.setenv(forfeits.FORFEIT_ENV, "0")
    specs = [{"name": "dead", "kind": "http", "url": bots.url + "/garbage"}, {"name": "R1", **RANDOM}]
    out = create(svc, created, "artificium", specs, "forfeit-none")
    bots.secrets.update(s["secret"] for s in out["seats"] if s.get("secret"))
    jobs.run_advance(svc, out["id"], limit=5000)
    game = svc.load(out["id"])
    result = game.result
    assert game.finished and result is not None and "departed" not in result
    assert result["unplayed"] == [0] and result["winners"] == [1]
    assert [(r["seat"], r["rank"]) for r in result["ranking"]] == [(1, 1), (0, 2)]
    assert verified(svc, out["id"]).result == result


def test_seat_records_come_from_the_logs_meta(
        svc: GameService, created: list[str], bots: BotServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forfeits.FORFEIT_ENV, "0")
    specs = [{"name": "good", "kind": "http", "url": bots.url + "/good"},
             {"name": "slow", "kind": "http", "url": bots.url + "/slow"}, {"name": "R", **RANDOM}]
    out = create(svc, created, "cathedral", specs, "records")
    bots.secrets.update(s["secret"] for s in out["seats"] if s.get("secret"))
    jobs.run_advance(svc, out["id"], limit=30)
    entries = svc.entries(out["id"])
    good, slow, builtin = seatrecord.from_entries(entries, 3)
    assert good["calls"] == good["ok"] > 0 and good["timeout"] == good["error"] == 0 and good["moves"] == good["calls"]
    assert slow["calls"] == slow["timeout"] > 0 and slow["ok"] == 0 and slow["defaults"] == slow["calls"]
    assert slow["outcomes"] == {"timeout": slow["calls"]} and slow["latency_ms"]["p50"] >= 500
    assert good["latency_ms"]["p95"] >= good["latency_ms"]["p50"] > 0
    assert builtin["calls"] == 0 and builtin["latency_ms"] == {"p50": None, "p95": None} and builtin["moves"] > 0
    bundle_heads = [(e.actor, e.command, e.entry["meta"]) for e in entries if e.command is not None]
    assert seatrecord.seat_records(bundle_heads, 3) == [good, slow, builtin]


def test_a_pull_bot_that_keeps_missing_its_turns_forfeits(
        conn: redis.Redis, svc: GameService, created: list[str], queue_name: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forfeits.FORFEIT_ENV, "2")
    bot = svc.bots.register(f"sleepy-{uuid.uuid4().hex[:8]}", "pull")
    try:
        with freeze_time(T0) as frozen:
            specs = [{"bot_id": bot["id"], "deadline_s": 5}, {"name": "R1", **RANDOM}, {"name": "R2", **RANDOM}]
            game_id = create(svc, created, "cathedral", specs, "forfeit-pull")["id"]
            for _ in range(2):
                jobs.run_advance(svc, game_id)
                clock = clocks.load(conn, game_id).seats[0]
                assert clock.running and clock.stint is not None
                frozen.tick(6)
                assert jobs.run_timeout(svc, game_id, 0, clock.stint)["applied"]
            game = svc.load(game_id)
    finally:
        svc.bots.delete([bot["id"]])
    assert game.table.departure(0) == "forfeited"
    heads = [e.command for e in svc.entries(game_id) if e.command is not None]
    assert heads.count({"type": "Forfeit", "seat": 0, "after": 2}) == 1
    assert seatrecord.from_entries(svc.entries(game_id), 3)[0]["timeouts"] == 2


def test_a_seat_cannot_post_a_forfeit(conn: redis.Redis, created: list[str]) -> None:
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0}).test_client()
    game = client.post("/api/v1/games", json={"game": "cathedral", "seats": [{"name": "Ann"}, {"name": "Bob"}]}).json
    created.append(game["id"])
    version = client.get(f"/api/v1/games/{game['id']}").json["version"]
    for seat in (0, 1):
        answer = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "Forfeit", "seat": 1 - seat, "after": 1},
                             headers={"Authorization": f"Bearer {game['seats'][seat]['token']}"})
        assert answer.status_code in (400, 422) and answer.mimetype == "application/problem+json"
    assert client.get(f"/api/v1/games/{game['id']}").json["version"] == version

