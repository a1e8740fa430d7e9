"""Who is calling: the request's principal, resolved once from its bearer token (issue 22).

Three kinds of credential travel as ``Authorization: Bearer <token>``:

- an **account key** (``hga_…``, ``core.accounts``): the account, with the key's scopes;
- a **bot token** (``hgb_…``, ``core.bots``): the bot, charged to the account that owns it;
- a **seat token** (anything else): a seat of the game named in the URL, charged to the account
  the seat is bound to (created or joined with an account key), else to the client's address.

A prefixed token that does not resolve is refused with a 401 wherever it is sent (it is plainly
meant as a credential). A seat token means something only under ``/api/v1/games/<id>/…``;
elsewhere it is ignored and the request is anonymous. Nothing here raises for an unknown seat
token: the route that needs the seat answers the 401 (``service.web.caller_seat``).

The principal decides whose budget a request draws from (``service.limits``): its
:attr:`Principal.requester` names the request window, its :attr:`Principal.owner` the work budget
and the live-game cap.
"""
from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from typing import Any

from flask import current_app, request

from core.accounts import KEY_PREFIX as ACCOUNT_PREFIX
from core.accounts import Account, AccountNotFound, Accounts
from core.bots import TOKEN_PREFIX as BOT_PREFIX
from core.bots import BotNotFound
from core.games import token_digest
from core.store import meta_key
from service.problems import ApiProblem

WWW_AUTHENTICATE = 'Bearer realm="hourglass"'


def client_address() -> str:
    """The client's address as budgets count it: IPv4 as is, IPv6 by its /64 network."""
    return _budget_address(request.remote_addr or "unknown")


@functools.lru_cache(maxsize=4096)  # parsed once per address a process hears from, not per request
def _budget_address(raw: str) -> str:
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(address) >> 64 << 64, 64)))
    return str(address)


@dataclass(frozen=True)
class Principal:
    """The caller of one request."""

    address: str
    kind: str = "anonymous"  # anonymous | account | bot | seat
    token: str | None = None  # the raw bearer token (never logged or echoed)
    account_id: str | None = None  # the account charged (a key's, a bot's owner, a bound seat's)
    scopes: frozenset[str] = frozenset()
    key_id: str | None = None
    bot_id: str | None = None
    game_id: str | None = None
    seat: int | None = None

    @property
    def requester(self) -> str:
        """The request window's name: the account, else the address (seat holders apart from
        the tokenless, so a flood of anonymous reads never starves a player behind the same address)."""
        if self.account_id is not None:
            return f"acct:{self.account_id}"
        return f"{'seats' if self.kind in ('seat', 'bot') else 'anon'}:{self.address}"

    @property
    def owner(self) -> str:
        """Whose work budget and live-game cap a request draws from: the account, else the address."""
        return f"acct:{self.account_id}" if self.account_id is not None else f"addr:{self.address}"

    @property
    def unresolved(self) -> bool:
        """A token came with the request and named nobody (counts toward the 401 allowance)."""
        return self.token is not None and self.kind == "anonymous"


def unauthorized(detail: str, error: str | None = None) -> ApiProblem:
    header = WWW_AUTHENTICATE + (f', error="{error}"' if error else "")
    return ApiProblem(401, "UNAUTHORIZED", detail, headers={"WWW-Authenticate": header})


def accounts() -> Accounts:
    found: Accounts = current_app.extensions["hourglass.accounts"]
    return found


def principal() -> Principal:
    """This request's principal (resolved on first use, then kept in the request's environ: not on
    ``g``, which a streamed response's app context may share with the next request)."""
    environ = request.environ  # one context lookup: a POST move asks four times
    found: Principal | None = environ.get("hourglass.principal")
    if found is None:
        found = environ["hourglass.principal"] = _resolve()
    return found


def bearer() -> str | None:
    """The bearer token, or None without an Authorization header; 401 for another scheme."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("Authorization must be 'Bearer <token>'")
    return token.strip()


def _resolve() -> Principal:
    asked = request._get_current_object()  # type: ignore[attr-defined]  # one context lookup, not four
    address = _budget_address(asked.remote_addr or "unknown")  # client_address()
    header = asked.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return Principal(address)
    if token.startswith(ACCOUNT_PREFIX):
        return _account_principal(address, token)
    if token.startswith(BOT_PREFIX):
        return _bot_principal(address, token)
    game_id = (asked.view_args or {}).get("game_id")
    if not game_id or not asked.path.startswith("/api/v1/games/"):
        return Principal(address)  # a seat token means nothing here: an anonymous request
    return _seat_principal(address, token, str(game_id))


def _account_principal(address: str, token: str) -> Principal:
    owner = accounts().resolve(token)
    if owner is None:
        return Principal(address, token=token)
    return Principal(address, "account", token, owner.account_id, owner.scopes, owner.key_id)


def _bot_principal(address: str, token: str) -> Principal:
    from service.web import service

    registry = service().bots
    bot_id = registry.bot_for_token(token)
    if bot_id is None:
        return Principal(address, token=token)
    try:
        account_id = registry.owner(bot_id)
    except BotNotFound:
        return Principal(address, token=token)
    return Principal(address, "bot", token, account_id, bot_id=bot_id)


def _seat_principal(address: str, token: str, game_id: str) -> Principal:
    from service.web import service

    svc = service()
    digest = token_digest(token)
    game = svc.cached(game_id)
    seat = game.info.tokens.get(digest) if game is not None else None
    account_id = game.info.accounts.get(seat) if game is not None and seat is not None else None
    if seat is None:  # not in this process's copy (a newer join), or another process's game
        raw: Any = svc.store.conn.hget(meta_key(game_id), f"token:{digest}")
        if not raw:  # unknown, or withdrawn (an empty field: a joined seat given back)
            return Principal(address, token=token, game_id=game_id)
        seat = int(raw)
        bound: Any = svc.store.conn.hget(meta_key(game_id), f"account:{seat}")
        account_id = bound.decode() if isinstance(bound, bytes) else bound
    return Principal(address, "seat", token, account_id, game_id=game_id, seat=seat)


def require_account(scope: str | None = None) -> tuple[Principal, Account]:
    """The calling account (an account key is required); 403 without ``scope``."""
    caller = principal()
    if caller.kind != "account" or caller.account_id is None:
        if caller.token is not None and caller.token.startswith(ACCOUNT_PREFIX):
            raise unauthorized("the account key is not valid (revoked, or its account is disabled)", "invalid_token")
        raise unauthorized("this endpoint needs an account key (POST /api/v1/accounts to get one)")
    if scope is not None and scope not in caller.scopes:
        raise ApiProblem(403, "FORBIDDEN", f"this key lacks the {scope!r} scope (it has: "
                         f"{', '.join(sorted(caller.scopes)) or 'none'}); make a key with it: POST /api/v1/account/keys")
    try:
        return caller, accounts().get(caller.account_id)
    except AccountNotFound:
        raise unauthorized("the account key's account no longer exists", "invalid_token") from None


def optional_account(scope: str) -> str | None:
    """The calling account's id when the request carries an account key with ``scope`` (a key
    without it is a 403); None for any other caller."""
    caller = principal()
    if caller.kind != "account":
        return None
    return require_account(scope)[0].account_id
