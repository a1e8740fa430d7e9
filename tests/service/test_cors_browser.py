"""Issue 13, "done when": a browser-only client on another origin plays a move.

The API runs on one loopback port; a plain page served from another port (another origin) uses
nothing but ``fetch``: it creates an Orléans game, reads its seat's legal moves with the bearer
token, posts the first one with If-Match and an Idempotency-Key, and shows the ETag and
RateLimit-Remaining headers it could read (only those the API exposes cross-origin). Headless
Chromium enforces CORS as any browser does, so a missing header fails the page, not just a unit.
"""
from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core.games import GameService
from service.app import create_app
from tests.browser import ARTIFACTS, launch, playwright_or_skip
from workers.jobs import run_advance

sync_api = playwright_or_skip()

PAGE = """<!doctype html><meta charset="utf-8"><title>a client elsewhere</title>
<pre id="out">working</pre>
<script>
const api = new URLSearchParams(location.search).get("api") + "/api/v1";
const out = document.getElementById("out");
async function play() {
  const json = (r) => { if (!r.ok) throw new Error(r.status + " " + r.url); return r.json(); };
  const created = await fetch(api + "/games", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({game: "orleans", edition: "classic", seats: [{name: "Ann"}, {name: "Bob"}]})}).then(json);
  const token = created.seats[0].token, auth = {Authorization: "Bearer " + token};
  const listed = await fetch(`${api}/games/${created.id}/moves`, {headers: auth}).then(json);
  const posted = await fetch(`${api}/games/${created.id}/moves`, {method: "POST",
    headers: {...auth, "Content-Type": "application/json", "If-Match": String(listed.version),
              "Idempotency-Key": "browser-" + listed.version},
    body: JSON.stringify(listed.moves[0])});
  const body = await json(posted);
  const state = await fetch(`${api}/games/${created.id}/state`, {headers: auth});
  out.textContent = JSON.stringify({id: created.id, before: listed.version, after: body.version,
    etag: state.headers.get("ETag"), remaining: posted.headers.get("RateLimit-Remaining")});
  out.dataset.done = "yes";
}
play().catch((e) => { out.textContent = "failed: " + e; out.dataset.done = "failed"; });
</script>
"""


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the http.server API)
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def servers(conn: redis.Redis) -> Iterator[tuple[str, str, GameService]]:
    from werkzeug.serving import make_server

    holder: list[GameService] = []  # the worker's part (SYSTEM steps), played right away in the request
    app = create_app({"REDIS": conn, "ADVANCE": lambda game_id, version: run_advance(holder[0], game_id)})
    holder.append(app.extensions["hourglass"])  # CORS: the default, any origin; rate limits on
    api = make_server("127.0.0.1", 0, app, threaded=True)
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    for server in (api, site):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{api.server_port}", f"http://127.0.0.1:{site.server_port}", app.extensions["hourglass"]
    api.shutdown()
    site.shutdown()


def test_a_page_on_another_origin_creates_a_game_and_plays_a_move(
        servers: tuple[str, str, GameService], created: list[str]) -> None:
    api, site, svc = servers
    assert api != site  # another port is another origin
    with sync_api.sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page()
        page.goto(f"{site}/?api={api}")
        page.wait_for_function("document.getElementById('out').dataset.done !== undefined", timeout=15_000)
        text = page.inner_text("#out")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "cors-browser-client.png"))
        browser.close()
    assert not text.startswith("failed"), text
    import json

    shown = json.loads(text)
    created.append(shown["id"])
    assert shown["after"] > shown["before"] and shown["etag"] == f'"{shown["after"]}"'
    assert shown["remaining"] is not None and int(shown["remaining"]) >= 0
    assert svc.load(shown["id"]).version == shown["after"]
