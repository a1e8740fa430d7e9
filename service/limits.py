"""One budget per requester: request windows, the work budget, live games and open streams (issue 22).

Every request has one principal (``service.auth``): an account (its key, its bot's token, a seat
bound to it) or an address (IPv6 by its /64). What it may spend:

- **Requests per window** (``RATE_LIMIT_WINDOW`` s, fixed windows in Redis, ``core.budgets``): an
  account ``RATE_LIMIT`` (the operator may grant more); the seat and bot tokens of one address
  that belong to no account ``RATE_LIMIT`` together; tokenless requests (and unknown seat tokens)
  ``ANON_RATE_LIMIT`` per address. A POST move counts its window inside the append script
  (``core/append.lua``: still one round trip); every other request in :func:`admit`.
- **401 answers** per address: ``AUTH_FAIL_LIMIT`` per window; past it, every request whose token
  names nobody is refused (429) before anything else, so guessing tokens is throttled.
- **Work** (``core.budgets.WorkBudget``): units per ``WORK_PERIOD_S``, ``WORK_BUDGET`` per address
  and ``ACCOUNT_WORK_BUDGET`` per account (grantable): a game created, a join, a rematch 1 each; a
  tournament all its games when it is accepted; a replay verification 1 per started MiB.
- **Live games** by the requester that created them: ``MAX_LIVE_GAMES_PER_ADDRESS``,
  ``MAX_LIVE_GAMES_PER_ACCOUNT`` (grantable; a tournament's games are its organiser's) and
  ``MAX_LIVE_GAMES`` overall (``core.retention``).
- **Open event streams**: ``SSE_PER_ADDRESS`` per address and ``SSE_PER_TOKEN`` per token.
- **Sign-ups**: ``SIGNUPS_PER_ADDRESS`` accounts per address per ``WORK_PERIOD_S``.

Every answer that counted a window carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and
``RateLimit-Reset`` (seconds until the window resets); a refusal is a 429 problem+json with
``Retry-After`` (seconds) and names the budget (``kind``: ``RATE_LIMITED``, ``AUTH_FAILURES``,
``WORK_BUDGET``, ``TOO_MANY_GAMES``, ``TOO_MANY_STREAMS``). ``RATE_LIMIT=0`` switches all of this
off (tests, benchmarks). Behind a reverse proxy set ``TRUSTED_PROXIES`` to the number of proxies
in front, so the address comes from ``X-Forwarded-For``.
"""
from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import redis
from flask import Flask, Response, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from core import budgets
from core.accounts import Account, AccountNotFound
from core.budgets import BudgetExceeded, WorkBudget
from core.games import LiveCaps, token_digest
from core.store import RateWindow
from service.auth import Principal as Principal
from service.auth import accounts, client_address, principal, unauthorized
from service.problems import ApiProblem

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "RATE_LIMIT": 600, "RATE_LIMIT_WINDOW": 60, "ANON_RATE_LIMIT": 300, "AUTH_FAIL_LIMIT": 30,
    "WORK_BUDGET": 100, "ACCOUNT_WORK_BUDGET": 500, "WORK_PERIOD_S": 86_400.0, "SIGNUPS_PER_ADDRESS": 5,
    "SSE_PER_ADDRESS": 16, "SSE_PER_TOKEN": 4, "MAX_LIVE_GAMES_PER_ADDRESS": 20, "MAX_LIVE_GAMES_PER_ACCOUNT": 50,
    "MAX_LIVE_GAMES": 10_000, "TRUSTED_PROXIES": 0, "MAX_BOTS_PER_ACCOUNT": 20,
}
GRANT_CACHE_S = 30.0  # how long a process trusts an account's grants (the operator's changes take this long)
DEFERRED = frozenset({"moves.post_move"})  # views that count the window themselves (inside the append)
DEFERRED_KEY, WINDOW_KEY = "hourglass.window_deferred", "hourglass.rate_window"  # per request, in its environ


def enabled() -> bool:
    return int(current_app.config["RATE_LIMIT"]) > 0


def install(app: Flask) -> None:
    """Count every request against its requester's window (before any view runs) and write the
    RateLimit headers and the 401 allowance after it."""
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    app.before_request(admit)
    app.after_request(finish)


# --- request windows --------------------------------------------------------------------------


def admit() -> None:
    """Refuse a request its requester has no allowance left for; count it otherwise."""
    asked = request._get_current_object()  # type: ignore[attr-defined]  # one context lookup, not three
    if not enabled() or asked.method == "OPTIONS":
        return
    caller = principal()
    if caller.token is not None and caller.kind == "anonymous":
        _refuse_guessers(caller)
        if caller.game_id is None:  # a prefixed key or bot token that names nobody
            raise unauthorized("the bearer token is not a valid account key or bot token", "invalid_token")
    if asked.endpoint in DEFERRED and caller.kind == "seat":
        asked.environ[DEFERRED_KEY] = True  # counted by the view (inside the append, or by count_deferred)
        return
    _count(window(caller))


