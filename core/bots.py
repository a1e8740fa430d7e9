"""Registered bots: identities that outlive a game (issue 12).

A bot is registered once (``POST /api/v1/bots``) and then named by seats as ``{"bot_id": ...}``:

- kind ``http`` (push): the worker POSTs every decision to the bot's URL (host on the allow-list,
  ``core.seats``), signed with the bot's HMAC secret. The secret is chosen by the author or
  generated at registration, so it is known before any game starts; it is stored encrypted
  (``core.secretbox``), because the worker must sign with it.
- kind ``pull``: the bot follows one event stream for all its games (``core.botfeed``) and posts
  moves through the ordinary move endpoints with its bearer token.

Every bot gets a bearer token at registration (``hgb_…``): the pull bot's key to its games and
for both kinds the key to its own event stream. Only the token's sha256 is stored. Tokens and
secrets appear in the registration and rotation responses and nowhere else.

A bot belongs to the account that registered it (``core.accounts``, issue 22): only that account
rotates its token or secret, deletes it, and enters it into games and tournaments — unless it
marks the bot *open*, when anyone may enter it (a house bot, a sparring partner). Bots
registered before accounts existed have no owner: nobody may rotate or delete them over HTTP,
and they are open for entry, as they always were.

Redis keys: ``hg:bot:{<id>}`` (hash: name, kind, url, created, owner, open, token_sha256,
secret_sealed, rotated), ``hg:bot:{<id>}:tournaments`` (the running tournaments it is entered in),
``hg:bot:{<id>}:rec:*`` (its public record across tournaments, ``core.botrecords``),
``hg:bot:{<id>}:ladder:*`` (its ladder ratings, games and ladders, ``core.ladder``), the field ``challenges`` of its
hash (its owner's challenge policy, ``core.challenges``),
``hg:bots:names`` (lower-case name -> id), ``hg:bots:tokens`` (token sha256 -> id),
``hg:bots:all`` (sorted set of ids by creation time), ``hg:bots:by:<account>`` (an account's bots).
"""
from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis

from core import secretbox
from core.clocks import TimeControl
from core.seats import (
    REGISTRABLE_KINDS,
    SEAT_POLICIES,
    BotUrlRejected,
    Player,
    SeatKind,
    SeatPolicy,
    SeatSpec,
    check_bot_url,
)
from domain.core import Rejected, RejectKind

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
MIN_SECRET_CHARS = 32
MAX_SECRET_CHARS = 256
MAX_DEADLINE_S = 600.0
NAMES_KEY = "hg:bots:names"
TOKENS_KEY = "hg:bots:tokens"
ALL_KEY = "hg:bots:all"
TOKEN_PREFIX = "hgb_"
LADDER_SUFFIXES = (":ladder:h", ":ladder:g", ":ladder:in")  # its ladder ratings, games, ladders (core.ladder)
RECORD_SUFFIXES = (":rec:t", ":rec:ts", ":rec:all", ":rec:g", ":rec:gs")  # its public record (core.botrecords)


def bot_key(bot_id: str) -> str:
    return f"hg:bot:{{{bot_id}}}"


def owned_key(account_id: str) -> str:
    return f"hg:bots:by:{account_id}"


def entered_key(bot_id: str) -> str:
    """The running tournaments the bot is entered in (a bot there may not be deleted)."""
    return f"{bot_key(bot_id)}:tournaments"


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class BotNotFound(LookupError):
    def __init__(self, bot_id: str) -> None:
        super().__init__(f"no bot with id {bot_id!r}")
        self.bot_id = bot_id


class BotNameTaken(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"the bot name {name!r} is taken")
        self.name = name


class NotTheOwner(PermissionError):
    """The caller's account does not own the bot (and the bot is not open for entry)."""


class BotBusy(Exception):
    """The bot sits in a live game or is entered in a running tournament (it may not be deleted)."""


