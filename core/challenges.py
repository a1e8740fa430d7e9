"""Challenges: a bot or an account asks a registered bot for a game (issue 26; Lichess's model).

A challenge names the challenged bot, the game (and edition), the number of seats, the seat the
challenger takes (the others beyond the two are the game's built-in bots), and the clock: the
bots' ``deadline_s`` per decision (``docs/bots.md``). It is answered

- by the challenged bot itself, through its event stream: a ``challenge`` event arrives, and the
  bot (its token) or its owner (the account key) accepts or declines it over the API; or
- at once by the policy its owner set (``hg:bot:{<id>}`` field ``challenges``): ``ask`` (the
  default: the bot decides), ``accept_all``, ``accept_rated_peers`` (a challenger that is a bot
  rated in this game, on a ladder or in tournaments; everyone else is declined) or ``decline_all``.

Every ending is an event on the streams of both sides (the challenged bot's, and the challenging
bot's or account's): ``challenge_accepted`` (with the game), ``challenge_declined`` (with the
reason) and ``challenge_expired`` (nobody answered within ``expires_s``; the matchmaker's pass,
``workers.ladder``, expires them). The challenger pays: the challenge is charged to its work
budget when it is made (``service.routes.challenges``), and the game is created as the
challenger's, under its live-game cap. At most ``MAX_PENDING_BY`` challenges of one challenger and
``MAX_PENDING_TO`` to one bot wait at a time.

Keys: ``hg:ch:{<id>}`` (JSON, kept a day after it ends), ``hg:ch:due`` (pending ids by expiry),
``hg:ch:by:<challenger>`` and ``hg:ch:to:<bot id>`` (pending ids by expiry, for the caps).
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

import redis

from core.botfeed import AccountFeed, BotFeed
from core.bots import bot_key
from core.ladder import LadderStore, iso, now_ms
from core.leaderboard import Leaderboard
from domain.canonical import canonical_json
from domain.core import Rejected

MAX_PENDING_BY = 5
MAX_PENDING_TO = 20
DEFAULT_EXPIRES_S = 60
MAX_EXPIRES_S = 600
KEPT_S = 86_400
DUE_KEY = "hg:ch:due"


class Policy(str, Enum):
    ASK = "ask"
    ACCEPT_ALL = "accept_all"
    ACCEPT_RATED_PEERS = "accept_rated_peers"
    DECLINE_ALL = "decline_all"


def challenge_key(cid: str) -> str:
    return f"hg:ch:{{{cid}}}"


def by_key(challenger: str) -> str:
    return f"hg:ch:by:{challenger}"


def to_key(bot_id: str) -> str:
    return f"hg:ch:to:{bot_id}"


class ChallengeRefused(ValueError):
    """A challenge the rules refuse (422 at the edge)."""


class TooManyChallenges(Exception):
    """The challenger (or the challenged bot) has as many pending challenges as it may (429)."""


class NotPending(Exception):
    """The challenge was answered, expired or never existed (409/404 at the edge)."""


@dataclass(frozen=True)
class Challenger:
    """Who challenges: a registered bot (``bot_id``) or an account playing a seat itself."""

    account_id: str  # who pays (a bot's owner)
    name: str
    bot_id: str | None = None

    @property
    def key(self) -> str:
        return f"bot:{self.bot_id}" if self.bot_id else f"acct:{self.account_id}"

    def public(self) -> dict[str, Any]:
        return {"kind": "bot" if self.bot_id else "account", "name": self.name, "bot_id": self.bot_id,
                "account": None if self.bot_id else self.account_id}


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class Challenges:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self.bot_feed = BotFeed(conn)
        self.account_feed = AccountFeed(conn)

    # -- the policy ------------------------------------------------------------------------------

    def policy(self, bot_id: str) -> Policy:
        raw: Any = self.conn.hget(bot_key(bot_id), "challenges")
        return Policy(_text(raw)) if raw else Policy.ASK

    def set_policy(self, bot_id: str, policy: Policy) -> None:
        self.conn.hset(bot_key(bot_id), "challenges", policy.value)

    def rated_in(self, bot_id: str, game: str, edition: str | None) -> bool:
        """A bot with a rating in ``game``: on one of its ladders, or on the tournament leaderboard."""
        store = LadderStore(self.conn)
        if any(lid.rpartition("-")[0] == game and bot_id in store.ratings(lid) for lid in store.ladders()):
            return True
        return any(row["key"] == f"bot:{bot_id}" for row in Leaderboard(self.conn).entries(game, edition))

    # -- making one ------------------------------------------------------------------------------

    def create(self, challenger: Challenger, target_id: str, target_name: str, spec: Mapping[str, Any],
               caps: Mapping[str, int] | None = None) -> dict[str, Any]:
        """Record a pending challenge (the caller then answers it by the target's policy or
        publishes it). Raises ChallengeRefused or TooManyChallenges."""
        if challenger.bot_id == target_id:
            raise ChallengeRefused("a bot cannot challenge itself")
        expires_s = int(spec.get("expires_s") or DEFAULT_EXPIRES_S)
        if not 5 <= expires_s <= MAX_EXPIRES_S:
            raise ChallengeRefused(f"expires_s must be in 5..{MAX_EXPIRES_S}")
        at = now_ms()
        for key, cap, who in ((by_key(challenger.key), MAX_PENDING_BY, "this challenger has"),
                              (to_key(target_id), MAX_PENDING_TO, "the challenged bot has")):
            self.conn.zremrangebyscore(key, "-inf", at)
            if int(self.conn.zcard(key)) >= cap:  # type: ignore[arg-type]
                raise TooManyChallenges(f"{who} {cap} challenges waiting for an answer; wait for them to be "
                                        "answered or to expire")
        cid = "c" + secrets.token_hex(8)
        expires = at + expires_s * 1000
        record = {"id": cid, "status": "pending", "challenger": challenger.public(), "payer": challenger.account_id,
                  "challenger_key": challenger.key, "bot_id": target_id, "bot_name": target_name,
                  "game": spec["game"], "edition": spec.get("edition"), "players": int(spec.get("players") or 2),
                  "seat": int(spec.get("seat") or 0), "deadline_s": spec.get("deadline_s"),
                  "builtin": spec.get("builtin"), "created": iso(at), "expires": iso(expires),
                  "game_id": None, "reason": None, "caps": dict(caps or {})}
        pipe = self.conn.pipeline(transaction=False)
        pipe.set(challenge_key(cid), canonical_json(record), px=expires_s * 1000 + KEPT_S * 1000)
        pipe.zadd(DUE_KEY, {cid: expires})
        pipe.zadd(by_key(challenger.key), {cid: expires})
        pipe.zadd(to_key(target_id), {cid: expires})
        pipe.execute()
        return record

    def offer(self, record: Mapping[str, Any]) -> None:
        """Tell the challenged bot (its stream's ``challenge`` event)."""
        self.bot_feed.publish(record["bot_id"], "challenge", public(record), f"challenge:{record['id']}", 1)

    # -- reading ---------------------------------------------------------------------------------

    def get(self, cid: str) -> dict[str, Any]:
        raw: Any = self.conn.get(challenge_key(cid))
        if raw is None:
            raise NotPending(f"no challenge with id {cid!r}")
        found: dict[str, Any] = json.loads(raw)
        return found

    # -- answering -------------------------------------------------------------------------------

    def accept(self, cid: str, create_game: Callable[[Mapping[str, Any]], str]) -> dict[str, Any]:
        """Accept a pending challenge: ``create_game(record)`` makes the game (its id); the
        challenge then records it. NotPending when it was answered or expired meanwhile."""
        record = self._close(cid, "accepted", None)
        try:
            record["game_id"] = create_game(record)
        except Exception as exc:
            message = exc.message if isinstance(exc, Rejected) else str(exc)
            record.update(status="declined", reason=f"the game could not be created: {message}"[:200])
            self._store(record)
            self._tell(record, "challenge_declined")
            raise
        self._store(record)
        self._tell(record, "challenge_accepted")
        return record

    def decline(self, cid: str, reason: str) -> dict[str, Any]:
        record = self._close(cid, "declined", reason)
        self._tell(record, "challenge_declined")
        return record

    def expire_due(self, limit: int = 100) -> int:
        """Expire the pending challenges past their time (the matchmaker's pass); how many."""
        due: Any = self.conn.zrangebyscore(DUE_KEY, "-inf", now_ms(), start=0, num=limit)
        expired = 0
        for cid in (_text(c) for c in due):
            try:
                self.expire(cid)
            except NotPending:
                self.conn.zrem(DUE_KEY, cid)
                continue
            expired += 1
        return expired

    def expire(self, cid: str) -> dict[str, Any]:
        """Expire one pending challenge (its time is up); NotPending when it was answered."""
        record = self._close(cid, "expired", "nobody answered in time", expiring=True)
        self._tell(record, "challenge_expired")
        return record

    def _close(self, cid: str, status: str, reason: str | None, expiring: bool = False) -> dict[str, Any]:
        """Move a pending challenge to ``status`` once: the removal from the due set is the claim."""
        record = self.get(cid)
        if record["status"] != "pending":
            raise NotPending(f"challenge {cid} is {record['status']} already")
        if not expiring and now_ms() >= _ms(record["expires"]):
            raise NotPending(f"challenge {cid} expired at {record['expires']}")
        if not self.conn.zrem(DUE_KEY, cid):
            raise NotPending(f"challenge {cid} was answered meanwhile")
        pipe = self.conn.pipeline(transaction=False)
        pipe.zrem(by_key(record["challenger_key"]), cid)
        pipe.zrem(to_key(record["bot_id"]), cid)
        pipe.execute()
        record.update(status=status, reason=reason, answered=iso(now_ms()))
        self._store(record)
        return record

    def _store(self, record: Mapping[str, Any]) -> None:
        self.conn.set(challenge_key(record["id"]), canonical_json(record), ex=KEPT_S)

    def _tell(self, record: Mapping[str, Any], event: str) -> None:
        data = public(record)
        dedupe = f"{event}:{record['id']}"
        self.bot_feed.publish(record["bot_id"], event, data, dedupe, 1)
        challenger = record["challenger"]
        if challenger["bot_id"]:
            self.bot_feed.publish(challenger["bot_id"], event, data, dedupe, 1)
        else:
            self.account_feed.publish(record["payer"], event, data, dedupe, 1)


def public(record: Mapping[str, Any]) -> dict[str, Any]:
    """A challenge as both sides and anyone with its id see it (who pays, and the caps, are not shown)."""
    return {k: v for k, v in record.items() if k not in ("payer", "challenger_key", "caps")}


def _ms(stamp: str) -> int:
    from datetime import UTC, datetime

    return int(datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp() * 1000)
