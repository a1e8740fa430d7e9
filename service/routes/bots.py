"""/api/v1/bots: register bots, rotate their token and secret, follow their event stream.

A bot belongs to the account that registers it (an account key with the ``bots`` scope): only
that account rotates its token or secret, opens it for entry by others, or deletes it
(``core.bots``). The bot's own bearer token is its play credential: a pull bot uses it on the
game endpoints of the games it sits in, and both kinds on their own event stream. Tokens and
secrets are answered only by registration and rotation, never by any other response.
"""
from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint

from core.botrecords import BotRecords
from core.bots import Bot, BotBusy, BotNameTaken, BotNotFound, BotRegistry
from core.seats import Player
from service import feeds
from service.auth import principal, require_account, unauthorized
from service.ladder_schemas import BotPageRecordSchema
from service.platform_schemas import (
    BotCreatedSchema,
    BotEventsQuerySchema,
    BotEventsSchema,
    BotListSchema,
    BotPatchSchema,
    BotRegisterSchema,
    BotSchema,
    BotStreamQuerySchema,
    SecretRotatedSchema,
    SecretRotateSchema,
    TokenRotatedSchema,
)
from service.problems import ApiProblem
from service.web import service

blp = Blueprint("bots", __name__, url_prefix="/api/v1/bots", description="Registered bots and their event streams")


def registry() -> BotRegistry:
    return service().bots


def _bot(bot_id: str) -> Bot:
    try:
        return registry().get(bot_id)
    except BotNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None


def authenticated_bot(bot_id: str) -> str:
    """The bot of the request's token, which must be ``bot_id``; 401 without a token, 403 for another bot's."""
    _bot(bot_id)
    caller = principal()
    if caller.token is None:
        raise unauthorized("this endpoint needs the bot's bearer token")
    if caller.kind != "bot":
        raise unauthorized("the bearer token is not a bot token")
    if caller.bot_id != bot_id:
        raise ApiProblem(403, "FORBIDDEN", "the bearer token belongs to another bot")
    return bot_id


def owned_bot(bot_id: str) -> Bot:
    """The bot, when the caller's account key (scope ``bots``) is its owner's; a bot registered
    before accounts existed (no owner) answers to its own token, as it always did."""
    bot = _bot(bot_id)
    if bot.owner is None and principal().kind == "bot":
        authenticated_bot(bot_id)
        return bot
    caller, _ = require_account("bots")
    if bot.owner != caller.account_id:
        raise ApiProblem(403, "FORBIDDEN", f"bot {bot.name} belongs to another account")
    return bot


@blp.route("", methods=["POST"])
@blp.doc(operationId="registerBot")
@blp.arguments(BotRegisterSchema)
@blp.response(201, BotCreatedSchema)
def register_bot(body: dict[str, Any]) -> dict[str, Any]:
    """Register a bot for the calling account (a key with the ``bots`` scope); its token (and a
    generated secret) are shown only in this response. ``open: true`` lets anyone enter it."""
    caller, _ = require_account("bots")
    try:
        return registry().register(body["name"], body["kind"], body.get("url"), body.get("secret"),
                                   owner=caller.account_id, open_entry=body.get("open", False),
                                   max_per_owner=int(current_app.config["MAX_BOTS_PER_ACCOUNT"]))
    except BotNameTaken as exc:
        raise ApiProblem(409, "NAME_TAKEN", str(exc)) from None


@blp.route("", methods=["GET"])
@blp.doc(operationId="listBots")
@blp.response(200, BotListSchema)
def list_bots() -> dict[str, Any]:
    """Registered bots (public fields), oldest first."""
    return {"bots": [bot.public() for bot in registry().listing()]}


@blp.route("/<string:bot_id>", methods=["GET"])
@blp.doc(operationId="getBot")
@blp.response(200, BotSchema)
def get_bot(bot_id: str) -> dict[str, Any]:
    """A bot's public fields; to its owner (or its own token), also its url."""
    bot = _bot(bot_id)
    caller = principal()
    mine = caller.bot_id == bot_id or (bot.owner is not None and caller.kind == "account"
                                        and caller.account_id == bot.owner)
    return {**bot.public(), **({"url": bot.url} if mine and bot.url else {})}


@blp.route("/<string:bot_id>/record", methods=["GET"])
@blp.doc(operationId="getBotRecord")
@blp.response(200, BotPageRecordSchema)
def bot_record(bot_id: str) -> dict[str, Any]:
    """The bot's public record (no token needed): overall and per tournament (the latest 20) its
    games, points and calls (push: HTTP calls; pull: turns) with their ok/timeout/error counts and
    latency p50/p95, its latest 20 tournament games, and its ladders (rating now and after each
    ladder game) and latest 20 ladder games with the same figures. Never its URL, token or secret;
    a bounded amount of work per request, whatever the bot's history (``core.botrecords``,
    ``core.ladder``). The page ``/bots/{id}`` shows the same."""
    return record_json(bot_id)


