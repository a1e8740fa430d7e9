"""Replays over HTTP: the bundle, verification and the timeline the viewer steps through.

- ``GET  /api/v1/games/{id}/replay``   the ``hourglass-replay/4`` bundle, signed (409 while the game runs);
  once Redis has let a finished game go, the archive's copy (``replays.archive``, when configured)
- ``POST /api/v1/replays/verify``      upload a bundle (raw body or multipart field ``bundle``),
  verified as it streams in, within the bounds of ``service.verify_bounds``
- ``GET  /api/v1/games/{id}/timeline`` the version after each batch (the viewer's steps)
- ``GET  /.well-known/hourglass-keys.json`` the public keys bundles and packages are signed with

The viewer's page and reference data are in service/viewer_api.py. The app factory registers ``blp``.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

from flask import Response, current_app, g, request
from flask_smorest import Blueprint
from werkzeug.wsgi import get_input_stream

from core.signing import service_keys
from core.store import EventStore
from domain.canonical import canonical_json
from replays.archive import READS, ArchiveBusy, ArchiveError, ArchiveReads, reads_from_env
from replays.bundle import NotFinished
from replays.source import GameNotFound, load_game, published_bundle
from replays.timetravel import versions_of_batches
from replays.verify import Signing, verify_stream
from service import limits
from service.problems import ApiProblem
from service.verify_bounds import (
    Bounds,
    Refused,
    Work,
    admitted,
    declared_too_large,
    multipart_field,
    too_large,
)
from service.web import service

STATIC_DIR = str(resources.files("replays").joinpath("static"))
BUNDLE_MIMETYPE = "application/x-ndjson"
ARCHIVE_READ_COST = 0.1  # work units per read that reaches the archive: 1,000 a day at the default budget
ARCHIVE_RETRY_S = 5
READS_KEY = "hourglass.archive_reads"
_READS_LOCK = threading.Lock()
log = logging.getLogger("hourglass.archive")

blp = Blueprint(
    "replays", __name__, description="Replay bundles, verification and the replay viewer",
    static_folder=STATIC_DIR, static_url_path="/replays/static",
)


def _store() -> EventStore:
    store: EventStore = service().store
    return store


def _bundle_or_problem(game_id: str) -> str:
    """The finished game's signed bundle: built on the first request, then served as stored; once
    Redis has let the game go, the archive's copy. An id neither knows is the same 404 either way."""
    try:
        return published_bundle(_store(), game_id)
    except NotFinished as exc:
        raise ApiProblem(409, "GAME_NOT_FINISHED", str(exc)) from None
    except GameNotFound:
        archived = _archived(game_id)
        if archived is None:
            raise
        return archived


def _archived(game_id: str) -> str | None:
    """The archive's bundle of ``game_id``, or None. A read that would reach the archive costs the
    caller ``ARCHIVE_READ_COST`` work units first (429 when short; given back when no slot was
    free); 503 when this process reads all it may at once, or the archive fails (logged without
    the failure's own text)."""
    reads = _archive_reads()
    if reads is None or not reads.may_hold(game_id):
        return None
    budget = limits.charge(ARCHIVE_READ_COST, "reading an archived replay bundle")
    try:
        return reads.get(game_id)
    except ArchiveBusy:
        budget.give_back(_store().conn, ARCHIVE_READ_COST)  # nothing was read
        raise ApiProblem(503, "ARCHIVE_BUSY", "this server reads as many archived bundles as it may at once; "
                         "retry shortly", headers={"Retry-After": str(ARCHIVE_RETRY_S)}) from None
    except ArchiveError as exc:  # its message names the object and the failure's kind: no secrets
        log.error("hourglass: could not read game %s from the archive: %s", game_id, exc)
        raise ApiProblem(503, "ARCHIVE_UNAVAILABLE", "archived bundles cannot be read just now; retry later",
                         headers={"Retry-After": str(ARCHIVE_RETRY_S)}) from None


def archive_holds(game_id: str) -> bool:
    """Whether the archive has ``game_id``'s bundle, asked as ``GET .../replay`` asks it (the same
    read slots, negative cache and work budget); False when it cannot say just now."""
    try:
        return _archived(game_id) is not None
    except ApiProblem:  # 429 or 503: the caller's page says only what Redis knows
        return False


def _archive_reads() -> ArchiveReads | None:
    """This app's archive reads, made on first use (boto3 is imported only then)."""
    extensions = current_app.extensions
    if READS_KEY not in extensions:
        with _READS_LOCK:
            if READS_KEY not in extensions:
                extensions[READS_KEY] = _configured_reads(current_app.config)
    reads: ArchiveReads | None = extensions[READS_KEY]
    return reads


