"""Helpers shared by the blueprints: the request's GameService, the caller's seat, rate limits,
and rendering events for one viewer. Views stay a few lines each by calling these.
"""
from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from flask import current_app, g, request

from core.games import Game, GameService, token_digest
from core.store import StoredEntry
from core.table import is_table_event
from domain.core import SYSTEM, Rejected, RejectKind
from service.problems import ApiProblem
from service.schemas import MAX_SEQ


def service() -> GameService:
    return current_app.extensions["hourglass"]


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiProblem(401, "UNAUTHORIZED", "Authorization must be 'Bearer <token>'",
                         headers={"WWW-Authenticate": 'Bearer realm="hourglass"'})
    return token.strip()


def caller_seat(game: Game, *, required: bool = False) -> int | None:
    """The seat of the request's bearer token; None for a spectator (no token).

    A token that is not one of this game's seat tokens is a 401, never a silent spectator.
    Every request with a token counts against that token's rate limit.
    """
    token = bearer_token()
    if token is None:
        if required:
            raise ApiProblem(401, "UNAUTHORIZED", "this endpoint needs a seat's bearer token",
                             headers={"WWW-Authenticate": 'Bearer realm="hourglass"'})
        return None
    seat = service().seat_for_token(game.game_id, token)
    if seat is None:
        raise ApiProblem(401, "UNAUTHORIZED", "the bearer token is not a seat token of this game",
                         headers={"WWW-Authenticate": 'Bearer realm="hourglass", error="invalid_token"'})
    _rate_limit(game.game_id, token)
    return seat


def acting_seat(game: Game) -> int:
    """The caller's seat for a request that acts: a token is required, and a seat that left the
    game (resigned, or abandoned on a claim) acts no more."""
    seat = caller_seat(game, required=True)
    assert seat is not None
    reason = game.table.departure(seat)
    if reason is not None:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"seat {seat} left this game ({reason}); it plays no more")
    return seat


ETAG_HEADER = {"ETag": {"description": "the game's version, quoted", "required": True, "schema": {"type": "string"}}}
REPLAYED_HEADERS = {**ETAG_HEADER, "Idempotent-Replayed": {
    "description": "true when an Idempotency-Key repeated an earlier request: nothing new was appended",
    "required": False, "schema": {"type": "string", "enum": ["true"]}}}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False,
                   "schema": {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[ -~]+$"},
                   "description": "retry-safe key (printable ASCII): the same key and request answer the first "
                                  "result again, nothing appended; the same key with another request is a 409"}
ACTION_HEADERS = [
    {"in": "header", "name": "If-Match", "required": False,
     "schema": {"type": "string", "pattern": '^\\s*(W/)?"?([0-9]{1,12}|1000000000000)"?\\s*$'},
     "description": 'the version the move was chosen at (3, "3" or W/"3"); 412 if the game moved on'},
    IDEMPOTENCY_KEY,
]


def _rate_limit(game_id: str, token: str) -> None:
    """Fixed-window counter per token in Redis (shared by every web process)."""
    limit = int(current_app.config["RATE_LIMIT"])
    if limit <= 0:
        return
    window = float(current_app.config["RATE_LIMIT_WINDOW"])
    bucket = int(time.time() // window)
    key = f"hg:{{{game_id}}}:rate:{token_digest(token)[:16]}:{bucket}"
    pipe = service().store.conn.pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, int(window) + 1)
    count = pipe.execute()[0]
    g.token_window = (limit, limit - count, max(1, int((bucket + 1) * window - time.time())))
    if count > limit:
        retry = max(1, int((bucket + 1) * window - time.time()) + 1)
        raise ApiProblem(429, "RATE_LIMITED", f"more than {limit} requests in {window:g} s for this token",
                         headers={"Retry-After": str(retry)})


def expected_version() -> int | None:
    """The If-Match header as a version number: ``3``, ``"3"`` or ``W/"3"``; absent -> None."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    text = raw.strip()
    if text.startswith("W/"):
        text = text[2:]
    return header_number("If-Match", text.strip('"'), raw)


def header_number(name: str, text: str, raw: str | None = None) -> int:
    """A header's decimal number: ASCII digits only (``"²".isdigit()`` is true), at most 10^12."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 13 or int(text) > MAX_SEQ:
        shown = (raw if raw is not None else text)[:40]
        raise ApiProblem(400, "MALFORMED", f"{name} must be a version number from 0 to {MAX_SEQ}, got {shown!r}")
    return int(text)


def idempotency_key(seat: int) -> str | None:
    """The Idempotency-Key header, namespaced by seat so seats never share results."""
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    if not 1 <= len(raw) <= 128 or not (raw.isascii() and raw.isprintable()):
        raise ApiProblem(400, "MALFORMED", "Idempotency-Key must be 1..128 printable ASCII characters")
    return f"http:{seat}:{raw}"


def event_view(game: Game, entry: StoredEntry, seat: int | None) -> dict[str, Any]:
    rules = game.rules
    public = is_table_event(entry.data)  # joins, resignations, aborts: the same for everyone
    data = dict(entry.data) if public else rules.event_view(rules.event_from_json(entry.data), seat)
    return {"seq": entry.seq, "type": data.get("type", entry.type), "actor": entry.actor,
            "time": entry.entry["time"], "data": data}


def event_views(game: Game, entries: Iterable[StoredEntry], seat: int | None) -> list[dict[str, Any]]:
    return [event_view(game, e, seat) for e in entries]


def to_act_list(game: Game) -> list[Any]:
    acting = game.to_act
    return sorted(a for a in acting if a != SYSTEM) + ([SYSTEM] if SYSTEM in acting else [])


def version_etag(version: int) -> str:
    return f'"{version}"'
