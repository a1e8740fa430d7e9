"""/api/v1/games/{id}/moves: list the caller's legal moves, submit one.

A POST move has one path and takes one Redis round trip in the common case: for a seat token the
command is decided on the game as this process last saw it and appended at that version by one
script that also checks the token, counts the requester's request window (``service.limits``) and
the Idempotency-Key (``core/append.lua``). The route finds the caller's seat and parses the move
once; when the game it decided on turns out to be behind (the script answers that the version
moved, the rules refuse the move there, an If-Match names another version), the core reads the
game and decides again (``core.commands.CommandHandler.apply``); with If-Match a moved game is a 412.

The POST is off flask-smorest's generic argument and response path, and documented as before: the
body is parsed once (:func:`move_body`: a body ``MoveBodySchema`` accepts as it stands is taken as
it is, anything else goes through the schema's own parser for its exact 400), the game's codec
validates the move (``command_from_json``), and the answer is serialised once by Flask's JSON
provider. ``MoveResultSchema`` documents the answer (``alt_response``) without dumping it again.
"""
from __future__ import annotations

import json
from typing import Any

from flask import current_app, request
from flask_smorest import Blueprint

from core.games import AppendGuard, Game, GameService, NotThisSeat, token_digest
from core.table import COMMAND_TYPES as TABLE_COMMAND_TYPES
from domain.core import Rejected, RejectKind
from service import limits
from service.auth import principal, unauthorized
from service.schemas import MoveBodySchema, MoveResultSchema, MovesSchema
from service.web import (
    ACTION_HEADERS,
    REPLAYED_HEADERS,
    acting_seat,
    answer_events,
    answer_head,
    caller_seat,
    expected_version,
    idempotency_key,
    service,
    still_playing,
    version_etag,
)

blp = Blueprint("moves", __name__, url_prefix="/api/v1/games", description="Legal moves and submitting a move")


@blp.route("/<string:game_id>/moves", methods=["GET"])
@blp.doc(operationId="listMoves")
@blp.response(200, MovesSchema)
def list_moves(game_id: str) -> dict[str, Any]:
    """Every legal move of the caller's seat, each a JSON object ready to POST verbatim."""
    game = service().load(game_id)
    seat = caller_seat(game)
    playing = seat is not None and seat not in game.table.left and game.status() == "active"
    moves = game.rules.legal_moves(game.state, seat) if playing and seat is not None else []
    return {"id": game_id, "version": game.version, "seat": seat,
            "moves": [game.rules.move_to_json(m) for m in moves]}


MAX_TYPE = 64  # MoveBodySchema's bound on ``type``


def move_body() -> dict[str, Any]:
    """The request's move, parsed once: a JSON object whose ``type`` is a string of 1 to
    ``MAX_TYPE`` characters is what ``MoveBodySchema`` accepts unchanged (its other fields are the
    game's to parse), so it is taken as it is; anything else is handed to the schema's own parser,
    whose 400 is the answer (the same problem as the generic path's)."""
    asked = request._get_current_object()  # type: ignore[attr-defined]  # one context lookup, not two
    if asked.is_json:
        try:
            body = json.loads(asked.get_data(cache=True))
        except ValueError:  # UnicodeDecodeError included: the parser below says "Invalid JSON body"
            body = None
        kind = body.get("type") if isinstance(body, dict) else None
        if isinstance(kind, str) and 0 < len(kind) <= MAX_TYPE:
            return body
    parsed: dict[str, Any] = blp.ARGUMENTS_PARSER.parse(MoveBodySchema(), request, location="json",
                                                        error_status_code=400)
    return parsed


@blp.route("/<string:game_id>/moves", methods=["POST"])
@blp.doc(operationId="postMove", parameters=ACTION_HEADERS)
@blp.alt_response(200, schema=MoveResultSchema, headers=REPLAYED_HEADERS, success=True)
def post_move(game_id: str) -> Any:
    """Submit one move for the caller's seat; returns the new version and the new events."""
    move = move_body()
    svc = service()
    with limits.deferred_count() as window:  # counted by the append script, else on the way out
        game, seat, token_field = _mover(svc, game_id)
        expected, key = expected_version(), idempotency_key(seat)
        if move.get("type") in TABLE_COMMAND_TYPES:
            raise Rejected(RejectKind.UNKNOWN_MOVE, f"{move['type']} is not a move: use POST .../{move['type'].lower()}")
        try:
            command = game.rules.command_from_json(move, seat)
        except (ValueError, TypeError, KeyError) as exc:
            raise Rejected(RejectKind.MALFORMED, f"the move could not be parsed ({type(exc).__name__})") from exc
        try:
            applied = svc.apply(game_id, seat, command, expected_version=expected, idempotency_key=key, base=game,
                                guard=AppendGuard(token_field, window))
        except NotThisSeat:  # the token was withdrawn since this process last saw the game
            raise unauthorized("the bearer token is not a seat token of this game", "invalid_token") from None
    body = {"id": game_id, "version": applied.version, "events": answer_events(game, applied, seat),
            "view_head": answer_head(applied, seat)}
    response = current_app.json.response(body)  # the MoveResultSchema document, serialised once
    response.headers["ETag"] = version_etag(applied.version)
    if applied.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _mover(svc: GameService, game_id: str) -> tuple[Game, int, str | None]:
    """The game to decide on, the caller's seat, and the meta field of its token for the append
    script to check. A seat token's seat is known from the request (``service.auth``): the game is
    this process's copy, which may be behind (the core then reads it). Any other caller (a pull
    bot's token, an account key) is placed in the game as it is now."""
    caller = principal()
    if caller.kind == "seat" and caller.game_id == game_id and caller.seat is not None and caller.token:
        game = svc.cached(game_id) or svc.load(game_id)
        return game, still_playing(game, caller.seat), f"token:{token_digest(caller.token)}"
    game = svc.load(game_id)
    return game, acting_seat(game), None
