"""/api/v1/games/{id}/moves: list the caller's legal moves, submit one.

A POST move takes one Redis round trip in the common case (:func:`_at_cached_version`): the game
as this process last saw it, the token's seat from its cached meta, the command decided there and
appended at that version by one script that also checks the token, counts the requester's
request window (``service.limits``) and the Idempotency-Key (``core/append.lua``). Anything else
(the game not cached here, a token or a move that does not check out locally, an If-Match for
another version, the rules refusing the move at the cached version) takes the ordinary path: load,
token, window, apply. A stale answer of the script reloads and decides again inside
``GameService.apply``; with If-Match it is a 412.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask_smorest import Blueprint

from core.games import Applied, Game, GameService, NotThisSeat, StaleBase, token_digest
from core.table import COMMAND_TYPES as TABLE_COMMAND_TYPES
from domain.core import Rejected, RejectKind
from service import limits
from service.problems import ApiProblem
from service.schemas import MoveBodySchema, MoveResultSchema, MovesSchema
from service.web import (
    ACTION_HEADERS,
    REPLAYED_HEADERS,
    acting_seat,
    caller_seat,
    event_views,
    expected_version,
    idempotency_key,
    service,
    version_etag,
)

blp = Blueprint("moves", __name__, url_prefix="/api/v1/games", description="Legal moves and submitting a move")


@blp.route("/<string:game_id>/moves", methods=["GET"])
@blp.doc(operationId="listMoves")
@blp.response(200, MovesSchema)
def list_moves(game_id: str) -> dict[str, Any]:
    """Every legal move of the caller's seat, each a JSON object ready to POST verbatim."""
    game = service().load(game_id)
    seat = caller_seat(game)
    playing = seat is not None and seat not in game.table.left and game.status() == "active"
    moves = game.rules.legal_moves(game.state, seat) if playing and seat is not None else []
    return {"id": game_id, "version": game.version, "seat": seat,
            "moves": [game.rules.move_to_json(m) for m in moves]}


@blp.route("/<string:game_id>/moves", methods=["POST"])
@blp.doc(operationId="postMove", parameters=ACTION_HEADERS)
@blp.arguments(MoveBodySchema, error_status_code=400)
@blp.response(200, MoveResultSchema, headers=REPLAYED_HEADERS)
def post_move(move: dict[str, Any], game_id: str) -> Any:
    """Submit one move for the caller's seat; returns the new version and the new events."""
    svc = service()
    fast = _at_cached_version(svc, game_id, move)
    if fast is not None:
        game, seat, applied = fast
    else:
        limits.count_deferred()  # the one-trip path would have counted it inside the append
        game = svc.load(game_id)
        seat = acting_seat(game)
        expected, key = expected_version(), idempotency_key(seat)
        if move.get("type") in TABLE_COMMAND_TYPES:
            raise Rejected(RejectKind.UNKNOWN_MOVE, f"{move['type']} is not a move: use POST .../{move['type'].lower()}")
        try:
            command = game.rules.command_from_json(move, seat)
        except (ValueError, TypeError, KeyError) as exc:
            raise Rejected(RejectKind.MALFORMED, f"the move could not be parsed ({type(exc).__name__})") from exc
        applied = svc.apply(game_id, seat, command, expected_version=expected, idempotency_key=key)
    body = {"id": game_id, "version": applied.version, "events": event_views(game, applied.entries, seat)}
    headers = {"ETag": version_etag(applied.version)}
    if applied.replayed:
        headers["Idempotent-Replayed"] = "true"
    return body, 200, headers


def _at_cached_version(svc: GameService, game_id: str, move: dict[str, Any]) -> tuple[Game, int, Applied] | None:
    """The move applied in one round trip, or None when the ordinary path must answer.

    None only before anything was counted or appended; every answer after the script ran (200,
    409, 412, 422, 429) is final here, so no request is counted twice.
    """
    game = svc.cached(game_id)
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if game is None or scheme.lower() != "bearer" or not token:
        return None
    digest = token_digest(token)
    seat = game.info.tokens.get(digest)
    if seat is None or game.table.departure(seat) is not None or move.get("type") in TABLE_COMMAND_TYPES:
        return None
    try:
        expected, key = expected_version(), idempotency_key(seat)
        command = game.rules.command_from_json(move, seat)
    except (ApiProblem, ValueError, TypeError, KeyError):
        return None  # a 400 or a MALFORMED: answered by the ordinary path, in its order
    if expected is not None and expected != game.version:
        return None
    window = limits.deferred_window()
    try:
        applied = svc.apply(game_id, seat, command, expected_version=expected, idempotency_key=key, base=game,
                            token_check=(f"token:{digest}", seat), window=window)
    except (StaleBase, NotThisSeat):  # nothing was counted: the script did not run or answered first
        return None
    finally:  # the window's headers for whatever answer follows; above the limit (RateLimited) a 429
        limits.window_counted(window)
    return game, seat, applied
