"""Seats at game creation: their kinds, the built-in bot names, HTTP-bot URLs and clocks.

Pure validation plus the HTTP-bot allow-list: the game service calls :func:`seat_entry` for
every seat of a new game, and the worker calls :func:`resolve_bot_url` before every call (the
allow-list may have changed since the game was created, and DNS may answer differently).

The allow-list ``HOURGLASS_BOT_HOSTS`` is comma-separated; it lists a host *and* its port:

- ``host:port`` (``[v6]:port`` for IPv6): that host on that port only;
- ``host`` (or ``[v6]``): that host on its scheme's default port only (80 for http, 443 for
  https), never "any port": a bot on 9000 needs ``host:9000``;
- ``*.domain`` or ``*.domain:port``: any sub-domain, on the default port or the one given.

Empty (the default): no HTTP seat is accepted. Before every call the worker resolves the host
once and checks every address it got: a loopback, private, link-local, shared or reserved
address is refused unless the entry that matched names that exact ``host:port`` (no wildcard,
an explicit port); unspecified and multicast addresses are always refused. The worker then
connects to an address it checked, never resolving again (no DNS-rebinding window).
"""
from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from core.clocks import TimeControl
from domain.bots import bot_names
from domain.core import Rejected, RejectKind

SEAT_KINDS = ("human", "bot", "http")
HOSTS_ENV = "HOURGLASS_BOT_HOSTS"
DEFAULT_PORTS = {"http": 80, "https": 443}


class BotUrlRejected(ValueError):
    """A seat URL that is malformed, not on the allow-list, or resolving to a refused address."""


def new_seat_secret() -> str:
    """A fresh per-seat HMAC secret (hex). Returned once at game creation, stored by the service."""
    return secrets.token_hex(32)


@dataclass(frozen=True)
class AllowEntry:
    """One allow-list entry: a host (or ``*.domain``) and a port (None: the scheme's default)."""

    host: str
    port: int | None

    @property
    def wildcard(self) -> bool:
        return self.host.startswith("*.")

    @property
    def exact(self) -> bool:
        """Names one host and one port: only such an entry may reach a non-public address."""
        return not self.wildcard and self.port is not None

    def matches(self, host: str, port: int, default_port: int) -> bool:
        if port != (self.port if self.port is not None else default_port):
            return False
        if self.wildcard:
            return host.endswith(self.host[1:]) and host != self.host[2:]
        return host == self.host

    @classmethod
    def parse(cls, text: str) -> AllowEntry:
        entry = text.strip().lower()
        host, port = entry, ""
        if entry.startswith("["):
            host, _, rest = entry[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else rest
        elif entry.count(":") == 1:
            host, _, port = entry.partition(":")
        if not host or (port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536)):
            raise BotUrlRejected(f"allow-list entry {text!r} in {HOSTS_ENV} is not host, host:port or *.domain[:port]")
        return cls(host, int(port) if port else None)


def allowed_hosts(env: Mapping[str, str] | None = None) -> tuple[AllowEntry, ...]:
    raw = (env if env is not None else os.environ).get(HOSTS_ENV, "")
    return tuple(AllowEntry.parse(e) for e in raw.split(",") if e.strip())


@dataclass(frozen=True)
class BotTarget:
    """A checked bot URL: where to connect (addresses filled in by :func:`resolve_bot_url`)."""

    url: str
    scheme: str
    host: str
    port: int
    entry: AllowEntry
    addresses: tuple[str, ...] = ()


def check_bot_url(url: str, env: Mapping[str, str] | None = None) -> BotTarget:
    """Validate a seat URL against the allow-list (no DNS); raises :class:`BotUrlRejected`."""
    if not isinstance(url, str) or not url:
        raise BotUrlRejected("bot url must be a non-empty string")
    try:
        parts = urlsplit(url)
        explicit_port = parts.port
    except ValueError as exc:
        raise BotUrlRejected(f"bot url {url!r} is malformed: {exc}") from None
    if parts.scheme not in DEFAULT_PORTS:
        raise BotUrlRejected(f"bot url {url!r} must use http or https")
    if not parts.hostname:
        raise BotUrlRejected(f"bot url {url!r} has no host")
    if parts.username or parts.password:
        raise BotUrlRejected(f"bot url {url!r} must not carry credentials")
    host = parts.hostname.lower()
    default_port = DEFAULT_PORTS[parts.scheme]
    port = explicit_port or default_port
    for entry in allowed_hosts(env):
        if entry.matches(host, port, default_port):
            return BotTarget(url, parts.scheme, host, port, entry)
    raise BotUrlRejected(f"bot host {host}:{port} is not on the allow-list ({HOSTS_ENV} lists host:port pairs)")


def refused_address(address: str, entry: AllowEntry) -> str | None:
    """Why the worker may not connect to ``address`` under ``entry``; None when it may."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_unspecified or ip.is_multicast:
        return f"{ip} is an unspecified or multicast address"
    if not ip.is_global and not entry.exact:
        return f"{ip} is not a public address; allow it with its exact host:port in {HOSTS_ENV}"
    return None


def resolve_bot_url(url: str, env: Mapping[str, str] | None = None) -> BotTarget:
    """:func:`check_bot_url`, then resolve the host once and check every address it has."""
    target = check_bot_url(url, env)
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise BotUrlRejected(f"bot host {target.host} does not resolve: {type(exc).__name__}") from None
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
    for address in addresses:
        why = refused_address(address, target.entry)
        if why is not None:
            raise BotUrlRejected(f"bot host {target.host} resolves to {why}")
    if not addresses:
        raise BotUrlRejected(f"bot host {target.host} has no address")
    return BotTarget(target.url, target.scheme, target.host, target.port, target.entry, addresses)


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
            out["url"] = check_bot_url(seat["url"]).url
        except BotUrlRejected as exc:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].url: {exc}") from None
    if seat.get("clock") is not None:
        try:
            TimeControl.from_json(seat["clock"])
        except ValueError as exc:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].{exc}") from None
        out["clock"] = TimeControl.from_json(seat["clock"]).to_json()
    return out
