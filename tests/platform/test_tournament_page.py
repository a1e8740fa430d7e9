"""The tournament page in headless Chromium (Debian's chromium + Playwright): standings, ratings,
every game with a link to its viewer, and the revealed seed of a finished tournament."""
from __future__ import annotations

from typing import Any

import redis

from core.games import GameService
from core.leaderboard import Leaderboard
from core.tournament_store import TournamentStore
from tests.browser import ARTIFACTS, playwright_or_skip
from tests.live import PATIENCE_S
from tests.platform.test_tournament_core import run_in_process

playwright_or_skip()  # the module is skipped without a browser; the page fixture is in conftest




def test_a_finished_tournament_page_shows_standings_ratings_and_links_to_every_game(
        page: Any, server: str, conn: redis.Redis, made: dict[str, list[str]]) -> None:
    spec = {"name": "Page test cup", "game": "artificium", "players_per_game": 2, "format": "swiss", "rounds": 2,
            "entrants": [{"builtin": "random"}, {"builtin": "greedy"}]}
    tid = TournamentStore(conn).create(spec, GameService(conn).bots, Leaderboard(conn))["id"]
    made["tournaments"].append(tid)
    t = run_in_process(conn, tid)

    page.goto(f"{server}/tournaments/{tid}")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    assert page.inner_text("#title") == "Page test cup"
    assert page.inner_text("#status") == "finished"
    assert page.inner_text("#seed") == t.seed and page.inner_text("#merkle") == t.merkle_root
    rows = page.locator("[data-testid=standing]")
    assert rows.count() == 2
    table = t.final_standings or ()
    for i, row in enumerate(table):
        cells = rows.nth(i).locator("td")
        assert cells.nth(1).inner_text() == row["name"]
        assert cells.nth(4).inner_text() == f"{row['points']:.1f}"
        assert cells.nth(7).inner_text() == f"{row['ordinal']:.2f}"
    links = page.locator("[data-testid=viewer-link]")
    assert links.count() == len(t.games) == 2
    assert [links.nth(i).get_attribute("href") for i in range(2)] == [f"/games/{g.game_id}" for g in t.games]
    assert page.locator("#package").get_attribute("href") == f"/api/v1/tournaments/{tid}/package"
    assert not page.locator("[data-testid=ranked-by]").is_visible()  # Artificium ranks by place
    assert page.get_attribute("body", "data-ranked-by") == "place"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tournament-finished.png"), full_page=True)
    links.nth(0).click()
    page.wait_for_url(f"**/games/{t.games[0].game_id}")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)


def test_an_unknown_tournament_page_says_so(page: Any, server: str) -> None:
    page.goto(f"{server}/tournaments/tnosuch")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    assert "no tournament" in page.inner_text("#status")


def test_a_cooperative_tournament_page_says_it_ranks_by_team(
        page: Any, server: str, conn: redis.Redis, made: dict[str, list[str]]) -> None:
    """The Cathedral under tournament rules 3: the JSON says ``ranked_by: team`` from the start (before
    any game ends), and the page labels the standings so and shows each team's won and lost games."""
    import requests

    spec = {"name": "Coop cup", "game": "cathedral", "players_per_game": 2, "format": "swiss", "rounds": 1,
            "entrants": [{"builtin": "random"}, {"builtin": "greedy"}]}
    tid = TournamentStore(conn).create(spec, GameService(conn).bots, Leaderboard(conn))["id"]
    made["tournaments"].append(tid)
    before = requests.get(f"{server}/api/v1/tournaments/{tid}", timeout=PATIENCE_S).json()
    assert before["ranked_by"] == "team" and before["rules"] >= 3
    t = run_in_process(conn, tid)
    after = requests.get(f"{server}/api/v1/tournaments/{tid}", timeout=PATIENCE_S).json()
    assert after["ranked_by"] == "team" and all(row["ranked_by"] == "team" for row in after["standings"])

    page.goto(f"{server}/tournaments/{tid}")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    label = page.locator("[data-testid=ranked-by]")
    assert label.is_visible() and label.inner_text().startswith("Ranked by team")
    assert page.get_attribute("body", "data-ranked-by") == "team"
    rows = page.locator("[data-testid=standing]")
    table = t.final_standings or ()
    assert rows.count() == len(table) == 2
    for i, row in enumerate(table):
        assert rows.nth(i).locator("td.note").inner_text() == f"team {row['team_won']} won, {row['team_lost']} lost"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tournament-cooperative.png"), full_page=True)

    listed = requests.get(f"{server}/api/v1/tournaments", timeout=PATIENCE_S).json()["tournaments"]
    assert next(row for row in listed if row["id"] == tid)["ranked_by"] == "team"
    page.goto(f"{server}/tournaments")
    row = page.locator("tr", has=page.locator(f"a[href='/tournaments/{tid}']"))
    assert row.locator("[data-testid=ranked-by-team]").inner_text() == "· ranked by team"
