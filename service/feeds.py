"""The resumable subscriber streams over HTTP: a bot's and an account's (``core.botfeed``).

Both are served the same way: a page (``GET …/events?after=<id>``) and a live stream
(``GET …/events/stream``) as Server-Sent Events (``id`` = the stream id, ``event`` = its name) or,
with ``Accept: application/x-ndjson``, one JSON object ``{id, event, data}`` per line (an empty
line keeps an idle connection alive). ``Last-Event-ID`` (or ``?after=``) resumes after exactly
that entry. A resume point past the stream's last entry is a 400 (it can only be a mistake, and
answering it would skip everything up to it); one older than the oldest kept entry, or none,
starts with ``resync`` and the subscriber's situation now.

A live stream has no read of its own: the process's readers (``service.feedreaders``) wait on many
subscribers' keys at once, and under gunicorn write the events onto the socket themselves, the
keep-alives coming from the process's timer (``service.streamsink.KEEP_ALIVES``).
"""
from __future__ import annotations

import json
import queue
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from flask import Response, current_app, request, stream_with_context

from core import clocks
from core.botfeed import BotEvent, Feed, iso_ms
from core.games import Game, GameNotFound, GameService
from service.auth import principal
from service.feedreaders import Listener, readers_of
from service.limits import held, stream_slot
from service.problems import ApiProblem
from service.streamlag import LagStats
from service.streamsink import KEEP_ALIVES, Batch, Sink, chunk, direct_socket
from service.web import service

_STATS = LagStats()  # these streams' cut-offs, apart from the games' lag figures

SSE, NDJSON = "text/event-stream", "application/x-ndjson"
STREAM_RESPONSES = {200: {"description": "text/event-stream (id = stream id, event = the event's name, data = its JSON; "
                          "heartbeat comments) or, for Accept: application/x-ndjson, one {id, event, data} per line",
                          "content": {SSE: {"schema": {"type": "string"}}, NDJSON: {"schema": {"type": "string"}}}}}
STREAM_PARAMETERS = [{"in": "header", "name": "Last-Event-ID", "required": False,
                      "schema": {"type": "string", "pattern": r"^\d{1,20}(-\d{1,20})?$"},
                      "description": "resume after this stream id"}]
Snapshot = Callable[[str, str], list[tuple[str, dict[str, Any]]]]


def stream_key(text: str) -> tuple[int, int]:
    head, _, tail = text.partition("-")
    return int(head), int(tail or 0)


def valid_id(text: str) -> bool:
    head, _, tail = text.partition("-")
    return head.isascii() and head.isdigit() and len(head) <= 20 and (not tail or (tail.isascii() and tail.isdigit()
                                                                                   and len(tail) <= 20))


def check_resume(feed: Feed, who: str, after: str) -> None:
    """400 for a resume point the stream has not reached (it would silently skip what comes)."""
    if not valid_id(after):
        raise ApiProblem(400, "MALFORMED", "a resume point is a stream id such as 1767268802000-0")
    if stream_key(after) > stream_key(feed.last_id(who)):
        raise ApiProblem(400, "MALFORMED", f"{after} is past the end of this stream (its last id is "
                         f"{feed.last_id(who)}); resume from an id you were sent, or from none for a resync",
                         title="Malformed request")


def page(feed: Feed, who: str, after: str) -> dict[str, Any]:
    check_resume(feed, who, after)
    events = feed.read(who, after)
    return {"events": [_json(e) for e in events], "last_id": events[-1].id if events else after}


