"""/api/v1/accounts and /api/v1/account: sign-up, keys, the account's games and event stream.

Anonymous play with seat tokens needs none of this. An account is what a stranger creates to own
bots and tournaments, to play many games from one key and one stream, and to be granted more
than an address's budget (``service.limits``). The operator's tools are ``hourglass account``
(``service.account_cli``) and the ``admin`` scope's endpoints here.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint

from core.accounts import AccountNotFound, NameTaken, SignupRefused
from core.budgets import count, peek, window_for
from core.games import Game, GameNotFound
from core.retention import creator_key
from core.store import RateWindow, meta_key
from domain.core import Rejected
from service import feeds, limits
from service.account_schemas import (
    AccountGamesQuerySchema,
    AccountGamesSchema,
    AccountListSchema,
    AccountSchema,
    AccountViewSchema,
    GrantSchema,
    InviteSchema,
    IssuedKeySchema,
    KeyListSchema,
    NewKeySchema,
    SignedUpSchema,
    SignupSchema,
)
from service.auth import accounts, client_address, require_account
from service.platform_schemas import BotEventsQuerySchema, BotEventsSchema, BotStreamQuerySchema
from service.problems import ApiProblem
from service.web import service

blp = Blueprint("accounts", __name__, url_prefix="/api/v1", description="Accounts, API keys and the account stream")


@blp.route("/accounts", methods=["POST"])
@blp.doc(operationId="signUp")
@blp.arguments(SignupSchema, error_status_code=400)
@blp.response(201, SignedUpSchema)
def sign_up(body: dict[str, Any]) -> dict[str, Any]:
    """Create an account and its first API key (scopes play, bots, tournaments), shown only here.
    The server's policy may need an invite code, or allow no sign-up at all."""
    config = current_app.config
    conn = service().store.conn
    window = _signup_window() if limits.enabled() and int(config["SIGNUPS_PER_ADDRESS"]) else None
    if window is not None and count(conn, window) > window.limit:  # counted first: parallel sign-ups too
        raise ApiProblem(429, "SIGNUP_LIMIT", f"this address created {window.limit} accounts in the last period; "
                         "ask the server's operator for more", headers={"Retry-After": "3600"}, budget="signups")
    try:
        return accounts().signup(body["name"], str(config["SIGNUP"]), body.get("invite"))
    except (SignupRefused, NameTaken, Rejected) as exc:
        if window is not None:
            conn.decr(window.key)  # no account was made: the attempt is not charged
        if isinstance(exc, SignupRefused):
            raise ApiProblem(403, "SIGNUP_REFUSED", str(exc)) from None
        if isinstance(exc, NameTaken):
            raise ApiProblem(409, "NAME_TAKEN", str(exc), title="Conflict") from None
        raise


def _signup_window() -> RateWindow:
    config = current_app.config
    return window_for(f"signup:{client_address()}", int(config["SIGNUPS_PER_ADDRESS"]), float(config["WORK_PERIOD_S"]))


@blp.route("/account", methods=["GET"])
@blp.doc(operationId="getAccount")
@blp.response(200, AccountViewSchema)
def get_account() -> dict[str, Any]:
    """The calling account: its name, the key's scopes and what is left of each budget."""
    caller, account = require_account()
    config = current_app.config
    conn = service().store.conn
    budget = limits.work_budget(caller)
    window = limits.window(caller)
    caps = limits.live_caps(config, caller)
    live = int(conn.zcard(creator_key(caller.owner)))  # type: ignore[arg-type]
    return {**account.public(), "scopes": sorted(caller.scopes), "key_id": caller.key_id, "budgets": {
        "requests": {"limit": window.limit, "used": peek(conn, window), "period_s": float(config["RATE_LIMIT_WINDOW"])},
        "work": {"limit": budget.capacity, "left": round(budget.left(conn), 2), "period_s": budget.period_s},
        "live_games": {"limit": caps.per_creator if caps else 0, "used": live}}}


@blp.route("/account/keys", methods=["GET"])
@blp.doc(operationId="listKeys")
@blp.response(200, KeyListSchema)
def list_keys() -> dict[str, Any]:
    """The account's keys: id, scopes, label and creation time (never a secret)."""
    caller, _ = require_account()
    assert caller.account_id is not None
    return {"keys": accounts().keys(caller.account_id)}


