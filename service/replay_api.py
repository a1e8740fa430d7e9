"""Replays over HTTP: the bundle, verification and the timeline the viewer steps through.

- ``GET  /api/v1/games/{id}/replay``   the ``hourglass-replay/2`` bundle (409 while the game runs)
- ``POST /api/v1/replays/verify``      upload a bundle (raw body or multipart field ``bundle``)
- ``GET  /api/v1/games/{id}/timeline`` the version after each batch (the viewer's steps)

The viewer's page and reference data are in service/viewer_api.py. The app factory registers ``blp``.
"""
from __future__ import annotations

from importlib import resources
from typing import Any

from flask import Response, request
from flask_smorest import Blueprint

from core.store import EventStore
from replays.bundle import NotFinished, build_bundle
from replays.source import load_game
from replays.timetravel import versions_of_batches
from replays.verify import verify_bundle
from service.problems import ApiProblem
from service.web import service

STATIC_DIR = str(resources.files("replays").joinpath("static"))
BUNDLE_MIMETYPE = "application/x-ndjson"
MAX_BUNDLE_BYTES = 64 * 1024 * 1024

blp = Blueprint(
    "replays", __name__, description="Replay bundles, verification and the replay viewer",
    static_folder=STATIC_DIR, static_url_path="/replays/static",
)


def _store() -> EventStore:
    store: EventStore = service().store
    return store


def _bundle_or_problem(game_id: str) -> str:
    """The finished game's bundle: built on the first request, then served as stored."""
    store = _store()
    stored = store.stored_bundle(game_id)
    if stored is not None:
        return stored
    meta, entries = load_game(store, game_id)
    if meta.get("status") not in ("finished", "aborted"):
        raise ApiProblem(409, "GAME_NOT_FINISHED",
                         f"game {game_id} is still being played; its replay (and seed) is published when it ends")
    try:
        text = build_bundle(game_id, meta, entries)
    except NotFinished as exc:
        raise ApiProblem(409, "GAME_NOT_FINISHED", str(exc)) from None
    store.store_bundle(game_id, text)
    return text


@blp.route("/api/v1/games/<game_id>/replay")
@blp.doc(operationId="getReplay")
@blp.doc(responses={"200": {"description": "hourglass-replay/2 bundle (JSON Lines)",
                            "content": {BUNDLE_MIMETYPE: {"schema": {"type": "string"}}}},
                    "404": {"description": "unknown game"}, "409": {"description": "game not finished"}})
def replay(game_id: str) -> Response:
    """Download the replay bundle of a finished game."""
    text = _bundle_or_problem(game_id)
    response = Response(text, mimetype=BUNDLE_MIMETYPE)
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.hourglass-replay.jsonl"'
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


def _uploaded_bundle() -> bytes:
    request.max_content_length = MAX_BUNDLE_BYTES  # bundles are far larger than a move body
    if request.content_length is not None and request.content_length > MAX_BUNDLE_BYTES:
        raise ApiProblem(413, "TOO_LARGE", f"a bundle may be at most {MAX_BUNDLE_BYTES} bytes")
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("bundle")
        data = upload.read(MAX_BUNDLE_BYTES + 1) if upload is not None else b""
    else:  # any other type is the raw bundle (curl --data-binary sends a form type by default)
        data = request.get_data(cache=False, parse_form_data=False)
    if len(data) > MAX_BUNDLE_BYTES:
        raise ApiProblem(413, "TOO_LARGE", f"a bundle may be at most {MAX_BUNDLE_BYTES} bytes")
    if not data:
        raise ApiProblem(400, "MALFORMED", "send the bundle as the request body or as the multipart field 'bundle'",
                         title="Malformed request")
    return data


@blp.route("/api/v1/replays/verify", methods=["POST"])
@blp.doc(operationId="verifyReplay")
@blp.doc(requestBody={"required": True, "content": {
    BUNDLE_MIMETYPE: {"schema": {"type": "string", "minLength": 1}},
    "multipart/form-data": {"schema": {"type": "object", "required": ["bundle"], "properties": {
        "bundle": {"type": "string", "format": "binary", "minLength": 1}}}}}},
         responses={"200": {"description": "the verification report: ok, or the first divergence"}})
def verify() -> Any:
    """Verify an uploaded bundle: 200 with ``ok`` true, or false and the first divergence."""
    return verify_bundle(_uploaded_bundle()).to_json()


@blp.route("/api/v1/games/<game_id>/timeline")
@blp.doc(operationId="getTimeline")
def timeline(game_id: str) -> Any:
    """The version after each batch with who acted; finished games also list each command."""
    meta, entries = load_game(_store(), game_id)
    finished = meta.get("status") in ("finished", "aborted")
    ends = versions_of_batches(entries)
    firsts = [e for e in entries if e.get("command") is not None]
    steps = []
    for end, first in zip(ends, firsts):
        step: dict[str, Any] = {"version": end, "actor": first["actor"]}
        if finished:
            step["command"] = first["command"]
        steps.append(step)
    return {"id": game_id, "status": meta.get("status", "active"), "version": ends[-1], "steps": steps}
