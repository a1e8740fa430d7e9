"""Seats: take an open seat, and ask for (or claim) a rematch."""
from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from core.seating import InviteRejected, NotOver, SeatNotFound, SeatTaken
from service.problems import ApiProblem
from service.schemas import JoinSchema, RematchSchema, SeatTokenSchema
from service.web import bearer_token, caller_seat, service

blp = Blueprint("seats", __name__, url_prefix="/api/v1/games", description="Open seats, invites and rematches")


@blp.route("/<string:game_id>/seats/<int:seat>/join", methods=["POST"])
@blp.doc(operationId="joinSeat")
@blp.arguments(JoinSchema, error_status_code=400)
@blp.response(200, SeatTokenSchema)
def join_seat(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """Take an open seat as ``name``: your bearer token for it is in this answer only. A private
    seat needs its ``invite`` token; the game starts when its last open seat is taken."""
    try:
        return service().join(game_id, seat, body["name"], body.get("invite"))
    except SeatNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None
    except SeatTaken as exc:
        raise ApiProblem(409, "SEAT_TAKEN", str(exc), title="Conflict") from None
    except InviteRejected as exc:
        raise ApiProblem(403, "FORBIDDEN", str(exc)) from None


@blp.route("/<string:game_id>/rematch", methods=["POST"])
@blp.doc(operationId="rematch")
@blp.response(200, RematchSchema)
def rematch(game_id: str) -> dict[str, Any]:
    """The rematch of a game that is over: same game and options, seats rotated by one. The first
    seat to ask creates it; every other human seat gets its own new token by asking with its old
    one (always the same answer). The rematch starts when every human seat has asked."""
    svc = service()
    seat = caller_seat(svc.load(game_id), required=True)
    token = bearer_token()
    assert seat is not None and token is not None
    try:
        return svc.rematch(game_id, seat, token)
    except NotOver as exc:
        raise ApiProblem(409, "GAME_NOT_FINISHED", str(exc), title="Conflict") from None
    except InviteRejected as exc:
        raise ApiProblem(403, "FORBIDDEN", str(exc)) from None
    except SeatTaken as exc:
        raise ApiProblem(409, "SEAT_TAKEN", str(exc), title="Conflict") from None
