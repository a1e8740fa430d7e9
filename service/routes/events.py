"""/api/v1/games/{id}/events: the caller's view of the log, as a page or a Server-Sent Events stream."""
from __future__ import annotations

import json
from typing import Any, Iterator

from flask import Response, current_app, request
from flask_smorest import Blueprint

from core.games import Game, GameService
from service.problems import ApiProblem
from service.schemas import EventsQuerySchema, EventsSchema, ProblemSchema, StreamQuerySchema
from core.store import EventStore, events_key
from service.web import caller_seat, event_view, event_views, header_number, service

blp = Blueprint("events", __name__, url_prefix="/api/v1/games", description="Event log and live stream")


@blp.route("/<string:game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, EventsSchema)
@blp.alt_response(404, schema=ProblemSchema, description="unknown game")
def list_events(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Events after seq ``after``, each redacted for the caller (seat token or spectator)."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    entries = svc.entries(game_id, after=query["after"], until=game.version)
    return {"id": game_id, "version": game.version, "events": event_views(game, entries, seat)}


@blp.route("/<string:game_id>/events/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema, location="query")
@blp.doc(responses={200: {"description": "text/event-stream: id = seq, data = the event as JSON; "
                          "comment heartbeats; a final 'end' event when the game is over"}},
         parameters=[{"in": "header", "name": "Last-Event-ID", "required": False,
                      "schema": {"type": "integer"}, "description": "resume after this seq"}])
@blp.alt_response(404, schema=ProblemSchema, description="unknown game")
def stream_events(query: dict[str, Any], game_id: str) -> Response:
    """Server-Sent Events for the caller's seat (or a spectator); resume with Last-Event-ID."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    after = _resume_point(query)
    if after > game.version:
        raise ApiProblem(400, "MALFORMED", f"cannot resume after seq {after}: the game is at version {game.version}")
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    body = _sse(svc, game, seat, after, heartbeat)
    return Response(body, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _resume_point(query: dict[str, Any]) -> int:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return int(query.get("after", 0))
    return header_number("Last-Event-ID", raw)


def _sse(svc: GameService, game: Game, seat: int | None, after: int, heartbeat: float) -> Iterator[str]:
    """Blocking XREAD loop: every entry after ``after`` once, in order; heartbeats while idle."""
    conn, key, last = svc.store.conn, events_key(game.game_id), after
    yield f"retry: 2000\n: resuming after {after}\n\n"
    while True:
        if _over(svc, game.game_id, last):
            yield f"event: end\ndata: {json.dumps({'version': last})}\n\n"
            return
        rows: list[Any] = conn.xread(  # type: ignore[assignment]
            {key: f"{last}-0"}, count=500, block=max(1, int(heartbeat * 1000)))
        if not rows:
            yield ": heartbeat\n\n"
            continue
        for entry_id, fields in rows[0][1]:
            entry = EventStore._decode(entry_id, fields)
            last = entry.seq
            yield f"id: {entry.seq}\ndata: {json.dumps(event_view(game, entry, seat), sort_keys=True)}\n\n"


def _over(svc: GameService, game_id: str, last: int) -> bool:
    game = svc.load(game_id)
    return game.finished and last >= game.version
