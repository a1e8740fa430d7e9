"""The OpenAPI document tells generated clients the truth (issue 13).

Errors are application/problem+json with the Problem schema and no catch-all default; every
operation declares 429 and 503 with Retry-After, 401 with WWW-Authenticate where a token is
read; each operation's security says whether a seat token is required, optional or unused;
streams are declared as text/event-stream and application/x-ndjson; every registered game has
typed moves (a discriminated union), config, options, view and result. ReDoc and Swagger UI are
served from the package.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from domain.apischema import find
from domain.games import game_names, get_game
from service.openapi import AUTH, PROBLEMS, component_prefix
from tests.browser import ARTIFACTS, launch, playwright_or_skip
from tests.live import PATIENCE_S

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture
def spec(client: Any) -> dict[str, Any]:
    return dict(client.get("/openapi.json").json)


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def test_openapi_31_with_unique_operation_ids_all_declared(spec: dict[str, Any]) -> None:
    assert spec["openapi"] == "3.1.0"
    ids = [op["operationId"] for _, _, op in operations(spec)]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(PROBLEMS), "every operation lists its problems in service/openapi.py"


def test_errors_are_problem_json_with_their_headers(spec: dict[str, Any]) -> None:
    for path, method, op in operations(spec):
        responses = op["responses"]
        assert "default" not in responses, (path, method)
        for status in ("429", "503"):
            assert responses[status]["headers"]["Retry-After"]["required"] is True
        for status, response in responses.items():
            assert "RateLimit-Remaining" in response["headers"], (path, method, status)
            if (path, status) == ("/games/{game_id}", "404"):  # the viewer: a page for people, a problem for programs
                assert set(response["content"]) == {"text/html", "application/problem+json"}
                assert response["content"]["application/problem+json"]["schema"] == {
                    "$ref": "#/components/schemas/Problem"}
            elif int(status) >= 400:
                assert list(response["content"]) == ["application/problem+json"], (path, method, status)
                assert response["content"]["application/problem+json"]["schema"] == {
                    "$ref": "#/components/schemas/Problem"}
        if "401" in responses:
            assert responses["401"]["headers"]["WWW-Authenticate"]["required"] is True
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail", "kind"}
    assert not {"DEFAULT_ERROR", "Error"} & set(spec["components"].get("responses", {}) | spec["components"]["schemas"])


def test_security_says_which_operations_read_a_token(spec: dict[str, Any]) -> None:
    """Seat tokens (bearerAuth) and account keys (accountKey) are two declared schemes; an
    operation that reads one declares it, and its 401."""
    for _path, _method, op in operations(spec):
        assert op["security"] == AUTH.get(op["operationId"], []), op["operationId"]
        if op["security"]:
            assert "401" in op["responses"], op["operationId"]
    schemes = spec["components"]["securitySchemes"]
    assert schemes["bearerAuth"]["scheme"] == schemes["accountKey"]["scheme"] == "bearer"
    by_scheme = {name: {op["operationId"] for _p, _m, op in operations(spec)
                        if any(name in requirement for requirement in op["security"])}
                 for name in schemes}
    assert {"postMove", "getState", "streamEvents"} <= by_scheme["bearerAuth"]
    assert {"signUp"}.isdisjoint(by_scheme["accountKey"] | by_scheme["bearerAuth"])
    assert {"registerBot", "createTournament", "streamAccountEvents", "createGame"} <= by_scheme["accountKey"]


def test_request_only_schemas_say_their_defaults_in_words(spec: dict[str, Any]) -> None:
    """openapi-typescript types a property with a default as always present: right for answers,
    wrong for requests. Request-only schemas keep the server's default in the description."""
    kind = spec["components"]["schemas"]["SeatSpec"]["properties"]["kind"]
    assert "default" not in kind and kind["description"].endswith('(default: "human")')
    assert "kind" not in spec["components"]["schemas"]["SeatSpec"].get("required", [])
    assert spec["components"]["schemas"]["OrleansConfig"]["properties"]["exclusion"]["default"] is False  # an answer's


