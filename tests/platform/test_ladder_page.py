"""Issue 26's done-when for the ladder, end to end: two push bots opted into a ladder play rated
games with no organiser (a real ``hourglass worker`` runs the matchmaker in its sweeper), and in
headless Chromium their pages show the games (linking to the viewer), the rating plot and their
latency; the leaderboard page shows the ladder and the tournament list page and favicon answer."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from core.accounts import Accounts
from tests.browser import ARTIFACTS, playwright_or_skip
from tests.conftest import REDIS_URL, RUN_QUEUE
from tests.live import PATIENCE_S
from tests.platform.conftest import auth, unique
from tests.platform.ladder_helpers import wipe_ladders
from tests.platform.stack import Stack, wait_for
from tests.platform.tourney_helpers import SECRET
from tests.workers.hg_botserver import BotServer

playwright_or_skip()  # the module is skipped without a browser; the page fixture is in conftest

LADDER = "artificium-2"
GAMES = 2  # rated games each bot must have played


@pytest.fixture(scope="module")
def bot_host() -> Iterator[BotServer]:
    with BotServer(SECRET) as server:
        yield server


@pytest.fixture(scope="module")
def stack(conn: redis.Redis, bot_host: BotServer) -> Iterator[Stack]:
    host = bot_host.url.split("//", 1)[1]
    saved = os.environ.get("HOURGLASS_BOT_HOSTS")
    os.environ["HOURGLASS_BOT_HOSTS"] = host  # the app checks the bots' URLs at registration
    wipe_ladders(conn)
    live = Stack(conn, REDIS_URL, RUN_QUEUE, {"HOURGLASS_BOT_HOSTS": host}).start(workers=1)
    yield live
    live.stop()
    wipe_ladders(conn)
    if saved is None:
        os.environ.pop("HOURGLASS_BOT_HOSTS", None)
    else:
        os.environ["HOURGLASS_BOT_HOSTS"] = saved


def test_two_bots_on_a_ladder_play_rated_games_and_their_pages_show_games_rating_and_latency(
        page: Any, stack: Stack, bot_host: BotServer, conn: redis.Redis, made: dict[str, list[str]]) -> None:
    owner = Accounts(conn).create(unique("ladderowner"))
    made["accounts"].append(owner["id"])
    api = requests.Session()
    api.headers.update(auth(owner["key"]))
    bots = []
    for path in ("/good", "/first"):  # two styles of play, so most games have a winner
        created = api.post(f"{stack.url}/api/v1/bots", json={"name": unique("ladder"), "kind": "http",
                                                              "url": bot_host.url + path, "secret": SECRET})
        assert created.status_code == 201, created.text
        made["bots"].append(created.json()["id"])
        bots.append(created.json())
    for bot in bots:
        entered = api.post(f"{stack.url}/api/v1/ladders/{LADDER}/entries", json={"bot_id": bot["id"], "deadline_s": 2})
        assert entered.status_code == 201, entered.text

    def ladder() -> dict[str, Any]:
        answer: dict[str, Any] = requests.get(f"{stack.url}/api/v1/ladders/{LADDER}", timeout=10).json()
        return answer

    def rated() -> bool:
        return all(row["games"] >= GAMES for row in ladder()["standings"])

    wait_for(rated, PATIENCE_S * 4, f"both bots to play {GAMES} rated ladder games", every=0.5,
             explain=lambda: f"ladder: {ladder()}\nworker log: {stack.logs[0].read_text()[-2000:]}")
    for bot in bots:  # opt out: no new game starts, the ones in play are played out and rated
        assert api.delete(f"{stack.url}/api/v1/ladders/{LADDER}/entries/{bot['id']}").status_code == 204
    wait_for(lambda: ladder()["live"] == 0, PATIENCE_S * 2, "the ladder's last games to be settled", every=0.5)
    board = ladder()
    games = {g["game_id"] for g in board["games"]}
    assert len(games) >= GAMES and all(g["rated"] for g in board["games"])
    assert all(row["sigma"] < 25 / 3 for row in board["standings"])  # rated (a tie moves sigma, not mu)

    winner = max(board["standings"], key=lambda row: row["ordinal"])
    page.goto(f"{stack.url}/bots/{winner['bot_id']}")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    assert page.inner_text("#title") == winner["name"]
    assert page.inner_text("#owner") == owner["id"]
    plot = page.locator(f"[data-testid=ladder][data-ladder={LADDER}]")
    assert f"{winner['games']} rated games" in plot.locator(".rating").inner_text()
    assert plot.locator("[data-testid=rating-line]").count() == 1
    assert plot.locator("[data-testid=rating-point]").count() == winner["games"]
    rows = page.locator("[data-testid=ladder-game]")
    assert rows.count() == winner["games"]
    links = page.locator("[data-testid=ladder-viewer-link]")
    assert {links.nth(i).get_attribute("href") for i in range(links.count())} <= {f"/games/{g}" for g in games}
    loser = next(row for row in board["standings"] if row["bot_id"] != winner["bot_id"])
    for i in range(rows.count()):
        row = rows.nth(i)
        assert row.locator("[data-testid=opponent-link]").get_attribute("href") == f"/bots/{loser['bot_id']}"
        assert int(row.locator("td.calls").inner_text()) > 0
        assert row.locator("td.p50").inner_text() != "–" and row.locator("td.p95").inner_text() != "–"
        assert row.locator("td.timeout").inner_text() == "0" and row.locator("td.error").inner_text() == "0"
    replay = page.locator("[data-testid=replay-link]").nth(0).get_attribute("href")
    bundle = requests.get(stack.url + replay, timeout=10)
    assert bundle.status_code == 200 and bundle.text.startswith("{")  # the game's audit: a replay bundle
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ladder-bot.png"), full_page=True)
    links.nth(0).click()
    page.wait_for_url("**/games/*")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)

    page.goto(f"{stack.url}/leaderboard/artificium")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    standings = page.locator(f"#ladder-{LADDER} [data-testid=ladder-row]")
    assert standings.count() == 2
    assert standings.nth(0).locator("[data-testid=bot-link]").get_attribute("href") == f"/bots/{winner['bot_id']}"
    assert page.locator(f"#ladder-{LADDER} [data-testid=ladder-game]").count() == len(games)
    page.screenshot(path=str(ARTIFACTS / "ladder-leaderboard.png"), full_page=True)

    page.goto(f"{stack.url}/tournaments")
    assert page.inner_text("#title") == "Tournaments"
    icon = requests.get(f"{stack.url}/favicon.ico", timeout=10)
    assert icon.status_code == 200 and icon.headers["Content-Type"] == "image/vnd.microsoft.icon"
    assert icon.content[:4] == b"\x00\x00\x01\x00"  # an ICO header
