"""A game's lease: exactly one job (or the caller process) serves a game at a time.

``hg:{<id>}:lease`` holds the owner's random token with a time to live. Taking it is ``SET NX``;
renewing and releasing are scripts that act only while the key still holds the owner's token,
so an owner whose lease lapsed (a paused process) can neither extend nor delete a newer owner's.
An RQ job's token is its job id: RQ runs a job again only after its last run ended (a work horse
that died holding the lease), and that retry takes the lease over instead of waiting it out.
A job that finds the lease taken leaves at once, and leaves a *wake* flag (``hg:{<id>}:wake``)
in the same script: the owner's release returns it, and the owner then puts the game back on the
queue, because whatever that job was sent for (a human's move, a timeout) may have come after the
owner last looked. Both keys share the game's hash tag (one Redis Cluster slot).

The sweeper (``workers.sweeper``) leaves a leased game alone until the lease would lapse; a job
renews its lease every second, the caller process every second for every call it holds.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import redis

LEASE_MS = 5_000  # a job renews every second; a dead owner's lease lapses within this

_TAKE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 0
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1])
return redis.call('DEL', KEYS[2])
"""


def lease_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:lease"


def wake_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:wake"


@dataclass
class Lease:
    """One owner's hold on one game's lease (``token`` is the owner's; pass it on to hand over)."""

    conn: redis.Redis
    game_id: str
    token: str = field(default_factory=lambda: secrets.token_hex(12))

    @property
    def keys(self) -> list[str]:
        return [lease_key(self.game_id), wake_key(self.game_id)]

    def take(self, ttl_ms: int = LEASE_MS) -> bool:
        """Take the lease (or take it back, with the same token); False, and the wake flag set for
        the owner, when another holds it."""
        return bool(self.conn.register_script(_TAKE)(keys=self.keys, args=[self.token, ttl_ms]))

    def renew(self, ttl_ms: int = LEASE_MS) -> bool:
        """Extend the lease to ``ttl_ms`` from now; False when it is no longer ours."""
        return bool(self.conn.register_script(_RENEW)(keys=self.keys[:1], args=[self.token, ttl_ms]))

    def release(self) -> bool:
        """Let go; True when a job came for the game meanwhile (the caller should queue it again).

        A lease that is no longer ours is left alone (and nobody is woken by us)."""
        return int(self.conn.register_script(_RELEASE)(keys=self.keys, args=[self.token])) == 1


def held(conn: redis.Redis, game_id: str) -> int:
    """Milliseconds the game's lease has left (0 when nobody holds it)."""
    left = int(conn.pttl(lease_key(game_id)))  # type: ignore[arg-type]
    return max(0, left)
