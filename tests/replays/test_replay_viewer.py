"""The viewer in headless Chromium (Debian's chromium + Playwright for Python).

Skips, with the reason shown by ``-ra``, when /usr/bin/chromium or Playwright is missing.
Screenshots go to tests/artifacts/.
"""
from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.games import GameService
from service.app import create_app
from tests.replays.replay_redis import advance, create, play_to_end

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

if not CHROMIUM.exists():
    pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright for Python")


@pytest.fixture(scope="module")
def server(service: GameService) -> Iterator[str]:
    from werkzeug.serving import make_server

    app = create_app({"REDIS": service.store.conn, "ADVANCE": "off", "RATE_LIMIT": 0, "SSE_HEARTBEAT": 1.0})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1600, "height": 1100})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def _view(service: GameService, game_id: str, version: int) -> dict[str, Any]:
    game = service.state_at(game_id, version)
    return game.rules.view(game.state, None)


def _wait_version(page: Any, version: int) -> None:
    page.wait_for_function("v => document.body.dataset.version === String(v) && document.body.dataset.loading === 'false'",
                           arg=version, timeout=15_000)


def _check_drawn(page: Any, view: dict[str, Any]) -> None:
    """What the page shows equals the view: header, map pieces, deeds, every player board."""
    assert page.inner_text("#round") == f"{view['round']} / {view['rounds']}"
    assert page.inner_text("#phase") == view["phase"]
    board = view["board"]
    assert page.locator("[data-testid=station]").count() == len(board["stations"])
    assert page.locator("[data-testid=road-good]").count() == sum(len(c["goods"]) for c in board["connections"])
    assert page.locator("#map line").count() == len(board["connections"]) == 43
    assert page.locator("#map .town").count() == len(board["towns"]) == 23
    filled = sum(1 for d in board["deeds"] for s in d["spaces"] if s["seat"] is not None)
    assert page.locator("[data-testid=deed-filled]").count() == filled
    assert page.locator(".deed").count() == len(board["deeds"])
    assert page.locator("[data-testid=merchant]").count() == len(view["seats"])
    assert f"technology tiles {board['technology_tiles']}" in page.inner_text("#supply")
    for seat in view["seats"]:
        card = page.locator(f"[data-testid=player][data-seat='{seat['seat']}']")
        assert card.locator("[data-testid=coins]").inner_text() == str(seat["coins"])
        assert card.locator("[data-testid=citizens]").inner_text() == str(seat["citizens"])
        assert card.locator("[data-testid=bag]").inner_text() == str(seat["bag_count"])
        assert card.locator("[data-testid=market]").inner_text() == (", ".join(seat["market"]) or "–")
        placed = sum(1 for p in seat["places"] for s in p["spaces"] if s["holds"] not in (None, "tech"))
        techs = sum(1 for p in seat["places"] for s in p["spaces"] if s["holds"] == "tech")
        assert card.locator("[data-testid=placed]").count() == placed
        assert card.locator("[data-testid=tech-tile]").count() == techs
        assert card.locator("[data-testid=place-tile]").count() == sum(1 for p in seat["places"] if p["stack"])
        merchant = page.locator(f"[data-testid=merchant][data-seat='{seat['seat']}']")
        assert merchant.get_attribute("data-town") == seat["merchant"]


def test_finished_game_steps_and_matches_the_state(page: Any, server: str, service: GameService) -> None:
    game_id = play_to_end(service, "classic", 3, seed=f"viewer-{random.random()}")
    service.created.append(game_id)  # type: ignore[attr-defined]
    ends = service.batch_ends(game_id)
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    _wait_version(page, ends[0])
    assert page.inner_text("#status") == "finished"
    assert page.locator("#log li").count() == len(ends)
    _check_drawn(page, _view(service, game_id, ends[0]))

    for step in range(1, 4):
        page.click("#next")
        _wait_version(page, ends[step])
    _check_drawn(page, _view(service, game_id, ends[3]))
    page.keyboard.press("ArrowLeft")
    _wait_version(page, ends[2])

    middle = len(ends) // 2
    page.locator("#scrubber").fill(str(middle))
    _wait_version(page, ends[middle])
    _check_drawn(page, _view(service, game_id, ends[middle]))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "viewer-midgame.png"), full_page=True)

    page.click("#last")
    _wait_version(page, ends[-1])
    final = _view(service, game_id, ends[-1])
    _check_drawn(page, final)
    assert page.inner_text("#phase") == "finished"
    for seat in final["seats"]:
        header = page.locator(f"[data-testid=player][data-seat='{seat['seat']}'] h3").inner_text()
        assert f"score {seat['score']['total']}" in header
    assert page.locator("#log li.current").get_attribute("data-version") == str(ends[-1])
    page.screenshot(path=str(ARTIFACTS / "viewer-finished.png"), full_page=True)
    assert (ARTIFACTS / "viewer-finished.png").stat().st_size > 10_000


def test_live_game_follows_the_event_stream(page: Any, server: str, service: GameService) -> None:
    game_id = create(service, "2023", 4, seed=f"viewer-live-{random.random()}")
    service.created.append(game_id)  # type: ignore[attr-defined]
    chooser = random.Random(7)
    advance(service, game_id, chooser, max_commands=10)
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    _wait_version(page, service.load(game_id).version)
    assert page.inner_text("#status") == "active"
    advance(service, game_id, chooser, max_commands=15)
    latest = service.load(game_id).version
    _wait_version(page, latest)
    _check_drawn(page, service.load(game_id).rules.view(service.load(game_id).state, None))
    assert page.locator("#log li").count() == len(service.batch_ends(game_id))
    page.screenshot(path=str(ARTIFACTS / "viewer-live.png"), full_page=True)
