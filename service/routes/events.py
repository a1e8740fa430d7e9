"""/api/v1/games/{id}/events: the caller's view of the log, as pages or a live stream.

The live stream is Server-Sent Events by default, or NDJSON (one JSON object per line,
Lichess-style) for ``Accept: application/x-ndjson``. A fresh stream (no ``Last-Event-ID``, no
``after``) opens with a snapshot of the table for the caller (Lichess's gameFull line: its view,
its legal moves, the clocks, the version), then every later event; a resumed one carries every
event after the resume point. Both carry each event once, in order, as the caller may see it; for
games with clocks, the remaining times after each batch; on a seat's stream, after each batch
that leaves the seat to act, its legal moves; on a seat's stream, after each batch, the seat's
view-chain head (a ``head`` line, docs/replay-format.md); an end marker when the game is over; and
keep-alives while nothing happens (an SSE comment, an empty NDJSON line). A client whose live
batches wait longer than the lag bound (``STREAM_LAG_S``) gets one resync line with the latest
state (the snapshot's fields) instead of them, and goes on from there: never a silent gap.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator
from functools import partial
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask_smorest import Blueprint

from core import timing
from core.games import Game, GameService
from core.store import StoredEntry
from service.limits import held, stream_slot
from service.problems import ApiProblem
from service.schemas import EventsQuerySchema, EventsSchema, StreamQuerySchema
from service.streamhub import hand_over, wait_until_served
from service.streams import Hub, Resync, Subscription
from service.streamsink import CLOCKS, CUT_OFF, KEEP_ALIVES, Batch, Sink, chunk, direct_socket
from service.web import bearer_token, caller_seat, event_view, event_views, header_number, service, to_act_list

blp = Blueprint("events", __name__, url_prefix="/api/v1/games", description="Event log and live stream")

SSE, NDJSON = "text/event-stream", "application/x-ndjson"
LINES = "#/components/schemas/StreamLine"
# The bodies are declared as what they are, one string streamed until the game ends, so generated
# clients read raw text (openapi-python-client: str, or bytes with its content_type_overrides)
# instead of feeding the whole body to one model; each line's schema is StreamLine, named by the
# extension x-itemSchema (OpenAPI 3.2's itemSchema for sequential media types).
STREAM_DOC = {
    # For SSE, OpenAPI 3.1 tools (Schemathesis) read ``schema`` as one event's: a StreamMessage, or the
    # raw text for a generated client (openapi-python-client reads a string, where one model crashed).
    SSE: {"schema": {"description": "Server-Sent Events: 'event: snapshot' (id = version) first on a fresh stream; "
                     "unnamed messages (id = seq) for events; events 'clocks', 'moves', 'end' and 'resync' (id = "
                     "version); comment heartbeats. Each message's data is a StreamLine without kind",
                     "anyOf": [{"$ref": "#/components/schemas/StreamMessage"}, {"type": "string"}]},
          "x-itemSchema": {"$ref": LINES},
          "example": 'retry: 2000\n: the table, then what follows\n\nevent: snapshot\nid: 7\ndata: {"version":7,...}\n\n'
                     'id: 8\ndata: {"seq":8,"type":"...",...}\n\nevent: clocks\ndata: {"version":8,"clocks":{...}}\n\n'
                     'event: moves\ndata: {"version":8,"moves":[...]}\n\n'
                     'event: end\ndata: {"version":90,"status":"finished"}\n\n'},
    NDJSON: {"schema": {"type": "string", "description": "one StreamLine per line (JSON), empty keep-alive lines"},
             "x-itemSchema": {"$ref": LINES},
             "example": '{"kind":"snapshot","version":7,"view":{...},"moves":[...],...}\n{"kind":"event","seq":8,...}\n'
                        '{"kind":"clocks","version":8,"clocks":{...}}\n{"kind":"moves","version":8,"moves":[...]}\n\n'
                        '{"kind":"end","version":90,"status":"finished"}\n'},
}


@blp.route("/<string:game_id>/events", methods=["GET"])
@blp.doc(operationId="listEvents")
@blp.arguments(EventsQuerySchema, location="query", error_status_code=400)
@blp.response(200, EventsSchema)
def list_events(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Up to ``limit`` events after seq ``after``, each redacted for the caller (seat token or
    spectator); ``next`` is the ``after`` of the next page, null once you have them all. An
    ``after`` past the game's version is a 400, as for the stream."""
    svc = service()
    game = svc.load(game_id)
    seat = caller_seat(game)
    if query["after"] > game.version:  # as the stream answers: a page past the end is a client's mistake
        raise ApiProblem(400, "MALFORMED", f"no events after seq {query['after']}: the game is at version {game.version}")
    until = min(game.version, query["after"] + query["limit"])
    entries = svc.entries(game_id, after=query["after"], until=until)
    return {"id": game_id, "version": game.version, "events": event_views(game, entries, seat),
            "next": until if until < game.version else None}


