"""Fixtures for the viewer tests: a live app on the test Redis, games played through the real
GameService (bot policies choose every seat's moves, human seats included), and headless
Chromium (Debian's /usr/bin/chromium driven by Playwright for Python).

Browser tests skip, with the reason shown by ``-ra``, when chromium or Playwright is missing; the
plain HTTP tests of the viewer's routes run anyway. Screenshots go to tests/artifacts/viewer/
(gitignored), one per behaviour the tests check, for a person to look at.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from core.games import GameService
from service.app import create_app
from tests.browser import ARTIFACTS as BROWSER_ARTIFACTS
from tests.browser import launch, playwright_or_skip
from tests.conftest import forget_games

ARTIFACTS = BROWSER_ARTIFACTS / "viewer"
LAPTOP = {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def service(conn: redis.Redis) -> Iterator[GameService]:
    """A GameService whose games (listed in ``service.created``) are deleted after the module."""
    svc = GameService(conn, client_seeds="any")
    svc.created = []  # type: ignore[attr-defined]
    yield svc
    forget_games(conn, svc.created)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def app(service: GameService) -> Any:
    return create_app({"REDIS": service.store.conn, "ADVANCE": "off", "RATE_LIMIT": 0, "SSE_HEARTBEAT": 1.0})


@pytest.fixture(scope="module")
def server(app: Any) -> Iterator[str]:
    from werkzeug.serving import make_server

    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = playwright_or_skip()
    with sync_api.sync_playwright() as pw:
        chromium = launch(pw)
        yield chromium
        chromium.close()


@pytest.fixture()
def open_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """``open_page(viewport=LAPTOP)`` -> a fresh page (own context, so own sessionStorage) that
    records every request URL in ``page.urls`` and fails the test on any JavaScript error."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(viewport: dict[str, int] = LAPTOP) -> Any:
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.urls = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda request: page.urls.append(request.url))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


def shot(page: Any, name: str, *, full_page: bool = False) -> Path:
    """Keep a screenshot as a test artifact (tests/artifacts/viewer/<name>.png)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 5_000
    return path
