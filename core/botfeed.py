"""Resumable event streams per subscriber: one per registered bot, one per account.

The Lichess bot and account event streams, for all of a subscriber's games. ``hg:bot:{<id>}:events``
(a bot) and ``hg:acct:{<id>}:events`` (an account: every seat bound to it, ``core.accounts``) are
Redis streams with server-made ids; the SSE endpoints send each entry with its id, and a client
resumes with ``Last-Event-ID`` from exactly the next entry, so a reconnect loses nothing and
repeats nothing. A stream keeps its last ``MAXLEN`` entries; a resume point older than that gets a
``resync`` event, and one newer than the last entry is refused (``service/routes/feeds.py``).

Events (``data`` is JSON):

- ``game_started`` {game, game_type, edition, seat, seats, tournament?}
- ``your_turn`` {game, seat, version, deadline, deadline_ms}: sent to a pull bot, and to an
  account for each of its seats, when the seat is to act after a batch it did not act in before,
  or after its own move (it acts again). The deadline is that of the seat's per-move clock, null
  when it has none: a new one when the batch begins a *stint* (core/clocks.py), the stint's own
  after a provisional move that keeps the seat in the same decision (an Orléans placement: the
  deadline covers the whole planning). Moves are read and posted with the ordinary game endpoints.
- ``call`` {game, seat, version, outcome, rtt_ms} (bots only): every request the worker sent a
  push bot, with its fixed outcome code (ok, timeout, bad_signature, illegal, garbage,
  http_status, error, too_large, rejected_url), during the game. Never the bot's answer.
- ``invite_received`` {game, seat, game_type, edition, from} (accounts only): a game was created
  with an open seat reserved for the account; it joins with its own key, no invite token needed.
- ``game_finished`` {game, seat, rank, score, result_url}

The core calls :meth:`Feed.after_append` after every append it makes, with the game before and
after; a Lua script sends each ``game_started``/``your_turn``/``game_finished`` at most once per
(game, seat, version), so a repeated call (a retried job, a resync) sends nothing twice.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import redis

from core.accounts import account_key
from core.bots import bot_key
from core.clocks import TimeControl
from core.seats import Player, SeatSpec
from core.store import StoredEntry
from domain.canonical import canonical_json
from domain.games import provisional

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


class Feed:
    """One stream per subscriber, under ``base(subscriber)`` (``:events``, ``:sent``, ``:live``)."""

    def __init__(self, conn: redis.Redis, base: Callable[[str], str]) -> None:
        self.conn = conn
        self.base = base
        self._publish = conn.register_script(_PUBLISH)

    # -- writing -------------------------------------------------------------------------------

    def publish(self, who: str, event: str, data: dict[str, Any], dedupe: str = "", version: int = 0) -> str | None:
        """Append one event; with ``dedupe``, only if no event under that name had ``version`` or later."""
        base = self.base(who)
        added = self._publish(keys=[f"{base}:events", f"{base}:sent"],
                              args=[dedupe, version, event, canonical_json(data), MAXLEN, SENT_TTL_S])
        return None if added is None else _text(added)

    def seat_events(self, who: str, seat: int, turns: bool, before: Game | None, after: Game,
                    entries: Sequence[StoredEntry]) -> None:
        """``game_started``, ``your_turn`` (when ``turns``) and ``game_finished`` of one seat."""
        game_id = after.game_id
        if before is None or who not in _subscribers(before, self, seat):
            self.conn.sadd(f"{self.base(who)}:live", game_id)
            self.publish(who, "game_started", _started(after, seat), f"start:{game_id}", 1)
        if turns and seat in after.to_act and _prompted(seat, before, entries):
            turn = self._turn(who, after, seat, after.info.seats[seat], entries,
                              _stint_begins(seat, before, after, entries))
            self.publish(who, "your_turn", turn, f"turn:{game_id}:{seat}", after.version)
        if after.finished and (before is None or not before.finished):
            self.publish(who, "game_finished", _finished(after, seat), f"end:{game_id}", 1)
            self.conn.srem(f"{self.base(who)}:live", game_id)

    def _turn(self, who: str, game: Game, seat: int, spec: SeatSpec, entries: Sequence[StoredEntry],
              begins: bool) -> dict[str, Any]:
        """The ``your_turn`` data; a per-move clock's deadline is kept (in the subscriber's ``sent``
        hash) when a stint begins and read back while it goes on, so a provisional move does not renew it."""
        deadline_ms = None
        clock = spec.clock
        if clock and entries and TimeControl.from_json(clock).per_move:
            field, sent = f"deadline:{game.game_id}:{seat}", f"{self.base(who)}:sent"
            kept: Any = None if begins else self.conn.hget(sent, field)
            if kept is not None:
                deadline_ms = int(kept)
            else:  # the same deadline the clock's timeout job fires at (core/clocks.py step)
                deadline_ms = entry_ms(entries[0].entry["time"]) + TimeControl.from_json(clock).initial_ms
                self.conn.hset(sent, field, str(deadline_ms))
        return {"game": game.game_id, "seat": seat, "version": game.version,
                "deadline_ms": deadline_ms, "deadline": iso_ms(deadline_ms) if deadline_ms is not None else None}

    def key(self, who: str) -> str:
        """The Redis stream of ``who``'s events (what a live reader waits on)."""
        return f"{self.base(who)}:events"

    def live_games(self, who: str) -> list[str]:
        found: Any = self.conn.smembers(f"{self.base(who)}:live")
        return sorted(_text(g) for g in found)

    # -- reading -------------------------------------------------------------------------------

    def read(self, who: str, after: str = "0", count: int = 500, block_ms: int | None = None) -> list[BotEvent]:
        """Events after stream id ``after`` ("0": from the oldest kept), oldest first."""
        key = self.key(who)
        if block_ms is None:
            rows: Any = self.conn.xrange(key, f"({after}" if after not in ("0", "0-0") else "-", "+", count=count)
            return decode(rows)
        found: Any = self.conn.xread({key: after}, count=count, block=block_ms)
        return decode(found[0][1]) if found else []

    def first_id(self, who: str) -> str | None:
        rows: Any = self.conn.xrange(self.key(who), "-", "+", count=1)
        return _text(rows[0][0]) if rows else None

    def last_id(self, who: str) -> str:
        rows: Any = self.conn.xrevrange(self.key(who), "+", "-", count=1)
        return _text(rows[0][0]) if rows else "0-0"


