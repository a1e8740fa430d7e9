"""Live games, their caps, and how long a game's keys are kept.

``hg:{live}:games`` is a sorted set of every live (unfinished, unexpired) game by the time of its
last append; ``hg:{live}:by:<address>`` the live games each client address created. Both share
the ``{live}`` hash tag, so :data:`_RESERVE` checks the caps and adds a new game atomically:

- ``per_creator`` live games per creating address (0: no cap), else :class:`TooManyGames`
  with scope ``creator``; ``total`` live games overall (0: no cap), scope ``total``.

Retention (:class:`Retention`, env ``HOURGLASS_<NAME>``):

- ``FINISHED_TTL_S`` (30 days): when a game ends, every key of it (events, meta, snapshot,
  final clocks, the stored replay bundle or its packed form) gets this TTL; 0 keeps finished
  games for ever. Its idempotency keys and tries go at once, in the same round trip.
- ``COMPACT_AFTER_S`` (0): a game that ended is put on ``hg:{sweep}:compact`` (by the time it
  ended) and a sweeper pass this many seconds later compacts it (``replays.compaction``: the
  stream becomes the compressed bundle); -1 never compacts.
- ``ABANDON_AFTER_S`` (7 days): a live game with no append for this long is expired by the
  sweeper: its meta ``status`` becomes ``expired`` (no move is accepted any more; the summary
  says so) and its keys get ``EXPIRED_TTL_S`` (7 days); 0 never expires games.
"""
from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass

import redis

from core.store import bundle_key, events_key, idem_key, meta_key, packed_key, snap_key

LIVE_KEY = "hg:{live}:games"
COMPACT_KEY = "hg:{sweep}:compact"  # finished games to compact, by the epoch ms they ended
DAY_S = 86_400
_RESERVE = """
local members = redis.call("ZRANGE", KEYS[2], 0, -1)
for _, game in ipairs(members) do
  if not redis.call("ZSCORE", KEYS[1], game) then redis.call("ZREM", KEYS[2], game) end
end
local per, total = tonumber(ARGV[3]), tonumber(ARGV[4])
if per > 0 and redis.call("ZCARD", KEYS[2]) >= per then return "creator" end
if total > 0 and redis.call("ZCARD", KEYS[1]) >= total then return "total" end
redis.call("ZADD", KEYS[1], ARGV[2], ARGV[1])
redis.call("ZADD", KEYS[2], ARGV[2], ARGV[1])
redis.call("EXPIRE", KEYS[2], ARGV[5])
return "ok"
"""


def creator_key(address: str) -> str:
    return f"hg:{{live}}:by:{address}"


def game_keys(game_id: str) -> list[str]:
    """Every key a game owns (the lease and rate-limit windows expire by themselves)."""
    return [events_key(game_id), meta_key(game_id), idem_key(game_id), bundle_key(game_id), snap_key(game_id),
            packed_key(game_id), f"hg:{{{game_id}}}:clock", f"hg:{{{game_id}}}:tries"]


def done_with_keys(game_id: str) -> list[str]:
    """The keys of a game that has ended which no reader needs: a retried move gets the game's
    end, not its stored result (docs/api.md); no worker retries. (The folded clocks stay: they
    are the final clocks every state read shows, a few hundred bytes that spare a fold of the
    whole log per read.)"""
    return [idem_key(game_id), f"hg:{{{game_id}}}:tries"]


class TooManyGames(Exception):
    """A live-game cap is reached: ``scope`` is ``creator`` (this address) or ``total``."""

    def __init__(self, scope: str, cap: int, retry_after_s: int) -> None:
        who = "this address has" if scope == "creator" else "the service has"
        super().__init__(f"{who} {cap} live games already; finish or abandon one first")
        self.scope = scope
        self.cap = cap
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class Retention:
    finished_ttl_s: int = 30 * DAY_S
    abandon_after_s: int = 7 * DAY_S
    expired_ttl_s: int = 7 * DAY_S
    compact_after_s: int = 0  # -1: finished games are never compacted

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Retention:
        source = os.environ if env is None else env
        defaults = cls()
        return cls(*(int(source.get(f"HOURGLASS_{name.upper()}") or getattr(defaults, name))
                     for name in ("finished_ttl_s", "abandon_after_s", "expired_ttl_s", "compact_after_s")))


@dataclass(frozen=True)
class LiveCaps:
    per_creator: int = 0
    total: int = 0


