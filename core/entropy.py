"""Seat-contributed entropy: a game whose set-up waits for its seats' contributions (issue 29).

A game created with ``"entropy": {"window_s": W}`` is not set up at once. The service draws and
commits to its seed as always (the commitment is in the creation's answer), issues the seats'
credentials, and keeps the game *seeding* in one Redis hash (``hg:{<id>}:pending``) until:

- every seat that may contribute has contributed, or
- ``W`` seconds have passed (the deadline): a seat that has not contributed by then is recorded
  as ``null`` and the game starts without it. One slow seat costs itself its say in the seed,
  never the others their game. The first request that reads the game after the deadline (any
  read: ``GameService.load``, the entropy status, a contribution) starts it.

Then the set-up runs with the seed ``domain.rng.derive_seed(service seed, contributions)``.
Who contributes: a seat with a bearer token (a human seat) or a pull bot's seat, through the API;
built-in bots, push bots and every other seat are given 32 random bytes of the service's at
creation (docs/fairness.md says what each proves).

The hash's fields: ``spec`` (the game to create, JSON), ``deadline`` (epoch seconds),
``contrib:<seat>`` (hex), ``closing`` (set once the window closes: no contribution after it, so
every attempt to start the game derives the same seed, and one whose process died is finished
by the next). Two Lua scripts keep "contribute" and "close" atomic against each other.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis

MAX_WINDOW_S = 600.0
KEEP_AFTER_S = 86_400  # a seeding hash outlives its deadline by a day, then expires

_CONTRIBUTE = """
local key = KEYS[1]
if redis.call("EXISTS", key) == 0 then return "unknown" end
if redis.call("HEXISTS", key, "closing") == 1 then return "closed" end
if tonumber(ARGV[3]) >= tonumber(redis.call("HGET", key, "deadline")) then return "closed" end
if redis.call("HSETNX", key, "contrib:" .. ARGV[1], ARGV[2]) == 0 then return "again" end
return "ok"
"""
_CLOSE = """
if redis.call("EXISTS", KEYS[1]) == 0 then return false end
redis.call("HSET", KEYS[1], "closing", "1")
return redis.call("HGETALL", KEYS[1])
"""


def pending_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:pending"


@dataclass(frozen=True)
class Seeding:
    """A game waiting for its seats' entropy, as stored."""

    game_id: str
    spec: dict[str, Any]
    deadline: float
    contributed: dict[int, str]
    closing: bool

    @property
    def contributors(self) -> list[int]:
        """The seats that contribute themselves (the others were given the service's bytes)."""
        return [int(s) for s in self.spec["contributors"]]

    def complete(self) -> bool:
        return all(seat in self.contributed for seat in self.contributors)

    def contributions(self) -> list[str | None]:
        """One entry per seat, in seat order: what it (or the service for it) contributed, or None."""
        given = {int(k): v for k, v in self.spec["service_contributions"].items()}
        return [given.get(seat, self.contributed.get(seat)) for seat in range(len(self.spec["seats"]))]

    def seat_for_digest(self, digest: str) -> int | None:
        value = self.spec["meta_fields"].get(f"token:{digest}")
        return None if value is None else int(value)

    def seat_for_bot(self, bot_id: str) -> int | None:
        return next((int(s) for s, b in self.spec["pull_bots"].items() if b == bot_id), None)

    def status(self, now: float) -> dict[str, Any]:
        """What anyone may see while it seeds: who contributed, never what."""
        return {"id": self.game_id, "status": "seeding", "deadline_s": max(0.0, self.deadline - now),
                "seed_commitment": self.spec["seed_commitment"],
                "seats": [{"seat": seat, "contributes": seat in self.contributors,
                           "contributed": seat in self.contributed or seat not in self.contributors}
                          for seat in range(len(self.spec["seats"]))]}


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _seeding(game_id: str, raw: Mapping[Any, Any]) -> Seeding:
    fields = {_text(k): _text(v) for k, v in raw.items()}
    return Seeding(game_id, json.loads(fields["spec"]), float(fields["deadline"]),
                   {int(k[8:]): v for k, v in fields.items() if k.startswith("contrib:")}, "closing" in fields)


class EntropyWindows:
    """The seeding games on one Redis connection."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self._contribute = conn.register_script(_CONTRIBUTE)
        self._close = conn.register_script(_CLOSE)

    def open(self, game_id: str, spec: dict[str, Any], deadline: float, window_s: float) -> bool:
        """Start seeding ``game_id``; False when the id is taken already."""
        key = pending_key(game_id)
        if not self.conn.hsetnx(key, "spec", json.dumps(spec, sort_keys=True)):
            return False
        self.conn.hset(key, "deadline", repr(deadline))
        self.conn.expire(key, int(window_s) + KEEP_AFTER_S)
        return True

    def read(self, game_id: str) -> Seeding | None:
        raw: dict[bytes, bytes] = self.conn.hgetall(pending_key(game_id))  # type: ignore[assignment]
        return _seeding(game_id, raw) if raw and b"deadline" in raw else None

    def contribute(self, game_id: str, seat: int, value: str, now: float) -> str:
        """``ok``, ``again`` (this seat contributed already), ``closed`` (after the window) or ``unknown``."""
        return _text(self._contribute(keys=[pending_key(game_id)], args=[seat, value, repr(now)]))

    def close(self, game_id: str) -> Seeding | None:
        """Close the window (no contribution after this) and return what it holds."""
        raw = self._close(keys=[pending_key(game_id)])
        if not raw:
            return None
        pairs = dict(zip(raw[0::2], raw[1::2]))
        return _seeding(game_id, pairs)