def _configured_reads(config: Mapping[str, Any]) -> ArchiveReads | None:
    """From the app's ``ARCHIVE`` (an archive object, or None; tests and embedders) and
    ``ARCHIVE_READS`` (0: none), else from the environment the workers archive by (``replays.archive``)."""
    if "ARCHIVE" in config:
        archive, at_once = config["ARCHIVE"], int(config.get("ARCHIVE_READS", READS))
        return None if archive is None or at_once <= 0 else ArchiveReads(archive, at_once)
    try:
        return reads_from_env()
    except ValueError as exc:  # the workers refuse to start on the same settings: say it, serve without
        log.error("hourglass: archived bundles are not served: %s", exc)
        return None


@blp.route("/api/v1/games/<game_id>/replay")
@blp.doc(operationId="getReplay")
@blp.doc(responses={"200": {"description": "hourglass-replay/4 bundle (JSON Lines), signed by the service",
                            "content": {BUNDLE_MIMETYPE: {"schema": {"type": "string"}}}},
                    "404": {"description": "unknown game"}, "409": {"description": "game not finished"}})
def replay(game_id: str) -> Response:
    """Download the replay bundle of a finished game."""
    text = _bundle_or_problem(game_id)
    response = Response(text, mimetype=BUNDLE_MIMETYPE)
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.hourglass-replay.jsonl"'
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@blp.route("/api/v1/replays/verify", methods=["POST"])
@blp.doc(operationId="verifyReplay")
@blp.doc(requestBody={"required": True, "content": {
    BUNDLE_MIMETYPE: {"schema": {"type": "string", "minLength": 1}},
    "multipart/form-data": {"schema": {"type": "object", "required": ["bundle"], "properties": {
        "bundle": {"type": "string", "format": "binary", "minLength": 1}}}}}},
         responses={"200": {"description": "the verification report: ok, or the first divergence"},
                    "408": {"description": "the body did not arrive within the deadline"},
                    "413": {"description": "the bundle is larger, or costs more CPU time, than this endpoint "
                                           "verifies: verify it offline with `hourglass replay verify FILE`"},
                    "429": {"description": "this address already has a verification running"},
                    "503": {"description": "this process verifies as many bundles as it may at once"}})
def verify() -> Any:
    """Verify an uploaded bundle: 200 with ``ok`` true, or false and the first divergence.

    The body is verified line by line as it arrives, within the bounds in ``docs/api.md``."""
    bounds = Bounds.from_config(current_app.config)
    work = g.verify_work = Work(bounds, request.environ)  # close_unread: the connection closes unless it was read
    if declared_too_large(bounds, request.content_length):
        raise too_large(bounds)
    paid = mebibytes(request.content_length or 0)
    limits.charge(paid, "verifying a replay bundle")  # before a byte is read: a declared size pays up front
    with admitted(bounds, service().store.conn):
        try:
            keys = service_keys()[1]  # signed bundles are checked against this service's keys
            report = verify_stream(_bundle_chunks(work), pace=work.pace, signing=Signing(keys, unsigned_ok=True))
        except Refused as refused:
            raise refused.problem from None
        finally:
            limits.charge_done(mebibytes(work.bytes_read) - paid)  # a body longer than declared, or chunked
    if not work.bundle_bytes:
        raise ApiProblem(400, "MALFORMED", "send the bundle as the request body or as the multipart field 'bundle'",
                         title="Malformed request")
    return report.to_json()


@blp.route("/.well-known/hourglass-keys.json")
@blp.doc(operationId="getSigningKeys", security=[])
@blp.doc(responses={"200": {"description": "the service's Ed25519 public keys (hourglass-keys/1), each with its "
                                           "validity: a bundle or package signed at a time outside it is refused",
                            "content": {"application/json": {"schema": {"type": "object"}}}}})
def signing_keys() -> Response:
    """The public keys replay bundles and tournament packages are signed with (docs/fairness.md).

    Save it to verify offline: ``hourglass replay verify --keys FILE``."""
    keys = service_keys()[1]
    response = current_app.response_class(canonical_json(keys.to_json()), mimetype="application/json")
    response.headers["Cache-Control"] = "public, max-age=300"  # a rotation shows within minutes
    return response


def _bundle_chunks(work: Work) -> Iterator[bytes]:
    if request.is_json:  # the JSON depth check (service.app) has read this body already (64 KiB at most)
        data = request.get_data(cache=True)
        work.bytes_read, work.ended = len(data), True
        return work.counted(iter([data]))
    stream = get_input_stream(request.environ)
    if request.mimetype == "multipart/form-data":
        return multipart_field(work, work.chunks(stream), request.mimetype_params.get("boundary", ""), "bundle")
    return work.counted(work.chunks(stream))  # any other type is the raw bundle (curl --data-binary sends a form type)


def mebibytes(size: int) -> int:
    """Work units of a verification: 1 per started MiB of bundle (at least 1)."""
    return max(1, -(-size // (1 << 20)))


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
