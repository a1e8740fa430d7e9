"""/api/v1/games/{id}/state and /states/{version}: the caller's view, now or as of a version."""
from __future__ import annotations

from typing import Any

from flask import request
from flask_smorest import Blueprint

from core import timing
from core.games import Game
from service.schemas import StateSchema
from service.web import ETAG_HEADER, caller_seat, service, to_act_list, version_etag

blp = Blueprint("state", __name__, url_prefix="/api/v1/games", description="Seat and spectator views")


def _state(game: Game, seat: int | None) -> dict[str, Any]:
    return {"id": game.game_id, "version": game.version, "seat": seat, "status": game.status(),
            "to_act": to_act_list(game), "view": game.rules.view(game.state, seat),
            "view_head": game.view_head(seat)}


def none_match(header: str | None, etag: str) -> bool:
    """Whether ``If-None-Match`` fails for a GET of the representation tagged ``etag`` (RFC 9110
    13.1.2): ``*`` (a representation exists: a game that loaded has one), or any listed tag equal
    to it under weak comparison; a bare version, unquoted, is taken too (as clients wrote it)."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return etag in tags or etag.strip('"') in tags


@blp.route("/<string:game_id>/state", methods=["GET"])
@blp.doc(operationId="getState", parameters=[
    {"in": "header", "name": "If-None-Match", "required": False, "schema": {"type": "string"},
     "description": "the ETag(s) you hold (comma-separated, weak ones too): 304 while the game is still at "
                    "that version; * : 304 whenever the game exists"}])
@blp.response(200, StateSchema, headers=ETAG_HEADER)
@blp.alt_response(304, description="the game is still at the If-None-Match version (or If-None-Match is *)",
                  headers=ETAG_HEADER,
                  success=True)
def current_state(game_id: str) -> Any:
    """The caller's view (bearer token -> that seat; none -> spectator) and the clocks. ETag = version."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    etag = version_etag(game.version)
    if none_match(request.headers.get("If-None-Match"), etag):
        return "", 304, {"ETag": etag}
    return {**_state(game, seat), "clocks": timing.figures(svc, game)}, 200, {"ETag": etag}


@blp.route("/<string:game_id>/states/<int:version>", methods=["GET"])
@blp.doc(operationId="getStateAt")
@blp.response(200, StateSchema, headers=ETAG_HEADER)
def state_at(game_id: str, version: int) -> Any:
    """Time travel: the caller's view as of ``version`` (a version that ends a batch)."""
    game = service().load(game_id)
    seat = caller_seat(game)
    past = service().state_at(game_id, version)
    out = _state(past, seat)
    if game.finished:  # after the game nothing is secret any more: everyone may see full states
        out["full"] = game.rules.state_to_json(past.state)
    return out, 200, {"ETag": version_etag(past.version)}
