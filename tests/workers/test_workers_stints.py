"""A decision is one stint (issue 23): a seat's planning placements and take-backs do not renew
its deadline, whatever its clock, and a pull seat is told the stint's deadline each time."""
from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from freezegun import freeze_time

from core import clocks
from core.bots import BotRegistry
from core.games import Game, GameService
from domain.orleans.model import FinishPlanning, Phase, PlaceFollower, TakeBackFollower
from tests.workers.test_workers_clocks import scheduled
from workers import jobs

T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=UTC)


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def to_planning(svc: GameService, game_id: str) -> Game:
    """Both seats draw (their first listed draw); the game is then in planning."""
    jobs.run_advance(svc, game_id)
    for seat in (0, 1):
        game = svc.load(game_id)
        svc.apply(game_id, seat, game.rules.legal_moves(game.state, seat)[-1])
        jobs.run_advance(svc, game_id)
    game = svc.load(game_id)
    assert game.state.phase is Phase.PLANNING and game.to_act == {0, 1}
    return game


def loop_once(svc: GameService, game_id: str, seat: int) -> str | None:
    """Take a placement back if there is one to take back, else place: the looping seat of issue
    23 (None, and nothing played, once only FinishPlanning is left)."""
    game = svc.load(game_id)
    moves = game.rules.legal_moves(game.state, seat)
    loop = [m for m in moves if isinstance(m, TakeBackFollower)] or [m for m in moves if isinstance(m, PlaceFollower)]
    if not loop:
        return None
    svc.apply(game_id, seat, loop[0])
    jobs.run_advance(svc, game_id)
    return type(loop[0]).__name__


def test_placements_and_take_backs_keep_a_chess_clocks_stint_and_its_one_timeout(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    seats = [{"name": "A", "clock": {"initial_s": 60, "increment_s": 5}}, {"name": "B", "clock": {"initial_s": 600}}]
    with freeze_time(T0) as frozen:
        game_id = new_game(seats, seed="stint-chess")["id"]
        to_planning(svc, game_id)
        start = clocks.load(conn, game_id).seats[0]
        stint, deadline = start.timer
        played: list[str] = []
        while (move := loop_once(svc, game_id, 0)) is not None:  # a move a second; each renewed the stint
            played.append(move)
            frozen.tick(1)
            assert clocks.load(conn, game_id).seats[0].timer == (stint, deadline)
        assert played.count("TakeBackFollower") == 10  # then rules 4 refuse more (D13): only placements
        assert [j for j in scheduled(conn, queue_name) if f"-{game_id}-0-" in j] == [f"timeout-{game_id}-0-{stint}"]
        now = ms(T0) + 1_000 * len(played)
        assert clocks.load(conn, game_id).remaining_at(0, now) == start.remaining_ms - 1_000 * len(played)

        frozen.move_to(datetime.fromtimestamp(deadline / 1000, UTC) + timedelta(seconds=1))
        fired = jobs.run_timeout(svc, game_id, 0, stint)
        assert fired["applied"]
        applied = [e.data for e in svc.entries(game_id, after=fired["version"] - 3) if e.type == "TimeoutApplied"]
        assert applied == [{"type": "TimeoutApplied", "target": 0, "move": "FinishPlanning"}]
        assert clocks.load(conn, game_id).seats[0].remaining_ms == 5_000  # flagged: nothing left but the increment


def test_a_per_move_clock_covers_the_whole_planning_too(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]]) -> None:
    seats = [{"name": "A", "clock": {"move_s": 20}}, {"name": "B", "clock": {"move_s": 20}}]
    with freeze_time(T0) as frozen:
        game_id = new_game(seats, seed="stint-move")["id"]
        to_planning(svc, game_id)
        stint, deadline = clocks.load(conn, game_id).seats[0].timer
        for _ in range(12):
            frozen.tick(1)
            assert loop_once(svc, game_id, 0)
        assert clocks.load(conn, game_id).seats[0].timer == (stint, deadline)
        assert clocks.load(conn, game_id).remaining_at(0, ms(T0) + 12_000) == 20_000 - 12_000
        svc.apply(game_id, 0, FinishPlanning(0))
        jobs.run_advance(svc, game_id)
        assert not clocks.load(conn, game_id).seats[0].running


@pytest.fixture
def pull_bot(conn: redis.Redis, svc: GameService) -> Iterator[str]:
    bot = BotRegistry(conn).register(f"stint-{uuid.uuid4().hex[:8]}", "pull")
    yield bot["id"]
    BotRegistry(conn).delete([bot["id"]])


def test_a_pull_seat_is_told_the_planning_stints_deadline_after_each_placement(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        pull_bot: str) -> None:
    with freeze_time(T0) as frozen:
        game_id = new_game([{"bot_id": pull_bot, "deadline_s": 20}, {"name": "B"}], seed="stint-pull")["id"]
        began = to_planning(svc, game_id).version
        deadline = clocks.load(conn, game_id).seats[0].deadline_ms
        for _ in range(6):
            frozen.tick(2)
            assert loop_once(svc, game_id, 0)
        turns = [e.data for e in svc.feed.read(pull_bot) if e.event == "your_turn" and e.data["version"] >= began]
        assert len(turns) == 7  # planning began, then one prompt after each of the seat's 6 moves
        assert {t["deadline_ms"] for t in turns} == {deadline} == {ms(T0) + 20_000}
