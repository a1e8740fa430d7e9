"""Helpers shared by the blueprints: the request's GameService, the caller's seat, headers, and
rendering events for one viewer. Views stay a few lines each by calling these.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask import current_app, request

from core import viewchain
from core.games import AppendGuard, Applied, Game, GameService, token_digest
from core.store import StoredEntry
from domain.core import SYSTEM
from service.auth import bearer, principal, unauthorized
from service.problems import ApiProblem
from service.schemas import MAX_SEQ


def service() -> GameService:
    return current_app.extensions["hourglass"]


def bearer_token() -> str | None:
    return bearer()


def caller_seat(game: Game, *, required: bool = False) -> int | None:
    """The seat of the request's bearer token; None for a spectator (no token).

    A seat token of this game, a pull bot's token where it holds a seat, or an account key where
    the account holds a seat (``account_seat``). Any other token is a 401, never a silent
    spectator. (The request was counted against its requester's window before the view ran:
    ``service.limits.admit``.)
    """
    token = bearer()
    if token is None:
        if required:
            raise unauthorized("this endpoint needs a seat's bearer token")
        return None
    caller = principal()
    if caller.kind == "seat" and caller.game_id == game.game_id and caller.seat is not None:
        # ``game`` was just loaded: a token withdrawn since the principal was resolved (a joined
        # seat given back, core.seating.vacate) is gone from its meta copy, so it answers no more
        if game.info.tokens.get(token_digest(token)) == caller.seat:
            return caller.seat
        raise unauthorized("the bearer token is not a seat token of this game", "invalid_token")
    if caller.kind == "account":
        return account_seat(game, required)
    seat = service().seat_for_token(game.game_id, token) if caller.kind == "bot" else None
    if seat is None:
        raise unauthorized("the bearer token is not a seat token of this game", "invalid_token")
    return seat


def account_seat(game: Game, required: bool) -> int | None:
    """The seat an account key (scope ``play``) speaks for in ``game``: the seat bound to the
    account (of several, the first one to act, else the lowest); a spectator where it holds none."""
    caller = principal()
    mine = sorted(s for s, a in game.info.accounts.items() if a == caller.account_id)
    if not mine or "play" not in caller.scopes:
        if required:
            raise unauthorized("the account holds no seat in this game (or the key lacks the play scope)")
        return None
    return next((s for s in mine if s in game.to_act), mine[0])


def acting_seat(game: Game) -> int:
    """The caller's seat for a request that acts: a token is required, and a seat that left the
    game (resigned, or abandoned on a claim) acts no more."""
    seat = caller_seat(game, required=True)
    assert seat is not None
    return still_playing(game, seat)


def still_playing(game: Game, seat: int) -> int:
    """``seat``, unless it left the game (resigned, abandoned on a claim, forfeited): a 422."""
    AppendGuard().check(game, seat)
    return seat


ETAG_HEADER = {"ETag": {"description": "the game's version, quoted", "required": True, "schema": {"type": "string"}}}
REPLAYED_HEADERS = {**ETAG_HEADER, "Idempotent-Replayed": {
    "description": "true when an Idempotency-Key repeated an earlier request: nothing new was appended",
    "required": False, "schema": {"type": "string", "enum": ["true"]}}}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False,
                   "schema": {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[ -~]+$"},
                   "description": "retry-safe key (printable ASCII): the same key and request answer the first "
                                  "result again, nothing appended; the same key with another request is a 409"}
ACTION_HEADERS = [
    {"in": "header", "name": "If-Match", "required": False,
     "schema": {"type": "string", "pattern": '^\\s*(W/)?"?([0-9]{1,12}|1000000000000)"?\\s*$'},
     "description": 'the version the move was chosen at (3, "3" or W/"3"); 412 if the game moved on'},
    IDEMPOTENCY_KEY,
]


def expected_version() -> int | None:
    """The If-Match header as a version number: ``3``, ``"3"`` or ``W/"3"``; absent -> None."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    text = raw.strip()
    if text.startswith("W/"):
        text = text[2:]
    return header_number("If-Match", text.strip('"'), raw)


def header_number(name: str, text: str, raw: str | None = None) -> int:
    """A header's decimal number: ASCII digits only (``"²".isdigit()`` is true), at most 10^12."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 13 or int(text) > MAX_SEQ:
        shown = (raw if raw is not None else text)[:40]
        raise ApiProblem(400, "MALFORMED", f"{name} must be a version number from 0 to {MAX_SEQ}, got {shown!r}")
    return int(text)


def idempotency_key(seat: int) -> str | None:
    """The Idempotency-Key header, namespaced by seat so seats never share results."""
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    if not 1 <= len(raw) <= 128 or not (raw.isascii() and raw.isprintable()):
        raise ApiProblem(400, "MALFORMED", "Idempotency-Key must be 1..128 printable ASCII characters")
    return f"http:{seat}:{raw}"


def event_view(game: Game, entry: StoredEntry, seat: int | None) -> dict[str, Any]:
    return _shown(entry, viewchain.seat_event(game.rules, entry.data, seat))  # what the view chain hashes too


def _shown(entry: StoredEntry, data: dict[str, Any]) -> dict[str, Any]:
    """An entry as a client sees it, ``data`` the event as its seat is shown it."""
    return {"seq": entry.seq, "type": data.get("type", entry.type), "actor": entry.actor,
            "time": entry.entry["time"], "data": data}


def event_views(game: Game, entries: Iterable[StoredEntry], seat: int | None) -> list[dict[str, Any]]:
    return [event_view(game, e, seat) for e in entries]


def answer_events(game: Game, applied: Applied, seat: int) -> list[dict[str, Any]]:
    """A move's answer's events as ``seat`` is shown them: the views its view chain hashed when this
    process decided the move (the same as :func:`event_views` renders from the stored JSON), else
    rendered (a replayed answer)."""
    if applied.replayed or not 0 <= seat < len(applied.views):
        return event_views(game, applied.entries, seat)
    return [_shown(e, data) for e, data in zip(applied.entries, applied.views[seat], strict=True)]


def answer_head(applied: Applied, seat: int | None) -> str | None:
    """``seat``'s view-chain head at the version a move answer names. A replayed answer after
    later moves holds a newer game: the head then comes from time travel (a fold from the start,
    only for such replays), so a retry answers the very same bytes."""
    if applied.game.version == applied.version or seat is None:
        return applied.game.view_head(seat)
    return service().state_at(applied.game.game_id, applied.version).view_head(seat)


def to_act_list(game: Game) -> list[Any]:
    acting = game.to_act
    return sorted(a for a in acting if a != SYSTEM) + ([SYSTEM] if SYSTEM in acting else [])


def version_etag(version: int) -> str:
    return f'"{version}"'
