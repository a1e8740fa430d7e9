"""Per-client limits that keep an anonymous flood from drowning the seat holders.

Flask-Limiter (a maintained extension, on the game Redis so every web process shares the
counters) enforces three limits keyed by the client's address:

- ``ANON_RATE_LIMIT`` requests per ``RATE_LIMIT_WINDOW`` seconds for calls without a bearer
  token (spectators, listings, the viewer);
- ``AUTH_FAIL_LIMIT`` answers of 401 per window to calls that carry a bearer token (a forged
  token burns this allowance, so guessing tokens is throttled per address);
- ``CREATE_RATE_LIMIT`` game creations per window.

Capacity caps, each a problem+json with ``Retry-After``:

- ``SSE_PER_ADDRESS`` open event streams per client address and ``SSE_PER_TOKEN`` per seat
  token (429 ``TOO_MANY_STREAMS``). Open streams are counted in Redis (every web process shares
  the count) as members of a sorted set scored by an expiry that the stream pushes forward at
  every heartbeat, so a process that dies without closing its streams frees them within
  ``STREAM_LEASE_S``;
- ``MAX_LIVE_GAMES_PER_ADDRESS`` live games created by one address (429 ``TOO_MANY_GAMES``) and
  ``MAX_LIVE_GAMES`` overall (503 ``AT_CAPACITY``), kept by ``core.retention``.

Seat holders are limited per token (``RATE_LIMIT``): a fixed window per token under the game's
hash tag (``core.store.rate_key``). A POST move counts it inside the append script itself
(:func:`token_window`, ``core/append.lua``), so a move costs one Redis round trip; other calls
count it in ``service.web``. Flask-Limiter's own check (the 401 allowance per address) is skipped
for a POST move, GET .../moves and GET .../state whose bearer token this process already knows
as a seat token of that game (:func:`known_seat_token`): such a request cannot be a 401, and the
token's window is the one that applies; skipping it saves the three round trips Flask-Limiter
makes per request (its pre-check, and the counter and TTL read for its headers, which the token's
headers replace). An address that used up its 401 allowance is still refused for every request
whose token is not a known seat token. Every response carries the IETF draft
``RateLimit-Limit``/``RateLimit-Remaining``/``RateLimit-Reset`` headers of the limit that applied;
a breach is a 429 problem+json with ``Retry-After``. Behind a reverse proxy set
``TRUSTED_PROXIES`` (env ``HOURGLASS_TRUSTED_PROXIES``) to the number of proxies in front, so
the address comes from ``X-Forwarded-For``.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask_limiter import HeaderNames, Limiter, RateLimitExceeded
from werkzeug.middleware.proxy_fix import ProxyFix

from core.games import LiveCaps, RateWindow, token_digest
from core.store import rate_key
from service.problems import ApiProblem, problem_response

HEADERS = {HeaderNames.LIMIT: "RateLimit-Limit", HeaderNames.REMAINING: "RateLimit-Remaining",
           HeaderNames.RESET: "RateLimit-Reset", HeaderNames.RETRY_AFTER: "Retry-After"}


def client_address() -> str:
    return request.remote_addr or "unknown"


def has_bearer_token() -> bool:
    return request.headers.get("Authorization", "").lower().startswith("bearer ")


def install(app: Flask, conn: Any) -> Limiter | None:
    """Attach the per-address limits to ``app``; None when limits are switched off."""
    config = app.config
    proxies = int(config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    window = int(config["RATE_LIMIT_WINDOW"])
    anon, fails, creates = (int(config[k]) for k in ("ANON_RATE_LIMIT", "AUTH_FAIL_LIMIT", "CREATE_RATE_LIMIT"))
    if int(config["RATE_LIMIT"]) <= 0 or not (anon or fails or creates):
        return None  # RATE_LIMIT=0 switches every limit off (tests, benchmarks)
    limiter = Limiter(
        client_address, app=app, key_prefix="hg:limit", strategy="fixed-window",
        storage_uri="redis://", storage_options={"connection_pool": conn.connection_pool},
        application_limits=[f"{anon}/{window} second"] if anon else [],
        application_limits_exempt_when=has_bearer_token,
        default_limits=[f"{fails}/{window} second"] if fails else [],
        default_limits_deduct_when=lambda response: response.status_code == 401,
        default_limits_exempt_when=lambda: not has_bearer_token(),
        headers_enabled=True, header_name_mapping=HEADERS,
    )
    limiter.request_filter(known_seat_token)
    app.register_error_handler(RateLimitExceeded, lambda exc: _breach(limiter, exc))
    if creates:
        from service.routes import games

        limiter.limit(f"{creates}/{window} second", methods=["POST"], override_defaults=False)(games.blp)
    return limiter


def _breach(limiter: Limiter, exc: RateLimitExceeded) -> Response:
    current = limiter.current_limit
    reset_at = current.reset_at if current is not None else time.time() + exc.limit.limit.get_expiry()
    retry = max(1, int(reset_at - time.time()) + 1)
    return problem_response(ApiProblem(429, "RATE_LIMITED", f"more than {exc.limit.limit} from this address; "
                                       f"retry in {retry} s", headers={"Retry-After": str(retry)}))


def token_headers(response: Response) -> Response:
    """RateLimit-* headers for a seat holder's request (its per-token window, see service.web)."""
    window = getattr(g, "token_window", None)
    if window is not None:  # a valid seat token: its own window is the one that matters
        limit, remaining, reset = window
        response.headers["RateLimit-Limit"] = str(limit)
        response.headers["RateLimit-Remaining"] = str(max(0, remaining))
        response.headers["RateLimit-Reset"] = str(reset)
    return response


