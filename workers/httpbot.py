"""HTTP bot seats: the worker asks a seat's URL for a move.

Protocol (one POST per decision)::

    POST <url>
    Content-Type: application/json
    X-Hourglass-Signature: sha256=<hex HMAC-SHA256 of the raw body, key = the seat's secret>
    X-Hourglass-Game: <game id>          (informational; the signed body carries it too)

    {"game": "<id>", "seat": 2, "version": 41, "view": {...}, "moves": [{...}, ...],
     "deadline": "2026-01-01T12:00:02.000Z", "deadline_ms": 1767268802000}

The bot answers ``200`` with ``{"move": <one of moves>}`` (a bare move object is accepted too).
The first valid answer before the deadline is played; anything else (timeout, an answer over
``MAX_RESPONSE_BYTES``, connection error, non-2xx, garbage, a move not in ``moves``) falls back to
the seat's default move. The deadline is what the seat's ``deadline_s`` leaves for its running
decision (several calls when its moves do not end it, e.g. Orléans planning placements); with
nothing left no request is sent and the call counts as a ``timeout``. Either way the round trip
is reported as a :class:`BotCall`; the appended entry's meta (public: it is in the replay
bundle) records only its fixed outcome code and latency. Nothing the bot sent (status, headers,
body, the reason it was refused) leaves the worker except in a server log line, so an all-bot
game cannot turn ``/replay`` into a printout of whatever answers on an internal port.

The deadline is a hard bound on the whole exchange, not a per-read timeout: a watchdog timer shuts
the socket down when it passes, so a bot that sends one byte a second, or its headers slowly,
holds the worker for the deadline and no longer. (requests and httpx only offer per-operation
timeouts; the standard library's http.client gives us the socket to cut.)

Before every call the URL is checked against the allow-list of host *and* port
(``core.seats``, ``HOURGLASS_BOT_HOSTS``), its host is resolved once, every address is checked,
and the connection goes to a checked address (the Host header and TLS SNI keep the name).
Redirects are never followed, so an allowed host cannot bounce the worker elsewhere.
"""
from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from core.seats import BotTarget, BotUrlRejected, resolve_bot_url

SIGNATURE_HEADER = "X-Hourglass-Signature"
DEFAULT_DEADLINE_S = 2.0
MAX_RESPONSE_BYTES = 64 * 1024
OUTCOMES = ("ok", "timeout", "too_large", "error", "bad_signature", "http_status", "garbage", "illegal",
            "rejected_url")  # every call's outcome code: the one vocabulary (docs/bots.md, "Push call outcomes")
log = logging.getLogger("hourglass.httpbot")


