"""GET /api/v1/games: the lobby, filtered and paged with a cursor (see ``core.lobby``)."""
from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from core.lobby import BadCursor, Filters
from service.problems import ApiProblem
from service.schemas import GameListSchema, ListQuerySchema
from service.web import service

blp = Blueprint("lobby", __name__, url_prefix="/api/v1/games", description="List games: the lobby")


@blp.route("", methods=["GET"])
@blp.doc(operationId="listGames")
@blp.arguments(ListQuerySchema, location="query", error_status_code=400)
@blp.response(200, GameListSchema)
def list_games(query: dict[str, Any]) -> dict[str, Any]:
    """Games, newest first, by game, edition, status, open seats, player or bot name. A page may
    hold fewer than ``limit`` games while ``next`` is not null: follow ``next`` until it is."""
    filters = Filters(**{k: query.get(k) for k in ("game", "edition", "status", "open", "player", "bot")})
    try:
        games, cursor = service().lobby.query(filters, query["limit"], query.get("cursor"))
    except BadCursor as exc:
        raise ApiProblem(400, "MALFORMED", str(exc), title="Malformed request") from None
    return {"games": games, "next": cursor}