def window(caller: Principal) -> RateWindow:
    """The caller's request window now."""
    config = current_app.config
    if caller.account_id is not None:
        limit = grant(caller.account_id, "requests", int(config["RATE_LIMIT"]))
    elif caller.kind in ("seat", "bot"):
        limit = int(config["RATE_LIMIT"])
    else:
        limit = int(config["ANON_RATE_LIMIT"])
    return budgets.window_for(caller.requester, limit, float(config["RATE_LIMIT_WINDOW"]))


def deferred_window() -> RateWindow | None:
    """The window a deferred view hands to the append script (None: limits off, or not deferred)."""
    if not enabled() or not request.environ.get(DEFERRED_KEY):
        return None
    return window(principal())


def count_deferred() -> None:
    """A deferred view that did not append after all: count its window now (once)."""
    if request.environ.get(DEFERRED_KEY):
        request.environ[DEFERRED_KEY] = False
        _count(window(principal()))


def window_counted(found: RateWindow | None) -> None:
    """After the append script counted ``found``: the headers, and a 429 above the limit."""
    if found is None or found.count is None:
        return
    request.environ[DEFERRED_KEY] = False
    _after_count(found)


@contextmanager
def deferred_count() -> Iterator[RateWindow | None]:
    """A deferred view's window: handed to the append script (``core.commands.AppendGuard``), and on
    the way out its headers (a 429 above the limit) when the script counted it, else counted now."""
    found = deferred_window()
    try:
        yield found
    finally:
        if found is not None and found.count is not None:
            window_counted(found)
        else:
            count_deferred()


def _count(found: RateWindow) -> None:
    if found.limit <= 0:
        return
    budgets.count(_conn(), found)
    _after_count(found)


def _after_count(found: RateWindow) -> None:
    assert found.count is not None
    length = float(current_app.config["RATE_LIMIT_WINDOW"])
    reset = _reset_s(length)
    request.environ[WINDOW_KEY] = (found.limit, max(0, found.limit - found.count), reset)
    if found.count > found.limit:
        who = principal()
        whose = ("this account" if who.account_id else "the seat tokens of this address" if who.kind in ("seat", "bot")
                 else "this address")
        raise ApiProblem(429, "RATE_LIMITED", f"more than {found.limit} requests in {length:g} s from {whose}; "
                         f"retry in {reset} s", headers={"Retry-After": str(reset)}, budget="requests",
                         limit=found.limit)


def refuse_guessers() -> None:
    """For a view that checks a token of its own (not a seat, bot or account credential, e.g. the
    operators' metrics token): 429 when this address has used up its 401 allowance."""
    if enabled():
        _refuse_guessers(principal())


def _refuse_guessers(caller: Principal) -> None:
    fails = int(current_app.config["AUTH_FAIL_LIMIT"])
    if fails and budgets.peek(_conn(), _fail_window(caller.address)) >= fails:
        length = float(current_app.config["RATE_LIMIT_WINDOW"])
        retry = _reset_s()
        request.environ[WINDOW_KEY] = (fails, 0, retry)  # the allowance that refused it, in the RateLimit headers
        raise ApiProblem(429, "AUTH_FAILURES", f"more than {fails} requests with unknown tokens from this address "
                         f"in {length:g} s; retry in {retry} s", headers={"Retry-After": str(retry)},
                         budget="auth_failures", limit=fails)


def _fail_window(address: str) -> RateWindow:
    config = current_app.config
    return budgets.window_for(f"fail:{address}", int(config["AUTH_FAIL_LIMIT"]), float(config["RATE_LIMIT_WINDOW"]))


