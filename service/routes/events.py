"""/api/v1/games/{id}/events: the caller's view of the log, as a page or a Server-Sent Events stream."""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask_smorest import Blueprint

from core.games import Game
from core.store import StoredEntry
from service.limits import counted, stream_slot
from service.problems import ApiProblem
from service.schemas import EventsQuerySchema, EventsSchema, ProblemSchema, StreamQuerySchema
from service.streams import CUT_OFF, Hub
from service.web import bearer_token, caller_seat, event_view, event_views, header_number, service

blp = Blueprint("events", __name__, url_prefix="/api/v1/games", description="Event log and live stream")


@blp.route("/<string:game_id>/events", methods=["GET"])
@blp.doc(operationId="listEvents")
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
@blp.doc(operationId="streamEvents")
@blp.arguments(StreamQuerySchema, location="query")
@blp.doc(responses={200: {"description": "text/event-stream: id = seq, data = the event as JSON; "
                          "comment heartbeats; a final 'end' event when the game is over"}},
         parameters=[{"in": "header", "name": "Last-Event-ID", "required": False,
                      "schema": {"type": "integer"}, "description": "resume after this seq"}])
@blp.alt_response(404, schema=ProblemSchema, description="unknown game")
@blp.alt_response(429, schema=ProblemSchema, description="too many open streams for this address or token")
def stream_events(query: dict[str, Any], game_id: str) -> Response:
    """Server-Sent Events for the caller's seat (or a spectator); resume with Last-Event-ID."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    after = _resume_point(query)
    if after > game.version:
        raise ApiProblem(400, "MALFORMED", f"cannot resume after seq {after}: the game is at version {game.version}")
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    slot = stream_slot(svc.store.conn, bearer_token())  # 429 past the open-stream caps
    body = stream_with_context(counted(slot, _sse(game, seat, after, heartbeat)))
    response = Response(body, mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    if slot is not None:
        response.call_on_close(slot.close)  # also when the client left before the first frame
    return response


def _resume_point(query: dict[str, Any]) -> int:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return int(query.get("after", 0))
    return header_number("Last-Event-ID", raw)


def _sse(game: Game, seat: int | None, after: int, heartbeat: float) -> Iterator[str]:
    """Every entry after ``after`` once, in order, for ``seat``; heartbeats while idle; ``end`` last."""
    yield f"retry: 2000\n: resuming after {after}\n\n"
    if game.finished:
        yield from _frames(game, service().entries(game.game_id, after=after), seat)
        yield _end(game.version)
        return
    sub, gap, live = hub().subscribe(game, after)
    try:
        for batch in sub.batches(gap, live, heartbeat):
            if batch is None:
                yield ": heartbeat\n\n"
            elif batch is CUT_OFF:
                return  # too far behind, or the feed failed: the client resumes with Last-Event-ID
            else:
                yield batch.text_for(seat, lambda entries, viewer: "".join(_frames(game, entries, viewer)))
                if batch.finished:
                    yield _end(batch.version)
                    return
    finally:
        sub.close()


def _frames(game: Game, entries: Iterable[StoredEntry], seat: int | None) -> Iterator[str]:
    for entry in entries:
        yield f"id: {entry.seq}\ndata: {json.dumps(event_view(game, entry, seat), sort_keys=True)}\n\n"


def _end(version: int) -> str:
    return f"event: end\ndata: {json.dumps({'version': version})}\n\n"


def hub() -> Hub:
    """This app's stream hub (one per process and app)."""
    found: Hub = current_app.extensions.setdefault("hourglass.streams", Hub(service()))
    return found
