"""/api/v1/games: create a game, read its summary."""
from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from core import timing
from domain.core import Rejected, RejectKind
from service.limits import client_address
from service.schemas import CreatedSchema, CreateGameBodySchema, SummarySchema
from service.web import caller_seat, service, to_act_list

blp = Blueprint("games", __name__, url_prefix="/api/v1/games", description="Create games and read summaries")


@blp.route("", methods=["POST"])
@blp.doc(operationId="createGame")
@blp.arguments(CreateGameBodySchema, error_status_code=400)
@blp.response(201, CreatedSchema)
def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a game; human seats get a bearer token and open seats an invite token, shown only here."""
    try:
        return service().create(body, creator=client_address())
    except (ValueError, TypeError, KeyError) as exc:
        raise Rejected(RejectKind.INVALID_CONFIG, f"configuration not accepted: {type(exc).__name__}") from exc


@blp.route("/<string:game_id>", methods=["GET"])
@blp.doc(operationId="getGame")
@blp.response(200, SummarySchema)
def game_summary(game_id: str) -> dict[str, Any]:
    """Status, version, phase, round, who is to act, seats, clocks, result (and the seed once over)."""
    svc = service()
    game = svc.load(game_id)
    caller_seat(game)
    summary = game.rules.summary(game.state)
    info = game.info
    flags = service().flags(game_id)
    return {
        "id": game_id,
        "game": info.game,
        "edition": info.config.get("edition"),
        "config": info.config,
        "status": flags["status"] or game.status(),
        "stuck": flags["stuck"],
        "version": game.version,
        "phase": summary.get("phase"),
        "round": summary.get("round"),
        "summary": summary,
        "to_act": to_act_list(game),
        "seats": game.seats(),
        "result": game.result,
        "clocks": timing.figures(svc, game),
        "seed_commitment": info.seed_commitment,
        "seed": info.seed.hex() if game.finished else None,
        "created": info.created,
        "rematch": svc.store.meta_field(game_id, "rematch"),
    }
