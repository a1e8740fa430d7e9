"""Push decisions handed from an advance job to the caller process (``workers.caller``).

A job whose next actor is a push seat writes a *ticket* ``{game, seat, version, lease}`` to the
list ``hg:calls:<base>`` on the queue server and leaves without letting the game's lease go: the
ticket carries the lease's token, so the caller holds the game while the call is open and no
second job can ask the seat again (one call in flight per seat and decision). The caller renews
the lease while it works on the ticket and lets it go after the answer is appended; a ticket
whose lease lapsed before a caller took it (a caller gone, or far behind) is dropped unasked,
and the sweeper gives the game a fresh job, which writes a fresh ticket.

A job hands over only while a caller says it is alive (``hg:calls:<base>:alive``, renewed every
second by each caller, a sorted set of callers by expiry); otherwise the slow lane asks inline, so a service without a caller
process still plays its push seats.
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

import redis

from core.connection import plain_redis
from core.games import Game, GameService
from workers.enqueue import base_name
from workers.lease import LEASE_MS, Lease

log = logging.getLogger("hourglass.calls")

ALIVE_MS = 3_000
QUEUE_WAIT_MS = 10_000  # how long a ticket's lease lasts before a caller renews it


def tickets_key(base: str | None = None) -> str:
    return f"hg:calls:{base or base_name()}"


def alive_key(base: str | None = None) -> str:
    return f"{tickets_key(base)}:alive"


@dataclass(frozen=True)
class Ticket:
    game_id: str
    seat: int
    version: int
    lease: str
    queued: float  # time.time() when the job wrote it

    def to_json(self) -> str:
        return json.dumps({"game": self.game_id, "seat": self.seat, "version": self.version, "lease": self.lease,
                           "queued": self.queued}, sort_keys=True)

    @classmethod
    def from_json(cls, raw: bytes | str) -> Ticket:
        data: dict[str, Any] = json.loads(raw)
        return cls(str(data["game"]), int(data["seat"]), int(data["version"]), str(data["lease"]),
                   float(data["queued"]))


def alive(conn: redis.Redis, base: str | None = None) -> bool:
    """Is a caller process taking this queue's tickets? (Each caller keeps its member's score, an
    expiry in epoch ms, a few seconds ahead.)"""
    now_ms = int(time.time() * 1000)
    return int(plain_redis(conn).zcount(alive_key(base), now_ms, "+inf")) > 0  # type: ignore[arg-type]


def dispatch(svc: GameService, game: Game, seat: int, lease: Lease, timeout_s: float) -> bool:
    """Hand ``seat``'s decision at the game's version, and the lease, to a caller; False (nothing
    done) when no caller is alive."""
    conn = svc.store.conn
    if not alive(conn):
        return False
    if not lease.renew(int(timeout_s * 1000) + LEASE_MS + QUEUE_WAIT_MS):
        log.info("game %s: the lease lapsed before the call was handed over; its new holder asks", game.game_id)
        return True
    ticket = Ticket(game.game_id, seat, game.version, lease.token, time.time())
    plain_redis(conn).lpush(tickets_key(), ticket.to_json())
    return True
