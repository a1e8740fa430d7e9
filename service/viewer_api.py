"""The viewer: its page, its friendly 404 page, and the one read-only endpoint it needs.

- ``GET /games/{id}``                 the viewer (static HTML/CSS/JS from replays/static/); an unknown
                                      id (or a deeper path) gets a 404: an HTML page a person can read
                                      when the request prefers text/html (a browser), else the API's
                                      problem+json (a script's ``Accept: */*`` or application/json)
- ``GET /lobby``                      the lobby: open games to join (static; reads the lobby API)
- ``GET /api/v1/reference/{game}``    the printed parts of a game the views do not repeat (place and
                                      card names, track lengths, bonus spaces; replays/reference.py)

Everything else the viewer shows comes from the public API (summary, timeline, states, events,
stream). The app factory registers ``blp``.
"""
from __future__ import annotations

import html
from importlib import resources
from typing import Any

from flask import Response, request, send_from_directory
from flask_smorest import Blueprint

from core.store import EventStore
from replays.reference import reference
from service.openapi import HTML, PROBLEM_JSON
from service.problems import ApiProblem
from service.replay_api import archive_holds
from service.web import service

STATIC_DIR = str(resources.files("replays").joinpath("static"))
PAGE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; object-src 'none'; base-uri 'none'"
NOT_FOUND_PAGE = "notfound.html"
ARCHIVED_NOTE = ('<p data-testid="archived">This game has finished and left the server\'s live store, but its '
                 'record is available: its replay bundle is at <a href="{href}">{href}</a>.</p>')
LOBBY_PAGE = "lobby.html"

blp = Blueprint("viewer", __name__, description="The game viewer page and its reference data")


def _store() -> EventStore:
    store: EventStore = service().store
    return store


@blp.route("/games/<path:game_id>")
@blp.doc(operationId="viewerPage", responses={
    "200": {"description": "the viewer page", "content": {"text/html": {"schema": {"type": "string"}}}},
    "404": {"description": "no such game: a page for people when the request prefers text/html, else problem+json",
            "content": {HTML: {"schema": {"type": "string"}}}},
})
def viewer(game_id: str) -> Response:
    """The game viewer (HTML; the page reads the game id from its address)."""
    if "/" in game_id or not _store().exists(game_id):
        if _prefers_html():
            return _not_found_page(game_id)
        shown = game_id if len(game_id) <= 80 else game_id[:80] + "…"
        raise ApiProblem(404, "NOT_FOUND", f"no game {shown!r} (the viewer's pages are /games/<id>)")
    response = send_from_directory(STATIC_DIR, "viewer.html", max_age=0)
    response.headers["Content-Security-Policy"] = PAGE_CSP
    return response


def _prefers_html() -> bool:
    """A browser's navigation asks for text/html first; ``*/*`` and JSON get the problem."""
    best = request.accept_mimetypes.best_match([PROBLEM_JSON, "application/json", HTML], default=PROBLEM_JSON)
    return best == HTML


@blp.route("/lobby")
@blp.doc(operationId="lobbyPage", responses={
    "200": {"description": "the lobby page", "content": {"text/html": {"schema": {"type": "string"}}}}})
def lobby() -> Response:
    """The lobby (HTML): games with an open seat, and a button per seat that joins it and opens the
    viewer as that seat. A static page; everything it shows comes from ``GET /api/v1/games``."""
    response = send_from_directory(STATIC_DIR, LOBBY_PAGE, max_age=0)
    response.headers["Content-Security-Policy"] = PAGE_CSP
    return response


def _not_found_page(game_id: str) -> Response:
    template = resources.files("replays").joinpath("static", NOT_FOUND_PAGE).read_text(encoding="utf-8")
    shown = game_id if len(game_id) <= 80 else game_id[:80] + "…"
    archived = "/" not in game_id and archive_holds(game_id)
    note = ARCHIVED_NOTE.format(href=html.escape(f"/api/v1/games/{game_id}/replay")) if archived else ""
    page = template.replace("{{game_id}}", html.escape(shown)).replace("{{archived}}", note)
    response = Response(page, status=404, mimetype="text/html")
    response.headers["Content-Security-Policy"] = PAGE_CSP
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.route("/api/v1/reference/<string:game>")
@blp.doc(operationId="getReference", responses={
    "200": {"description": "names, track lengths and bonus spaces of the game's printed parts",
            "content": {"application/json": {"schema": {"type": "object", "additionalProperties": True}}}}})
def game_reference(game: str) -> Any:
    """The printed reference data of a game (static per engine; cacheable)."""
    data = reference(game)
    if data is None:
        raise ApiProblem(404, "NOT_FOUND", f"no reference data for game {game[:40]!r}")
    return data, 200, {"Cache-Control": "public, max-age=3600"}
