"""/api/v1/bots: register bots, rotate their token and secret, follow their event stream.

The bot's bearer token (from registration) authenticates everything about the bot itself; a pull
bot also uses it on the ordinary game endpoints of the games it sits in. Tokens and secrets are
answered only by registration and rotation, never by any other response.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask_smorest import Blueprint

from core import clocks
from core.botfeed import BotEvent, BotFeed, iso_ms
from core.bots import BotNameTaken, BotNotFound, BotRegistry
from core.games import GameNotFound
from service.platform_schemas import (
    BotCreatedSchema,
    BotEventsQuerySchema,
    BotEventsSchema,
    BotListSchema,
    BotRegisterSchema,
    BotSchema,
    BotStreamQuerySchema,
    SecretRotatedSchema,
    SecretRotateSchema,
    TokenRotatedSchema,
)
from service.problems import ApiProblem
from service.web import bearer_token, service

blp = Blueprint("bots", __name__, url_prefix="/api/v1/bots", description="Registered bots and their event streams")
STREAM_ID = r"^\d{1,20}(-\d{1,20})?$"


def registry() -> BotRegistry:
    return service().bots


def feed() -> BotFeed:
    return service().feed


def _unauthorized(detail: str) -> ApiProblem:
    return ApiProblem(401, "UNAUTHORIZED", detail, headers={"WWW-Authenticate": 'Bearer realm="hourglass"'})


def authenticated_bot(bot_id: str) -> str:
    """The bot of the request's token, which must be ``bot_id``; 401 without a token, 403 for another bot's."""
    try:
        registry().get(bot_id)
    except BotNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None
    token = bearer_token()
    if token is None:
        raise _unauthorized("this endpoint needs the bot's bearer token")
    owner = registry().bot_for_token(token)
    if owner is None:
        raise _unauthorized("the bearer token is not a bot token")
    if owner != bot_id:
        raise ApiProblem(403, "FORBIDDEN", "the bearer token belongs to another bot")
    return bot_id


@blp.route("", methods=["POST"])
@blp.doc(operationId="registerBot")
@blp.arguments(BotRegisterSchema)
@blp.response(201, BotCreatedSchema)
def register_bot(body: dict[str, Any]) -> dict[str, Any]:
    """Register a bot once; its token (and a generated secret) are shown only in this response."""
    try:
        return registry().register(body["name"], body["kind"], body.get("url"), body.get("secret"))
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
    """A bot's public fields; with its own token, also its url."""
    try:
        bot = registry().get(bot_id)
    except BotNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None
    token = bearer_token()
    mine = token is not None and registry().bot_for_token(token) == bot_id
    return {**bot.public(), **({"url": bot.url} if mine and bot.url else {})}


@blp.route("/<string:bot_id>/token", methods=["POST"])
@blp.doc(operationId="rotateBotToken")
@blp.response(200, TokenRotatedSchema)
def rotate_token(bot_id: str) -> dict[str, Any]:
    """A new bearer token; the one that made this request stops working at once."""
    authenticated_bot(bot_id)
    return {"id": bot_id, "token": registry().rotate_token(bot_id)}


