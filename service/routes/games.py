"""/api/v1/games: create a game, read its summary."""
from __future__ import annotations

from typing import Any

from flask import current_app
from flask_smorest import Blueprint

from core import departures, timing
from core.accounts import AccountNotFound
from core.bots import BotNotFound, NotTheOwner
from core.games import GameService
from core.seats import SeatKind
from domain.core import Rejected, RejectKind
from service import limits
from service.auth import accounts, optional_account, principal
from service.problems import ApiProblem
from service.schemas import CreatedSchema, CreateGameBodySchema, SummarySchema
from service.web import caller_seat, service, to_act_list

blp = Blueprint("games", __name__, url_prefix="/api/v1/games", description="Create games and read summaries")


@blp.route("", methods=["POST"])
@blp.doc(operationId="createGame")
@blp.arguments(CreateGameBodySchema, error_status_code=400)
@blp.response(201, CreatedSchema)
def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a game; human seats get a bearer token and open seats an invite token, shown only here.

    With an account key (scope ``play``) every human seat is bound to the account (its games and
    event stream), a registered bot may be seated if the account owns it (or it is open for
    entry), and an open seat may be reserved for another account (``invite_account``), which
    hears of it on its event stream. The game costs one unit of the creator's work budget and
    counts toward its live games (``service.limits``)."""
    caller = principal()
    account = optional_account("play")
    svc = service()
    _check_bot_seats(svc, body["seats"], account)
    invited = _invited_accounts(body["seats"])
    budget = limits.charge(1, "creating a game")
    try:
        created = svc.create(body, creator=caller.owner, caps=limits.live_caps(current_app.config, caller),
                             account=account, reserved_accounts=invited)
    except (ValueError, TypeError, KeyError) as exc:
        budget.give_back(svc.store.conn, 1)
        raise Rejected(RejectKind.INVALID_CONFIG, f"configuration not accepted: {type(exc).__name__}") from exc
    except Exception:
        budget.give_back(svc.store.conn, 1)
        raise
    if invited:
        game = svc.load(created["id"])
        sender = accounts().get(account).name if account else "an anonymous player"
        for seat, invitee in invited.items():
            svc.account_feed.invite(invitee, game, seat, sender)
    return created


def _check_bot_seats(svc: GameService, seats: list[dict[str, Any]], account: str | None) -> None:
    """A registered bot is seated by its owner's account only, unless it is open for entry."""
    for index, spec in enumerate(seats):
        if spec.get("bot_id") is None:
            continue
        try:
            svc.bots.get(str(spec["bot_id"])).check_entry(account)
        except BotNotFound:
            continue  # GameService.create answers the unknown id
        except NotTheOwner as exc:
            raise ApiProblem(403, "FORBIDDEN", f"seats[{index}]: {exc}") from None


def _invited_accounts(seats: list[dict[str, Any]]) -> dict[int, str]:
    """Open seats reserved for an account (``invite_account``: its name or id) -> the account id."""
    invited: dict[int, str] = {}
    for index, spec in enumerate(seats):
        name = spec.get("invite_account")
        if name is None:
            continue
        if spec.get("kind") != SeatKind.OPEN:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].invite_account: only an open seat is reserved")
        try:
            invited[index] = accounts().find(str(name)).account_id
        except AccountNotFound:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].invite_account: no account {name!r}") from None
    return invited


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
        "claims": [{"absent": seat, "opens_ms": at} for seat, at in departures.claims_open(svc, game).items()],
        "seed_commitment": info.seed_commitment,
        "seed": info.committed_seed.hex() if game.finished else None,
        "created": info.created,
        "rematch": svc.store.meta_field(game_id, "rematch"),
    }