class BotFeed(Feed):
    """Each registered bot's stream: its seats in every game, and its push calls' outcomes."""

    def __init__(self, conn: redis.Redis) -> None:
        super().__init__(conn, bot_key)

    def call_outcome(self, bot_id: str, game_id: str, seat: int, version: int, outcome: str, rtt_ms: float) -> None:
        self.publish(bot_id, "call", {"game": game_id, "seat": seat, "version": version, "outcome": outcome,
                                      "rtt_ms": round(rtt_ms, 1)})

    def after_append(self, before: Game | None, after: Game, entries: Sequence[StoredEntry]) -> None:
        """Tell each registered bot of the game what this batch means for it."""
        seats = after.info.seats
        if not any(s.bot_id for s in seats):
            return
        for seat, spec in enumerate(seats):
            if spec.bot_id:  # a pull bot is told of its turns: it plays them itself
                self.seat_events(spec.bot_id, seat, spec.policy.played_by is Player.PULL, before, after, entries)


class AccountFeed(Feed):
    """Each account's stream: every seat bound to it, and the invitations it receives; and the
    account's games (``hg:acct:{<id>}:games``, by creation time, the newest
    :data:`ACCOUNT_GAMES_KEPT`) for ``GET /api/v1/account/games``; the listing drops entries of
    games that expired."""

    def __init__(self, conn: redis.Redis) -> None:
        super().__init__(conn, account_key)

    def after_append(self, before: Game | None, after: Game, entries: Sequence[StoredEntry]) -> None:
        for seat, account_id in sorted(after.info.accounts.items()):
            if before is None or before.info.accounts.get(seat) != account_id:
                pipe = self.conn.pipeline(transaction=False)
                pipe.zadd(games_key(account_id), {f"{after.game_id}:{seat}": entry_ms(after.info.created)})
                pipe.zremrangebyrank(games_key(account_id), 0, -(ACCOUNT_GAMES_KEPT + 1))  # the newest only
                pipe.execute()
            self.seat_events(account_id, seat, True, before, after, entries)

    def invite(self, account_id: str, game: Game, seat: int, sender: str) -> None:
        info = game.info
        self.publish(account_id, "invite_received", {
            "game": game.game_id, "seat": seat, "game_type": info.game, "edition": info.config.get("edition"),
            "from": sender}, f"invite:{game.game_id}:{seat}", 1)

    def games(self, account_id: str, before_ms: int | None, limit: int) -> list[tuple[str, int, int]]:
        """(game id, seat, created ms) of the account's seats, newest first, created before ``before_ms``."""
        top = f"({before_ms}" if before_ms is not None else "+inf"
        rows: Any = self.conn.zrevrangebyscore(games_key(account_id), top, "-inf", start=0, num=limit, withscores=True)
        found = []
        for member, score in rows:
            game_id, _, seat = _text(member).rpartition(":")
            found.append((game_id, int(seat), int(score)))
        return found


    def forget_games(self, account_id: str, gone: Sequence[tuple[str, int]]) -> None:
        """Drop index entries (game id, seat) whose game has expired and is gone."""
        if gone:
            self.conn.zrem(games_key(account_id), *(f"{game_id}:{seat}" for game_id, seat in gone))


