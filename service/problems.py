"""One error shape for the whole API: RFC 9457 ``application/problem+json``.

Every error body is ``{type, title, status, detail, kind}`` (plus ``errors`` for field-level
validation messages, ``current_version`` for a stale If-Match). Views raise :class:`ApiProblem`;
domain and store exceptions are translated by :func:`register_error_handlers`. No handler ever
puts a traceback or an exception's repr in a response.

A lost Redis connection (the server is down, restarting or unreachable) is a 503 ``UNAVAILABLE``
with ``Retry-After``, from any endpoint; redis-py reconnects on the next request, so the API
recovers by itself when Redis is back.
"""
from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from core import metrics
from core.connection import UNAVAILABLE
from core.games import GameNotFound, IdempotencyConflict, StaleVersion, TooManyGames, VersionNotFound
from domain.core import Rejected, RejectKind

PROBLEM_JSON = "application/problem+json"
REDIS_DOWN = UNAVAILABLE  # core.connection: a cluster adds its own ways of being away
RETRY_AFTER_S = 5
UNAVAILABLE_DETAIL = (
    "the game store cannot be reached right now; retry after Retry-After seconds. A move POST that got "
    "this answer may or may not have been applied: send it again with the same Idempotency-Key (a "
    "repeated key returns the first result, so the move is applied once) and If-Match"
)
log = logging.getLogger(__name__)


class ApiProblem(Exception):
    """An HTTP error with a problem+json body; raise it from any view."""

    def __init__(self, status: int, kind: str, detail: str, *, title: str | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.detail = detail
        self.title = title or _TITLES.get(status, "Error")
        self.headers = headers or {}
        self.extra = extra


_TITLES = {
    400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found",
    405: "Method not allowed", 406: "Not acceptable", 409: "Conflict", 412: "Precondition failed",
    413: "Request body too large", 415: "Unsupported media type", 422: "Move rejected",
    429: "Too many requests", 500: "Internal server error", 503: "Service unavailable",
}


def problem_response(problem: ApiProblem) -> Response:
    """The problem+json answer; every one is counted by status (``core.metrics``: 429s and 503s
    are what operators watch)."""
    metrics.problem(problem.status)
    body = {
        "type": f"urn:hourglass:problem:{problem.kind.lower().replace('_', '-')}",
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
        "kind": problem.kind,
        **problem.extra,
    }
    response = Response(json.dumps(body), status=problem.status, mimetype=PROBLEM_JSON)
    response.headers.update(problem.headers)
    return response


def from_rejected(exc: Rejected) -> ApiProblem:
    if exc.kind is RejectKind.MALFORMED:
        return ApiProblem(400, exc.kind.value, exc.message, title="Malformed request")
    if exc.kind is RejectKind.INVALID_CONFIG:
        return ApiProblem(422, exc.kind.value, exc.message, title="Invalid game configuration")
    return ApiProblem(422, exc.kind.value, exc.message)


def from_http(exc: HTTPException) -> ApiProblem:
    """Werkzeug/webargs errors: 400 validation (with field errors), 404 route, 405, 413…"""
    data = getattr(exc, "data", None) or {}
    status = exc.code or 500
    errors = data.get("errors") or data.get("messages")
    if status == 422 or (status == 400 and errors):
        return ApiProblem(400, "MALFORMED", "the request does not match the schema; see errors",
                          title="Malformed request", errors=_flatten_locations(errors))
    kind = {400: "MALFORMED", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "TOO_LARGE",
            415: "UNSUPPORTED_MEDIA_TYPE"}.get(status, "HTTP_ERROR")
    detail = data.get("message") or exc.description or exc.name
    headers = {}
    if status == 405 and exc.get_response().headers.get("Allow"):
        headers["Allow"] = exc.get_response().headers["Allow"]
    return ApiProblem(status, kind, str(detail), title=exc.name, headers=headers)


def from_too_many(exc: TooManyGames) -> ApiProblem:
    """A live-game cap: this address's is a 429 (its own doing), the service's a 503."""
    status = 429 if exc.scope == "creator" else 503
    kind = "TOO_MANY_GAMES" if exc.scope == "creator" else "AT_CAPACITY"
    return ApiProblem(status, kind, str(exc), headers={"Retry-After": str(exc.retry_after_s)})


def _flatten_locations(errors: Any) -> Any:
    """webargs nests messages under the location ("json", "query"); keep the field map only."""
    if isinstance(errors, dict) and len(errors) == 1:
        (location, inner), = errors.items()
        if location in ("json", "query", "headers", "view_args", "form") and isinstance(inner, dict):
            return inner
    return errors


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(ApiProblem, problem_response)
    app.register_error_handler(Rejected, lambda e: problem_response(from_rejected(e)))
    app.register_error_handler(GameNotFound, lambda e: problem_response(ApiProblem(404, "NOT_FOUND", str(e))))
    app.register_error_handler(VersionNotFound, lambda e: problem_response(ApiProblem(404, "NOT_FOUND", str(e))))
    app.register_error_handler(StaleVersion, lambda e: problem_response(ApiProblem(
        412, "STALE_VERSION", str(e), headers={"ETag": f'"{e.current}"'}, current_version=e.current)))
    app.register_error_handler(IdempotencyConflict, lambda e: problem_response(from_conflict(e)))
    app.register_error_handler(TooManyGames, lambda e: problem_response(from_too_many(e)))
    app.register_error_handler(HTTPException, lambda e: problem_response(from_http(e)))
    for error in REDIS_DOWN:
        app.register_error_handler(error, _unavailable)
    app.register_error_handler(Exception, _internal)


def _unavailable(exc: Exception) -> Response:
    log.warning("Redis unavailable: %s: %s", type(exc).__name__, exc)
    return problem_response(ApiProblem(503, "UNAVAILABLE", UNAVAILABLE_DETAIL,
                                       headers={"Retry-After": str(RETRY_AFTER_S)}))


def _internal(exc: Exception) -> Response:
    log.exception("unhandled error")
    return problem_response(ApiProblem(500, "INTERNAL", "an internal error occurred; it has been logged"))


def from_conflict(exc: IdempotencyConflict) -> ApiProblem:
    """The 409 names the key as the client sent it: the store's key carries the seat's namespace
    (``service.web.idempotency_key``), which is ours, not the client's."""
    sent = request.headers.get("Idempotency-Key", "")
    return ApiProblem(409, "IDEMPOTENCY_CONFLICT", f"Idempotency-Key {sent!r} was already used for a different "
                      "request by this seat in this game; send a new key for a new request")

