"""/api/v1/games/{id}/events: the caller's view of the log, as pages or a live stream.

The live stream is Server-Sent Events by default, or NDJSON (one JSON object per line,
Lichess-style) for ``Accept: application/x-ndjson``. Both carry every event once, in order, as
the caller may see it; for games with clocks, the remaining times after each batch; an end
marker when the game is over; and keep-alives while nothing happens (an SSE comment, an empty
NDJSON line).
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from functools import partial
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask_smorest import Blueprint

from core import timing
from core.games import Game, GameService
from core.store import StoredEntry
from service.limits import counted, stream_slot
from service.problems import ApiProblem
from service.schemas import EventsQuerySchema, EventsSchema, StreamQuerySchema
from service.streamhub import hand_over, wait_until_served
from service.streams import CUT_OFF, Batch, Hub, Sink, Subscription, chunk, direct_socket
from service.web import bearer_token, caller_seat, event_view, event_views, header_number, service

blp = Blueprint("events", __name__, url_prefix="/api/v1/games", description="Event log and live stream")

SSE, NDJSON = "text/event-stream", "application/x-ndjson"
SSE_EVENT = {"type": "object", "description": "one Server-Sent Event; data is the JSON text of an Event, or of "
             "{version, clocks} for event 'clocks', or {version, status} for event 'end'",
             "properties": {"event": {"type": "string", "enum": ["message", "clocks", "end"]},
                            "data": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer"}}}
STREAM_DOC = {
    SSE: {"schema": SSE_EVENT, "example": 'retry: 2000\n\nid: 8\ndata: {"seq":8,"type":"...",...}\n\n'
          'event: clocks\ndata: {"version":8,"clocks":{...}}\n\nevent: end\ndata: {"version":90,"status":"finished"}\n\n'},
    NDJSON: {"schema": {"$ref": "#/components/schemas/StreamLine"}, "example": '{"kind":"event","seq":8,"type":"...",...}\n'
             '{"kind":"clocks","version":8,"clocks":{...}}\n\n{"kind":"end","version":90,"status":"finished"}\n'},
}


@blp.route("/<string:game_id>/events", methods=["GET"])
@blp.doc(operationId="listEvents")
@blp.arguments(EventsQuerySchema, location="query", error_status_code=400)
@blp.response(200, EventsSchema)
def list_events(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Up to ``limit`` events after seq ``after``, each redacted for the caller (seat token or
    spectator); ``next`` is the ``after`` of the next page, null once you have them all."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    until = min(game.version, query["after"] + query["limit"])
    entries = svc.entries(game_id, after=query["after"], until=until)
    return {"id": game_id, "version": game.version, "events": event_views(game, entries, seat),
            "next": until if until < game.version else None}


@blp.route("/<string:game_id>/events/stream", methods=["GET"])
@blp.doc(operationId="streamEvents",
         responses={200: {"description": "the live stream: Server-Sent Events (id = seq; events 'clocks' and "
                          "'end'; comment heartbeats) or, for Accept: application/x-ndjson, one JSON object per "
                          "line (kind event, clocks or end; empty keep-alive lines)", "content": STREAM_DOC}},
         parameters=[{"in": "header", "name": "Last-Event-ID", "required": False,
                      "schema": {"type": "integer", "minimum": 0, "maximum": 10**12},
                      "description": "resume after this seq (at most the game's version)"}])
@blp.arguments(StreamQuerySchema, location="query", error_status_code=400)
def stream_events(query: dict[str, Any], game_id: str) -> Response:
    """The caller's live stream (seat token or spectator), as SSE or NDJSON; resume with
    Last-Event-ID or ``after``."""
    form = _negotiated()
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    after = _resume_point(query)
    if after > game.version:
        raise ApiProblem(400, "MALFORMED", f"cannot resume after seq {after}: the game is at version {game.version}")
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    slot = stream_slot(svc.store.conn, bearer_token())  # 429 past the open-stream caps
    sock = direct_socket(request.environ) if current_app.config["STREAM_DIRECT"] else None
    chunked = request.environ.get("SERVER_PROTOCOL") != "HTTP/1.0"
    here = _stream(game, seat, after, heartbeat, FORMATS[form], sock, chunked)
    frames: Iterator[str] = here
    hub_path = current_app.config["STREAM_HUB"]
    if hub_path and sock is not None and not game.finished:  # the stream process serves it (service.streamhub)
        params = {"game": game_id, "seat": seat, "after": after, "form": form, "chunked": chunked, "heartbeat": heartbeat}
        frames = _handed_over(hub_path, sock, params, slot.renew if slot is not None else _nothing, heartbeat, here)
    body = stream_with_context(counted(slot, frames))
    response = Response(body, mimetype=form, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    if slot is not None:
        response.call_on_close(slot.close)  # also when the client left before the first frame
    return response


def _negotiated() -> str:
    if "Accept" not in request.headers:
        return SSE
    best = request.accept_mimetypes.best_match([SSE, NDJSON])
    if best is None:
        raise ApiProblem(406, "NOT_ACCEPTABLE", f"the stream is {SSE} or {NDJSON}", title="Not acceptable")
    return best


def _resume_point(query: dict[str, Any]) -> int:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return int(query.get("after", 0))
    return header_number("Last-Event-ID", raw)


class _Sse:
    name = "sse"
    opening = "retry: 2000\n: resuming after {after}\n\n"
    keep_alive = ": heartbeat\n\n"

    @staticmethod
    def event(view: dict[str, Any]) -> str:
        return f"id: {view['seq']}\ndata: {json.dumps(view, sort_keys=True)}\n\n"

    @staticmethod
    def named(kind: str, data: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: {json.dumps(data, sort_keys=True)}\n\n"


class _Ndjson:
    name = "ndjson"
    opening = ""
    keep_alive = "\n"

    @staticmethod
    def event(view: dict[str, Any]) -> str:
        return json.dumps({"kind": "event", **view}, sort_keys=True) + "\n"

    @staticmethod
    def named(kind: str, data: dict[str, Any]) -> str:
        return json.dumps({"kind": kind, **data}, sort_keys=True) + "\n"


FORMATS: dict[str, Any] = {SSE: _Sse, NDJSON: _Ndjson}


def _stream(game: Game, seat: int | None, after: int, heartbeat: float, form: Any,
            sock: Any | None = None, chunked: bool = True) -> Generator[str, None, None]:
    """Every entry after ``after`` once, in order, for ``seat``; keep-alives while idle; ``end`` last.

    With ``sock`` (the client's socket under gunicorn), once the gap is sent the feed writes the
    live batches onto the socket itself (:class:`service.streams.Sink`), framed as gunicorn would
    frame them (``chunked``); this generator then only writes keep-alives and what the feed left
    queued."""
    yield form.opening.format(after=after)
    svc = service()
    clocked = bool(timing.controls(game))
    if game.finished:
        yield from _frames(game, svc.entries(game.game_id, after=after), seat, form)
        yield _end(game, form)
        return
    sub, gap, live = hub().subscribe(game, after)
    text = partial(_batch_text, svc, game, seat, form, clocked)
    try:
        if sock is None:
            for batch in sub.batches(gap, live, heartbeat):
                if batch is None:
                    yield form.keep_alive
                elif batch is CUT_OFF:
                    return  # too far behind, or the feed failed: the client resumes with Last-Event-ID
                else:
                    yield text(batch)
                    if batch.finished:
                        return
            return
        if gap:
            first = Batch(tuple(gap), live.finished and gap[-1].seq >= live.version)
            yield text(first)
            if first.finished:
                return
        sink = Sink(sock, partial(_batch_bytes, text, form.name, seat, chunked), key=(form.name, seat, chunked))
        yield from _direct(sub, sink, heartbeat, form)
    finally:
        sub.close()


def _handed_over(path: str, sock: Any, params: dict[str, Any], renew: Callable[[], None], every: float,
                 here: Generator[str, None, None]) -> Iterator[str]:
    """The stream served by the stream process (``service.streamhub``) once this worker has sent
    the headers and the opening; ``here`` (the stream served by this worker) if it is unreachable."""
    yield next(here)  # the opening, and gunicorn sends the headers with it
    control = hand_over(path, sock, params)
    if control is None:
        yield from here
        return
    here.close()
    wait_until_served(control, renew, every)  # an idle greenlet; the stream process writes


def _nothing() -> None:
    return None


def _direct(sub: Subscription, sink: Sink, heartbeat: float, form: Any) -> Iterator[str]:
    """The live part of a stream the feed writes: wait, write what the feed queued, and send a
    keep-alive (through gunicorn, which also renews the stream's slot) after ``heartbeat`` quiet s."""
    sub.attach(sink)
    quiet_since = time.monotonic()
    while True:
        if sink.wait(max(0.0, heartbeat - (time.monotonic() - quiet_since))):
            sink.drain()
        if sink.done:
            return
        if time.monotonic() - quiet_since >= heartbeat and sink.claim():
            yield form.keep_alive
            sink.drain()  # gunicorn has written it: hand the socket back to the feed
            quiet_since = time.monotonic()


def _batch_text(svc: GameService, game: Game, seat: int | None, form: Any, clocked: bool, batch: Batch) -> str:
    """A batch as ``seat`` sees it: its events, the clocks after it, the end if it finished the
    game; rendered once per viewer and stream format, and the game and clocks read once per batch."""
    def render() -> str:
        text = "".join(_frames(game, batch.entries, seat, form))
        if clocked or batch.finished:
            now = batch.once("game", lambda: svc.load(game.game_id))
            if clocked:
                figures = batch.once("clocks", partial(timing.figures, svc, now))
                text += form.named("clocks", {"version": now.version, "clocks": figures})
            if batch.finished:
                text += _end(now, form)
        return text
    return batch.once((form.name, seat), render)


def _batch_bytes(text: Callable[[Batch], str], form_name: str, seat: int | None, chunked: bool, batch: Batch) -> bytes:
    """The bytes the feed writes for a batch: its text, encoded and framed once per viewer."""
    def encode() -> bytes:
        data = text(batch).encode("utf-8")
        return chunk(data) if chunked else data
    return batch.once((form_name, seat, chunked), encode)


def _frames(game: Game, entries: Iterable[StoredEntry], seat: int | None, form: Any) -> Iterator[str]:
    for entry in entries:
        yield form.event(event_view(game, entry, seat))


def _end(game: Game, form: Any) -> str:
    return str(form.named("end", {"version": game.version, "status": game.status()}))


def hub() -> Hub:
    """This app's stream hub (one per process and app)."""
    found: Hub = current_app.extensions.setdefault("hourglass.streams", Hub(service()))
    return found
