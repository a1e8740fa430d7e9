"""The work list: every live game a worker has to act in, and by when.

A sorted set ``hg:{sweep}:due`` maps game id -> the epoch ms by which a worker should have acted
(a SYSTEM or bot/HTTP seat to act, or a clock deadline). :class:`core.games.GameService` marks a
game *before* appending a batch that leaves such work (due = now + ``GRACE_MS``, the time the
ordinary enqueue gets); a worker that finds nothing left to do retires the game, and one waiting
on a human's clock moves the due time to the deadline. The sweeper (``workers.sweeper``) reads
only the entries that are due, so it never scans the key space.

Why not inside ``append.lua``: the index is one key for all games, and a script may only touch
keys of one Redis Cluster slot (a game's keys share ``{<id>}``). Marking before the append gives
the same guarantee: a game that needs a worker is always on the list (a crash after the mark and
before the append leaves only a spurious entry, which the sweeper retires). Retiring is
conditional on the game's generation (``hg:{sweep}:gen``, bumped by every mark), so a retire
that races with a new mark never takes the new work off the list.

A game that keeps failing at one version is marked stuck: a ``stuck`` field in its meta hash
(JSON: version, reason, tries), shown in the summary, it leaves the list, and ``hg:stats``
counts it (``games_stuck``). It stays stuck until an operator deletes that field.
"""
from __future__ import annotations

import json
import time
from typing import Any

import redis

from core.store import ScriptCall, meta_key

DUE_KEY = "hg:{sweep}:due"
GEN_KEY = "hg:{sweep}:gen"
STATS_KEY = "hg:stats"
GRACE_MS = 5_000  # how long the ordinary enqueue gets before the sweeper steps in
TRIES_TTL_S = 86_400

_MARK = """
local gen = redis.call("HINCRBY", KEYS[2], ARGV[1], 1)
redis.call("ZADD", KEYS[1], ARGV[2], ARGV[1])
return gen
"""
_RETIRE = """
local gen = redis.call("HGET", KEYS[2], ARGV[1]) or "0"
if gen ~= ARGV[2] then return 0 end
redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
return 1
"""


def now_ms() -> int:
    return int(time.time() * 1000)


def tries_key(game_id: str) -> str:
    """Per game: version -> how often work at that version failed or had to be swept up."""
    return f"hg:{{{game_id}}}:tries"


class WorkList:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self._mark = conn.register_script(_MARK)
        self._retire = conn.register_script(_RETIRE)

    def mark(self, game_id: str, due_ms: int | None = None) -> int:
        """Put the game on the list, due at ``due_ms`` (default: now + grace); its new generation."""
        due = now_ms() + GRACE_MS if due_ms is None else due_ms
        return int(self._mark(keys=[DUE_KEY, GEN_KEY], args=[game_id, due]))

    def mark_call(self, game_id: str, due_ms: int | None = None) -> ScriptCall:
        """:meth:`mark` as a call to run in the append's own pipeline (``EventStore.append``'s
        ``before``): the mark still reaches Redis first, without a round trip of its own."""
        due = now_ms() + GRACE_MS if due_ms is None else due_ms
        return ScriptCall(_MARK, (DUE_KEY, GEN_KEY), (game_id, due))

    def generation(self, game_id: str) -> int:
        raw = self.conn.hget(GEN_KEY, game_id)
        return int(raw) if raw is not None else 0  # type: ignore[arg-type]

    def retire(self, game_id: str, generation: int) -> bool:
        """Take the game off the list unless it was marked again since ``generation`` was read."""
        return bool(self._retire(keys=[DUE_KEY, GEN_KEY], args=[game_id, generation]))

    def drop(self, game_id: str) -> None:
        """Off the list whatever happened since (the game is over, gone or stuck)."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.zrem(DUE_KEY, game_id)
        pipe.hdel(GEN_KEY, game_id)
        pipe.execute()

    def postpone(self, game_id: str, due_ms: int) -> None:
        """Look again at ``due_ms`` (only ever later; a game not on the list stays off)."""
        self.conn.zadd(DUE_KEY, {game_id: due_ms}, xx=True, gt=True)

    def due(self, at_ms: int | None = None, limit: int = 100) -> list[str]:
        """Games due by ``at_ms`` (default: now), earliest first."""
        at = now_ms() if at_ms is None else at_ms
        found = self.conn.zrangebyscore(DUE_KEY, "-inf", at, start=0, num=limit)
        return [g.decode() if isinstance(g, bytes) else str(g) for g in found]  # type: ignore[union-attr]

    def due_at(self, game_id: str) -> int | None:
        score = self.conn.zscore(DUE_KEY, game_id)
        return None if score is None else int(score)  # type: ignore[arg-type]

    def tries(self, game_id: str, version: int) -> int:
        raw = self.conn.hget(tries_key(game_id), str(version))
        return int(raw) if raw is not None else 0  # type: ignore[arg-type]

    def count_try(self, game_id: str, version: int) -> int:
        """One more failed or swept-up attempt at ``version``; how many there have been."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.hincrby(tries_key(game_id), str(version), 1)
        pipe.expire(tries_key(game_id), TRIES_TTL_S)
        return int(pipe.execute()[0])

    def mark_stuck(self, game_id: str, version: int, reason: str, tries: int) -> dict[str, Any]:
        """Record that the game cannot move past ``version``; it leaves the list for good."""
        record = {"version": version, "reason": reason[:200], "tries": tries}
        pipe = self.conn.pipeline(transaction=False)
        pipe.hset(meta_key(game_id), "stuck", json.dumps(record, sort_keys=True))
        pipe.zrem(DUE_KEY, game_id)
        pipe.hdel(GEN_KEY, game_id)
        pipe.hincrby(STATS_KEY, "games_stuck", 1)
        pipe.execute()
        return record

    def stuck(self, game_id: str) -> dict[str, Any] | None:
        raw = self.conn.hget(meta_key(game_id), "stuck")
        return None if raw is None else json.loads(raw)  # type: ignore[arg-type]

    def count(self, name: str, by: int = 1) -> None:
        self.conn.hincrby(STATS_KEY, name, by)
