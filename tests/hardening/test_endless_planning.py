"""Issue 23, done when: "A seat or bot that loops place/take-back cannot keep an Orléans game from
ending: a test drives it over HTTP and the game finishes (the loop refused, or the seat timed
out) under every seat kind."

Each test plays a whole two-seat game against a built-in bot. The looping seat alternates
PlaceFollower and TakeBackFollower in every planning phase, as a script or a bot answering
``moves[0]`` would, and plays the last listed move elsewhere. Without a clock the rules refuse
the 11th take-back of a planning phase (D13); with a clock, time passes between its moves
(freezegun) and the clock's timeout plays FinishPlanning. The worker's jobs run in-process
(``run_advance`` after each move, ``run_timeout`` when a deadline passes, as RQ would).
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from cryptography.fernet import Fernet
from freezegun import freeze_time

from core import clocks, seats
from core.bots import BotRegistry
from core.games import GameService
from domain.orleans import data as D
from service.app import create_app
from tests.conftest import forget_games
from tests.workers.hg_botserver import BotServer
from workers import jobs

os.environ.setdefault("HOURGLASS_SECRET_KEY", Fernet.generate_key().decode())
T0 = datetime(2030, 6, 1, 9, 0, 0, tzinfo=UTC)
OPPONENT = {"name": "Greedy", "kind": "bot", "bot": "greedy"}
MAX_STEPS = 5_000  # a two-seat game takes a few hundred moves of the looping seat


@pytest.fixture
def client(conn: redis.Redis) -> Any:
    app = create_app({"REDIS": conn, "TESTING": True, "CLIENT_SEEDS": "any", "RATE_LIMIT": 0, "ADVANCE": "off"})
    return app.test_client()


@pytest.fixture
def games(conn: redis.Redis) -> Iterator[list[str]]:
    ids: list[str] = []
    yield ids
    forget_games(conn, ids)
    if ids:
        conn.delete(*(clocks.clock_key(i) for i in ids))


def create(client: Any, games: list[str], seat: dict[str, Any], seed: str) -> dict[str, Any]:
    response = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic", "seed": seed,
                                                  "seats": [seat, OPPONENT]})
    assert response.status_code == 201, response.json
    games.append(response.json["id"])
    return response.json


class Looper:
    """The looping seat, over HTTP: after a placement, its take-back; otherwise the first listed
    placement in planning. Elsewhere it plays on so that its places empty and the next planning
    has spaces to loop on: the largest draw, the first action, else the first listed move."""

    def __init__(self, client: Any, game_id: str, token: str) -> None:
        self.client, self.game_id = client, game_id
        self.headers = {"Authorization": f"Bearer {token}"}
        self.placed: dict[str, Any] | None = None
        self.refused = 0

    def post(self, move: dict[str, Any]) -> Any:
        return self.client.post(f"/api/v1/games/{self.game_id}/moves", json=move, headers=self.headers)

    def step(self) -> None:
        if self.placed is not None:
            back = {"type": "TakeBackFollower", "place": self.placed["place"], "space": self.placed["space"]}
            self.placed = None
            response = self.post(back)
            if response.status_code == 200:
                return
            assert response.status_code == 422, response.json
            self.refused += 1  # the rules refuse the loop (D13), or the seat's planning was timed out
        moves = self.client.get(f"/api/v1/games/{self.game_id}/moves", headers=self.headers).json["moves"]
        if not moves:
            return  # a timeout played for it in between
        placements = [m for m in moves if m["type"] == "PlaceFollower"]
        draws = [m for m in moves if m["type"] == "DrawFollowers"]
        actions = [m for m in moves if m["type"] == "TakeAction"]
        if placements:
            move = placements[0]
        elif any(m["type"] == "FinishPlanning" for m in moves):
            move = moves[-1]  # nothing to loop on: done
        else:
            move = (draws[-1:] or actions[:1] or moves)[0]
        response = self.post(move)
        assert response.status_code in (200, 422), response.json  # 422: a timeout got there first
        if response.status_code == 200 and move["type"] == "PlaceFollower":
            self.placed = move


def fire_due_timeouts(svc: GameService, conn: redis.Redis, game_id: str) -> int:
    """What RQ's scheduler does at a deadline: the clock's timeout job for every stint that ran out."""
    fired = 0
    current = clocks.load(conn, game_id)
    now = int(svc.clock().timestamp() * 1000)
    for seat, clock in (current.seats.items() if current else ()):
        if clock.timer is not None and clock.timer[1] <= now:
            fired += jobs.run_timeout(svc, game_id, seat, clock.timer[0])["applied"]
    return fired


def play_out(svc: GameService, conn: redis.Redis, game_id: str, looper: Looper | None,
             frozen: Any = None, tick_s: float = 0) -> None:
    """Run the game to its end: the worker's jobs, the looping seat's moves, and (frozen) time."""
    version = -1
    for _ in range(MAX_STEPS):
        jobs.run_advance(svc, game_id)  # a job hands over after 500 batches: the next one goes on
        if frozen is not None and fire_due_timeouts(svc, conn, game_id):
            continue
        game = svc.load(game_id)
        if game.finished:
            return
        if looper is None or 0 not in game.to_act:
            assert game.version > version, f"the game stalls at version {game.version}"
            version = game.version
            continue
        looper.step()
        if frozen is not None:
            frozen.tick(tick_s)
    raise AssertionError(f"no end after {MAX_STEPS} steps")


def planning_record(svc: GameService, game_id: str, seat: int = 0) -> tuple[list[int], Counter[str]]:
    """The seat's take-backs in each planning phase, and what its timeouts played."""
    per_phase: list[int] = []
    timeouts: Counter[str] = Counter()
    for entry in svc.entries(game_id):
        if entry.type == "PhaseBegan" and entry.data.get("phase") == "planning":
            per_phase.append(0)
        elif entry.type == "FollowerTakenBack" and entry.data["seat"] == seat:
            per_phase[-1] += 1
        elif entry.type == "TimeoutApplied" and entry.data["target"] == seat:
            timeouts[entry.data["move"]] += 1
    return per_phase, timeouts