@blp.route("/<string:bot_id>/secret", methods=["POST"])
@blp.doc(operationId="rotateBotSecret")
@blp.arguments(SecretRotateSchema)
@blp.response(200, SecretRotatedSchema)
def rotate_secret(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """A new HMAC secret for an http bot: the worker's next call is signed with it."""
    authenticated_bot(bot_id)
    secret = registry().rotate_secret(bot_id, body.get("secret"))
    return {"id": bot_id, "rotated": True, **({"secret": secret} if secret is not None else {})}


@blp.route("/<string:bot_id>/events", methods=["GET"])
@blp.doc(operationId="listBotEvents")
@blp.arguments(BotEventsQuerySchema, location="query")
@blp.response(200, BotEventsSchema)
def list_events(query: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """The bot's events after stream id ``after`` (a page; the stream endpoint is the live form)."""
    authenticated_bot(bot_id)
    events = feed().read(bot_id, query["after"])
    return {"events": [_event_json(e) for e in events], "last_id": events[-1].id if events else query["after"]}


@blp.route("/<string:bot_id>/events/stream", methods=["GET"])
@blp.doc(operationId="streamBotEvents")
@blp.arguments(BotStreamQuerySchema, location="query")
@blp.doc(responses={200: {"description": "text/event-stream: id = stream id, event = game_started, your_turn, "
                          "call, game_finished or resync; heartbeat comments"}},
         parameters=[{"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
                      "description": "resume after this stream id"}])
def stream_events(query: dict[str, Any], bot_id: str) -> Response:
    """One SSE stream for all the bot's games; reconnect with Last-Event-ID to miss nothing.

    Without a resume point the stream begins with the bot's current situation: a ``resync``
    event, then ``game_started`` for each game it is playing and ``your_turn`` where it is to act.
    """
    authenticated_bot(bot_id)
    after = request.headers.get("Last-Event-ID", query.get("after"))
    if after is not None and not _valid_id(after):
        raise ApiProblem(400, "MALFORMED", "Last-Event-ID must be a stream id such as 1767268802000-0")
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    body = stream_with_context(_sse(bot_id, after, heartbeat))
    return Response(body, mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _valid_id(text: str) -> bool:
    head, _, tail = text.partition("-")
    return head.isascii() and head.isdigit() and len(head) <= 20 and (not tail or (tail.isdigit() and len(tail) <= 20))


def _event_json(event: BotEvent) -> dict[str, Any]:
    return {"id": event.id, "event": event.event, "data": event.data}


def _frame(event: BotEvent) -> str:
    return f"id: {event.id}\nevent: {event.event}\ndata: {json.dumps(event.data, sort_keys=True)}\n\n"


def _sse(bot_id: str, after: str | None, heartbeat: float) -> Iterator[str]:
    bots = feed()
    yield "retry: 2000\n\n"
    first = bots.first_id(bot_id)
    if after is None or (first is not None and _older(after, first)):
        after = bots.last_id(bot_id)  # everything before it is summed up by the resync snapshot
        yield from _resync(bot_id, after)
    block_ms = max(50, int(heartbeat * 1000))
    while True:
        events = bots.read(bot_id, after, block_ms=block_ms)
        if not events:
            yield ": heartbeat\n\n"
            continue
        for event in events:
            yield _frame(event)
        after = events[-1].id


def _older(stream_id: str, first: str) -> bool:
    def key(text: str) -> tuple[int, int]:
        head, _, tail = text.partition("-")
        return int(head), int(tail or 0)

    return key(stream_id) < key(first) and key(stream_id) != (0, 0)


def _resync(bot_id: str, at: str) -> Iterator[str]:
    """The bot's live games now, as events carrying the stream id ``at`` (resume from there)."""
    svc = service()
    games = svc.feed.live_games(bot_id)
    yield _frame(BotEvent(at, "resync", {"games": games}))
    for game_id in games:
        try:
            game = svc.load(game_id)
        except GameNotFound:
            continue
        for seat, spec in enumerate(game.info.seats):
            if spec.get("bot_id") != bot_id or game.finished:
                continue
            yield _frame(BotEvent(at, "game_started", {"game": game_id, "game_type": game.info.game, "seat": seat,
                                                      "edition": game.info.config.get("edition")}))
            if spec.get("kind") == "pull" and seat in game.to_act:
                deadline_ms = _deadline(svc.store.conn, game_id, seat)
                yield _frame(BotEvent(at, "your_turn", {
                    "game": game_id, "seat": seat, "version": game.version, "deadline_ms": deadline_ms,
                    "deadline": iso_ms(deadline_ms) if deadline_ms is not None else None}))


def _deadline(conn: Any, game_id: str, seat: int) -> int | None:
    current = clocks.load(conn, game_id)
    clock = current.seats.get(seat) if current is not None else None
    return clock.deadline_ms if clock is not None and clock.running else None
