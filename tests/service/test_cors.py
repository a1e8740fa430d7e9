"""Issue 13: a browser client on another origin can play (flask-cors on /api/*)."""
from __future__ import annotations

from typing import Any

import redis
from conftest import auth

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
