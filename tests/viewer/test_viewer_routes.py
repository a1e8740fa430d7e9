"""The viewer's routes over HTTP (no browser): the page, its modules, the 404 page for people,
and the reference data endpoint built from each game's rules tables."""
from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from core.games import GameService
from domain.artificium import data as A
from domain.orleans import data as O
from replays.reference import reference
from tests.viewer.conftest import shot
from tests.viewer.helpers import create

STATIC = resources.files("replays").joinpath("static")
MODULES = sorted(p.name for p in STATIC.iterdir() if p.name.endswith(".js"))


@pytest.fixture(scope="module")
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture(scope="module")
def game_id(service: GameService) -> str:
    return str(create(service, "orleans", 2, edition="classic", humans=0)["id"])


def test_the_page_and_every_module_are_served(client: Any, game_id: str) -> None:
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "script-src" not in page.headers["Content-Security-Policy"]  # default-src 'self' covers modules
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert b'type="module" src="/replays/static/viewer.js"' in page.get_data()
    assert {"viewer.js", "renderers.js", "orleans.js", "artificium.js"} <= set(MODULES)
    for name in MODULES:
        script = client.get(f"/replays/static/{name}")
        assert script.status_code == 200 and script.mimetype in ("text/javascript", "application/javascript"), name
    for name in ("viewer.css", "orleans.css", "artificium.css"):
        assert client.get(f"/replays/static/{name}").status_code == 200


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
UNKNOWN = ["/games/no-such-game", "/games/a/b", "/games/" + "x" * 300]


@pytest.mark.parametrize("path", UNKNOWN)
def test_an_unknown_game_gets_a_page_for_people(client: Any, path: str) -> None:
    response = client.get(path, headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 404 and response.mimetype == "text/html"
    body = response.get_data(as_text=True)
    assert "There is no game" in body and "/docs" in body and "{{" not in body and '"kind"' not in body
    assert response.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "application/problem+json",
                                    "application/json, text/html;q=0.5"])
@pytest.mark.parametrize("path", UNKNOWN)
def test_an_unknown_game_gets_problem_json_for_api_clients(client: Any, path: str, accept: str | None) -> None:
    """Issue 25: a script (curl's */*, a generated client's JSON) gets the declared problem+json."""
    response = client.get(path, headers={"Accept": accept} if accept else {})
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["kind"] == "NOT_FOUND" and problem["status"] == 404 and len(problem["detail"]) < 200


def test_the_viewer_404_is_declared_both_ways(client: Any) -> None:
    declared = client.get("/openapi.json").get_json()["paths"]["/games/{game_id}"]["get"]["responses"]["404"]
    assert set(declared["content"]) == {"text/html", "application/problem+json"}
    assert declared["content"]["application/problem+json"]["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_the_404_page_escapes_the_address(client: Any) -> None:
    body = client.get("/games/%3Cscript%3Ealert(1)%3C%2Fscript%3E", headers={"Accept": BROWSER_ACCEPT}).get_data(as_text=True)
    assert "<script>" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_the_404_page_in_a_browser(open_page: Any, server: str) -> None:
    page = open_page()
    response = page.goto(f"{server}/games/no-such-game")
    assert response.status == 404 and response.headers["content-type"].startswith("text/html")
    assert "no-such-game" in page.inner_text("[data-testid=not-found]")
    assert page.locator("a[href='/docs']").count() == 1
    shot(page, "not-found")


def test_reference_data_comes_from_the_rules_tables(client: Any) -> None:
    orleans = client.get("/api/v1/reference/orleans")
    assert orleans.status_code == 200 and "max-age" in orleans.headers["Cache-Control"]
    body = orleans.get_json()
    assert body["places"]["wagon"]["name"] == O.PLACES["wagon"].name
    assert body["development"]["length"] == O.DEVELOPMENT_MAX
    assert body["development"]["citizens"] == list(O.DEVELOPMENT_CITIZENS)
    assert len(body["hourglass"]["2023"]) == len(body["hourglass"]["classic"]) == O.ROUNDS
    assert body["hourglass"]["2023"][1] == "A" and body["hourglass"]["2023"][-1] == "C"
    artificium = client.get("/api/v1/reference/artificium").get_json()
    assert artificium["cards"]["mill_bakery"]["name"] == A.CARDS[A.Card.MILL_BAKERY].name
    assert sum(c["count"] for c in artificium["cards"].values()) == len(A.FULL_DECK)
    assert [r["id"] for r in artificium["resources"]] == [r.value for r in A.Resource]
    assert reference("orleans") is reference("orleans")  # built once per process
    assert reference("no-such-game") is None  # a game without one: the viewer draws from its views alone


def test_reference_for_an_unknown_game_is_a_problem(client: Any) -> None:
    response = client.get("/api/v1/reference/chess")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    assert response.get_json()["kind"] == "NOT_FOUND"
