"""Seats: their kinds and what each kind does, the typed seat record, and seats at game creation
(the built-in bot names, HTTP-bot URLs and clocks).

:class:`SeatKind` names every kind a seat may have; :data:`SEAT_POLICIES` is the one table of
what a kind does (who plays it, whether it acts from outside, whether its clock may run out, what
credential it gets, ...). Code that behaves differently per kind reads the table, never compares
kinds with each other, so a new kind is one enum member and one table entry
(docs/adding-a-bot-kind.md). :class:`SeatSpec` is one seat of a game as its meta hash stores it;
its JSON is the same object as before seats were typed (the kind's value is the same string).

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
from dataclasses import dataclass, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from core.clocks import TimeControl
from domain.bots import bot_names
from domain.core import Rejected, RejectKind

HOSTS_ENV = "HOURGLASS_BOT_HOSTS"
DEFAULT_PORTS = {"http": 80, "https": 443}


class SeatKind(StrEnum):
    """What sits in a seat. The values are the strings of the API and of stored seats; the order
    is the order the API documents them in."""

    HUMAN = "human"  # a person with the seat's bearer token
    BOT = "bot"  # a built-in bot (``domain.bots``), played by the worker
    HTTP = "http"  # a push bot: the worker POSTs each decision to its URL
    OPEN = "open"  # waits for a person: taken with ``POST .../join`` (``core.seating``)
    PULL = "pull"  # a registered bot that follows its event stream and posts moves itself


class Player(StrEnum):
    """Who decides a seat's moves."""

    PERSON = "person"  # a client with a bearer token, over the move endpoints
    BUILTIN = "builtin"  # the worker, with a built-in policy (``workers.policy``)
    HTTP_CALL = "http_call"  # the worker asks the bot's URL (``workers.pushcalls``)
    PULL = "pull"  # the bot itself, with its bot token over the move endpoints (``core.botfeed``)


class Credential(StrEnum):
    """What a new game issues for a seat (shown once to the creator; the store keeps a digest)."""

    BEARER_TOKEN = "token"  # the seat's own bearer token
    INVITE = "invite"  # an invite token that takes the open seat
    HMAC_SECRET = "secret"  # the secret the worker signs its calls with (an unregistered push seat)
    NONE = "none"  # nothing: the worker plays it, or a registered bot's own token and secret serve


@dataclass(frozen=True)
class SeatPolicy:
    """How a seat kind behaves; one row of :data:`SEAT_POLICIES`."""

    played_by: Player
    acts_from_outside: bool  # its moves come in over HTTP: no worker plays it (unless it left)
    is_bot: bool  # a program, for the record (lobby, client seeds, forfeits, tournaments)
    clock_runs_out: bool  # a clock it carries ends its turn (built-in bots never run out)
    credential: Credential  # issued at creation when the seat names no registered bot
    inline: bool  # a seat spec may give this kind directly (else only a registered bot has it)
    registrable: bool  # a registered bot (``core.bots``) may be of this kind
    forfeits: bool  # it forfeits after failed decisions in a row (``workers.forfeits``)
    claimable: bool  # others may claim against it when it stalls without a clock (``core.departures``)
    lobby_index: str | None  # the lobby filter that finds a game by this seat: "player", "bot" or None


SEAT_POLICIES: Mapping[SeatKind, SeatPolicy] = MappingProxyType({
    SeatKind.HUMAN: SeatPolicy(Player.PERSON, acts_from_outside=True, is_bot=False, clock_runs_out=True,
                               credential=Credential.BEARER_TOKEN, inline=True, registrable=False,
                               forfeits=False, claimable=True, lobby_index="player"),
    SeatKind.OPEN: SeatPolicy(Player.PERSON, acts_from_outside=True, is_bot=False, clock_runs_out=True,
                              credential=Credential.INVITE, inline=True, registrable=False,
                              forfeits=False, claimable=False, lobby_index=None),
    SeatKind.BOT: SeatPolicy(Player.BUILTIN, acts_from_outside=False, is_bot=True, clock_runs_out=False,
                             credential=Credential.NONE, inline=True, registrable=False,
                             forfeits=False, claimable=False, lobby_index="bot"),
    SeatKind.HTTP: SeatPolicy(Player.HTTP_CALL, acts_from_outside=False, is_bot=True, clock_runs_out=True,
                              credential=Credential.HMAC_SECRET, inline=True, registrable=True,
                              forfeits=True, claimable=False, lobby_index=None),
    SeatKind.PULL: SeatPolicy(Player.PULL, acts_from_outside=True, is_bot=True, clock_runs_out=True,
                              credential=Credential.NONE, inline=False, registrable=True,
                              forfeits=True, claimable=False, lobby_index=None),
})


