"""Seats: take an open seat, and ask for (or claim) a rematch."""
from __future__ import annotations

from typing import Any

from flask import Response
from flask_smorest import Blueprint

from core.seating import InviteRejected, NotOver, SeatNotFound, SeatTaken, rematch_id
from service import limits
from service.auth import optional_account
from service.problems import ApiProblem, problem_response
from service.schemas import JoinSchema, RematchSchema, SeatTokenSchema
from service.web import bearer_token, caller_seat, service

blp = Blueprint("seats", __name__, url_prefix="/api/v1/games", description="Open seats, invites and rematches")


@blp.route("/<string:game_id>/seats/<int:seat>/join", methods=["POST"])
@blp.doc(operationId="joinSeat")
@blp.arguments(JoinSchema, error_status_code=400)
@blp.response(200, SeatTokenSchema)
def join_seat(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """Take an open seat as ``name``: your bearer token for it is in this answer only. A private
    seat needs its ``invite`` token (a seat kept for your account, your account key); the game
    starts when its last open seat is taken. With an account key (scope ``play``) the seat is
    bound to the account. Joining costs one unit of work, like creating a game."""
    account = optional_account("play")
    svc = service()
    svc.load(game_id)  # a 404 for an unknown game costs nothing
    budget = limits.charge(1, "joining a game")
    try:
        return svc.join(game_id, seat, body["name"], body.get("invite"), account)
    except Exception:
        budget.give_back(svc.store.conn, 1)
        raise


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
    budget = limits.charge(1, "a rematch") if not svc.store.exists(rematch_id(game_id)) else None
    try:
        return svc.rematch(game_id, seat, token)
    except Exception:
        if budget is not None:
            budget.give_back(svc.store.conn, 1)
        raise


@blp.errorhandler(SeatNotFound)
def _no_seat(exc: SeatNotFound) -> Response:
    return problem_response(ApiProblem(404, "NOT_FOUND", str(exc)))


@blp.errorhandler(SeatTaken)
def _taken(exc: SeatTaken) -> Response:
    return problem_response(ApiProblem(409, "SEAT_TAKEN", str(exc), title="Conflict"))


@blp.errorhandler(InviteRejected)
def _refused(exc: InviteRejected) -> Response:
    return problem_response(ApiProblem(403, "FORBIDDEN", str(exc)))


@blp.errorhandler(NotOver)
def _not_over(exc: NotOver) -> Response:
    return problem_response(ApiProblem(409, "GAME_NOT_FINISHED", str(exc), title="Conflict"))