def sign(secret: str, body: bytes) -> str:
    """The signature header value for ``body``: ``sha256=<hex>``."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    """What a bot server does with the header (used by the tests' bot server, and by clients)."""
    return header is not None and hmac.compare_digest(sign(secret, body), header)


@dataclass(frozen=True)
class BotCall:
    """What happened on one round trip; ``move`` is the accepted JSON move or None (→ default)."""

    url: str
    outcome: str  # ok | timeout | too_large | error | bad_signature | http_status | garbage | illegal | rejected_url
    rtt_ms: float
    move: dict[str, Any] | None = None
    detail: str = ""
    status: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        """The public record of the call: a fixed outcome code and the latency, nothing the bot sent."""
        return {"kind": "http", "outcome": self.outcome, "rtt_ms": round(self.rtt_ms, 3)}


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def request_body(game_id: str, seat: int, version: int, view: dict[str, Any],
                 moves: list[dict[str, Any]], deadline_ts: float) -> bytes:
    payload = {"game": game_id, "seat": seat, "version": version, "view": view, "moves": moves,
               "deadline": _iso(deadline_ts), "deadline_ms": int(deadline_ts * 1000)}
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


class _Late(Exception):
    """The deadline passed before the whole answer was in."""


class _TooLarge(Exception):
    """The answer is (or says it is) longer than MAX_RESPONSE_BYTES."""


class _Watchdog:
    """Shuts the connection's socket down at the deadline, which ends at once whatever send or
    recv is blocked on it (also inside a TLS handshake or while headers trickle in)."""

    def __init__(self, conn: http.client.HTTPConnection, timeout_s: float) -> None:
        self.conn = conn
        self.fired = False
        self.timer = threading.Timer(timeout_s, self._cut)
        self.timer.daemon = True

    def _cut(self) -> None:
        self.fired = True
        sock = self.conn.sock
        if sock is not None:
            with suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, under any TLS layer

    def __enter__(self) -> _Watchdog:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()


def _connection(target: BotTarget, timeout_s: float) -> tuple[http.client.HTTPConnection, str]:
    """A connection to the target's checked addresses (nothing sent yet) and the request target.

    The connection keeps the URL's host name, so the Host header and the TLS server name (SNI and
    certificate check) are the bot's, while the socket goes to an address ``resolve_bot_url``
    checked: http.client never resolves the name itself.
    """
    parts = urlsplit(target.url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn: http.client.HTTPConnection
    if target.scheme == "https":
        conn = http.client.HTTPSConnection(target.host, target.port, timeout=timeout_s,
                                           context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(target.host, target.port, timeout=timeout_s)

    def pinned(address: tuple[str, int], timeout: float, source: tuple[str, int] | None = None) -> socket.socket:
        error: OSError = OSError(f"no address to connect to for {target.host}")
        for ip in target.addresses:
            try:
                return socket.create_connection((ip, target.port), timeout, source)
            except OSError as exc:
                error = exc
        raise error

    conn._create_connection = pinned  # type: ignore[attr-defined]  # http.client's own hook
    return conn, path


def _read_body(response: http.client.HTTPResponse) -> bytes:
    declared = response.getheader("Content-Length") or ""
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise _TooLarge
    raw = response.read(MAX_RESPONSE_BYTES + 1)
    if len(raw) > MAX_RESPONSE_BYTES:
        raise _TooLarge
    return raw


def post(target: BotTarget, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
    """POST ``body`` and read the answer, all of it within ``timeout_s``: (status, body).

    Raises _Late when the deadline passes first, _TooLarge for an oversized answer, OSError or
    http.client.HTTPException when the exchange fails. Redirects are answers like any other.
    """
    conn, path = _connection(target, timeout_s)
    try:
        with _Watchdog(conn, timeout_s) as watchdog:
            try:
                conn.request("POST", path, body=body, headers=headers)
                response = conn.getresponse()
                raw = _read_body(response)
            except TimeoutError:  # the socket's own timeout can beat the watchdog by a hair
                raise _Late from None
            except (OSError, http.client.HTTPException):
                if watchdog.fired:
                    raise _Late from None
                raise
        if watchdog.fired:  # cut mid-body: what arrived may look complete, but it came too late
            raise _Late
        return response.status, raw
    finally:
        conn.close()


def _pick_move(raw: bytes, is_legal: Callable[[dict[str, Any]], bool]) -> tuple[str, dict[str, Any] | None, str]:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return "garbage", None, "response is not JSON"
    move = data.get("move", data) if isinstance(data, dict) else None
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):  # every move names its type
        return "garbage", None, "response has no move object ({\"move\": {\"type\": …}} or the move itself)"
    if not is_legal(move):
        return "illegal", None, f"move {json.dumps(move)[:120]} is not one of the legal moves"
    return "ok", move, ""


def ask_bot(url: str, secret: str | None, body: bytes, timeout_s: float,
            is_legal: Callable[[dict[str, Any]], bool], env: Mapping[str, str] | None = None) -> BotCall:
    """POST ``body`` to ``url``; the bot's move if a valid one is all in within ``timeout_s``.

    The deadline covers the whole exchange once the host is resolved (connect, TLS, sending, headers, body): a
    bot that trickles bytes costs its seat ``timeout_s`` and the default move, never more. ``env``: the
    allow-list to check the URL against (the process environment by default; ``hourglass bot check``
    allows the one URL it was given). ``secret`` None sends the request unsigned (the check's probe).
    """
    started = time.monotonic()
    call = _exchange(url, secret, body, timeout_s, is_legal, started, env)
    log.info("http seat %s: %s in %.0f ms%s", url, call.outcome, call.rtt_ms, f" ({call.detail})" if call.detail else "")
    return call


def _exchange(url: str, secret: str | None, body: bytes, timeout_s: float,
              is_legal: Callable[[dict[str, Any]], bool], started: float,
              env: Mapping[str, str] | None = None) -> BotCall:
    def call(outcome: str, detail: str, status: int | None = None, move: dict[str, Any] | None = None) -> BotCall:
        return BotCall(url, outcome, (time.monotonic() - started) * 1000, move=move, detail=detail, status=status)

    if timeout_s <= 0:  # the decision's budget is used up (core.timing.decision_left_s): nothing is sent
        return call("timeout", "no time left for this decision")
    try:
        target = resolve_bot_url(url, env)
    except BotUrlRejected as exc:
        return call("rejected_url", str(exc))
    headers = {"Content-Type": "application/json",
               **({SIGNATURE_HEADER: sign(secret, body)} if secret is not None else {})}
    try:
        status, raw = post(target, body, headers, max(0.01, timeout_s - (time.monotonic() - started)))
    except _Late:
        return call("timeout", f"no complete answer within {timeout_s:g} s")
    except _TooLarge:
        return call("too_large", f"answer larger than {MAX_RESPONSE_BYTES} bytes")
    except (OSError, http.client.HTTPException) as exc:
        return call("error", f"{type(exc).__name__}: {exc}")
    if status in (401, 403):  # the bot refused our signature: its secret is not the one we sign with
        return call("bad_signature", f"HTTP {status}: the bot refused the request's signature", status)
    if not 200 <= status < 300:
        return call("http_status", f"HTTP {status}", status)
    outcome, move, detail = _pick_move(raw, is_legal)
    return call(outcome, detail, status, move)