ACCOUNT_GAMES_KEPT = 1000  # an account's game index keeps its newest seats; older ones are in no listing


def games_key(account_id: str) -> str:
    return f"{account_key(account_id)}:games"


def _subscribers(game: Game, feed: Feed, seat: int) -> set[str]:
    """Who subscribed to ``seat`` of ``game`` in ``feed`` before the batch (a join binds a new one)."""
    if isinstance(feed, AccountFeed):
        bound = game.info.accounts.get(seat)
        return {bound} if bound else set()
    bot_id = game.info.seats[seat].bot_id
    return {bot_id} if bot_id else set()


def decode(rows: Any) -> list[BotEvent]:
    """A stream's entries as Redis returns them (``XRANGE``, or one stream of an ``XREAD``)."""
    return [_decode(entry_id, fields) for entry_id, fields in rows]


def _decode(entry_id: Any, fields: Any) -> BotEvent:
    values = {_text(k): _text(v) for k, v in fields.items()}
    return BotEvent(_text(entry_id), values["event"], json.loads(values["data"]))


def _prompted(seat: int, before: Game | None, entries: Sequence[StoredEntry]) -> bool:
    """The seat is told to act after this batch: it was not to act, or it acted (or timed out) now."""
    if before is None or seat not in before.to_act or not entries:
        return True
    command = entries[0].command or {}
    return entries[0].actor == seat or (command.get("type") == "ApplyTimeout" and command.get("target") == seat)


def _stint_begins(seat: int, before: Game | None, after: Game, entries: Sequence[StoredEntry]) -> bool:
    """The batch begins a new stint of the seat (core.clocks.Batch.ends): every prompt does but one
    after the seat's own provisional move, which leaves it in the same decision."""
    if before is None or seat not in before.to_act or not entries:
        return True
    command = entries[0].command or {}
    return not (entries[0].actor == seat and command.get("type") in provisional(after.rules))


def _started(game: Game, seat: int) -> dict[str, Any]:
    info = game.info
    out = {"game": game.game_id, "game_type": info.game, "edition": info.config.get("edition"), "seat": seat,
           "seats": [{"seat": i, "name": s.name, "kind": s.kind.value} for i, s in enumerate(info.seats)]}
    if info.tournament:
        out["tournament"] = info.tournament
    return out


def _finished(game: Game, seat: int) -> dict[str, Any]:
    result = game.result or {}  # the table's: departures and unplayed seats ranked last, none if aborted
    mine: dict[str, Any] = next((r for r in result.get("ranking", []) if r.get("seat") == seat), {})
    return {"game": game.game_id, "seat": seat, "rank": mine.get("rank"), "score": mine.get("score"),
            "result_url": f"/api/v1/games/{game.game_id}"}
