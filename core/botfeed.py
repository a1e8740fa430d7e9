"""One event stream per registered bot, for all its games (the Lichess bot stream, resumable).

``hg:bot:{<id>}:events`` is a Redis stream with server-made ids; the SSE endpoint sends each
entry with its id, and a client resumes with ``Last-Event-ID`` from exactly the next entry, so a
reconnect loses nothing and repeats nothing. The stream keeps the last ``MAXLEN`` entries; a
resume point older than that gets a ``resync`` event (see ``service/routes/bots.py``).

Events (``data`` is JSON):

- ``game_started`` {game, game_type, edition, seat, seats, tournament?}
- ``your_turn`` {game, seat, version, deadline, deadline_ms}: sent when a pull seat's turn (a
  *stint*, core/clocks.py) begins. The deadline is that of the seat's per-move clock, null when
  the seat has none. Moves are read and posted with the ordinary game endpoints.
- ``call`` {game, seat, version, outcome, rtt_ms}: every request the worker sent a push bot,
  with its fixed outcome code (ok, timeout, bad_signature, illegal, garbage, http_status, error,
  too_large, rejected_url), during the game. Never the bot's answer.
- ``game_finished`` {game, seat, rank, score, result_url}

The core calls :meth:`BotFeed.after_append` after every append it makes, with the game before and
after; a Lua script sends each ``game_started``/``your_turn``/``game_finished`` at most once per
(game, seat, version), so a repeated call (a retried job, a resync) sends nothing twice.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import redis

from core.bots import bot_key
from core.clocks import TimeControl
from core.store import StoredEntry
from domain.canonical import canonical_json

if TYPE_CHECKING:
    from core.games import Game

MAXLEN = 10_000
SENT_TTL_S = 30 * 86_400

# KEYS[1] stream, KEYS[2] sent hash; ARGV: dedupe field ("" for none), version, event, data, maxlen, ttl
_PUBLISH = """
if ARGV[1] ~= '' then
  local sent = redis.call('HGET', KEYS[2], ARGV[1])
  if sent and tonumber(sent) >= tonumber(ARGV[2]) then return false end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[3], 'data', ARGV[4])