@dataclass(frozen=True)
class Bot:
    """A registered bot as anyone may see it (no URL, token or secret)."""

    bot_id: str
    name: str
    kind: SeatKind  # one of ``core.seats.REGISTRABLE_KINDS``
    created: str
    url: str | None = None
    owner: str | None = None  # the account that registered it; None: registered before accounts
    open_entry: bool = False  # anyone may enter it into a game or a tournament

    @property
    def policy(self) -> SeatPolicy:
        return SEAT_POLICIES[self.kind]

    def public(self) -> dict[str, Any]:
        return {"id": self.bot_id, "name": self.name, "kind": self.kind.value, "created": self.created,
                "owner": self.owner, "open": self.may_be_entered_by(None)}

    def may_be_entered_by(self, account_id: str | None) -> bool:
        """Whether ``account_id`` (None: anyone) may seat this bot in a game or tournament."""
        return self.open_entry or self.owner is None or (account_id is not None and account_id == self.owner)

    def check_entry(self, account_id: str | None) -> None:
        if not self.may_be_entered_by(account_id):
            raise NotTheOwner(f"bot {self.name} belongs to another account and is not open for entry"
                              if account_id else f"bot {self.name} may be entered only by its owner's account key")


def _text(value: bytes | str | None) -> str | None:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _check_secret(secret: Any) -> str:
    if not isinstance(secret, str) or not MIN_SECRET_CHARS <= len(secret) <= MAX_SECRET_CHARS \
            or not secret.isascii() or not secret.isprintable():
        raise Rejected(RejectKind.INVALID_CONFIG,
                       f"secret must be {MIN_SECRET_CHARS}..{MAX_SECRET_CHARS} printable ASCII characters "
                       "(leave it out and the service generates one)")
    return secret


def _check_url(url: Any) -> str:
    if not isinstance(url, str):
        raise Rejected(RejectKind.INVALID_CONFIG, "an http bot needs a url")
    try:
        check_bot_url(url)
    except BotUrlRejected as exc:
        raise Rejected(RejectKind.INVALID_CONFIG, f"url: {exc}") from None
    return url


