"""Seats at game creation: their kinds, the built-in bot names, HTTP-bot URLs and clocks.

Pure validation plus the HTTP-bot allow-list: the game service calls :func:`seat_entry` for
every seat of a new game, and the worker re-checks a seat's URL with :func:`check_bot_url`
before every call (the allow-list may have changed since the game was created).

URLs must point at a host on the allow-list ``HOURGLASS_BOT_HOSTS`` (comma-separated; entries
are ``host``, ``host:port`` or ``*.domain``; default: loopback only).
"""
from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from core.clocks import TimeControl
from domain.bots import bot_names
from domain.core import Rejected, RejectKind

SEAT_KINDS = ("human", "bot", "http")
HOSTS_ENV = "HOURGLASS_BOT_HOSTS"
DEFAULT_HOSTS = ("127.0.0.1", "localhost", "::1")


class BotUrlRejected(ValueError):
    """A seat URL that is malformed or whose host is not on the allow-list."""


def new_seat_secret() -> str:
    """A fresh per-seat HMAC secret (hex). Returned once at game creation, stored by the service."""
    return secrets.token_hex(32)


def allowed_hosts(env: dict[str, str] | None = None) -> tuple[str, ...]:
    raw = (env if env is not None else os.environ).get(HOSTS_ENV, "")
    entries = tuple(e.strip().lower() for e in raw.split(",") if e.strip())
    return entries or DEFAULT_HOSTS


def _host_matches(entry: str, host: str, port: int) -> bool:
    if entry.startswith("[") and "]" in entry:  # [::1] or [::1]:8080
        inner, _, rest = entry[1:].partition("]")
        return inner == host and (not rest or rest == f":{port}")
    if entry.count(":") == 1:
        name, _, entry_port = entry.partition(":")
        return _host_matches(name, host, port) and entry_port == str(port)
    if entry.startswith("*."):
        return host.endswith(entry[1:]) and host != entry[2:]
    return entry == host


def check_bot_url(url: str, env: dict[str, str] | None = None) -> str:
    """Validate a seat URL at game creation; returns it unchanged or raises :class:`BotUrlRejected`."""
    if not isinstance(url, str) or not url:
        raise BotUrlRejected("bot url must be a non-empty string")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise BotUrlRejected(f"bot url {url!r} is malformed: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise BotUrlRejected(f"bot url {url!r} must use http or https")
    if not parts.hostname:
        raise BotUrlRejected(f"bot url {url!r} has no host")
    if parts.username or parts.password:
        raise BotUrlRejected(f"bot url {url!r} must not carry credentials")
    host = parts.hostname.lower()
    port = port or (443 if parts.scheme == "https" else 80)
    if not any(_host_matches(entry, host, port) for entry in allowed_hosts(env)):
        raise BotUrlRejected(f"bot host {host!r} is not on the allow-list ({HOSTS_ENV})")
    return url


def seat_entry(index: int, seat: Mapping[str, Any]) -> dict[str, Any]:
    kind = seat.get("kind") or "human"
    if kind not in SEAT_KINDS:
        raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].kind {kind!r} is not one of {', '.join(SEAT_KINDS)}")
    out: dict[str, Any] = {"seat": index, "name": seat.get("name") or f"Seat {index}", "kind": kind}
    if kind == "bot":
        if not seat.get("bot"):
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}] is a bot seat and needs a bot name")
        if seat["bot"] not in bot_names():
            raise Rejected(RejectKind.INVALID_CONFIG,
                           f"seats[{index}].bot {seat['bot']!r} is not one of {', '.join(bot_names())}")
        out["bot"] = seat["bot"]
    if kind == "http":
        if not seat.get("url"):
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}] is an http seat and needs a url")
        try:
            out["url"] = check_bot_url(seat["url"])
        except BotUrlRejected as exc:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].url: {exc}") from None
    if seat.get("clock") is not None:
        try:
            TimeControl.from_json(seat["clock"])
        except ValueError as exc:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].{exc}") from None
        out["clock"] = TimeControl.from_json(seat["clock"]).to_json()
    return out
