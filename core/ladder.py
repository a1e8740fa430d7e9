"""The ladder (arena): rated games that keep running with no organiser, per game and player count (issue 26).

A ladder is named ``<game>-<players>`` (``artificium-2``, ``orleans-4``) and plays the game's
default edition. Owners opt their registered bots in and out (``service.routes.ladders``); the
matchmaker (``workers.ladder``, a step of the sweeper every worker runs) settles the ladder games
that ended and starts new ones. Everything is kept in Redis, so no process holds a ladder:

- ``hg:ladder:{<id>}:members``  hash bot id -> {owner, name, deadline_s, since}
- ``hg:ladder:{<id>}:ratings``  hash bot id -> {name, mu, sigma, games, updated} (openskill, ``core.ratings``)
- ``hg:ladder:{<id>}:live``     hash game id -> {seats: [bot ids], owners: [...], created}: its games in play
- ``hg:ladder:{<id>}:last``     hash bot id -> the last table it sat at (bot ids by seat)
- ``hg:ladder:{<id>}:rest``     hash bot id -> ms before which it is not paired (its owner's budget ran dry)
- ``hg:ladder:{<id>}:games``    sorted set of finished game ids by finish time, ``…:game`` hash game id -> its record
- ``hg:ladder:{<id>}:events``   stream: each rated game, every seat's rating before and after (the history)
- ``hg:ladder:{<id>}:unrecorded`` sorted set: settled games whose per-bot records are not all written yet
- ``hg:ladders``                the ladders that have (or had) members
- per bot, ``hg:bot:{<id>}:ladder:h`` (its rating after each ladder game, newest last) and
  ``hg:bot:{<id>}:ladder:g`` (its latest ladder games with its calls, timeouts and latency),
  deleted with the bot (``core.bots``).

A ladder game is an ordinary game: created through ``GameService.create`` with the bots' seats,
played by the workers, replayed and verified like any other. Its id is drawn and entered in
``live`` before the game is created, so a matchmaker that dies in between leaves an entry the
next pass drops (no game), never a game nobody rates. Settling one is a WATCH/MULTI on the
ladder's keys that removes it from ``live`` in the same transaction that writes the ratings, so
two matchmakers racing rate it once.

The bots' own records (``hg:bot:{<id>}:ladder:*``) live under each bot's hash tag, so they cannot
join that transaction (Redis Cluster keeps a MULTI within one slot). The transaction therefore
also enters the game in ``unrecorded``, an outbox in the ladder's slot; each bot's record is then
written by one small script that appends nothing when the bot's games already hold that game
(idempotent), and the game leaves the outbox once every seat is written. A matchmaker that dies
in between leaves the game in the outbox, and the next pass writes what is missing
(:meth:`LadderStore.record_pending`) before it settles anything new, so a bot's page misses no
game and shows none twice.
"""
from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis

from core.bots import bot_key
from core.ratings import Rating, RatingModel
from domain.canonical import canonical_json
from domain.core import Rejected
from domain.games import get_game

LADDERS_KEY = "hg:ladders"
KEPT_GAMES = 200  # per ladder, and per bot
KEPT_POINTS = 200  # rating points per bot (all its ladders together): what its page plots
DEFAULT_DEADLINE_S = 2.0
MAX_DEADLINE_S = 30.0


# One bot's record of one ladder game: its game row and (a rated game) its rating point, unless its
# latest games already hold that game (a retry after a matchmaker died), nor for a deleted bot.
# KEYS: the bot's hash, its games list, its history list. ARGV: the game's id as its rows spell it,
# the game row, the rating point ("" for none), how many games and points to keep.
_RECORD_BOT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local kept = tonumber(ARGV[4])
for _, row in ipairs(redis.call('LRANGE', KEYS[2], -kept, -1)) do
  if string.find(row, ARGV[1], 1, true) then return 0 end
end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], -kept, -1)
if ARGV[3] ~= '' then
  redis.call('RPUSH', KEYS[3], ARGV[3])
  redis.call('LTRIM', KEYS[3], -tonumber(ARGV[5]), -1)
