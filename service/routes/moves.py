"""/api/v1/games/{id}/moves: list the caller's legal moves, submit one."""
from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from core.table import COMMAND_TYPES as TABLE_COMMAND_TYPES
from domain.core import Rejected, RejectKind
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