def _reset_s(length: float | None = None) -> int:
    """Seconds until the current window ends (at least 1, at most the window's length, ``length``
    when the caller has read it)."""
    if length is None:
        length = float(current_app.config["RATE_LIMIT_WINDOW"])
    return max(1, int((int(time.time() // length) + 1) * length - time.time()))


def finish(response: Response) -> Response:
    """RateLimit-* headers of the window this request counted; a 401 counts toward the allowance.
    A deferred request its view never counted (refused before it ran: a body that is not JSON)
    is counted now, without a 429: its answer is already decided."""
    environ = request.environ
    if environ.get(DEFERRED_KEY):
        environ[DEFERRED_KEY] = False
        late = window(principal())
        if late.limit > 0:
            budgets.count(_conn(), late)
            assert late.count is not None
            environ[WINDOW_KEY] = (late.limit, max(0, late.limit - late.count), _reset_s())
    found = environ.get(WINDOW_KEY)
    if found is not None:
        limit, remaining, reset = found
        response.headers["RateLimit-Limit"] = str(limit)
        response.headers["RateLimit-Remaining"] = str(remaining)
        response.headers["RateLimit-Reset"] = str(reset)
    if response.status_code == 401 and enabled() and int(current_app.config["AUTH_FAIL_LIMIT"]) \
            and "Authorization" in request.headers:
        budgets.count(_conn(), _fail_window(client_address()))
    return response


def _conn() -> Any:
    from service.web import service

    return service().store.conn


# --- grants, the work budget and live games ------------------------------------------------------

_GRANTS: dict[str, tuple[float, Account]] = {}
_GRANTS_LOCK = threading.Lock()


def grant(account_id: str, name: str, default: int) -> int:
    """The account's budget ``name`` (``core.accounts.GRANTS``): the operator's grant, else ``default``."""
    now = time.monotonic()
    with _GRANTS_LOCK:
        cached = _GRANTS.get(account_id)
    if cached is None or cached[0] < now:
        try:
            account = accounts().get(account_id)
        except AccountNotFound:
            return default
        with _GRANTS_LOCK:
            if len(_GRANTS) > 10_000:
                _GRANTS.clear()
            _GRANTS[account_id] = (now + GRANT_CACHE_S, account)
        cached = (0.0, account)
    return cached[1].grants.get(name) or default


def work_budget(caller: Principal | None = None) -> WorkBudget:
    """The caller's work budget (the account's, else the address's); capacity 0 with limits off."""
    caller = caller or principal()
    config = current_app.config
    period = float(config["WORK_PERIOD_S"])
    if not enabled():
        return WorkBudget(caller.owner, 0, period)
    if caller.account_id is not None:
        return WorkBudget(caller.owner, grant(caller.account_id, "work", int(config["ACCOUNT_WORK_BUDGET"])), period)
    return WorkBudget(caller.owner, int(config["WORK_BUDGET"]), period)


def charge(cost: float, what: str) -> WorkBudget:
    """Take ``cost`` units of the caller's work budget for ``what``; 429 ``WORK_BUDGET`` when short."""
    budget = work_budget()
    try:
        budget.take(_conn(), cost)
    except BudgetExceeded as exc:
        raise ApiProblem(429, "WORK_BUDGET", f"{what}: {exc}", headers={"Retry-After": str(exc.retry_after_s)},
                         budget="work", cost=cost, left=round(exc.left, 2), capacity=exc.capacity,
                         period_s=exc.period_s) from None
    return budget


def charge_done(cost: float) -> None:
    """Charge work that has happened already (its size known only afterwards): taken even past
    empty, so the requester's next request for work waits for the refill."""
    if cost > 0:
        work_budget().take(_conn(), cost, done=True)


def live_caps(config: Mapping[str, Any], caller: Principal | None = None) -> LiveCaps | None:
    """The live-game caps that apply to ``caller`` (None: limits off)."""
    if int(config["RATE_LIMIT"]) <= 0:
        return None
    per = int(config["MAX_LIVE_GAMES_PER_ADDRESS"])
    if caller is not None and caller.account_id is not None:
        per = grant(caller.account_id, "live_games", int(config["MAX_LIVE_GAMES_PER_ACCOUNT"]))
    return LiveCaps(per_creator=per, total=int(config["MAX_LIVE_GAMES"]))


# --- open event streams --------------------------------------------------------------------------

STREAM_LEASE_S = 60.0
_OPEN_STREAM = """
local now, expiry = tonumber(ARGV[1]), tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call("ZREMRANGEBYSCORE", key, "-inf", now)
  local cap = tonumber(ARGV[3 + i])
  if cap > 0 and redis.call("ZCARD", key) >= cap then return i end
end
for _, key in ipairs(KEYS) do
  redis.call("ZADD", key, expiry, ARGV[3])
  redis.call("PEXPIRE", key, expiry - now)
end
return 0
"""


class StreamSlot:
    """One open event stream, counted against its address and (if any) its token: a member of a
    sorted set per key, scored with its lease's expiry, so a slot whose process died frees itself."""

    def __init__(self, conn: Any, keys: list[str], lease_s: float) -> None:
        self.conn, self.keys, self.lease_s = conn, keys, lease_s
        self.member = uuid.uuid4().hex
        self.renewed = 0.0

    def open(self, caps: list[int]) -> int:
        """0 when opened, else the 1-based index of the key whose cap is reached."""
        now = time.time()
        script = self.conn.register_script(_OPEN_STREAM)
        full = int(script(keys=self.keys, args=[int(now * 1000), int((now + self.lease_s) * 1000), self.member, *caps]))
        self.renewed = now
        return full

    def hold(self) -> None:
        """Keep the lease alive until :meth:`close` (renewed with this process's other slots: :class:`Leases`)."""
        LEASES.hold(self)

    def close(self) -> None:
        LEASES.drop(self)
        for key in self.keys:
            self.conn.zrem(key, self.member)


class Leases:
    """This process's held slots, renewed together: one timer, one pipeline per Redis connection
    every third of the shortest lease, whatever the number of open streams (an idle stream costs
    no wake-up of its own). ``ZADD XX`` renews only members still there, so a slot closed (or
    expired) meanwhile is never brought back; a process that dies stops renewing, and its slots
    expire within a lease."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.held: set[StreamSlot] = set()
        self.every: float | None = None  # a third of the shortest lease held (None: nothing held)
        self.wake = threading.Event()
        self.pid = 0  # the process whose thread renews (a forked child starts its own)

    def hold(self, slot: StreamSlot) -> None:
        with self.lock:
            self.held.add(slot)
            if self.pid != os.getpid():
                self.pid = os.getpid()
                self.wake = threading.Event()
                threading.Thread(target=self._run, args=(self.wake,), name="hourglass-stream-leases", daemon=True).start()
            sooner = self.every is None or slot.lease_s / 3 < self.every
            if sooner:
                self.every = slot.lease_s / 3
        if sooner:  # the timer waits less from now on (else the next round renews this slot in time)
            self.wake.set()

    def drop(self, slot: StreamSlot) -> None:
        with self.lock:
            self.held.discard(slot)

    def renew(self, now: float | None = None) -> int:
        """Renew every held slot's lease now (one pipeline per connection); how many were held."""
        now = time.time() if now is None else now
        with self.lock:
            slots = list(self.held)
            self.every = min((slot.lease_s for slot in slots), default=None)
            if self.every is not None:
                self.every /= 3
        by_conn: dict[int, tuple[Any, dict[str, dict[str, int]], dict[str, int]]] = {}
        for slot in slots:
            conn, members, ttls = by_conn.setdefault(id(slot.conn), (slot.conn, {}, {}))
            expiry, ttl = int((now + slot.lease_s) * 1000), int(slot.lease_s * 1000)
            for key in slot.keys:
                members.setdefault(key, {})[slot.member] = expiry
                ttls[key] = max(ttls.get(key, 0), ttl)
        for conn, members, ttls in by_conn.values():
            pipe = conn.pipeline(transaction=False)
            for key, scored in members.items():
                pipe.zadd(key, scored, xx=True)
                pipe.pexpire(key, ttls[key])
            try:
                pipe.execute()
            except redis.RedisError as exc:  # the next round tries again; past the lease the slots lapse
                log.warning("renewing %d stream slots failed: %s", len(slots), exc)
        for slot in slots:
            slot.renewed = now
        return len(slots)

    def _run(self, wake: threading.Event) -> None:
        """Every slot held is renewed within ``every`` s of its opening, and then every ``every`` s."""
        last = time.monotonic()
        while True:
            every = self.every
            wake.wait(None if every is None else max(0.0, last + every - time.monotonic()))
            wake.clear()
            every = self.every
            if every is not None and time.monotonic() - last >= every:
                last = time.monotonic()
                try:
                    self.renew()
                except Exception:  # never let the timer die: every stream of the process would lose its slot
                    log.exception("renewing the stream slots failed")


LEASES = Leases()


def stream_slot(conn: Any, token: str | None) -> StreamSlot | None:
    """Count a new event stream of this request's address and token; 429 at a cap.

    None when the caps are off (``RATE_LIMIT=0``).
    """
    config = current_app.config
    if int(config["RATE_LIMIT"]) <= 0:
        return None
    heartbeat = float(config["SSE_HEARTBEAT"])
    keys = [f"hg:{{sse}}:addr:{client_address()}"]
    caps = [int(config["SSE_PER_ADDRESS"])]
    if token is not None:
        keys.append(f"hg:{{sse}}:token:{token_digest(token)[:32]}")
        caps.append(int(config["SSE_PER_TOKEN"]))
    slot = StreamSlot(conn, keys, max(STREAM_LEASE_S, 3 * heartbeat))
    full = slot.open(caps)
    if full:
        what = "this address" if full == 1 else "this token"
        raise ApiProblem(429, "TOO_MANY_STREAMS", f"{what} already has {caps[full - 1]} event streams open; "
                         "close one (or follow several games through one seat's stream) and retry",
                         headers={"Retry-After": str(int(heartbeat) + 1)}, budget="streams")
    return slot


def held(slot: StreamSlot | None, frames: Iterator[str]) -> Iterator[str]:
    """``frames``, with ``slot`` alive while they flow (:class:`Leases`) and freed when they end
    (the response also frees it on close, for a client that left before the first frame)."""
    if slot is None:
        yield from frames
        return
    slot.hold()
    try:
        yield from frames
    finally:
        slot.close()
