"""Per-seat chess-style clocks (``clock: {initial_s, increment_s}`` on a seat at creation).

The clocks are a pure function of the game log: every stored batch carries the time the store
appended it, and folding the batches tells who was to act after each one. A seat's clock runs
while the seat is in ``to_act``. A *stint* is one decision of the seat: it starts when the seat
becomes to-act, or ends a decision and stays to-act (a turn of its own right after another), and
lasts until the seat ends its decision by acting or timing out. A command the game declares
*provisional* (``domain.games.provisional``: an Orléans planning placement or take-back, a tower
loading) does not end the decision while the seat stays to act: the stint, and its deadline, go
on, and no increment is earned until the seat ends it (``FinishPlanning``). The deadline is fixed
for the whole stint, so one scheduled timeout job per stint is enough, and the job's id names
the stint. A per-move clock (``move_s``) starts each stint afresh; a chess clock keeps what is
left and gains ``increment`` when the stint ends.

The fold result is cached in Redis under the game's hash tag (``hg:{<id>}:clock``, a JSON
document guarded by its version) so a worker only walks the batches appended since.
Time never enters the domain except as data: a timeout is the SYSTEM command
``ApplyTimeout(target=seat)``, and the clock figures go into the entry's meta.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from core.store import events_key

if TYPE_CHECKING:  # annotations only: the offline verifiers import this module without redis
    from redis import Redis


@dataclass(frozen=True)
class TimeControl:
    """A chess clock (``initial_s`` + ``increment_s`` per move) or a per-move deadline
    (``move_s``: every stint starts with exactly that much, nothing carries over)."""

    initial_ms: int
    increment_ms: int
    per_move: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        """``{"initial_s": 300, "increment_s": 5}`` or ``{"move_s": 5}``; raises ValueError on anything else."""
        if isinstance(data, Mapping) and set(data) == {"move_s"}:
            move = data["move_s"]
            if isinstance(move, bool) or not isinstance(move, (int, float)) or not 0 < move <= 86_400:
                raise ValueError("clock.move_s must be a number of seconds in (0, 86400]")
            return cls(int(move * 1000), 0, per_move=True)
        if not isinstance(data, Mapping) or set(data) - {"initial_s", "increment_s"} or "initial_s" not in data:
            raise ValueError("clock must be {initial_s, increment_s} or {move_s}")
        initial, increment = data["initial_s"], data.get("increment_s", 0)
        for name, value in (("initial_s", initial), ("increment_s", increment)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value > 86_400 * 30:
                raise ValueError(f"clock.{name} must be a number of seconds in [0, 2592000]")
        if initial <= 0:
            raise ValueError("clock.initial_s must be positive")
        return cls(int(initial * 1000), int(increment * 1000))

    def to_json(self) -> dict[str, int | float]:
        if self.per_move:
            return {"move_s": _seconds(self.initial_ms)}
        return {"initial_s": _seconds(self.initial_ms), "increment_s": _seconds(self.increment_ms)}


def _seconds(ms: int) -> int | float:
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


@dataclass(frozen=True)
class SeatClock:
    remaining_ms: int
    since_ms: int | None = None  # time of the last charge while running; None when stopped
    stint: int | None = None  # version of the batch that began the running stint
    deadline_ms: int | None = None  # since_ms + remaining_ms at stint start; fixed for the stint

    @property
    def running(self) -> bool:
        return self.since_ms is not None

    @property
    def timer(self) -> tuple[int, int] | None:
        """``(stint, deadline_ms)`` of the running stint; None while stopped."""
        if self.since_ms is None or self.stint is None or self.deadline_ms is None:
            return None
        return self.stint, self.deadline_ms


@dataclass(frozen=True)
class Batch:
    """What the clocks need to know about one stored batch."""

    version: int  # the game's version after the batch (its last seq)
    time_ms: int
    actor: int | str
    timeout_target: int | None  # the seat an ApplyTimeout batch played for
    to_act_after: frozenset[int | str]
    provisional: bool = False  # the command does not end the actor's decision if it stays to act
    rtt_ms: float = 0.0  # a push bot's call that made the command (its entry's meta http.rtt_ms)

    def ends(self, seat: int) -> bool:
        """Does this batch end ``seat``'s decision (its stint)? It acted, with a command that is not
        provisional or that left it out of ``to_act``, or it timed out."""
        if self.timeout_target == seat:
            return True
        return self.actor == seat and not (self.provisional and seat in self.to_act_after)


@dataclass(frozen=True)
class Clocks:
    version: int
    seats: Mapping[int, SeatClock]

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version,
                "seats": {str(s): [c.remaining_ms, c.since_ms, c.stint, c.deadline_ms] for s, c in self.seats.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Clocks:
        return cls(int(data["version"]), {int(s): SeatClock(*v) for s, v in data["seats"].items()})

    def remaining_at(self, seat: int, now_ms: int) -> int:
        clock = self.seats[seat]
        return clock.remaining_ms - (now_ms - clock.since_ms if clock.since_ms is not None else 0)


def start(controls: Mapping[int, TimeControl]) -> Clocks:
    """Every clocked seat at its initial time, nothing running, before the first batch."""
    return Clocks(0, {seat: SeatClock(tc.initial_ms) for seat, tc in sorted(controls.items())})


def step(clocks: Clocks, batch: Batch, controls: Mapping[int, TimeControl]) -> Clocks:
    """Charge running seats up to the batch's time, credit the seat whose decision ended, start stints."""
    seats = dict(clocks.seats)
    for seat, clock in seats.items():
        control = controls[seat]
        ended = batch.ends(seat) and clock.running  # a stopped clock has no decision to end: joining earns nothing
        remaining = clock.remaining_ms
        if clock.since_ms is not None:  # running
            remaining = max(0, remaining - max(0, batch.time_ms - clock.since_ms))
        if ended:  # a per-move deadline starts afresh; a chess clock keeps what is left, plus the increment
            remaining = control.initial_ms if control.per_move else remaining + control.increment_ms
        if seat not in batch.to_act_after:
            seats[seat] = SeatClock(control.initial_ms if control.per_move else remaining)
        elif clock.running and not ended:
            seats[seat] = replace(clock, remaining_ms=remaining, since_ms=batch.time_ms)
        else:
            seats[seat] = SeatClock(remaining, batch.time_ms, batch.version, batch.time_ms + remaining)
    return Clocks(batch.version, seats)