class BotRegistry:
    """Bots on one Redis connection (any ``decode_responses``)."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self._owners: dict[str, str | None] = {}  # bot id -> owner (never changes once registered)

    # -- registration and rotation -------------------------------------------------------------

    def register(self, name: str, kind: str, url: str | None = None, secret: str | None = None, *,
                 owner: str | None = None, open_entry: bool = False, max_per_owner: int = 0) -> dict[str, Any]:
        """Register a bot for account ``owner``; returns its public fields plus ``token`` (and
        ``secret`` for an http bot when the service generated it). Raises Rejected(INVALID_CONFIG)
        (also when ``owner`` has ``max_per_owner`` bots already) or BotNameTaken."""
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise Rejected(RejectKind.INVALID_CONFIG,
                           "name must be 1-40 characters: letters, digits, '_', '.', '-', starting with a letter or digit")
        if kind not in REGISTRABLE_KINDS:
            raise Rejected(RejectKind.INVALID_CONFIG, f"kind must be one of {', '.join(REGISTRABLE_KINDS)}")
        seat_kind = SeatKind(kind)
        if owner is not None and max_per_owner and int(self.conn.scard(owned_key(owner))) >= max_per_owner:  # type: ignore[arg-type]
            raise Rejected(RejectKind.INVALID_CONFIG, f"an account registers at most {max_per_owner} bots; "
                                                      "delete one first (DELETE /api/v1/bots/{id})")
        fields: dict[str, str] = {"name": name, "kind": seat_kind.value, "created": _now(), "open": "1" if open_entry else "0",
                                  **({"owner": owner} if owner else {})}
        out: dict[str, Any] = {}
        if SEAT_POLICIES[seat_kind].played_by is Player.HTTP_CALL:
            fields["url"] = _check_url(url)
            generated = secret is None
            secret = secrets.token_hex(32) if generated else _check_secret(secret)
            fields["secret_sealed"] = secretbox.seal(secret)
            if generated:
                out["secret"] = secret
        elif url is not None or secret is not None:
            raise Rejected(RejectKind.INVALID_CONFIG, "a pull bot has no url or secret: it follows its stream")
        bot_id = secrets.token_hex(8)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        fields["token_sha256"] = token_sha256(token)
        if not self.conn.hsetnx(NAMES_KEY, name.lower(), bot_id):
            raise BotNameTaken(name)
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(bot_key(bot_id), mapping=fields)
        pipe.hset(TOKENS_KEY, fields["token_sha256"], bot_id)
        pipe.zadd(ALL_KEY, {bot_id: datetime.now(UTC).timestamp()})
        if owner:
            pipe.sadd(owned_key(owner), bot_id)
        pipe.execute()
        bot = self.get(bot_id)
        return {**bot.public(), **({"url": bot.url} if bot.url else {}), "token": token, **out}

    def rotate_token(self, bot_id: str) -> str:
        """A new bearer token; the old one stops working at once (stream, moves, rotation)."""
        old = self._field(bot_id, "token_sha256")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        digest = token_sha256(token)
        pipe = self.conn.pipeline(transaction=True)
        if old:
            pipe.hdel(TOKENS_KEY, old)
        pipe.hset(TOKENS_KEY, digest, bot_id)
        pipe.hset(bot_key(bot_id), mapping={"token_sha256": digest, "rotated": _now()})
        pipe.execute()
        return token

    def rotate_secret(self, bot_id: str, secret: str | None = None) -> str | None:
        """A new HMAC secret for an http bot (the next call is signed with it); returns the
        generated secret, or None when the caller chose it."""
        bot = self.get(bot_id)
        if bot.policy.played_by is not Player.HTTP_CALL:
            raise Rejected(RejectKind.INVALID_CONFIG, "only an http bot has a secret")
        generated = secret is None
        value = secrets.token_hex(32) if generated else _check_secret(secret)
        self.conn.hset(bot_key(bot_id), mapping={"secret_sealed": secretbox.seal(value), "rotated": _now()})
        return value if generated else None

    # -- reading -------------------------------------------------------------------------------

    def get(self, bot_id: str) -> Bot:
        raw: dict[Any, Any] = self.conn.hgetall(bot_key(bot_id))  # type: ignore[assignment]
        if not raw:
            raise BotNotFound(bot_id)
        meta = {_text(k): _text(v) for k, v in raw.items()}
        return Bot(bot_id, meta["name"] or "", SeatKind(meta["kind"] or ""), meta["created"] or "", meta.get("url"),
                   meta.get("owner") or None, meta.get("open") == "1")

    def owner(self, bot_id: str) -> str | None:
        """The account that owns the bot (kept per process: a bot's owner never changes)."""
        if bot_id not in self._owners:
            if len(self._owners) > 10_000:
                self._owners.clear()
            self._owners[bot_id] = self.get(bot_id).owner
        return self._owners[bot_id]

    def owned_by(self, account_id: str) -> list[Bot]:
        ids: Any = self.conn.smembers(owned_key(account_id))
        found = []
        for bot_id in sorted(_text(i) or "" for i in ids):
            try:
                found.append(self.get(bot_id))
            except BotNotFound:
                continue
        return found

    def set_open(self, bot_id: str, open_entry: bool) -> Bot:
        self.get(bot_id)
        self.conn.hset(bot_key(bot_id), "open", "1" if open_entry else "0")
        return self.get(bot_id)

    def entered(self, bot_id: str, tournament_id: str, running: bool = True) -> None:
        """Record that the bot is (or, with ``running`` False, is no longer) in a running tournament."""
        if running:
            self.conn.sadd(entered_key(bot_id), tournament_id)
        else:
            self.conn.srem(entered_key(bot_id), tournament_id)

    def retire(self, bot_id: str, live_games: list[str]) -> None:
        """Delete a bot for its owner: refused (BotBusy) while it sits in a live game or is entered
        in a running tournament, since those still call it or will seat it."""
        if live_games:
            raise BotBusy(f"the bot sits in {len(live_games)} live game(s) ({', '.join(live_games[:5])}); "
                          "delete it when they are over")
        tournaments: Any = self.conn.smembers(entered_key(bot_id))
        if tournaments:
            names = sorted(_text(t) or "" for t in tournaments)
            raise BotBusy(f"the bot is entered in running tournament(s) {', '.join(names[:5])}; withdraw it first")
        self.delete([bot_id])

    def listing(self, limit: int = 100, offset: int = 0) -> list[Bot]:
        ids: list[Any] = self.conn.zrange(ALL_KEY, offset, offset + limit - 1)  # type: ignore[assignment]
        found: list[Bot] = []
        for i in ids:  # one removed between the index read and its record's is left out
            with suppress(BotNotFound):
                found.append(self.get(_text(i) or ""))
        return found

    def bot_for_token(self, token: str) -> str | None:
        found: Any = self.conn.hget(TOKENS_KEY, token_sha256(token))
        return _text(found)

    def secret(self, bot_id: str) -> str:
        """The http bot's HMAC secret, for signing (workers only)."""
        sealed = self._field(bot_id, "secret_sealed")
        if not sealed:
            raise BotNotFound(bot_id)
        return secretbox.unseal(sealed)

    def _field(self, bot_id: str, field: str) -> str | None:
        if not self.conn.exists(bot_key(bot_id)):
            raise BotNotFound(bot_id)
        value: Any = self.conn.hget(bot_key(bot_id), field)
        return _text(value)

    def delete(self, bot_ids: list[str]) -> None:
        """Remove bots entirely (``retire`` for an owner; tests and tooling directly)."""
        for bot_id in bot_ids:
            try:
                bot = self.get(bot_id)
            except BotNotFound:
                continue
            digest = self._field(bot_id, "token_sha256")
            ladders: Any = self.conn.smembers(bot_key(bot_id) + ":ladder:in")
            for ladder in ladders:  # it leaves every ladder it is on (core.ladder)
                self.conn.hdel(f"hg:ladder:{{{_text(ladder)}}}:members", bot_id)
            pipe = self.conn.pipeline(transaction=True)
            pipe.hdel(NAMES_KEY, bot.name.lower())
            if digest:
                pipe.hdel(TOKENS_KEY, digest)
            pipe.zrem(ALL_KEY, bot_id)
            if bot.owner:
                pipe.srem(owned_key(bot.owner), bot_id)
            pipe.delete(*(bot_key(bot_id) + suffix for suffix in ("", ":events", ":sent", ":live", ":tournaments",
                                                                   *RECORD_SUFFIXES, *LADDER_SUFFIXES)))
            pipe.execute()
            self._owners.pop(bot_id, None)

    # -- seats ---------------------------------------------------------------------------------

    def seat(self, index: int, spec: Mapping[str, Any]) -> SeatSpec:
        """The seat entry of a game seat that names a registered bot: ``{bot_id, name?, deadline_s?}``.

        The seat is named after the bot (its leaderboard identity). A push seat keeps its answer
        budget ``deadline_s`` (the worker's call timeout); a pull seat gets it as a per-move clock
        (``clock: {move_s}``), since only a clock can end a turn the bot never takes.
        """
        extra = set(spec) - {"bot_id", "name", "kind", "deadline_s"}
        if extra:
            raise Rejected(RejectKind.INVALID_CONFIG,
                           f"seats[{index}] names a registered bot; it may not also set {', '.join(sorted(extra))}")
        bot_id = spec["bot_id"]
        try:
            bot = self.get(str(bot_id))
        except BotNotFound:
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].bot_id: no bot with id {bot_id!r}") from None
        if spec.get("kind") not in (None, bot.kind, SeatKind.HUMAN):  # human: the API's default kind
            raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].kind: bot {bot.name} is a {bot.kind} bot")
        deadline = spec.get("deadline_s")
        clock = None
        if deadline is not None:
            if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not 0 < deadline <= MAX_DEADLINE_S:
                raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].deadline_s must be in (0, {MAX_DEADLINE_S:g}]")
            if bot.policy.played_by is Player.PULL:  # only a clock ends a turn the bot never takes
                clock = {"move_s": deadline}
                TimeControl.from_json(clock)
        return SeatSpec(bot.kind, bot.name, seat=index, bot_id=bot.bot_id, clock=clock, deadline_s=deadline)


def check_distinct_bots(seats: Sequence[SeatSpec]) -> None:
    """A registered bot holds at most one seat of a game: its token names one seat."""
    seen: set[str] = set()
    for seat in seats:
        bot_id = seat.bot_id
        if bot_id is not None:
            if bot_id in seen:
                raise Rejected(RejectKind.INVALID_CONFIG, f"bot {seat.name} may hold only one seat of a game")
            seen.add(bot_id)
