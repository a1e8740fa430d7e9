"""Budgets per requester: request windows and the work budget (issue 22).

A *requester* is whoever a request is charged to: an account (its keys, its bots, the seats
bound to it), or else the client's address (an IPv6 address counts by its /64, the block one
subscriber usually holds). ``service.limits`` decides who the requester is; this module keeps
the counts in Redis, so every web process shares them:

- **request windows** (fixed windows, ``hg:rl:{<requester>}:<window number>``): requests per
  window; one INCR and EXPIRE, or counted inside the move's append script (``core/append.lua``);
- **the work budget** (a token bucket, ``hg:budget:{<owner>}``): everything that makes the
  service do work for someone draws from it — a game created (1), a join (1), a rematch (1), a
  tournament (all its games, when it is accepted), a replay verification (1 per started MiB).
  The bucket holds ``capacity`` units and refills ``capacity`` per ``period_s``; a cost above
  what is left is refused with the time until it would fit.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import redis

from core.store import RateWindow

# KEYS[1] the bucket (hash: tokens, at); ARGV: now ms, capacity, period ms, cost, ttl s, force (1: take
# it even past empty, for work already done) -> {1 or 0, tokens left after (or now), ms until the cost would fit}
_TAKE = """
local now, capacity, period, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(state[1]), tonumber(state[2])
if tokens == nil then tokens, at = capacity, now end
tokens = math.min(capacity, tokens + (now - at) * capacity / period)
if cost > tokens and ARGV[6] ~= '1' then
  local wait = math.ceil((cost - tokens) * period / capacity)
  return {0, tostring(tokens), wait}
end
tokens = tokens - cost
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {1, tostring(tokens), 0}
"""


def window_key(requester: str, number: int) -> str:
    return f"hg:rl:{{{requester}}}:{number}"


def budget_key(owner: str) -> str:
    return f"hg:budget:{{{owner}}}"


def window_for(requester: str, limit: int, length_s: float, now: float | None = None) -> RateWindow:
    """The requester's current fixed window (``limit`` requests per ``length_s`` seconds)."""
    number = int((time.time() if now is None else now) // length_s)
    return RateWindow(window_key(requester, number), limit, int(length_s) + 1)


def count(conn: redis.Redis, window: RateWindow) -> int:
    """Count one request in ``window`` (one round trip); the window's count after it."""
    pipe = conn.pipeline(transaction=False)
    pipe.incr(window.key)
    pipe.expire(window.key, window.ttl_s)
    window.count = int(pipe.execute()[0])
    return window.count


def peek(conn: redis.Redis, window: RateWindow) -> int:
    raw: Any = conn.get(window.key)
    return int(raw) if raw else 0


class BudgetExceeded(Exception):
    """The work budget has less than ``cost`` left (or ``cost`` is more than it ever holds)."""

    def __init__(self, cost: float, left: float, capacity: int, period_s: float, retry_after_s: int) -> None:
        self.cost, self.left, self.capacity, self.period_s = cost, left, capacity, period_s
        self.retry_after_s = retry_after_s
        if cost > capacity:
            what = (f"this costs {cost:g} units of work, more than the {capacity} this budget holds "
                    f"(it refills {capacity} per {period_s / 3600:g} h); ask the server's operator for a grant")
        else:
            what = (f"this costs {cost:g} units of work and {left:.1f} of {capacity} are left; the budget refills "
                    f"{capacity} per {period_s / 3600:g} h, so retry in {retry_after_s} s")
        super().__init__(what)


@dataclass(frozen=True)
class WorkBudget:
    """A requester's work budget: ``capacity`` units, refilled over ``period_s``."""

    owner: str
    capacity: int
    period_s: float

    def take(self, conn: redis.Redis, cost: float, *, done: bool = False) -> float:
        """Take ``cost`` units (all or nothing); the units left. Raises BudgetExceeded. With
        ``done`` (the work has happened already) the units are taken even past empty, so the next
        request waits for the refill."""
        if self.capacity <= 0:  # 0: no budget kept (limits off)
            return float("inf")
        period_ms = int(self.period_s * 1000)
        answer: Any = conn.eval(_TAKE, 1, budget_key(self.owner), str(int(time.time() * 1000)), str(self.capacity),
                                str(period_ms), str(cost), str(int(self.period_s) + 60), "1" if done else "0")
        ok, left, wait_ms = answer
        left_units = float(left)
        if not int(ok):
            retry = max(1, int(wait_ms) // 1000 + 1) if cost <= self.capacity else int(self.period_s)
            raise BudgetExceeded(cost, left_units, self.capacity, self.period_s, retry)
        return left_units

    def give_back(self, conn: redis.Redis, cost: float) -> None:
        """Return units taken for work that did not happen (a creation refused after the charge)."""
        if self.capacity > 0 and cost > 0:
            conn.hincrbyfloat(budget_key(self.owner), "tokens", cost)

    def left(self, conn: redis.Redis) -> float:
        """Units left now (without taking any)."""
        if self.capacity <= 0:
            return float("inf")
        raw: Any = conn.hmget(budget_key(self.owner), ["tokens", "at"])
        if raw[0] is None:
            return float(self.capacity)
        tokens, at = float(raw[0]), float(raw[1])
        return min(float(self.capacity), tokens + (time.time() * 1000 - at) * self.capacity / (self.period_s * 1000))
