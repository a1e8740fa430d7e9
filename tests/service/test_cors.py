"""Issue 13: a browser client on another origin can play (flask-cors on /api/*)."""
from __future__ import annotations

from typing import Any

import pytest
import redis
from conftest import auth

from service import app as app_module
from service.app import create_app


def test_preflight_for_a_move_allows_the_headers_a_client_sends(client: Any, new_game: Any) -> None:
    game = new_game()
    r = client.options(f"/api/v1/games/{game['id']}/moves", headers={
        "Origin": "https://client.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key"})
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    allowed = r.headers["Access-Control-Allow-Headers"].lower()
    assert all(h in allowed for h in ("authorization", "content-type", "if-match", "idempotency-key"))
    assert "POST" in r.headers["Access-Control-Allow-Methods"]


def test_a_cross_origin_read_exposes_etag_and_rate_limit_headers(client: Any, new_game: Any) -> None:
    game = new_game()
    token = game["seats"][0]["token"]
    r = client.get(f"/api/v1/games/{game['id']}/state", headers={**auth(token), "Origin": "https://client.example"})
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"
    exposed = r.headers["Access-Control-Expose-Headers"]
    assert "ETag" in exposed and "RateLimit-Remaining" in exposed and "Idempotent-Replayed" in exposed
    assert "Access-Control-Allow-Credentials" not in r.headers


def test_an_origin_list_admits_only_its_origins(conn: redis.Redis, created: list[str]) -> None:
    app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0,
                      "CORS_ORIGINS": "https://a.example, https://b.example"})
    client = app.test_client()
    ok = client.get("/api/v1/games/nope", headers={"Origin": "https://b.example"})
    other = client.get("/api/v1/games/nope", headers={"Origin": "https://evil.example"})
    assert ok.headers.get("Access-Control-Allow-Origin") == "https://b.example"
    assert "Access-Control-Allow-Origin" not in other.headers


@pytest.mark.parametrize("origins", ["*", "https://a.example, https://b.example"])
def test_an_answer_with_remembered_cors_headers_is_the_one_flask_cors_gives(
        conn: redis.Redis, created: list[str], origins: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CORS headers of an API answer are kept per Origin (service.app._remembered_cors): every
    answer carries the headers flask-cors itself gives, in the same order."""
    config = {"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0, "CORS_ORIGINS": origins}
    client = create_app(config).test_client()
    with monkeypatch.context() as patch:
        patch.setattr(app_module, "_remembered_cors", lambda hook: hook)
        plain = create_app(config).test_client()  # flask-cors's hook as it comes
    made = client.post("/api/v1/games", json={"game": "toy", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]})
    created.append(made.json["id"])
    path = f"/api/v1/games/{made.json['id']}"
    for origin in (None, "https://b.example", "https://evil.example"):
        headers = {"Origin": origin} if origin else {}
        for method, url, body in (("GET", f"{path}/state", None), ("POST", f"{path}/moves", {"type": "Nope"}),
                                  ("GET", "/api/v1/games/nope", None), ("GET", "/openapi.json", None),
                                  ("OPTIONS", f"{path}/moves", None)):
            answers = [c.open(url, method=method, json=body, headers=headers) for c in (plain, client, client)]
            assert [list(a.headers) for a in answers[1:]] == [list(answers[0].headers)] * 2, (method, url, origin)
            assert len({a.status_code for a in answers}) == 1
        if origin is not None:  # without one, flask-cors sends every origin it allows
            assert ("Access-Control-Allow-Origin" in client.get(f"{path}/state", headers=headers).headers) == (
                origins == "*" or origin == "https://b.example")