def test_stream_bodies_are_strings_whose_lines_are_named_components(spec: dict[str, Any]) -> None:
    stream = spec["paths"]["/api/v1/games/{game_id}/events/stream"]["get"]["responses"]["200"]["content"]
    for media in stream.values():  # SSE: one event's schema (as OpenAPI 3.1 tools read it) or the raw text
        assert "string" in [option.get("type") for option in media["schema"].get("anyOf", [media["schema"]])]
        assert media["x-itemSchema"] == {"$ref": "#/components/schemas/StreamLine"}
    line = spec["components"]["schemas"]["StreamLine"]
    kinds = {"snapshot", "event", "clocks", "moves", "head", "end", "resync"}
    assert set(line["discriminator"]["mapping"]) == kinds and all("$ref" in option for option in line["oneOf"])
    for kind, ref in line["discriminator"]["mapping"].items():
        assert spec["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]["kind"]["enum"] == [kind]


def test_replay_names_the_archive_problem_kinds(spec: dict[str, Any]) -> None:
    """GET .../replay's 503: the store's UNAVAILABLE and the archive's two kinds (replays.archive),
    each in the description and as an example body the Problem schema requires."""
    unavailable = spec["paths"]["/api/v1/games/{game_id}/replay"]["get"]["responses"]["503"]
    examples = unavailable["content"]["application/problem+json"]["examples"]
    assert set(examples) == {"UNAVAILABLE", "ARCHIVE_BUSY", "ARCHIVE_UNAVAILABLE"}
    required = set(spec["components"]["schemas"]["Problem"]["required"])
    for kind, example in examples.items():
        assert kind in unavailable["description"] and example["value"]["kind"] == kind
        assert required <= set(example["value"]) and example["value"]["status"] == 503
    assert unavailable["headers"]["Retry-After"]["required"] is True


def test_headers_and_streams_are_declared(spec: dict[str, Any]) -> None:
    paths = spec["paths"]
    state = paths["/api/v1/games/{game_id}/state"]["get"]["responses"]
    assert state["200"]["headers"]["ETag"]["required"] and state["304"]["headers"]["ETag"]["required"]
    posted = paths["/api/v1/games/{game_id}/moves"]["post"]
    assert set(posted["responses"]) >= {"200", "400", "401", "404", "409", "412", "422", "429", "503"}
    assert "Idempotent-Replayed" in posted["responses"]["200"]["headers"]
    assert posted["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Move"}
    assert posted["responses"]["412"]["headers"]["ETag"]["required"]
    stream = paths["/api/v1/games/{game_id}/events/stream"]["get"]["responses"]["200"]["content"]
    assert set(stream) == {"text/event-stream", "application/x-ndjson"}
    replay = paths["/api/v1/games/{game_id}/replay"]["get"]["responses"]["200"]["content"]
    assert list(replay) == ["application/x-ndjson"]
    listing = paths["/api/v1/games"]["get"]
    assert {p["name"] for p in listing["parameters"]} >= {"game", "edition", "status", "open", "player", "bot",
                                                          "limit", "cursor"}
    assert "400" in listing["responses"]


def test_every_game_has_typed_moves_config_view_and_result(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    for name in game_names():
        prefix = component_prefix(name)
        published = find(name, get_game(name))
        assert published is not None
        union = schemas[f"{prefix}Move"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == {cls.__name__ for cls in published.moves}
        for ref in union["oneOf"]:
            move = schemas[ref["$ref"].rsplit("/", 1)[1]]
            assert "seat" not in move["properties"] and move["required"][0] == "type"
        assert {"$ref": f"#/components/schemas/{prefix}Move"} in schemas["Move"]["anyOf"]
        assert schemas["GameView"]["discriminator"]["mapping"][name] == f"#/components/schemas/{prefix}View"
        assert schemas["CreateGame"]["discriminator"]["mapping"][name] == f"#/components/schemas/Create{prefix}Game"
        assert {"edition", "players"}.isdisjoint(schemas[f"{prefix}Options"]["properties"])
        create = schemas[f"Create{prefix}Game"]  # the server picks the default edition: not required
        assert create["required"] == ["game", "seats"] and "edition" in create["properties"], create["required"]
    orleans = schemas["OrleansPlaceFollower"]
    assert orleans["properties"]["tile"]["enum"][:2] == ["farmer", "boatman"] and orleans["additionalProperties"] is False
    assert schemas["OrleansOptions"]["properties"]["exclusion"] == {"type": "boolean", "description": "default: false"}
    assert schemas["State"]["properties"]["view"]["$ref"] == "#/components/schemas/GameView"
    assert schemas["Moves"]["properties"]["moves"]["items"] == {"$ref": "#/components/schemas/Move"}


def test_redoc_and_swagger_ui_are_served_from_the_package(client: Any) -> None:
    page = client.get("/redoc")
    assert page.status_code == 200 and b'src="/redoc/init.js"' in page.data
    assert b"disableTelemetry: true" in client.get("/redoc/init.js").data
    assert b"http" not in page.data.lower().replace(b'http-equiv', b'')  # nothing from another origin
    script = client.get("/redoc/redoc.standalone.js")
    assert script.status_code == 200 and len(script.data) > 500_000
    assert b"cdn.redoc.ly" not in script.data  # the attribution logo is ours, served here
    assert b"`/redoc/logo.svg`" in script.data and client.get("/redoc/logo.svg").mimetype == "image/svg+xml"
    assert client.get("/docs/").status_code == 200


def test_redoc_renders_offline_in_a_browser(conn: redis.Redis) -> None:
    sync_api = playwright_or_skip()
    from werkzeug.serving import make_server

    from service.app import create_app

    app = create_app({"REDIS": conn, "ADVANCE": "off", "RATE_LIMIT": 0})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_port}"
    try:
        with sync_api.sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            offsite: list[str] = []  # requests to any other origin, even those the CSP would block
            page.on("request", lambda r: offsite.append(r.url) if not r.url.startswith((base, "data:", "blob:")) else None)
            page.on("console", lambda m: offsite.append(m.text) if "Content Security Policy" in m.text else None)
            logo: list[int] = []
            page.on("response", lambda r: logo.append(r.status) if r.url == f"{base}/redoc/logo.svg" else None)
            page.goto(f"{base}/redoc")
            page.get_by_text("Legal moves and submitting a move").first.wait_for(timeout=PATIENCE_S * 1000)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "redoc.png"))
            browser.close()
    finally:
        httpd.shutdown()
    assert offsite == [] and logo == [200]  # ReDoc's attribution logo came from here


def test_unknown_pages_under_games_are_a_problem_for_programs_and_a_page_for_people(client: Any) -> None:
    """Issue 25: what the document declares for /games/{game_id}'s 404, for both kinds of client."""
    for path in ("/games/0000000000000000", "/games/0000000000000000/nothing", "/games/%3Cb%3E"):
        program = client.get(path, headers={"Accept": "application/json"})
        assert program.status_code == 404 and program.mimetype == "application/problem+json", path
        assert program.json["kind"] == "NOT_FOUND" and set(program.json) == {"type", "title", "status", "detail", "kind"}
        assert client.get(path, headers={"Accept": "application/problem+json"}).json["status"] == 404
        assert client.get(path).mimetype == "application/problem+json"  # no preference (curl's */*): the problem
        person = client.get(path, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
        assert person.status_code == 404 and person.mimetype == "text/html" and b"<b>" not in person.data