def kinds_where(test: Any) -> tuple[SeatKind, ...]:
    """The kinds whose policy passes ``test`` (a predicate on :class:`SeatPolicy`), in enum order."""
    return tuple(kind for kind in SeatKind if test(SEAT_POLICIES[kind]))


REGISTRABLE_KINDS = kinds_where(lambda p: p.registrable)  # a registered bot's kinds: http, pull


def policy_of(kind: object) -> SeatPolicy | None:
    """The policy of a kind read from JSON that may not be ours (a replay bundle); None when it is
    no kind of seat."""
    return SEAT_POLICIES[SeatKind(kind)] if isinstance(kind, str) and kind in _KIND_VALUES else None


_KIND_VALUES = frozenset(k.value for k in SeatKind)


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a game as its meta hash stores it (``seats``, a JSON list of these objects).

    Absent fields (None) are absent from the JSON; ``clock`` stays the JSON it was stored as
    (``TimeControl.from_json`` reads it).
    """

    kind: SeatKind
    name: str
    seat: int | None = None  # its index (a seat given back by ``core.seating.vacate`` may lack it)
    bot: str | None = None  # a built-in bot's name
    url: str | None = None  # an unregistered push seat's URL
    bot_id: str | None = None  # the registered bot that holds it (``core.bots``)
    clock: Mapping[str, Any] | None = None  # a time control (``core.clocks.TimeControl``)
    deadline_s: float | None = None  # a registered bot's answer budget
    private: bool | None = None  # an open seat: taken only with its invite token

    @property
    def policy(self) -> SeatPolicy:
        return SEAT_POLICIES[self.kind]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatSpec:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"a seat has unknown fields {', '.join(sorted(unknown))}")
        return cls(**{**data, "kind": SeatKind(data["kind"])})

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}
        out["kind"] = self.kind.value
        return out


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


def seat_entry(index: int, seat: Mapping[str, Any]) -> SeatSpec:
    """A seat of a new game from its spec, for every kind a spec may give directly but an open seat
    (``core.seating.seat_spec``); raises ``Rejected(INVALID_CONFIG)``."""
    allowed = [k for k in kinds_where(lambda p: p.inline) if k is not SeatKind.OPEN]
    raw = seat.get("kind") or SeatKind.HUMAN
    if raw not in allowed:
        raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].kind {raw!r} is not one of {', '.join(allowed)}")
    kind = SeatKind(raw)
    played_by = SEAT_POLICIES[kind].played_by
    bot = url = clock = None
    if played_by is Player.BUILTIN:
        if not seat.get("bot"):
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}] is a {kind} seat and needs a bot name")
        if seat["bot"] not in bot_names():
            raise Rejected(RejectKind.INVALID_CONFIG,
                           f"seats[{index}].bot {seat['bot']!r} is not one of {', '.join(bot_names())}")
        bot = seat["bot"]
    if played_by is Player.HTTP_CALL:
        if not seat.get("url"):
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}] is an {kind} seat and needs a url")
        try:
            url = check_bot_url(seat["url"]).url
        except BotUrlRejected as exc:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].url: {exc}") from None
    if seat.get("clock") is not None:
        try:
            TimeControl.from_json(seat["clock"])
        except ValueError as exc:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].{exc}") from None
        clock = TimeControl.from_json(seat["clock"]).to_json()
    return SeatSpec(kind, seat.get("name") or f"Seat {index}", seat=index, bot=bot, url=url, clock=clock)
