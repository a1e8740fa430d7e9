"""/api/v1/games/{id}/moves: list the caller's legal moves, submit one."""
from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from domain.core import Rejected, RejectKind
from service.schemas import MoveResultSchema, MoveSchema, MovesSchema, ProblemSchema
from service.web import caller_seat, event_views, expected_version, idempotency_key, service, version_etag

blp = Blueprint("moves", __name__, url_prefix="/api/v1/games", description="Legal moves and submitting a move")

_MOVE_HEADERS = [
    {"in": "header", "name": "If-Match", "required": False, "schema": {"type": "string"},
     "description": "the version the move was chosen at; 412 if the game moved on"},
    {"in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string"},
     "description": "retry-safe key: same key and body -> the same response, nothing appended"},
]


@blp.route("/<string:game_id>/moves", methods=["GET"])
@blp.doc(operationId="listMoves")
@blp.response(200, MovesSchema)
@blp.alt_response(404, schema=ProblemSchema, description="unknown game")
def list_moves(game_id: str) -> dict[str, Any]:
    """Every legal move of the caller's seat, each a JSON object ready to POST verbatim."""
    game = service().load(game_id)
    seat = caller_seat(game)
    moves = [] if seat is None or game.finished else game.rules.legal_moves(game.state, seat)
    return {"id": game_id, "version": game.version, "seat": seat,
            "moves": [game.rules.move_to_json(m) for m in moves]}


@blp.route("/<string:game_id>/moves", methods=["POST"])
@blp.doc(operationId="postMove")
@blp.arguments(MoveSchema)
@blp.response(200, MoveResultSchema)
@blp.doc(parameters=_MOVE_HEADERS)
@blp.alt_response(400, schema=ProblemSchema, description="malformed move or header")
@blp.alt_response(401, schema=ProblemSchema, description="missing or bad token")
@blp.alt_response(404, schema=ProblemSchema, description="unknown game")
@blp.alt_response(409, schema=ProblemSchema, description="idempotency key reused for another move")
@blp.alt_response(412, schema=ProblemSchema, description="stale If-Match; body carries current_version")
@blp.alt_response(422, schema=ProblemSchema, description="the rules rejected the move (kind)")
@blp.alt_response(429, schema=ProblemSchema, description="rate limit")
def post_move(move: dict[str, Any], game_id: str) -> Any:
    """Submit one move for the caller's seat; returns the new version and the new events."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game, required=True)
    assert seat is not None
    expected, key = expected_version(), idempotency_key(seat)
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
