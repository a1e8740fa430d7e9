"""The bot page in headless Chromium: a bot's overall figures, its tournaments (linking to their
pages) and its latest games (linking to the viewer), and the tournament page's links to it."""
from __future__ import annotations

from typing import Any

import pytest
import redis

from tests.browser import ARTIFACTS, playwright_or_skip
from tests.live import PATIENCE_S
from tests.platform.conftest import auth, unique
from tests.platform.tourney_helpers import bot_server, push_bot, run_to_end

playwright_or_skip()  # the module is skipped without a browser; the page fixture is in conftest




def test_a_bots_page_shows_its_record_and_links_to_its_tournaments_and_games(
        page: Any, server: str, conn: redis.Redis, client: Any, owner: dict[str, Any], made: dict[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with bot_server(monkeypatch) as bots:
        liar = push_bot(client, owner, made, unique("liar"), bots.url + "/illegal")
        body = {"name": "Bot page cup", "game": "artificium", "players_per_game": 2, "parallel": 2,
                "entrants": [{"bot_id": liar["id"]}, {"builtin": "random"}]}
        created = client.post("/api/v1/tournaments", json=body, headers=auth(owner["key"]))
        tid = created.json["id"]
        made["tournaments"].append(tid)
        t = run_to_end(conn, tid)

    page.goto(f"{server}/tournaments/{tid}")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    link = page.locator("[data-testid=bot-link]")
    assert link.count() == 1 and link.get_attribute("href") == f"/bots/{liar['id']}"
    dead = page.locator("[data-testid=standing]").nth(1)
    assert "absent" in dead.locator("td.note").inner_text()
    assert dead.locator("td.error").inner_text() == dead.locator("td.calls").inner_text() != "0"

    link.click()
    page.wait_for_url(f"**/bots/{liar['id']}")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    assert page.inner_text("#title") == liar["name"]
    overall = page.inner_text("#overall")
    assert "1 tournaments · 2 games" in overall and "0 ok" in overall
    rows = page.locator("[data-testid=tournament]")
    assert rows.count() == 1 and "Bot page cup" in rows.nth(0).inner_text()
    assert rows.nth(0).locator("td.note").inner_text().startswith("absent")  # never moved, or forfeited
    assert rows.nth(0).locator("[data-testid=tournament-link]").get_attribute("href") == f"/tournaments/{tid}"
    games = page.locator("[data-testid=viewer-link]")
    assert games.count() == 2
    assert {games.nth(i).get_attribute("href") for i in range(2)} == {f"/games/{g.game_id}" for g in t.games}
    assert page.locator("[data-testid=game] td.rank").nth(0).inner_text() == "2 / 2"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "bot-record.png"), full_page=True)


def test_an_unknown_bots_page_says_so(page: Any, server: str) -> None:
    page.goto(f"{server}/bots/nosuchbot")
    page.wait_for_selector("body[data-ready=true]", timeout=PATIENCE_S * 1000)
    assert "no bot" in page.inner_text("#title")