@blp.route("/<string:game_id>/events/stream", methods=["GET"])
@blp.doc(operationId="streamEvents",
         responses={200: {"description": "the live stream: Server-Sent Events or, for Accept: application/x-ndjson, "
                          "one JSON object per line (StreamLine). A fresh stream (no Last-Event-ID, no after) opens "
                          "with a snapshot of the table for the caller (view, legal moves, clocks, version), then "
                          "the events after its version; a resumed one sends only the events after the resume "
                          "point. After each batch: the clocks (clocked games), for a seat left to act its legal "
                          "moves, and the end once the game is over. A resync replaces the events of a client "
                          "that fell behind by more than the server's lag bound with the latest state; go on (or "
                          "resume) after its version", "content": STREAM_DOC}},
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
    after = _resume_point(query)  # None: a fresh stream, which opens with the table (a snapshot)
    if after is not None and after > game.version:
        raise ApiProblem(400, "MALFORMED", f"cannot resume after seq {after}: the game is at version {game.version}")
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    slot = stream_slot(svc.store.conn, bearer_token())  # 429 past the open-stream caps
    sock = direct_socket(request.environ) if current_app.config["STREAM_DIRECT"] else None
    chunked = request.environ.get("SERVER_PROTOCOL") != "HTTP/1.0"
    here = _stream(game_id, seat, after, heartbeat, FORMATS[form], sock, chunked, game)
    frames: Iterator[str] = here
    hub_path = current_app.config["STREAM_HUB"]
    if hub_path and sock is not None and not game.finished:  # the stream process serves it (service.streamhub)
        params = {"game": game_id, "seat": seat, "after": after, "form": form, "chunked": chunked, "heartbeat": heartbeat}
        frames = _handed_over(hub_path, sock, params, here)
    body = stream_with_context(held(slot, frames))
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


def _resume_point(query: dict[str, Any]) -> int | None:
    """The seq to resume after (``Last-Event-ID`` wins over ``after``); None when the client
    names neither: a fresh stream."""
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return int(query["after"]) if "after" in query else None
    return header_number("Last-Event-ID", raw)


class _Sse:
    name = "sse"
    keep_alive = ": heartbeat\n\n"

    @staticmethod
    def opening(after: int | None) -> str:
        return "retry: 2000\n: " + ("the table, then what follows" if after is None else f"resuming after {after}") + "\n\n"

    @staticmethod
    def event(view: dict[str, Any]) -> str:
        return f"id: {view['seq']}\ndata: {json.dumps(view, sort_keys=True)}\n\n"

    @staticmethod
    def named(kind: str, data: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: {json.dumps(data, sort_keys=True)}\n\n"

    @staticmethod
    def resync(data: dict[str, Any], kind: str = "resync") -> str:
        """A resync (or the snapshot a fresh stream opens with) carries the version it brings the
        client to as its id: Last-Event-ID resumes after it."""
        return f"event: {kind}\nid: {data['version']}\ndata: {json.dumps(data, sort_keys=True)}\n\n"


class _Ndjson:
    name = "ndjson"
    keep_alive = "\n"

    @staticmethod
    def opening(after: int | None) -> str:
        return ""

    @staticmethod
    def event(view: dict[str, Any]) -> str:
        return json.dumps({"kind": "event", **view}, sort_keys=True) + "\n"

    @staticmethod
    def named(kind: str, data: dict[str, Any]) -> str:
        return json.dumps({"kind": kind, **data}, sort_keys=True) + "\n"

    @staticmethod
    def resync(data: dict[str, Any], kind: str = "resync") -> str:
        return json.dumps({"kind": kind, **data}, sort_keys=True) + "\n"


FORMATS: dict[str, Any] = {SSE: _Sse, NDJSON: _Ndjson}


def _stream(game_id: str, seat: int | None, after: int | None, heartbeat: float, form: Any,
            sock: Any | None = None, chunked: bool = True, game: Game | None = None) -> Generator[str, None, None]:
    """Every entry after ``after`` once, in order, for ``seat``; keep-alives while idle; ``end`` last;
    a resync line instead of a backlog older than the lag bound. ``after`` None (a fresh stream):
    first a snapshot of the table as ``seat`` sees it, then every entry after its version.

    ``game`` is the game when the caller holds it (the route: a game over needs no feed); the
    stream process passes None and shares the feed's game (``service.streams.Hub``). With ``sock`` (the client's socket
    under gunicorn), once the gap is sent the feed writes the live batches onto the socket itself
    (:class:`service.streamsink.Sink`), framed as gunicorn would frame them (``chunked``); this
    generator then yields nothing more: its greenlet writes only what the feed left queued, and
    the process's keep-alive timer writes the keep-alives (:func:`_direct`)."""
    yield form.opening(after)
    svc = service()
    streams = hub()
    joined = None if game is not None and game.finished else streams.subscribe(game_id, after)
    if joined is None:  # the game is over: the table (fresh) or the log missed, and the end
        over = game if game is not None and game.finished else svc.load(game_id)
        if after is None:
            yield _snapshot_text(svc, over, seat, form)
        else:
            yield from _frames(over, svc.entries(game_id, after=after), seat, form)
        yield _end(over, form)
        return
    sub, gap, live = joined
    text = partial(_batch_text, svc, live, seat, form, bool(timing.controls(live)))
    resync = partial(_resync_text, svc, seat, form)
    try:
        if after is None:  # the table as of the live position; the live batches follow it
            yield _snapshot_text(svc, live, seat, form)
        for batch in gap:
            yield text(batch)
            if batch.finished:
                return
        told = _head_text(live, seat, form) + _moves_text(live, seat, form) if gap and gap[-1].game is None else ""
        if told:  # a gap from the feed's memory ends at the live position (and an empty write ends a chunked body)
            yield told
        if sock is None:
            yield from _queued(sub, heartbeat, form, text, resync, streams)
            return
        sink = Sink(sock, partial(_batch_bytes, text, (form.name, seat, chunked), chunked),
                    key=(form.name, seat, chunked), bound=streams.bound, stats=streams.stats,
                    resync=partial(_batch_bytes, resync, ("resync", form.name, seat, chunked), chunked))
        _direct(sub, sink, heartbeat, form, chunked)
    finally:
        sub.close()


def _queued(sub: Subscription, heartbeat: float, form: Any, text: Callable[[Batch], str],
            resync: Callable[[Batch], str], streams: Hub) -> Iterator[str]:
    """The live part of a stream served through the response iterator (no direct socket): each
    batch (or resync) as the server asks for the next piece, its lag observed once it was written."""
    for item in sub.batches(heartbeat):
        if item is None:
            yield form.keep_alive
            continue
        if item is CUT_OFF:
            return  # the feed failed: the client resumes with Last-Event-ID
        batch = item.batch if isinstance(item, Resync) else item
        yield resync(batch) if isinstance(item, Resync) else text(batch)
        if batch.appended:  # the server asks for the next piece once this one is written
            streams.stats.observe(time.time() - batch.appended)
        if batch.finished:
            return


def _handed_over(path: str, sock: Any, params: dict[str, Any], here: Generator[str, None, None]) -> Iterator[str]:
    """The stream served by the stream process (``service.streamhub``) once this worker has sent
    the headers and the opening; ``here`` (the stream served by this worker) if it is unreachable."""
    yield next(here)  # the opening, and gunicorn sends the headers with it
    control = hand_over(path, sock, params)
    if control is None:
        yield from here
        return
    here.close()
    wait_until_served(control)  # a greenlet that sleeps until the end; the stream process writes


def _direct(sub: Subscription, sink: Sink, heartbeat: float, form: Any, chunked: bool) -> None:
    """The live part of a stream the feed writes: this greenlet sleeps until the feed (or the
    keep-alive timer, :data:`~service.streamsink.KEEP_ALIVES`) leaves bytes it must write
    itself, writes them, and returns once the stream is over. While the game is quiet it costs
    nothing: the keep-alives (every ``heartbeat`` s) go out from the process's one timer."""
    sub.attach(sink)
    beat = form.keep_alive.encode("utf-8")
    KEEP_ALIVES.add(sink, heartbeat, chunk(beat) if chunked else beat)
    try:
        while True:
            sink.drain()  # what attach() moved over, then whatever woke us
            if sink.done:
                return
            sink.wait()
    finally:
        sink.retire()  # the connection may go on to another request: nothing more is written to it


def _batch_text(svc: GameService, game: Game, seat: int | None, form: Any, clocked: bool, batch: Batch) -> str:
    """A batch as ``seat`` sees it: its events, the clocks after it, the end if it finished the
    game; rendered once per viewer and stream format, and the clocks computed once per batch."""
    def render() -> str:
        text = "".join(_frames(game, batch.entries, seat, form))
        if clocked:  # the feed read them with the batch; a gap read from the store reads them now
            figures = batch.shared(CLOCKS, lambda: timing.figures(svc, _game_after(svc, game, batch)))
            version = batch.game.version if batch.game is not None else batch.version
            text += form.named("clocks", {"version": version, "clocks": figures})
        if batch.game is not None:  # a gap batch from the feed's memory has none: _stream says them after the gap
            text += _head_text(batch.game, seat, form) + _moves_text(batch.game, seat, form)
        if batch.finished:
            text += _end(_game_after(svc, game, batch), form)
        return text
    return batch.once((form.name, seat), render)


def _resync_text(svc: GameService, seat: int | None, form: Any, batch: Batch) -> str:
    """The resync line bringing ``seat`` to the state after ``batch`` (and the end, if it
    finished the game); rendered once per viewer and stream format."""
    def render() -> str:
        now = _game_after(svc, None, batch)
        figures = batch.shared(CLOCKS, partial(timing.figures, svc, now))
        text = form.resync({"reason": "behind", **snapshot(now, seat, figures)})
        return text + _end(now, form) if batch.finished else text
    return batch.once(("resync", form.name, seat), render)


def _game_after(svc: GameService, game: Game | None, batch: Batch) -> Game:
    """The game after ``batch``: the feed's fold it carries, else read once per batch."""
    if batch.game is not None:
        return batch.game
    game_id = game.game_id if game is not None else ""
    return batch.shared("game", lambda: svc.load(game_id))


def snapshot(game: Game, seat: int | None, clocks: dict[str, Any] | None) -> dict[str, Any]:
    """What a client needs to go on from ``game`` without a GET: the version, the status, the
    caller's seat, who is to act, the caller's view (hidden information only through the view),
    the clocks and the caller's legal moves (none for a spectator, or a seat not to act): the
    same as ``GET .../state`` and ``GET .../moves`` at that version."""
    return {"version": game.version, "status": game.status(), "seat": seat, "to_act": to_act_list(game),
            "view": game.rules.view(game.state, seat), "view_head": game.view_head(seat), "clocks": clocks,
            "moves": seat_moves(game, seat)}


def seat_moves(game: Game, seat: int | None) -> list[dict[str, Any]]:
    """``seat``'s legal moves in ``game`` as JSON (what ``GET .../moves`` lists); none for a
    spectator, a seat that left or a game that is not active."""
    if seat is None or seat in game.table.left or game.status() != "active":
        return []
    return [game.rules.move_to_json(m) for m in game.rules.legal_moves(game.state, seat)]


def _snapshot_text(svc: GameService, game: Game, seat: int | None, form: Any) -> str:
    """The first line of a fresh stream: the table as ``seat`` sees it at ``game``'s version."""
    return str(form.resync(snapshot(game, seat, timing.figures(svc, game)), "snapshot"))


def _head_text(game: Game, seat: int | None, form: Any) -> str:
    """The line that gives a seat its view-chain head after a batch (nothing for a spectator:
    other seats' heads are never sent during play, docs/fairness.md)."""
    head = game.view_head(seat)
    return str(form.named("head", {"version": game.version, "view_head": head})) if head is not None else ""


def _moves_text(game: Game, seat: int | None, form: Any) -> str:
    """The line that tells a seat to act what it may do now (nothing when it has no move)."""
    moves = seat_moves(game, seat)
    return str(form.named("moves", {"version": game.version, "moves": moves})) if moves else ""


def _batch_bytes(text: Callable[[Batch], str], key: Hashable, chunked: bool, batch: Batch) -> bytes:
    """The bytes the feed writes for a batch (or a resync): its text, encoded and framed once per viewer."""
    def encode() -> bytes:
        data = text(batch).encode("utf-8")
        return chunk(data) if chunked else data
    return batch.once(key, encode)


def _frames(game: Game, entries: Iterable[StoredEntry], seat: int | None, form: Any) -> Iterator[str]:
    for entry in entries:
        yield form.event(event_view(game, entry, seat))


def _end(game: Game, form: Any) -> str:
    return str(form.named("end", {"version": game.version, "status": game.status()}))


def hub() -> Hub:
    """This app's stream hub (one per process and app), with the app's lag bound."""
    found = current_app.extensions.get("hourglass.streams")
    if found is None:
        found = current_app.extensions.setdefault("hourglass.streams",
                                                  Hub(service(), float(current_app.config["STREAM_LAG_S"])))
    assert isinstance(found, Hub)
    return found
