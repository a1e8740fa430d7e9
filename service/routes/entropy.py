"""Seat-contributed entropy: contribute to a seeding game, and see who has (core.entropy).

- ``POST /api/v1/games/{id}/entropy``  a seat's bytes (its bearer token), once, before the window closes
- ``GET  /api/v1/games/{id}/entropy``  who has contributed so far (never what), or ``started``
"""
from __future__ import annotations

from typing import Any

from flask import Response
from flask_smorest import Blueprint

from core.games import EntropyClosed, NotThisSeat
from service.auth import unauthorized
from service.problems import ApiProblem, problem_response
from service.schemas import ContributedSchema, ContributionSchema, SeedingSchema
from service.web import bearer_token, service

blp = Blueprint("entropy", __name__, url_prefix="/api/v1/games",
                description="Seat-contributed entropy for a game's seed (docs/fairness.md)")


@blp.route("/<string:game_id>/entropy", methods=["POST"])
@blp.doc(operationId="contributeEntropy")
@blp.arguments(ContributionSchema, error_status_code=400)
@blp.response(200, ContributedSchema)
def contribute(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Contribute entropy to a game created with an entropy window, as the seat of your bearer
    token (or your pull bot's token): 1 to 64 bytes in lower-case hex, once per seat, before the
    window closes (409 after it, or a second time). The game's seed is derived from the
    service's committed seed and every seat's contribution; the last contribution starts the
    game. Keep what you sent: ``hourglass replay verify --contribution SEAT:HEX`` checks that
    the bundle carries it."""
    token = bearer_token()
    if token is None:
        raise unauthorized("contributing needs the bearer token of the seat that contributes")
    try:
        return service().contribute(game_id, token, body["entropy"])
    except NotThisSeat:
        raise unauthorized("the bearer token plays no seat of this game that contributes", "invalid_token") from None


@blp.route("/<string:game_id>/entropy", methods=["GET"])
@blp.doc(operationId="getSeeding")
@blp.response(200, SeedingSchema)
def seeding(game_id: str) -> dict[str, Any]:
    """Which seats have contributed to a seeding game (never what), and how long the window
    stays open; ``status: started`` once the game is set up (the first read after the deadline
    sets it up)."""
    return service().seeding(game_id)


@blp.errorhandler(EntropyClosed)
def _closed(exc: EntropyClosed) -> Response:
    return problem_response(ApiProblem(409, "ENTROPY_CLOSED", str(exc), title="Entropy window closed"))
