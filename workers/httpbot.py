"""HTTP bot seats: the worker asks a seat's URL for a move.

Protocol (one POST per decision)::

    POST <url>
    Content-Type: application/json
    X-Hourglass-Signature: sha256=<hex HMAC-SHA256 of the raw body, key = the seat's secret>
    X-Hourglass-Game: <game id>          (informational; the signed body carries it too)

    {"game": "<id>", "seat": 2, "version": 41, "view": {...}, "moves": [{...}, ...],
     "deadline": "2026-01-01T12:00:02.000Z", "deadline_ms": 1767268802000}

The bot answers ``200`` with ``{"move": <one of moves>}`` (a bare move object is accepted too).
The first valid answer before the deadline is played; anything else (timeout, connection error,
non-2xx, garbage, a move not in ``moves``) falls back to the seat's default move. Either way the
round trip is reported as a :class:`BotCall` and recorded in the appended entry's meta.

URLs must point at a host on the allow-list ``HOURGLASS_BOT_HOSTS`` (comma-separated; entries
are ``host``, ``host:port`` or ``*.domain``; default: loopback only). Redirects are never
followed, so an allowed host cannot bounce the worker elsewhere.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable
from urllib.parse import urlsplit

import requests

from core.seats import BotUrlRejected, check_bot_url

SIGNATURE_HEADER = "X-Hourglass-Signature"
DEFAULT_DEADLINE_S = 2.0
MAX_RESPONSE_BYTES = 64 * 1024


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
    outcome: str  # "ok" | "timeout" | "error" | "http_status" | "garbage" | "illegal" | "rejected_url"
    rtt_ms: float
    move: dict[str, Any] | None = None
    detail: str = ""
    status: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "http", "url": self.url, "outcome": self.outcome,
                               "rtt_ms": round(self.rtt_ms, 3)}
        if self.status is not None:
            out["status"] = self.status
        if self.detail:
            out["detail"] = self.detail[:200]
        return out


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def request_body(game_id: str, seat: int, version: int, view: dict[str, Any],
                 moves: list[dict[str, Any]], deadline_ts: float) -> bytes:
    payload = {"game": game_id, "seat": seat, "version": version, "view": view, "moves": moves,
               "deadline": _iso(deadline_ts), "deadline_ms": int(deadline_ts * 1000)}
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


def _read_limited(response: requests.Response, deadline: float) -> bytes | None:
    """The body, or None when it is too large or arrives after the deadline."""
    chunks, size = [], 0
    for chunk in response.iter_content(chunk_size=8192):
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES or time.monotonic() > deadline:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _pick_move(raw: bytes, is_legal: Callable[[dict[str, Any]], bool]) -> tuple[str, dict[str, Any] | None, str]:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return "garbage", None, "response is not JSON"
    move = data.get("move", data) if isinstance(data, dict) else None
    if not isinstance(move, dict):
        return "garbage", None, "response has no move object"
    if not is_legal(move):
        return "illegal", None, f"move {json.dumps(move)[:120]} is not one of the legal moves"
    return "ok", move, ""


def ask_bot(url: str, secret: str, body: bytes, timeout_s: float,
            is_legal: Callable[[dict[str, Any]], bool], session: requests.Session | None = None) -> BotCall:
    """POST ``body`` to ``url`` and return the first valid move before ``timeout_s`` elapses."""
    try:
        check_bot_url(url)
    except BotUrlRejected as exc:
        return BotCall(url, "rejected_url", 0.0, detail=str(exc))
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(secret, body)}
    started = time.monotonic()
    deadline = started + timeout_s
    http = session or requests
    try:
        with http.post(url, data=body, headers=headers, timeout=(timeout_s, timeout_s),
                       allow_redirects=False, stream=True) as response:
            raw = _read_limited(response, deadline)
            status = response.status_code
    except requests.Timeout:
        return BotCall(url, "timeout", (time.monotonic() - started) * 1000, detail="no answer before the deadline")
    except requests.RequestException as exc:
        return BotCall(url, "error", (time.monotonic() - started) * 1000, detail=type(exc).__name__)
    rtt_ms = (time.monotonic() - started) * 1000
    if raw is None:
        return BotCall(url, "timeout", rtt_ms, status=status, detail="answer too late or too large")
    if not 200 <= status < 300:
        return BotCall(url, "http_status", rtt_ms, status=status, detail=f"HTTP {status}")
    outcome, move, detail = _pick_move(raw, is_legal)
    return BotCall(url, outcome, rtt_ms, move=move, detail=detail, status=status)
