"""Issue 13: Swagger UI works offline and its Authorize button posts a real move (headless Chromium)."""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import redis

from core.games import GameService
from service.app import create_app
from tests.browser import ARTIFACTS, launch, playwright_or_skip
from tests.live import PATIENCE_S

sync_api = playwright_or_skip()


@pytest.fixture
def server(conn: redis.Redis) -> Iterator[tuple[str, GameService]]:
    from werkzeug.serving import make_server

    app = create_app({"REDIS": conn, "ADVANCE": "off", "RATE_LIMIT": 0})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}", app.extensions["hourglass"]
    httpd.shutdown()


def test_authorize_with_a_seat_token_and_post_a_move(server: tuple[str, GameService], created: list[str]) -> None:
    base, svc = server
    game = svc.create({"game": "toy", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}],
                       "options": {"rounds": 1}})
    created.append(game["id"])
    token = game["seats"][0]["token"]
    with sync_api.sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        offsite: list[str] = []
        page.on("request", lambda r: offsite.append(r.url) if not r.url.startswith(base) else None)
        page.goto(f"{base}/docs/")
        page.click("button.authorize")
        page.fill(".modal-ux input", token)
        page.click(".modal-ux .auth-btn-wrapper button.authorize")
        page.click(".modal-ux button.btn-done")
        page.click("#operations-moves-postMove .opblock-summary")
        page.click("#operations-moves-postMove button.try-out__btn")
        page.fill("#operations-moves-postMove input[placeholder='game_id']", game["id"])
        page.fill("#operations-moves-postMove textarea.body-param__text", '{"type": "Bid", "bid": 2}')
        page.click("#operations-moves-postMove button.execute")
        status = page.locator("#operations-moves-postMove .live-responses-table tbody .response-col_status").first
        status.wait_for(timeout=PATIENCE_S * 1000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "swagger-ui-post-move.png"), full_page=False)
        text = status.inner_text().strip()
        browser.close()
    assert text == "200", text
    assert svc.load(game["id"]).version > game["version"]  # the move was applied
    assert offsite == []  # nothing loaded from a CDN