class LiveGames:
    """The live-game index and the retention of game keys, on one Redis connection."""

    TOUCH_EVERY_S = 60.0  # idleness is measured in days: one write a minute per game is plenty

    def __init__(self, conn: redis.Redis, retention: Retention | None = None) -> None:
        self.conn = conn
        self.retention = retention or Retention.from_env()
        self._reserve = conn.register_script(_RESERVE)
        self._touched: dict[str, float] = {}

    def reserve(self, game_id: str, creator: str | None, caps: LiveCaps) -> None:
        """Count a new game as live (before it is written); raise TooManyGames at a cap."""
        now = time.time()
        by = creator_key(creator or "-")
        per = caps.per_creator if creator else 0
        outcome = self._reserve(keys=[LIVE_KEY, by],
                                args=[game_id, int(now * 1000), per, caps.total, max(self.retention.abandon_after_s, 60)])
        outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
        if outcome != "ok":
            cap = caps.per_creator if outcome == "creator" else caps.total
            raise TooManyGames(outcome, cap, self._retry_after(by if outcome == "creator" else LIVE_KEY))

    def _retry_after(self, key: str) -> int:
        """Until the oldest of those games could be expired as abandoned (at least a minute)."""
        oldest = self.conn.zrange(key, 0, 0, withscores=True)
        if not oldest or not self.retention.abandon_after_s:
            return 60
        idle_until = float(oldest[0][1]) / 1000 + self.retention.abandon_after_s  # type: ignore[index]
        return max(60, int(idle_until - time.time()))

    def touch(self, game_id: str) -> None:
        """A game moved: its idle time starts again (only for games still on the index). At most
        once a minute per game and process; the sweeper re-reads the last append before expiring."""
        now = time.monotonic()
        if now - self._touched.get(game_id, -self.TOUCH_EVERY_S) < self.TOUCH_EVERY_S:
            return
        if len(self._touched) > 10_000:
            self._touched.clear()
        self._touched[game_id] = now
        self.conn.zadd(LIVE_KEY, {game_id: int(time.time() * 1000)}, xx=True)

    def finished(self, game_id: str) -> None:
        """Off the live index; its idempotency keys and tries gone; every other key of
        the game kept ``finished_ttl_s`` more; on the compaction list (unless that is off)."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.zrem(LIVE_KEY, game_id)
        for key in done_with_keys(game_id):  # one key a command: a Redis Cluster pipeline refuses a multi-key DEL
            pipe.delete(key)
        if self.retention.finished_ttl_s > 0:
            for key in game_keys(game_id):
                pipe.expire(key, self.retention.finished_ttl_s)
        if self.retention.compact_after_s >= 0:
            pipe.zadd(COMPACT_KEY, {game_id: int(time.time() * 1000)}, nx=True)
        pipe.execute()

    def to_compact(self, limit: int = 100) -> list[str]:
        """Finished games whose ``compact_after_s`` has passed, oldest first."""
        if self.retention.compact_after_s < 0:
            return []
        cutoff = int((time.time() - self.retention.compact_after_s) * 1000)
        found = self.conn.zrangebyscore(COMPACT_KEY, "-inf", cutoff, start=0, num=limit)
        return [g.decode() if isinstance(g, bytes) else str(g) for g in found]  # type: ignore[union-attr]

    def queue_compaction(self, game_ids: list[str]) -> int:
        """Put games that ended before compaction existed on the list (those already on it keep
        their place); how many were added."""
        if not game_ids:
            return 0
        added = self.conn.zadd(COMPACT_KEY, dict.fromkeys(game_ids, int(time.time() * 1000)), nx=True)
        return int(added)  # type: ignore[arg-type]

    def compact_later(self, game_id: str, after_s: int = 600) -> None:
        """A compaction failed: try this game again ``after_s`` from now, not every pass."""
        self.conn.zadd(COMPACT_KEY, {game_id: int((time.time() + after_s) * 1000)}, xx=True)

    def compacted(self, game_id: str) -> None:
        """Off the compaction list (done, or nothing left to compact)."""
        self.conn.zrem(COMPACT_KEY, game_id)

    def idle(self, limit: int = 100) -> list[str]:
        """Live games with no append for ``abandon_after_s`` (none when expiry is off)."""
        if not self.retention.abandon_after_s:
            return []
        cutoff = int((time.time() - self.retention.abandon_after_s) * 1000)
        found = self.conn.zrangebyscore(LIVE_KEY, "-inf", cutoff, start=0, num=limit)
        return [g.decode() if isinstance(g, bytes) else str(g) for g in found]  # type: ignore[union-attr]

    def expire(self, game_id: str, when: str) -> None:
        """Mark an abandoned game expired: no more moves, keys kept ``expired_ttl_s``."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.hset(meta_key(game_id), mapping={"status": "expired", "expired": when})
        pipe.zrem(LIVE_KEY, game_id)
        for key in game_keys(game_id):
            pipe.expire(key, max(1, self.retention.expired_ttl_s))
        pipe.hincrby("hg:stats", "games_expired", 1)
        pipe.execute()

    def forget(self, game_id: str) -> None:
        self.conn.zrem(LIVE_KEY, game_id)