def stream(feed: Feed, who: str, after_query: str | None, snapshot: Snapshot) -> Response:
    """The live stream of ``who``'s feed, in the format the client accepts."""
    best = request.accept_mimetypes.best_match([SSE, NDJSON]) if request.accept_mimetypes else SSE
    if best is None:
        raise ApiProblem(406, "NOT_ACCEPTABLE", f"the stream is {SSE} or {NDJSON}", title="Not acceptable")
    after = request.headers.get("Last-Event-ID", after_query)
    if after is not None:
        check_resume(feed, who, after)
    slot = stream_slot(service().store.conn, principal().token)
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    sock = direct_socket(request.environ) if current_app.config["STREAM_DIRECT"] else None
    chunked = request.environ.get("SERVER_PROTOCOL") != "HTTP/1.0"
    frames = _frames(feed, who, after, heartbeat, snapshot, best == NDJSON, sock, chunked)
    response = Response(stream_with_context(held(slot, frames)), mimetype=best,
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    if slot is not None:
        response.call_on_close(slot.close)
    return response


def _frames(feed: Feed, who: str, after: str | None, heartbeat: float, snapshot: Snapshot,
            ndjson: bool, sock: Any | None = None, chunked: bool = True) -> Iterator[str]:
    """The opening (a resync and the snapshot for a fresh stream), then every event after
    ``after`` as the process's reader (:class:`Readers`) finds it, keep-alives between. With
    ``sock`` (the client's socket under gunicorn) the reader writes the events onto it and the
    process's keep-alive timer the keep-alives; this generator then only sleeps until the end."""
    frame = _line if ndjson else _sse
    if not ndjson:
        yield "retry: 2000\n\n"
    first = feed.first_id(who)
    if after is None or (first is not None and stream_key(after) < stream_key(first) and stream_key(after) != (0, 0)):
        after = feed.last_id(who)  # everything before it is summed up by the resync
        games = feed.live_games(who)
        yield frame(BotEvent(after, "resync", {"games": games}))
        for name, data in snapshot(who, after):
            yield frame(BotEvent(after, name, data))
    keep_alive = "\n" if ndjson else ": heartbeat\n\n"
    listener = Listener(feed.key(who), after, frame)
    readers = readers_of(feed.conn)
    if sock is None:
        readers.add(listener)
        try:
            yield from _queued(listener, heartbeat, keep_alive)
        finally:
            readers.remove(listener)
        return
    listener.sink = Sink(sock, _no_batch, stats=_STATS)
    listener.chunked = chunked
    readers.add(listener)
    beat = keep_alive.encode("utf-8")
    KEEP_ALIVES.add(listener.sink, heartbeat, chunk(beat) if chunked else beat)
    try:
        _direct(listener.sink)
    finally:
        listener.sink.retire()  # the connection may go on to another request: nothing more is written to it
        readers.remove(listener)


def _queued(listener: Listener, heartbeat: float, keep_alive: str) -> Iterator[str]:
    """The live part through the response iterator (no direct socket): each event as the server
    asks for the next piece, a keep-alive after ``heartbeat`` s without one."""
    while True:
        try:
            events = listener.queue.get(timeout=heartbeat)
        except queue.Empty:
            yield keep_alive
            continue
        if events is None:
            return  # cut off (the reader failed, or this client fell far behind): it resumes with Last-Event-ID
        for event in events:
            yield listener.frame(event)


def _direct(sink: Sink) -> None:
    """Until the stream is over: write what the reader (or the keep-alive timer) left queued."""
    while True:
        sink.drain()
        if sink.done:
            return
        sink.wait()


def _no_batch(batch: Batch) -> bytes:
    raise TypeError("an account's or a bot's stream is offered bytes, not a game's batches")


def _json(event: BotEvent) -> dict[str, Any]:
    return {"id": event.id, "event": event.event, "data": event.data}


def _sse(event: BotEvent) -> str:
    return f"id: {event.id}\nevent: {event.event}\ndata: {json.dumps(event.data, sort_keys=True)}\n\n"


def _line(event: BotEvent) -> str:
    return json.dumps(_json(event), sort_keys=True) + "\n"


def live_snapshot(feed: Feed, who: str,
                  seats: Callable[[Game], Iterable[tuple[int, bool]]]) -> list[tuple[str, dict[str, Any]]]:
    """A fresh connection's opening: for each live game of ``who`` (the feed's record), each of
    its ``seats(game)`` — ``(seat, turns)``, where ``turns`` says whether it is told its turns —
    as ``game_started`` and, when it may act now, ``your_turn``."""
    svc = service()
    out: list[tuple[str, dict[str, Any]]] = []
    for game_id in feed.live_games(who):
        try:
            game = svc.load(game_id)
        except GameNotFound:
            continue
        if not game.finished:
            for seat, turns in seats(game):
                out += seat_snapshot(svc, game, seat, turns=turns)
    return out


def seat_snapshot(svc: GameService, game: Game, seat: int, *, turns: bool) -> list[tuple[str, dict[str, Any]]]:
    """``game_started`` for a seat of a live game, and ``your_turn`` when it may act now (and ``turns``)."""
    info = game.info
    out: list[tuple[str, dict[str, Any]]] = [("game_started", {
        "game": game.game_id, "game_type": info.game, "seat": seat, "edition": info.config.get("edition")})]
    if turns and seat in game.to_act:
        deadline_ms = _deadline(svc.store.conn, game.game_id, seat)
        out.append(("your_turn", {"game": game.game_id, "seat": seat, "version": game.version,
                                  "deadline_ms": deadline_ms,
                                  "deadline": iso_ms(deadline_ms) if deadline_ms is not None else None}))
    return out


def _deadline(conn: Any, game_id: str, seat: int) -> int | None:
    current = clocks.load(conn, game_id)
    clock = current.seats.get(seat) if current is not None else None
    return clock.deadline_ms if clock is not None and clock.running else None