def fold_batches(clocks: Clocks, batches: Iterable[Batch], controls: Mapping[int, TimeControl]) -> Clocks:
    for batch in batches:
        if batch.version > clocks.version:
            clocks = step(clocks, batch, controls)
    return clocks


# --- Redis cache ---------------------------------------------------------------------------

# KEYS[1] the clock cache, KEYS[2] the game's log: a game whose log is gone (deleted, or expired
# by retention) gets no cache back from a late save, which would outlive it by CACHE_TTL_S.
_SAVE_IF_NEWER = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local current = redis.call('GET', KEYS[1])
if current then
  local version = tonumber(cjson.decode(current)['version'])
  if version >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""
CACHE_TTL_S = 30 * 86_400


def clock_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:clock"


def load(conn: Redis, game_id: str) -> Clocks | None:
    raw: bytes | None = conn.get(clock_key(game_id))  # type: ignore[assignment]
    return Clocks.from_json(json.loads(raw)) if raw else None


def save(conn: Redis, game_id: str, clocks: Clocks) -> bool:
    """Store ``clocks`` unless a newer (or equal) version is already stored, or the game is gone;
    True if written."""
    body = json.dumps(clocks.to_json(), separators=(",", ":"))
    return bool(conn.eval(_SAVE_IF_NEWER, 2, clock_key(game_id), events_key(game_id), str(clocks.version), body,
                          str(CACHE_TTL_S)))


def public(clocks: Clocks, now_ms: int) -> dict[str, Any]:
    """The figures a client may see: remaining ms per seat as of ``now_ms`` and who is running."""
    return {str(seat): {"remaining_ms": max(0, clocks.remaining_at(seat, now_ms)),
                        "running": clock.running, "deadline_ms": clock.deadline_ms}
            for seat, clock in clocks.seats.items()}