def record_json(bot_id: str) -> dict[str, Any]:
    from service.routes.ladders import bot_ladders

    bot = _bot(bot_id)
    found = BotRecords(service().store.conn).read(bot_id)
    for row in found["tournaments"]:
        row["page"] = f"/tournaments/{row['tournament']}"
        row["package"] = (f"/api/v1/tournaments/{row['tournament']}/package"
                          if row["status"] in ("finished", "cancelled") else None)
    for row in found["games"]:
        row["viewer"] = f"/games/{row['game_id']}"
    return {"bot": bot.public(), **found, **bot_ladders(bot_id)}


@blp.route("/<string:bot_id>", methods=["PATCH"])
@blp.doc(operationId="updateBot")
@blp.arguments(BotPatchSchema, error_status_code=400)
@blp.response(200, BotSchema)
def update_bot(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """The owner opens the bot for entry by anyone (``open: true``) or keeps it to itself."""
    bot = owned_bot(bot_id)
    if "open" in body:
        bot = registry().set_open(bot_id, body["open"])
    return {**bot.public(), **({"url": bot.url} if bot.url else {})}


@blp.route("/<string:bot_id>", methods=["DELETE"])
@blp.doc(operationId="deleteBot")
@blp.response(204)
def delete_bot(bot_id: str) -> Response:
    """The owner deletes the bot: its name is free again and its token void. Refused (409) while
    it sits in a live game or is entered in a running tournament."""
    owned_bot(bot_id)
    try:
        registry().retire(bot_id, service().feed.live_games(bot_id))
    except BotBusy as exc:
        raise ApiProblem(409, "BOT_BUSY", str(exc), title="Conflict") from None
    return Response(status=204)


@blp.route("/<string:bot_id>/token", methods=["POST"])
@blp.doc(operationId="rotateBotToken")
@blp.response(200, TokenRotatedSchema)
def rotate_token(bot_id: str) -> dict[str, Any]:
    """A new bearer token for the bot (its owner's key); the old one stops working at once."""
    owned_bot(bot_id)
    return {"id": bot_id, "token": registry().rotate_token(bot_id)}


@blp.route("/<string:bot_id>/secret", methods=["POST"])
@blp.doc(operationId="rotateBotSecret")
@blp.arguments(SecretRotateSchema)
@blp.response(200, SecretRotatedSchema)
def rotate_secret(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """A new HMAC secret for an http bot (its owner's key): the worker's next call is signed with it."""
    owned_bot(bot_id)
    secret = registry().rotate_secret(bot_id, body.get("secret"))
    return {"id": bot_id, "rotated": True, **({"secret": secret} if secret is not None else {})}


@blp.route("/<string:bot_id>/events", methods=["GET"])
@blp.doc(operationId="listBotEvents")
@blp.arguments(BotEventsQuerySchema, location="query")
@blp.response(200, BotEventsSchema)
def list_events(query: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """The bot's events after stream id ``after`` (a page; the stream endpoint is the live form);
    a 400 for an ``after`` past the last event."""
    authenticated_bot(bot_id)
    return feeds.page(service().feed, bot_id, query["after"])


@blp.route("/<string:bot_id>/events/stream", methods=["GET"])
@blp.doc(operationId="streamBotEvents")
@blp.arguments(BotStreamQuerySchema, location="query")
@blp.doc(responses=feeds.STREAM_RESPONSES, parameters=feeds.STREAM_PARAMETERS)
def stream_events(query: dict[str, Any], bot_id: str) -> Response:
    """One stream for all the bot's games (SSE, or NDJSON with ``Accept: application/x-ndjson``);
    reconnect with Last-Event-ID to miss nothing (a 400 for an id past the last event).

    Without a resume point the stream begins with the bot's current situation: a ``resync``
    event, then ``game_started`` for each game it is playing and ``your_turn`` where it is to act.
    """
    authenticated_bot(bot_id)
    return feeds.stream(service().feed, bot_id, query.get("after"), _resync)


def _resync(bot_id: str, at: str) -> list[tuple[str, dict[str, Any]]]:
    """The bot's live games now, as (event, data) pairs (a pull seat is told its turns)."""
    return feeds.live_snapshot(service().feed, bot_id, lambda game: [
        (s, spec.policy.played_by is Player.PULL) for s, spec in enumerate(game.info.seats) if spec.bot_id == bot_id])
