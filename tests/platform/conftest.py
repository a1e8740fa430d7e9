"""Fixtures for the competition platform: an app on the test Redis, clean-up of every bot,
game and tournament a test made, and a private Fernet key for bot secrets."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from cryptography.fernet import Fernet

from core.accounts import Accounts
from core.bots import BotRegistry
from core.tournament_store import TournamentStore
from service.app import create_app
from tests.conftest import forget_games

REDIS_URL = os.environ["HOURGLASS_TEST_REDIS_URL"]  # settled by tests/conftest.py
SECRET_KEY = Fernet.generate_key().decode()
os.environ.setdefault("HOURGLASS_SECRET_KEY", SECRET_KEY)


@pytest.fixture(scope="session", autouse=True)
def leaderboards(conn: redis.Redis) -> Iterator[None]:
    """The leaderboards (``hg:lb:*``, core.leaderboard) that this run's rated tournaments started
    are deleted when the run ends: a board sums every tournament of its game and edition, so no
    single test can take its own share back out."""
    before = set(conn.scan_iter(match="hg:lb:*", count=1000))
    yield
    started = set(conn.scan_iter(match="hg:lb:*", count=1000)) - before
    if started:
        conn.delete(*started)


@pytest.fixture
def made(conn: redis.Redis) -> Iterator[dict[str, list[str]]]:
    """Ids to delete after the test: {"bots": [...], "games": [...], "tournaments": [...], "accounts": [...]}."""
    ids: dict[str, list[str]] = {"bots": [], "games": [], "tournaments": [], "accounts": []}
    yield ids
    Accounts(conn).delete(ids["accounts"])
    store = TournamentStore(conn)
    for tid in ids["tournaments"]:
        try:
            loaded = store.load(tid)
            ids["games"] += [g.game_id for g in loaded.tournament.games if g.game_id]
        except LookupError:
            pass
    store.delete(ids["tournaments"])
    forget_games(conn, ids["games"])
    BotRegistry(conn).delete(ids["bots"])


@pytest.fixture
def app(conn: redis.Redis) -> Any:
    return create_app({"REDIS": conn, "TESTING": True, "CLIENT_SEEDS": "any", "SSE_HEARTBEAT": 0.2,
                       "RATE_LIMIT": 0, "ADVANCE": "off"})


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


def new_account(conn: redis.Redis, made: dict[str, list[str]], prefix: str = "owner") -> dict[str, Any]:
    """An account (``{id, name, key, …}``), deleted after the test."""
    account = Accounts(conn).create(unique(prefix))
    made["accounts"].append(account["id"])
    return account


@pytest.fixture
def owner(conn: redis.Redis, made: dict[str, list[str]]) -> dict[str, Any]:
    """The account the test's bots and tournaments belong to."""
    return new_account(conn, made)


@pytest.fixture
def register(client: Any, made: dict[str, list[str]], owner: dict[str, Any]) -> Callable[..., dict[str, Any]]:
    """POST /api/v1/bots with the ``owner`` account's key, and remember the bot for clean-up."""

    def make(name: str, kind: str = "pull", **extra: Any) -> dict[str, Any]:
        response = client.post("/api/v1/bots", json={"name": name, "kind": kind, **extra}, headers=auth(owner["key"]))
        assert response.status_code == 201, response.get_data(as_text=True)
        made["bots"].append(response.json["id"])
        return response.json

    return make


def unique(prefix: str) -> str:
    return f"{prefix}-{os.urandom(4).hex()}"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def server(conn: redis.Redis) -> Iterator[str]:
    """The app on a real port for a browser (threaded werkzeug, no worker): its base URL."""
    import threading

    from werkzeug.serving import make_server

    app = create_app({"REDIS": conn, "ADVANCE": "off", "RATE_LIMIT": 0, "SSE_HEARTBEAT": 1.0})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture()
def page() -> Iterator[Any]:
    """A headless Chromium page; the test fails on any JavaScript error the page raised."""
    from tests.browser import launch, playwright_or_skip

    sync_api = playwright_or_skip()
    with sync_api.sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
        browser.close()
        assert not errors, f"JavaScript errors: {errors}"