"""


def events_key(bot_id: str) -> str:
    return f"{bot_key(bot_id)}:events"


def sent_key(bot_id: str) -> str:
    return f"{bot_key(bot_id)}:sent"


def live_key(bot_id: str) -> str:
    """The games the bot sits in that have not ended (for a fresh stream's resync)."""
    return f"{bot_key(bot_id)}:live"


@dataclass(frozen=True)
class BotEvent:
    id: str  # the Redis stream id, e.g. 1767268802000-0
    event: str
    data: dict[str, Any]


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def iso_ms(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def entry_ms(stamp: str) -> int:
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


class BotFeed:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self._publish = conn.register_script(_PUBLISH)

    # -- writing -------------------------------------------------------------------------------

    def publish(self, bot_id: str, event: str, data: dict[str, Any], dedupe: str = "", version: int = 0) -> str | None:
        """Append one event; with ``dedupe``, only if no event under that name had ``version`` or later."""
        added = self._publish(keys=[events_key(bot_id), sent_key(bot_id)],
                              args=[dedupe, version, event, canonical_json(data), MAXLEN, SENT_TTL_S])
        return None if added is None else _text(added)

    def call_outcome(self, bot_id: str, game_id: str, seat: int, version: int, outcome: str, rtt_ms: float) -> None:
        self.publish(bot_id, "call", {"game": game_id, "seat": seat, "version": version, "outcome": outcome,
                                      "rtt_ms": round(rtt_ms, 1)})

    def after_append(self, before: Game | None, after: Game, entries: Sequence[StoredEntry]) -> None:
        """Tell each registered bot of the game what this batch means for it."""
        seats = after.info.seats
        if not any(s.get("bot_id") for s in seats):
            return
        for seat, spec in enumerate(seats):
            bot_id = spec.get("bot_id")
            if bot_id:
                self._seat_events(bot_id, seat, spec, before, after, entries)

    def _seat_events(self, bot_id: str, seat: int, spec: dict[str, Any], before: Game | None, after: Game,
                     entries: Sequence[StoredEntry]) -> None:
        game_id = after.game_id
        if before is None:
            self.conn.sadd(live_key(bot_id), game_id)
            self.publish(bot_id, "game_started", _started(after, seat), f"start:{game_id}", 1)
        if spec.get("kind") == "pull" and seat in after.to_act and _stint_begins(seat, before, entries):
            self.publish(bot_id, "your_turn", _turn(after, seat, spec, entries), f"turn:{game_id}:{seat}", after.version)
        if after.finished and (before is None or not before.finished):
            self.publish(bot_id, "game_finished", _finished(after, seat), f"end:{game_id}", 1)
            self.conn.srem(live_key(bot_id), game_id)

    def live_games(self, bot_id: str) -> list[str]:
        found: Any = self.conn.smembers(live_key(bot_id))
        return sorted(_text(g) for g in found)

    # -- reading -------------------------------------------------------------------------------

    def read(self, bot_id: str, after: str = "0", count: int = 500, block_ms: int | None = None) -> list[BotEvent]:
        """Events after stream id ``after`` ("0": from the oldest kept), oldest first."""
        key = events_key(bot_id)
        if block_ms is None:
            rows: Any = self.conn.xrange(key, f"({after}" if after != "0" else "-", "+", count=count)
            return [_decode(i, f) for i, f in rows]
        found: Any = self.conn.xread({key: after}, count=count, block=block_ms)
        return [_decode(i, f) for i, f in found[0][1]] if found else []

    def first_id(self, bot_id: str) -> str | None:
        rows: Any = self.conn.xrange(events_key(bot_id), "-", "+", count=1)
        return _text(rows[0][0]) if rows else None

    def last_id(self, bot_id: str) -> str:
        rows: Any = self.conn.xrevrange(events_key(bot_id), "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"


def _decode(entry_id: Any, fields: Any) -> BotEvent:
    values = {_text(k): _text(v) for k, v in fields.items()}
    return BotEvent(_text(entry_id), values["event"], json.loads(values["data"]))


def _stint_begins(seat: int, before: Game | None, entries: Sequence[StoredEntry]) -> bool:
    """The seat starts a new turn with this batch: it was not to act, or it acted (or timed out) now."""
    if before is None or seat not in before.to_act or not entries:
        return True
    command = entries[0].command or {}
    return entries[0].actor == seat or (command.get("type") == "ApplyTimeout" and command.get("target") == seat)


def _turn(game: Game, seat: int, spec: dict[str, Any], entries: Sequence[StoredEntry]) -> dict[str, Any]:
    deadline_ms = None
    clock = spec.get("clock")
    if clock and entries:
        control = TimeControl.from_json(clock)
        if control.per_move:  # the same deadline the clock's timeout job fires at (core/clocks.py step)
            deadline_ms = entry_ms(entries[0].entry["time"]) + control.initial_ms
    return {"game": game.game_id, "seat": seat, "version": game.version,
            "deadline_ms": deadline_ms, "deadline": iso_ms(deadline_ms) if deadline_ms is not None else None}


def _started(game: Game, seat: int) -> dict[str, Any]:
    info = game.info
    out = {"game": game.game_id, "game_type": info.game, "edition": info.config.get("edition"), "seat": seat,
           "seats": [{"seat": i, "name": s.get("name"), "kind": s.get("kind")} for i, s in enumerate(info.seats)]}
    if info.tournament:
        out["tournament"] = info.tournament
    return out


def _finished(game: Game, seat: int) -> dict[str, Any]:
    result = game.result or {}  # the table's ranking: a seat that forfeited or never played ranks last
    mine: dict[str, Any] = next((r for r in result.get("ranking", []) if r.get("seat") == seat), {})
    return {"game": game.game_id, "seat": seat, "rank": mine.get("rank"), "score": mine.get("score"),
            "result_url": f"/api/v1/games/{game.game_id}"}