def finished(client: Any, game_id: str) -> bool:
    return bool(client.get(f"/api/v1/games/{game_id}").json["status"] == "finished")


def test_a_human_without_a_clock_is_refused_the_loop(client: Any, conn: redis.Redis, games: list[str]) -> None:
    game = create(client, games, {"name": "Looper"}, "loop-human")
    looper = Looper(client, game["id"], game["seats"][0]["token"])
    svc = GameService(conn)
    play_out(svc, conn, game["id"], looper)
    per_phase, timeouts = planning_record(svc, game["id"])
    assert finished(client, game["id"]) and not timeouts
    assert looper.refused >= D.ROUNDS and max(per_phase) == D.TAKE_BACKS_PER_PLANNING


@pytest.mark.parametrize("clock, tick_s", [({"initial_s": 30, "increment_s": 2}, 3), ({"move_s": 10}, 3)],
                         ids=["chess-clock", "move-clock"])
def test_a_human_with_a_clock_times_out_of_the_loop(
        client: Any, conn: redis.Redis, games: list[str], clock: dict[str, Any], tick_s: float) -> None:
    with freeze_time(T0) as frozen:
        game = create(client, games, {"name": "Looper", "clock": clock}, "loop-clock")
        looper = Looper(client, game["id"], game["seats"][0]["token"])
        svc = GameService(conn)
        play_out(svc, conn, game["id"], looper, frozen, tick_s)
        per_phase, timeouts = planning_record(svc, game["id"])
    assert finished(client, game["id"]) and timeouts["FinishPlanning"] >= D.ROUNDS // 2
    assert max(per_phase) < D.TAKE_BACKS_PER_PLANNING  # the clock ended planning before the rules had to


def test_a_pull_bot_times_out_of_the_loop(client: Any, conn: redis.Redis, games: list[str]) -> None:
    bot = BotRegistry(conn).register(f"looper-{os.getpid()}-{len(games)}", "pull")
    try:
        with freeze_time(T0) as frozen:
            game = create(client, games, {"bot_id": bot["id"], "deadline_s": 10}, "loop-pull")
            assert client.get(f"/api/v1/games/{game['id']}").json["seats"][0]["clock"] == {"move_s": 10}
            looper = Looper(client, game["id"], bot["token"])
            svc = GameService(conn)
            play_out(svc, conn, game["id"], looper, frozen, 3)
            per_phase, timeouts = planning_record(svc, game["id"])
        assert finished(client, game["id"]) and timeouts["FinishPlanning"] >= D.ROUNDS // 2
        assert max(per_phase) < D.TAKE_BACKS_PER_PLANNING
    finally:
        BotRegistry(conn).delete([bot["id"]])


def test_a_push_bot_answering_the_first_move_is_refused_the_loop(
        client: Any, conn: redis.Redis, games: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with BotServer("unused") as bots:
        monkeypatch.setenv(seats.HOSTS_ENV, bots.url.split("//", 1)[1])
        game = create(client, games, {"name": "First", "kind": "http", "url": bots.url + "/first"}, "loop-push")
        bots.secrets.add(game["seats"][0]["secret"])
        svc = GameService(conn)
        play_out(svc, conn, game["id"], None)
        per_phase, _ = planning_record(svc, game["id"])
        calls = Counter(e.entry["meta"]["http"]["outcome"] for e in svc.entries(game["id"])
                        if e.actor == 0 and e.command is not None)
    assert finished(client, game["id"])
    assert max(per_phase) == D.TAKE_BACKS_PER_PLANNING and calls["ok"] > 0  # moves[0] loops until refused


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_built_in_bots_finish(client: Any, conn: redis.Redis, games: list[str], bot: str) -> None:
    game = create(client, games, {"name": bot, "kind": "bot", "bot": bot}, f"loop-{bot}")
    svc = GameService(conn)
    play_out(svc, conn, game["id"], None)
    per_phase, _ = planning_record(svc, game["id"])
    assert finished(client, game["id"]) and max(per_phase) <= D.TAKE_BACKS_PER_PLANNING
