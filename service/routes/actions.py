"""Game-level actions every game shares: resign, abort, leave, and claims against an absent seat.

Each is recorded as a table event in the game's log (``core.table``) and answered like a move:
the new version and the events it caused.
"""
from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from core.games import Applied
from service.schemas import ClaimSchema, MoveResultSchema
from service.web import (
    IDEMPOTENCY_KEY,
    REPLAYED_HEADERS,
    answer_head,
    caller_seat,
    event_views,
    idempotency_key,
    service,
    version_etag,
)

blp = Blueprint("actions", __name__, url_prefix="/api/v1/games",
                description="Resign, abort, and claims against a seat that has gone")

IDEMPOTENCY = [IDEMPOTENCY_KEY]


def _seat(game_id: str) -> int:
    """The caller's seat (a token is required). A seat that already left is refused by the table
    itself, after an Idempotency-Key replay had its chance to answer a retried request."""
    seat = caller_seat(service().load(game_id), required=True)
    assert seat is not None
    return seat


def _answer(game_id: str, seat: int, applied: Applied) -> Any:
    game = service().load(game_id)
    body = {"id": game_id, "version": applied.version, "events": event_views(game, applied.entries, seat),
            "view_head": answer_head(applied, seat)}
    headers = {"ETag": version_etag(applied.version)}
    if applied.replayed:
        headers["Idempotent-Replayed"] = "true"
    return body, 200, headers


@blp.route("/<string:game_id>/resign", methods=["POST"])
@blp.doc(operationId="resign", parameters=IDEMPOTENCY)
@blp.response(200, MoveResultSchema, headers=REPLAYED_HEADERS)
def resign(game_id: str) -> Any:
    """Leave the game. When at most one seat is then left playing, the game ends and that seat
    wins; otherwise it goes on, the service plays your seat's default moves, and your seat ranks
    below every seat that stayed."""
    svc = service()
    seat = _seat(game_id)
    return _answer(game_id, seat, svc.resign(game_id, seat, idempotency_key(seat)))


@blp.route("/<string:game_id>/abort", methods=["POST"])
@blp.doc(operationId="abort", parameters=IDEMPOTENCY)
@blp.response(200, MoveResultSchema, headers=REPLAYED_HEADERS)
def abort(game_id: str) -> Any:
    """Call the game off before its seats have made the configured number of moves (while seats
    are open, always): it ends with status ``aborted`` and no result. Only the seats the game was
    created with may abort; a seat that joined gives its seat back instead (as ``leave``), and
    only before the first move."""
    svc = service()
    seat = _seat(game_id)
    return _answer(game_id, seat, svc.abort(game_id, seat, idempotency_key(seat)))


@blp.route("/<string:game_id>/leave", methods=["POST"])
@blp.doc(operationId="leave", parameters=IDEMPOTENCY)
@blp.response(200, MoveResultSchema, headers=REPLAYED_HEADERS)
def leave(game_id: str) -> Any:
    """Give back a seat you joined, before any seat has moved: the seat is open again, the game
    waits for a player (and stays in the lobby), and your token stops working. After the first
    move, resign instead. (Aborting as a joined seat does the same: only the seats a game was
    created with may call it off.)"""
    svc = service()
    seat = _seat(game_id)
    return _answer(game_id, seat, svc.leave(game_id, seat, idempotency_key(seat)))


@blp.route("/<string:game_id>/claim", methods=["POST"])
@blp.doc(operationId="claim", parameters=IDEMPOTENCY)
@blp.arguments(ClaimSchema, error_status_code=400)
@blp.response(200, MoveResultSchema, headers=REPLAYED_HEADERS)
def claim(body: dict[str, Any], game_id: str) -> Any:
    """The game has waited longer than the inactivity limit on ``absent``, a human seat without a
    clock: ``victory`` counts it as having left (as a resignation), ``default_move`` plays one
    default move for it."""
    svc = service()
    seat = _seat(game_id)
    applied = svc.claim(game_id, seat, body["absent"], body["remedy"], idempotency_key(seat))
    return _answer(game_id, seat, applied)