@blp.route("/account/keys", methods=["POST"])
@blp.doc(operationId="createKey")
@blp.arguments(NewKeySchema, error_status_code=400)
@blp.response(201, IssuedKeySchema)
def create_key(body: dict[str, Any]) -> dict[str, Any]:
    """A new key with some of the calling key's scopes (default: all of them); shown only here."""
    caller, _ = require_account()
    assert caller.account_id is not None
    wanted = set(body.get("scopes") or caller.scopes)
    beyond = sorted(wanted - caller.scopes)
    if beyond:
        raise ApiProblem(403, "FORBIDDEN", f"a key can give only its own scopes; this one lacks {', '.join(beyond)}")
    return accounts().issue_key(caller.account_id, wanted, label=body.get("label", ""), allow_admin=True)


@blp.route("/account/keys/<string:key_id>", methods=["DELETE"])
@blp.doc(operationId="revokeKey")
@blp.response(204)
def revoke_key(key_id: str) -> Response:
    """Revoke a key of the account (it may be the calling key itself): it stops working at once."""
    caller, _ = require_account()
    assert caller.account_id is not None
    if not accounts().revoke_key(caller.account_id, key_id):
        raise ApiProblem(404, "NOT_FOUND", f"the account has no key {key_id!r}")
    return Response(status=204)


@blp.route("/account/keys/<string:key_id>/rotate", methods=["POST"])
@blp.doc(operationId="rotateKey")
@blp.response(200, IssuedKeySchema)
def rotate_key(key_id: str) -> dict[str, Any]:
    """A new secret for the key (same id and scopes); the old secret stops working at once."""
    caller, _ = require_account()
    assert caller.account_id is not None
    try:
        return accounts().rotate_key(caller.account_id, key_id)
    except AccountNotFound:
        raise ApiProblem(404, "NOT_FOUND", f"the account has no key {key_id!r}") from None


@blp.route("/account/games", methods=["GET"])
@blp.doc(operationId="listAccountGames")
@blp.arguments(AccountGamesQuerySchema, location="query", error_status_code=400)
@blp.response(200, AccountGamesSchema)
def account_games(query: dict[str, Any]) -> dict[str, Any]:
    """The seats bound to the account (created or joined with its key), newest game first, with
    whether each may act now; filter by ``status``; follow ``next`` for older ones. A page reads
    the games' meta in one round trip and folds only the live ones (to say who is to act)."""
    caller, _ = require_account("play")
    assert caller.account_id is not None
    svc = service()
    cursor = int(query["cursor"]) if query.get("cursor") else None
    limit, wanted = query["limit"], query.get("status")
    rows: list[dict[str, Any]] = []
    for _ in range(SCAN_PAGES):
        found = svc.account_feed.games(caller.account_id, cursor, limit)
        if not found:
            return {"games": rows, "next": None}
        listed = _rows(found)
        svc.account_feed.forget_games(caller.account_id, [(g, s) for (g, s, _), row in zip(found, listed) if row is None])
        for (_game, _seat, created_ms), row in zip(found, listed):
            cursor = created_ms
            if row is not None and wanted in (None, row["status"]):
                rows.append(row)
                if len(rows) == limit:
                    return {"games": rows, "next": str(cursor)}
    return {"games": rows, "next": str(cursor) if cursor is not None else None}


SCAN_PAGES = 4  # index pages one listing page may walk (a status filter skips the others' games)
META_FIELDS = ("game", "config", "status", "created")


def _rows(found: list[tuple[str, int, int]]) -> list[dict[str, Any] | None]:
    svc = service()
    pipe = svc.store.conn.pipeline(transaction=False)
    for game_id, _, _ in found:
        pipe.hmget(meta_key(game_id), list(META_FIELDS))
    out: list[dict[str, Any] | None] = []
    loaded: dict[str, Game] = {}  # an account holding several seats of a game: one load
    for (game_id, seat, _), values in zip(found, pipe.execute()):
        meta = dict(zip(META_FIELDS, (v.decode() if isinstance(v, bytes) else v for v in values)))
        if meta["game"] is None:
            out.append(None)  # expired and gone
            continue
        row = {"id": game_id, "game": meta["game"], "edition": json.loads(meta["config"] or "{}").get("edition"),
               "seat": seat, "status": meta["status"] or "active", "to_act": False, "version": None,
               "created": meta["created"]}
        if row["status"] in ("open", "active"):
            try:
                game = loaded[game_id] if game_id in loaded else loaded.setdefault(game_id, svc.load(game_id))
            except GameNotFound:
                out.append(None)
                continue
            row.update(status=game.status(), to_act=seat in game.to_act, version=game.version)
        out.append(row)
    return out


