"""Issue 22: each finding of a hostile stranger, replayed against ``hourglass serve`` with its
default settings (a private Redis; every attack from a loopback address of its own, so each is a
separate requester, as separate machines would be). Each gets its 4xx and leaves a seat holder
served; ``bench/hostile.py`` times the seat holder's ``GET /state`` beside each attack.

``HOURGLASS_HOSTILE_SCALE`` (1 in ``make test``; ``make chaos`` runs 4) multiplies the sizes.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hardening import hostile
from tests.hardening.conftest import Children, RedisServer, free_port
from tests.live import wait_until_serving

SCALE = max(1, int(os.environ.get("HOURGLASS_HOSTILE_SCALE") or 1))
pytestmark = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``hourglass serve`` (web, stream process, worker) on a private redis-server, defaults kept."""
    import shutil

    if shutil.which("redis-server") is None:
        pytest.skip("needs the redis-server binary on PATH")
    directory = tmp_path_factory.mktemp("hostile")
    server = RedisServer(directory)
    server.start()
    kids = Children(directory)
    port = free_port()
    env = {"REDIS_URL": server.url, "HOURGLASS_VAR": str(directory / "var")}
    proc = kids.hourglass("serve", "serve", "--port", str(port), "--workers", "2", env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, proc)
        yield base
    finally:
        kids.stop_all()
        server.kill()


@pytest.fixture(scope="module")
def holder(served: str) -> Iterator[float]:
    return hostile.seat_holder(served)


def test_a_bearer_header_that_names_nobody_is_charged_as_anonymous(served: str, holder: Iterator[float]) -> None:
    """Before: 1,600 of 1,600 requests with ``Bearer x`` answered 200 (the limit is 300 a minute)."""
    flood = hostile.bearer_flood(served, 300 + 100 * SCALE)
    counts = hostile.statuses(flood)
    assert counts[200] == 300 and counts[429] == 100 * SCALE, counts
    refused = flood[-1]
    assert refused.body["kind"] == "RATE_LIMITED" and int(refused.headers["retry-after"]) >= 1
    next(holder)  # a seat holder elsewhere is served


def test_seat_tokens_of_one_address_share_its_window(served: str, holder: Iterator[float]) -> None:
    """Before: three seat tokens from one address gave 1,800 requests in 28 s."""
    flood, elsewhere = hostile.seat_token_flood(served, 600 + 50 * SCALE)
    counts = hostile.statuses(flood)
    assert counts[200] == 600 and counts[429] == 50 * SCALE, counts
    assert elsewhere.status == 200  # the same game's seat, from another address: its own window
    next(holder)


def test_join_and_abort_gives_the_seat_back_and_the_lobby_keeps_its_games(
        served: str, holder: Iterator[float]) -> None:
    """Before: joining an open seat and aborting emptied 10 of 10 public open games in 0.37 s."""
    found = hostile.empty_the_lobby(served, 5 * SCALE)
    assert len(found["aborts"]) == len(found["games"])
    assert all(a.status == 200 and a.body["events"][0]["type"] == "SeatVacated" for a in found["aborts"])
    assert all(g["status"] == "open" for g in found["after"])
    assert set(found["games"]) <= found["listed"]
    next(holder)


def test_a_resume_point_from_the_future_is_refused_by_the_bot_stream_and_its_pager(
        served: str, holder: Iterator[float]) -> None:
    """Before: 200, and no ``game_started``/``your_turn`` ever arrived (the pager stayed stuck)."""
    found = hostile.bot_stream_from_the_future(served)
    for answer in found.values():
        assert answer.status == 400 and "past the end" in answer.body["detail"]
    next(holder)


def test_tournaments_are_charged_in_full_to_an_account(served: str, holder: Iterator[float]) -> None:
    """Before: 25 tournaments of 896 games each were accepted within seconds, 1,608 live games."""
    found = hostile.tournament_factory(served, tournaments=4 + SCALE, bots=12)
    each = found["games_each"]  # 132: the account's 500 units pay for three
    codes = [a.status for a in found["answers"]]
    assert codes[:3] == [201, 201, 201] and set(codes[3:]) == {429}, codes
    refused = found["answers"][-1].body
    assert refused["kind"] == "WORK_BUDGET" and refused["cost"] == each and refused["capacity"] == 500
    assert found["anonymous"].status == 401
    assert found["me"]["budgets"]["work"]["left"] < each
    assert found["me"]["budgets"]["live_games"]["used"] <= 3  # parallel 1 each, counted for the organiser
    next(holder)