end
return 1
"""


def ladder_key(ladder: str) -> str:
    return f"hg:ladder:{{{ladder}}}"


def bot_history_key(bot_id: str) -> str:
    return f"{bot_key(bot_id)}:ladder:h"


def bot_games_key(bot_id: str) -> str:
    return f"{bot_key(bot_id)}:ladder:g"


def bot_ladders_key(bot_id: str) -> str:
    """The ladders the bot is opted into now."""
    return f"{bot_key(bot_id)}:ladder:in"


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class LadderRejected(ValueError):
    """A ladder id, deadline or opt-in the rules refuse (a 422 at the edge)."""


class LadderFull(LadderRejected):
    """The owner has as many bots on this ladder as it may (a 409 at the edge)."""


@dataclass(frozen=True)
class LadderLimits:
    """How much of the service the ladders may take (``HOURGLASS_LADDER_*``; see docs/bots.md)."""

    games_total: int = 20  # ladder games in play at once, all ladders together
    games_per_owner: int = 4  # ladder games in play at once with a seat of one owner's bots
    bots_per_owner: int = 5  # bots one owner may have on one ladder
    spread: int = 4  # a table is drawn among the anchor's this-many nearest rivals by rating
    work_capacity: int = 500  # an owner's work budget when it has no grant (ACCOUNT_WORK_BUDGET)
    work_period_s: float = 86_400.0
    budgets: bool = True  # False when the operator turned limits off (HOURGLASS_RATE_LIMIT=0)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LadderLimits:
        env = os.environ if env is None else env

        def number(name: str, default: float) -> float:
            raw = env.get(name)
            return float(raw) if raw else default

        return cls(games_total=int(number("HOURGLASS_LADDER_MAX_GAMES", 20)),
                   games_per_owner=int(number("HOURGLASS_LADDER_GAMES_PER_OWNER", 4)),
                   bots_per_owner=int(number("HOURGLASS_LADDER_BOTS_PER_OWNER", 5)),
                   spread=max(1, int(number("HOURGLASS_LADDER_SPREAD", 4))),
                   work_capacity=int(number("HOURGLASS_ACCOUNT_WORK_BUDGET", 500)),
                   work_period_s=number("HOURGLASS_WORK_PERIOD_S", 86_400.0),
                   budgets=number("HOURGLASS_RATE_LIMIT", 600) > 0)


@dataclass(frozen=True)
class Ladder:
    ladder_id: str
    game: str
    players: int
    edition: str | None


def parse_ladder(ladder_id: str) -> Ladder:
    """``<game>-<players>`` -> the ladder; LadderRejected for an unknown game or player count."""
    game, _, players = ladder_id.rpartition("-")
    if not game or not players.isdigit() or len(players) > 2:
        raise LadderRejected(f"a ladder is named <game>-<players>, such as artificium-2; got {ladder_id[:60]!r}")
    try:
        rules = get_game(game)
        config = rules.config_to_json(rules.config_from_json({"players": int(players)}))
    except Rejected as exc:
        raise LadderRejected(f"ladder {ladder_id}: {exc.message}") from None
    except Exception:
        raise LadderRejected(f"ladder {ladder_id}: no game named {game!r}") from None
    return Ladder(ladder_id, game, int(players), config.get("edition"))


@dataclass(frozen=True)
class Candidate:
    """A member the matchmaker may seat: its rating ordinal, owner and when it last finished a game."""

    bot_id: str
    owner: str
    ordinal: float
    waited_since: int = 0


def choose_table(pool: Sequence[Candidate], players: int, last: Mapping[str, Sequence[str]],
                 owner_games: Mapping[str, int], per_owner: int, spread: int,
                 rng: random.Random) -> tuple[str, ...] | None:
    """One table (bot ids by seat) from ``pool``, or None.

    The anchor is the member that has waited longest; its rivals are drawn among its ``spread``
    nearest by rating ordinal (some spread, so a ladder is not a fixed ladder of neighbours); the
    seating is shuffled. A table equal to the last table of any of its bots (the same bots in the
    same seats) is never chosen: a pair that is all a ladder has swaps seats. Each owner's bots
    sit at ``per_owner`` live games at most (``owner_games`` counts the live ones).
    """
    free = [c for c in pool if owner_games.get(c.owner, 0) < per_owner]
    for anchor in sorted(free, key=lambda c: (c.waited_since, c.bot_id)):
        others = sorted((c for c in free if c.bot_id != anchor.bot_id),
                        key=lambda c: (abs(c.ordinal - anchor.ordinal), c.bot_id))
        window = others[:max(spread, players - 1)]
        if len(window) < players - 1:
            return None
        for _ in range(12):
            table = [anchor, *rng.sample(window, players - 1)]
            if not _within_owner_caps(table, owner_games, per_owner):
                continue
            rng.shuffle(table)
            seats = tuple(c.bot_id for c in table)
            if all(tuple(last.get(b, ())) != seats for b in seats):
                return seats
            rotated = seats[1:] + seats[:1]
            if all(tuple(last.get(b, ())) != rotated for b in rotated):
                return rotated
    return None


def _within_owner_caps(table: Sequence[Candidate], owner_games: Mapping[str, int], per_owner: int) -> bool:
    owners = {c.owner for c in table}
    return all(owner_games.get(o, 0) + 1 <= per_owner for o in owners)


class LadderStore:
    """The ladders' keys on one Redis connection (any ``decode_responses``)."""

    def __init__(self, conn: redis.Redis, model: RatingModel | None = None) -> None:
        self.conn = conn
        self.model = model or RatingModel()
        self._record_bot_script = conn.register_script(_RECORD_BOT)

    # -- members -------------------------------------------------------------------------------

    def opt_in(self, ladder: Ladder, bot_id: str, name: str, owner: str, deadline_s: float | None,
               max_per_owner: int) -> dict[str, Any]:
        deadline = DEFAULT_DEADLINE_S if deadline_s is None else float(deadline_s)
        if not 0 < deadline <= MAX_DEADLINE_S:
            raise LadderRejected(f"deadline_s must be in (0, {MAX_DEADLINE_S:g}]")
        key = f"{ladder_key(ladder.ladder_id)}:members"
        with self.conn.pipeline(transaction=True) as pipe:  # the per-owner count and the write in one transaction
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call, unused-ignore]
                    raw: Any = pipe.hgetall(key)
                    members = {_text(b): json.loads(v) for b, v in raw.items()}
                    mine = [b for b, m in members.items() if m["owner"] == owner and b != bot_id]
                    if len(mine) >= max_per_owner:
                        pipe.unwatch()
                        raise LadderFull(f"an account enters at most {max_per_owner} bots on one ladder; "
                                         f"opt one of its bots out first")
                    record = {"owner": owner, "name": name, "deadline_s": deadline,
                              "since": members.get(bot_id, {}).get("since") or iso(now_ms())}
                    pipe.multi()
                    pipe.hset(key, bot_id, canonical_json(record))
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        pipe = self.conn.pipeline(transaction=False)
        pipe.sadd(LADDERS_KEY, ladder.ladder_id)
        pipe.sadd(bot_ladders_key(bot_id), ladder.ladder_id)
        pipe.execute()
        return {"ladder": ladder.ladder_id, "bot_id": bot_id, **record}

    def opt_out(self, ladder_id: str, bot_id: str) -> bool:
        """Stops new games; a game in play is played out and rated."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.hdel(f"{ladder_key(ladder_id)}:members", bot_id)
        pipe.srem(bot_ladders_key(bot_id), ladder_id)
        return bool(pipe.execute()[0])

    def members(self, ladder_id: str) -> dict[str, dict[str, Any]]:
        raw: Any = self.conn.hgetall(f"{ladder_key(ladder_id)}:members")
        return {_text(k): json.loads(v) for k, v in raw.items()}

    def ladders(self) -> list[str]:
        raw: Any = self.conn.smembers(LADDERS_KEY)
        return sorted(_text(x) for x in raw)

    def joined(self, bot_id: str) -> list[str]:
        raw: Any = self.conn.smembers(bot_ladders_key(bot_id))
        return sorted(_text(x) for x in raw)

    # -- ratings and games ---------------------------------------------------------------------

    def ratings(self, ladder_id: str) -> dict[str, dict[str, Any]]:
        raw: Any = self.conn.hgetall(f"{ladder_key(ladder_id)}:ratings")
        return {_text(k): json.loads(v) for k, v in raw.items()}

    def rating(self, record: Mapping[str, Any] | None) -> Rating:
        return Rating(record["mu"], record["sigma"]) if record else self.model.initial()

    def standings(self, ladder_id: str) -> list[dict[str, Any]]:
        """Members and rated bots by ordinal: place, name, mu, sigma, ordinal, games, opted in."""
        members, ratings = self.members(ladder_id), self.ratings(ladder_id)
        rows = []
        for bot_id in set(members) | set(ratings):
            r = self.rating(ratings.get(bot_id))
            rows.append({"bot_id": bot_id, "name": (ratings.get(bot_id) or members[bot_id])["name"],
                         "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal,
                         "games": (ratings.get(bot_id) or {}).get("games", 0), "opted_in": bot_id in members})
        rows.sort(key=lambda row: (-row["ordinal"], row["name"]))
        for place, row in enumerate(rows, start=1):
            row["place"] = place
        return rows

    def live(self, ladder_id: str) -> dict[str, dict[str, Any]]:
        raw: Any = self.conn.hgetall(f"{ladder_key(ladder_id)}:live")
        return {_text(k): json.loads(v) for k, v in raw.items()}

    def last_tables(self, ladder_id: str) -> dict[str, list[str]]:
        raw: Any = self.conn.hgetall(f"{ladder_key(ladder_id)}:last")
        return {_text(k): json.loads(v)["seats"] for k, v in raw.items()}

    def waited_since(self, ladder_id: str) -> dict[str, int]:
        raw: Any = self.conn.hgetall(f"{ladder_key(ladder_id)}:last")
        return {_text(k): int(json.loads(v)["at"]) for k, v in raw.items()}

    def resting(self, ladder_id: str, at_ms: int) -> set[str]:
        raw: Any = self.conn.hgetall(f"{ladder_key(ladder_id)}:rest")
        return {_text(k) for k, v in raw.items() if int(v) > at_ms}

    def rest(self, ladder_id: str, bot_id: str, until_ms: int) -> None:
        self.conn.hset(f"{ladder_key(ladder_id)}:rest", bot_id, str(until_ms))

    def started(self, ladder_id: str, game_id: str, seats: Sequence[str], owners: Sequence[str]) -> None:
        k, at = ladder_key(ladder_id), now_ms()
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(f"{k}:live", game_id, canonical_json({"seats": list(seats), "owners": list(owners),
                                                          "created": iso(at)}))
        for bot_id in seats:
            pipe.hset(f"{k}:last", bot_id, canonical_json({"seats": list(seats), "at": at}))
        pipe.execute()

    def drop(self, ladder_id: str, game_id: str) -> None:
        """Forget a live entry whose game was never created (or is gone): nothing to rate."""
        self.conn.hdel(f"{ladder_key(ladder_id)}:live", game_id)

    def settle(self, ladder_id: str, game_id: str, ranking: Sequence[Mapping[str, Any]] | None,
               records: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, Any] | None:
        """Rate a ladder game that ended (``ranking``: the result's seat, rank, score; None: it was
        aborted and counts for nobody) and record it. Returns the game's record, or None when
        another matchmaker settled it first."""
        k = ladder_key(ladder_id)
        with self.conn.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(f"{k}:live", f"{k}:ratings")  # type: ignore[no-untyped-call, unused-ignore]
                    raw: Any = pipe.hget(f"{k}:live", game_id)
                    if raw is None:
                        pipe.unwatch()
                        return None
                    live = json.loads(raw)
                    seats: list[str] = live["seats"]
                    stored: Any = pipe.hmget(f"{k}:ratings", seats)
                    before = [self.rating(json.loads(v) if v else None) for v in stored]
                    old = [json.loads(v) if v else {"games": 0} for v in stored]
                    shown = self._game_record(ladder_id, game_id, seats, names, ranking, records, before)
                    pipe.multi()
                    pipe.hdel(f"{k}:live", game_id)
                    if ranking is not None:
                        for seat, bot_id in enumerate(seats):
                            row = shown["seats"][seat]
                            pipe.hset(f"{k}:ratings", bot_id, canonical_json({
                                "name": names[seat], "mu": row["after"]["mu"], "sigma": row["after"]["sigma"],
                                "games": old[seat]["games"] + 1, "updated": shown["finished"]}))
                        pipe.xadd(f"{k}:events", {"game": game_id, "data": canonical_json(shown["seats"])},
                                  maxlen=10_000, approximate=True)
                    pipe.hset(f"{k}:game", game_id, canonical_json(shown))
                    pipe.zadd(f"{k}:games", {game_id: now_ms()})
                    pipe.zadd(f"{k}:unrecorded", {game_id: now_ms()})  # until every bot's record is written
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        self._record(k, shown)
        self._trim(k)
        return shown

    def record_pending(self, ladder_id: str) -> int:
        """Write the bots' records of the settled games still in the outbox (a matchmaker died
        between settling a game and recording it), oldest first; how many games were completed."""
        k = ladder_key(ladder_id)
        pending: Any = self.conn.zrange(f"{k}:unrecorded", 0, -1)
        done = 0
        for game_id in (_text(g) for g in pending):
            raw: Any = self.conn.hget(f"{k}:game", game_id)
            if raw is None:  # trimmed away meanwhile: nothing left to show
                self.conn.zrem(f"{k}:unrecorded", game_id)
                continue
            self._record(k, json.loads(raw))
            done += 1
        return done

    def _record(self, k: str, shown: Mapping[str, Any]) -> None:
        self._per_bot(shown)
        self.conn.zrem(f"{k}:unrecorded", shown["game_id"])

    def _game_record(self, ladder_id: str, game_id: str, seats: Sequence[str], names: Sequence[str],
                     ranking: Sequence[Mapping[str, Any]] | None, records: Sequence[Mapping[str, Any]],
                     before: Sequence[Rating]) -> dict[str, Any]:
        ranks = {r["seat"]: r for r in ranking or ()}
        after = list(before)
        if ranking is not None:
            after = self.model.rate(before, [int(ranks[s]["rank"]) for s in range(len(seats))])
        rows = []
        for seat, bot_id in enumerate(seats):
            record = next((r for r in records if r["seat"] == seat), {})
            rows.append({"seat": seat, "bot_id": bot_id, "name": names[seat],
                         "rank": ranks[seat]["rank"] if seat in ranks else None,
                         "score": ranks[seat].get("score") if seat in ranks else None,
                         "before": _point(before[seat]), "after": _point(after[seat]),
                         **{k: record.get(k, 0) for k in ("calls", "ok", "timeout", "error", "moves", "timeouts",
                                                          "defaults")},
                         "latency_ms": record.get("latency_ms") or {"p50": None, "p95": None}})
        return {"ladder": ladder_id, "game_id": game_id, "rated": ranking is not None, "of": len(seats),
                "finished": iso(now_ms()), "seats": rows}

    def _per_bot(self, shown: Mapping[str, Any]) -> None:
        """Each seat's bot gets the game in its record, once: safe to run again for the same game.
        A script per bot, atomic in its bot's slot; called one by one, not pipelined, since a
        Redis Cluster pipeline does not load a script on the node that first runs it."""
        for row in shown["seats"]:
            bot_id = row["bot_id"]
            mine = {"ladder": shown["ladder"], "game_id": shown["game_id"], "finished": shown["finished"],
                    "rated": shown["rated"], "of": shown["of"],
                    "opponents": [{"bot_id": r["bot_id"], "name": r["name"]} for r in shown["seats"]
                                  if r["bot_id"] != bot_id],
                    **{k: v for k, v in row.items() if k not in ("bot_id", "name")}}
            point = canonical_json({"ladder": shown["ladder"], "game_id": shown["game_id"], "at": shown["finished"],
                                    "rank": row["rank"], "of": shown["of"], **row["after"]}) if shown["rated"] else ""
            self._record_bot(bot_id, canonical_json({"game_id": shown["game_id"]})[1:-1], canonical_json(mine), point)

    def _record_bot(self, bot_id: str, marker: str, games_row: str, point: str) -> None:
        self._record_bot_script(keys=[bot_key(bot_id), bot_games_key(bot_id), bot_history_key(bot_id)],
                                args=[marker, games_row, point, KEPT_GAMES, KEPT_POINTS])

    def _trim(self, k: str) -> None:
        old: Any = self.conn.zrange(f"{k}:games", 0, -(KEPT_GAMES + 1))
        if old:
            pipe = self.conn.pipeline(transaction=True)
            pipe.zrem(f"{k}:games", *old)
            pipe.hdel(f"{k}:game", *old)
            pipe.execute()

    def recent_games(self, ladder_id: str, limit: int = 20) -> list[dict[str, Any]]:
        k = ladder_key(ladder_id)
        ids: Any = self.conn.zrevrange(f"{k}:games", 0, limit - 1)
        if not ids:
            return []
        raw: Any = self.conn.hmget(f"{k}:game", [_text(i) for i in ids])
        return [json.loads(v) for v in raw if v]

    def bot_history(self, bot_id: str) -> list[dict[str, Any]]:
        raw: Any = self.conn.lrange(bot_history_key(bot_id), 0, -1)
        return [json.loads(v) for v in raw]

    def bot_games(self, bot_id: str, limit: int = 20) -> list[dict[str, Any]]:
        raw: Any = self.conn.lrange(bot_games_key(bot_id), -limit, -1)
        return [json.loads(v) for v in reversed(raw)]

    def history(self, ladder_id: str, count: int = 1000) -> list[dict[str, Any]]:
        rows: Any = self.conn.xrevrange(f"{ladder_key(ladder_id)}:events", count=count)
        out = []
        for _, fields in reversed(rows):
            f = {_text(a): _text(b) for a, b in fields.items()}
            out.append({"game": f["game"], "seats": json.loads(f["data"])})
        return out


def _point(r: Rating) -> dict[str, float]:
    return {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal}