@blp.route("/account/events", methods=["GET"])
@blp.doc(operationId="listAccountEvents")
@blp.arguments(BotEventsQuerySchema, location="query", error_status_code=400)
@blp.response(200, BotEventsSchema)
def account_events(query: dict[str, Any]) -> dict[str, Any]:
    """The account's events after stream id ``after`` (a page; the stream endpoint is the live form)."""
    caller, _ = require_account("play")
    assert caller.account_id is not None
    return feeds.page(service().account_feed, caller.account_id, query["after"])


@blp.route("/account/events/stream", methods=["GET"])
@blp.doc(operationId="streamAccountEvents")
@blp.arguments(BotStreamQuerySchema, location="query", error_status_code=400)
@blp.doc(responses=feeds.STREAM_RESPONSES, parameters=feeds.STREAM_PARAMETERS)
def account_stream(query: dict[str, Any]) -> Response:
    """One stream for every seat of the account: game_started, your_turn (game, seat, deadline),
    invite_received, game_finished. SSE, or NDJSON with ``Accept: application/x-ndjson``;
    reconnect with Last-Event-ID to miss nothing. Without a resume point it begins with a
    ``resync`` event and the account's live games (and ``your_turn`` where a seat may act)."""
    caller, _ = require_account("play")
    assert caller.account_id is not None
    return feeds.stream(service().account_feed, caller.account_id, query.get("after"), _resync)


def _resync(account_id: str, at: str) -> list[tuple[str, dict[str, Any]]]:
    """The account's live games now: every seat bound to it, with its turns."""
    return feeds.live_snapshot(service().account_feed, account_id,
                               lambda game: [(s, True) for s, a in sorted(game.info.accounts.items()) if a == account_id])


# --- the operator's (admin scope) ------------------------------------------------------------------


def _admin() -> None:
    require_account("admin")


def _target(account_id: str) -> Any:
    try:
        return accounts().find(account_id)
    except AccountNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None


@blp.route("/accounts", methods=["GET"])
@blp.doc(operationId="listAccounts")
@blp.response(200, AccountListSchema)
def list_accounts() -> dict[str, Any]:
    """Every account, oldest first (admin scope)."""
    _admin()
    return {"accounts": [a.public() for a in accounts().listing(limit=1000)]}


@blp.route("/accounts/<string:account_id>/disable", methods=["POST"])
@blp.doc(operationId="disableAccount")
@blp.response(200, AccountSchema)
def disable_account(account_id: str) -> dict[str, Any]:
    """Disable an account: its keys stop working at once (admin scope)."""
    _admin()
    return dict(accounts().disable(_target(account_id).account_id).public())


@blp.route("/accounts/<string:account_id>/enable", methods=["POST"])
@blp.doc(operationId="enableAccount")
@blp.response(200, AccountSchema)
def enable_account(account_id: str) -> dict[str, Any]:
    """Enable a disabled account again, with the keys it had (admin scope)."""
    _admin()
    return dict(accounts().enable(_target(account_id).account_id).public())


@blp.route("/accounts/<string:account_id>/grants", methods=["PUT"])
@blp.doc(operationId="grantAccount")
@blp.arguments(GrantSchema, error_status_code=400)
@blp.response(200, AccountSchema)
def grant_account(body: dict[str, Any], account_id: str) -> dict[str, Any]:
    """Raise an account's budgets (0: back to the server's default) (admin scope)."""
    _admin()
    return dict(accounts().grant(_target(account_id).account_id, **body).public())


@blp.route("/accounts/invites", methods=["POST"])
@blp.doc(operationId="createInvite")
@blp.response(201, InviteSchema)
def create_invite() -> dict[str, Any]:
    """A single-use invite code for sign-up (admin scope)."""
    _, account = require_account("admin")
    return {"invite": accounts().invite(by=account.name)}

