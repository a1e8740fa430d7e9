"""The Cathedral of Orléans through the application: GameService (create for 2-4 seats in both
variants, a whole game as a client's JSON moves, replay bundle exported, verified, tampering
caught, time travel), the worker's advance job for bot seats, and the HTTP API end to end."""
from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from freezegun import freeze_time
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from core import clocks
from core.games import GameService
from core.store import EventStore
from domain.bots import bot_rng, get_bot
from domain.core import SYSTEM, Rejected, RejectKind
from domain.games import fold
from replays.bundle import build_bundle
from replays.source import load_game
from replays.verify import verify_bundle
from service.app import create_app
from tests.conftest import forget_games
from workers import jobs

API = "/api/v1/games"
T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=UTC)


def seats(players: int, kind: str = "human", bot: str = "random") -> list[dict[str, Any]]:
    return [{"name": f"P{i}", "kind": kind, **({"bot": bot} if kind == "bot" else {})} for i in range(players)]


@pytest.fixture
def svc(conn: redis.Redis) -> Iterator[GameService]:
    service = GameService(conn, client_seeds="any")
    service.created = []  # type: ignore[attr-defined]
    yield service
    forget_games(conn, service.created)  # type: ignore[attr-defined]


def create(svc: GameService, players: int = 3, edition: str = "standard", seed: str = "cathedral-service",
           kind: str = "human") -> dict[str, Any]:
    out = svc.create({"game": "cathedral", "edition": edition, "seats": seats(players, kind), "seed": seed})
    svc.created.append(out["id"])  # type: ignore[attr-defined]
    return out


def play_to_end(svc: GameService, game_id: str, bot: str = "greedy") -> int:
    """Every seat plays the Cathedral's bot, each move sent as the client's JSON."""
    policy = get_bot(bot, "cathedral")
    applied = 0
    while True:
        game = svc.load(game_id)
        if game.finished:
            return applied
        seat = min(game.to_act)
        moves = game.rules.legal_moves(game.state, seat)
        chosen = policy(game.rules, game.state, seat, moves, bot_rng(game.info.seed, game_id, seat, game.version))
        command = game.rules.command_from_json(json.loads(json.dumps(game.rules.move_to_json(chosen))), seat)
        svc.apply(game_id, seat, command, expected_version=game.version)
        applied += 1
        assert applied < 2000


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("edition", ["standard", "expert"])
def test_create_a_cathedral_game(svc: GameService, players: int, edition: str) -> None:
    out = create(svc, players, edition)
    assert out["game"] == "cathedral" and out["edition"] == edition and out["version"] > 1
    assert all(s.get("token") for s in out["seats"])
    game = svc.load(out["id"])
    assert game.to_act == {0} and game.info.engine_version == "cathedral-3"
    assert game.info.config == {"edition": edition, "players": players, "rules_version": 3}
    monks = game.state.red_bag.count("monk")
    assert monks == (1 if edition == "expert" else 2)


def test_bad_configs_are_refused(svc: GameService) -> None:
    for body in ({"game": "cathedral", "edition": "classic", "seats": seats(3)},
                 {"game": "cathedral", "edition": "standard", "seats": seats(1)},
                 {"game": "cathedral", "edition": "expert", "seats": seats(5)}):
        with pytest.raises(Rejected) as info:
            svc.create(body)
        assert info.value.kind is RejectKind.INVALID_CONFIG


@pytest.mark.parametrize("players,edition", [(3, "standard"), (4, "expert")])
def test_a_whole_game_through_the_service_exports_a_bundle_that_verifies(
        svc: GameService, conn: redis.Redis, players: int, edition: str) -> None:
    game_id = create(svc, players, edition, seed=f"cathedral-whole-{players}")["id"]
    assert play_to_end(svc, game_id) > 40
    game = svc.load(game_id)
    result = game.rules.result(game.state)
    assert result is not None and result["outcome"] in ("won", "lost")
    assert result["scores"] == [result["sections_built"]] * players
    meta, entries = load_game(EventStore(conn), game_id)
    bundle = build_bundle(game_id, meta, entries)
    report = verify_bundle(bundle)
    assert report.ok, report
    assert report.result == result

    chooser = random.Random(11)
    data = bundle.encode("utf-8")
    for _ in range(25):
        at = chooser.randrange(len(data))
        if data[at] == ord("\n"):
            continue
        forged = data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]
        assert not verify_bundle(forged).ok, f"a flipped byte at {at} was not caught"


def test_time_travel_rebuilds_every_earlier_table(svc: GameService) -> None:
    game_id = create(svc, 2, seed="cathedral-time-travel")["id"]
    play_to_end(svc, game_id, bot="random")
    game = svc.load(game_id)
    events = [game.rules.event_from_json(e.data) for e in svc.entries(game_id)]
    for version in svc.batch_ends(game_id)[::7]:
        past = svc.state_at(game_id, version)
        assert past.state == fold(game.rules, events[:version])
        assert past.rules.view(past.state, None)["round"] in (1, 2, 3)