# views whose answer to a seat token carries that token's window (a POST move counts it inside the
# append; the GETs through service.web.caller_seat), so Flask-Limiter's check adds nothing to them
FAST_ENDPOINTS = frozenset({"moves.post_move", "moves.list_moves", "state.current_state"})


def known_seat_token() -> bool:
    """A request to one of ``FAST_ENDPOINTS`` whose bearer token is, in this process's cached meta,
    a seat token of the game in the URL (tokens are never withdrawn, so the answer cannot be a 401)."""
    if request.endpoint not in FAST_ENDPOINTS:
        return False
    game_id = (request.view_args or {}).get("game_id")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if not game_id or scheme.lower() != "bearer" or not token.strip():
        return False
    game = current_app.extensions["hourglass"].cached(game_id)
    return game is not None and token_digest(token.strip()) in game.info.tokens


def token_window(game_id: str, token: str) -> RateWindow | None:
    """The token's current fixed window, for the append script to count (None: limits are off).

    The same key and expiry as ``service.web``'s count, so both paths share one window.
    """
    limit = int(current_app.config["RATE_LIMIT"])
    if limit <= 0:
        return None
    window = float(current_app.config["RATE_LIMIT_WINDOW"])
    bucket = int(time.time() // window)
    g.token_bucket = (bucket, window)
    return RateWindow(rate_key(game_id, token_digest(token), bucket), limit, int(window) + 1)


def window_counted(window: RateWindow | None) -> None:
    """After the script counted ``window``: the RateLimit headers, and a 429 above the limit."""
    if window is None or window.count is None:
        return
    bucket, length = g.token_bucket
    g.token_window = (window.limit, window.limit - window.count, max(1, int((bucket + 1) * length - time.time())))
    if window.count > window.limit:
        retry = max(1, int((bucket + 1) * length - time.time()) + 1)
        raise ApiProblem(429, "RATE_LIMITED", f"more than {window.limit} requests in {length:g} s for this token",
                         headers={"Retry-After": str(retry)})


def live_caps(config: Mapping[str, Any]) -> LiveCaps | None:
    if int(config["RATE_LIMIT"]) <= 0:
        return None
    return LiveCaps(per_creator=int(config["MAX_LIVE_GAMES_PER_ADDRESS"]), total=int(config["MAX_LIVE_GAMES"]))


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
    """One open event stream, counted against its address and (if any) its seat token."""

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

    def renew(self) -> None:
        now = time.time()
        if now - self.renewed > self.lease_s / 3:
            pipe = self.conn.pipeline(transaction=False)
            for key in self.keys:
                pipe.zadd(key, {self.member: int((now + self.lease_s) * 1000)}, xx=True)
                pipe.pexpire(key, int(self.lease_s * 1000))
            pipe.execute()
            self.renewed = now

    def close(self) -> None:
        for key in self.keys:
            self.conn.zrem(key, self.member)


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
        what = "this address" if full == 1 else "this seat token"
        raise ApiProblem(429, "TOO_MANY_STREAMS", f"{what} already has {caps[full - 1]} event streams open; "
                         "close one (or follow several games through one seat's stream) and retry",
                         headers={"Retry-After": str(int(heartbeat) + 1)})
    return slot


def counted(slot: StreamSlot | None, frames: Iterator[str]) -> Iterator[str]:
    """``frames``, keeping ``slot`` alive while they flow (the response frees it on close)."""
    for frame in frames:
        if slot is not None:
            slot.renew()
        yield frame