def test_random_bot_seats_play_through_the_workers_advance_job(svc: GameService) -> None:
    """The generic bot path: workers.jobs.run_advance plays every bot seat to the end."""
    game_id = create(svc, 3, "expert", seed="cathedral-workers", kind="bot")["id"]
    outcome = jobs.run_advance(svc, game_id, limit=5000)
    game = svc.load(game_id)
    assert game.finished and outcome["version"] == game.version
    metas = [e.entry["meta"] for e in svc.entries(game_id) if e.command is not None and e.actor != SYSTEM]
    assert metas and all(m["bot"] == "random" for m in metas)


# --- clocks -------------------------------------------------------------------------------------------------


@pytest.fixture
def private_queue(conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Timeouts scheduled by this test go to a queue of its own, deleted afterwards."""
    name = f"hg-cathedral-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("HOURGLASS_QUEUE", name)
    yield name
    registry = ScheduledJobRegistry(name, connection=conn, serializer=JSONSerializer)
    for job_id in registry.get_job_ids():
        conn.delete(f"rq:job:{job_id}")
    conn.delete(registry.key, f"rq:queue:{name}")
    conn.srem("rq:queues", f"rq:queue:{name}")


def test_a_seat_whose_clock_runs_out_plays_its_default_move(svc: GameService, conn: redis.Redis,
                                                             private_queue: str) -> None:
    with freeze_time(T0) as frozen:
        clocked = [{"name": f"P{i}", "clock": {"initial_s": 30}} for i in range(2)]
        out = svc.create({"game": "cathedral", "edition": "expert", "seats": clocked, "seed": "cathedral-clock"})
        game_id = out["id"]
        svc.created.append(game_id)  # type: ignore[attr-defined]
        jobs.run_advance(svc, game_id)
        stint = clocks.load(conn, game_id).seats[0].stint
        frozen.tick(31)
        before = svc.load(game_id).version
        fired = jobs.run_timeout(svc, game_id, 0, stint)
        assert fired["applied"] and fired["reason"] == "timeout"
        batch = list(svc.entries(game_id, after=before))
        assert batch[0].command == {"type": "ApplyTimeout", "seat": "system", "target": 0}
        assert [e.data for e in batch if e.type == "TimeoutApplied"] == [
            {"type": "TimeoutApplied", "target": 0, "move": "DrawFollower"}]
        assert any(e.type == "FollowerDrawn" and e.data["bag"] == "red" for e in batch)
    conn.delete(clocks.clock_key(game_id))


# --- over HTTP -----------------------------------------------------------------------------------------


@pytest.fixture
def client(conn: redis.Redis) -> Iterator[Any]:
    app = create_app({"REDIS": conn, "TESTING": True, "CLIENT_SEEDS": "any", "RATE_LIMIT": 0,
                      "ADVANCE": lambda game_id, version: None})
    made: list[str] = []
    test_client = app.test_client()
    test_client.made = made
    yield test_client
    forget_games(conn, made)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_whole_game_over_http_leaks_no_pile(client: Any) -> None:
    r = client.post(API, json={"game": "cathedral", "edition": "standard", "seats": seats(2), "seed": "cathedral-http"})
    assert r.status_code == 201, r.json
    gid, toks = r.json["id"], {s["seat"]: s["token"] for s in r.json["seats"]}
    client.made.append(gid)
    rng, posted = random.Random(5), 0
    while True:
        summary = client.get(f"{API}/{gid}").json
        if summary["status"] == "finished":
            break
        assert summary["game"] == "cathedral" and summary["round"] in (1, 2, 3)
        seat = summary["to_act"][0]
        moves = client.get(f"{API}/{gid}/moves", headers=auth(toks[seat])).json
        patient = [m for m in moves["moves"] if m != {"type": "PlaceFollower", "space": "BT"}]
        move = rng.choice(patient if patient and rng.random() < 0.9 else moves["moves"])
        r = client.post(f"{API}/{gid}/moves", json=move, headers={**auth(toks[seat]), "If-Match": str(moves["version"])})
        assert r.status_code == 200, (move, r.json)
        if posted % 10 == 0:
            spectator = client.get(f"{API}/{gid}/state").json["view"]
            assert set(spectator["bags"]) == {"red", "blue", "black"}
            assert all(isinstance(n, int) for n in spectator["bags"].values())
        posted += 1
    assert posted > 20 and summary["result"]["outcome"] in ("won", "lost")
    assert summary["result"]["winners"] in ([], [0, 1]) and summary["seed"] == b"cathedral-http".hex()
    bundle = client.get(f"{API}/{gid}/replay")
    assert bundle.status_code == 200
    report = client.post("/api/v1/replays/verify", data=bundle.data, content_type="application/x-ndjson")
    assert report.status_code == 200 and report.json["ok"], report.json
    late = client.post(f"{API}/{gid}/moves", json={"type": "EndTurn"}, headers=auth(toks[0]))
    assert late.status_code in (409, 422) and late.content_type == "application/problem+json"
