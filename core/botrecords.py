"""A registered bot's public record across tournaments: a projection of the tournament streams.

``GET /api/v1/bots/{id}/record`` must cost the same for a bot in one tournament as for one in a
thousand, so nothing is folded when it is read. The tournament runner writes, after each step,
each bot entrant's figures in that tournament as of the stream's version (:meth:`BotRecords.update`):
only those that changed, idempotent (an older or equal version changes nothing) and self-healing
(a runner that died between its append and this write leaves the next tick to write it). The overall figures are
kept as the sum of the per-tournament ones, adjusted in the same transaction that replaces a
tournament's figures, so the read never sums. Everything here is public: what standings and
replay bundles already show (no URL, token or secret).

Keys, under the bot's hash tag: ``hg:bot:{<id>}:rec:t`` (hash: tournament id -> its figures),
``…:rec:ts`` (sorted set: tournament id by creation time), ``…:rec:all`` (the overall figures),
``…:rec:g`` (hash: game id -> the bot's figures in that game) and ``…:rec:gs`` (sorted set: game
id by finish time; the latest ``KEPT_GAMES`` are kept). ``core.bots`` deletes them with the bot.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import redis

from core import callstats
from core.bots import RECORD_SUFFIXES, bot_key
from core.scoring import entrant_places, game_points, standings, totals
from core.tournaments import Tournament, TournamentGame
from domain.canonical import canonical_json

KEPT_GAMES = 200
SHOWN_TOURNAMENTS = 20
SHOWN_GAMES = 20
_FIGURES = ("games", "points", "wins", "byes", "forfeits")


def keys(bot_id: str) -> dict[str, str]:
    base = bot_key(bot_id)
    return {suffix.rsplit(":", 1)[1]: base + suffix for suffix in RECORD_SUFFIXES}


def _ms(stamp: str) -> int:
    return int(datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp() * 1000)


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def tournament_figures(t: Tournament, version: int, entrant: int, total: Mapping[str, Any],
                       place: int) -> dict[str, Any]:
    s = t.settings
    return {"tournament": s.tournament_id, "name": s.name, "game": s.game, "edition": s.edition,
            "status": t.status, "version": version, "entrant": entrant, "place": place, "of": len(t.entrants),
            "withdrawn": total["withdrawn"], "absent": total["absent"], **{k: total[k] for k in _FIGURES},
            **{k: total[k] for k in callstats.COUNTS}, "hist": total["hist"]}


def game_figures(t: Tournament, game: TournamentGame, entrant: int, finished: str) -> dict[str, Any]:
    seat = game.seats.index(entrant)
    places = entrant_places(game, t.settings.accountable)
    points = game_points(t, game)
    record = next((r for r in game.records or () if r["seat"] == seat), None)
    return {"game_id": game.game_id, "tournament": t.settings.tournament_id, "index": game.index,
            "round": game.round, "seat": seat, "rank": places[seat][1], "of": len(game.seats),
            "points": points[seat], "forfeited": any(d["seat"] == seat and d.get("reason") == "forfeited"
                                                     for d in game.departed),
            "moves": record.get("moves") if record else None,
            **{k: (record or {}).get(k, 0) for k in callstats.COUNTS},
            "latency_ms": record["latency_ms"] if record else {"p50": None, "p95": None}, "finished": finished}


def _overall(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    base: dict[str, Any] = {"tournaments": 0, **dict.fromkeys(_FIGURES, 0), **callstats.empty_totals()}
    if stored:
        base.update(stored)
    return base


class BotRecords:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn

    def update(self, t: Tournament, version: int, finished: Mapping[int, tuple[int, str]]) -> int:
        """Write the figures of every bot entrant that changed, as of stream ``version``;
        ``finished``: game index -> (seq, time) of its GameFinished entry. One pipelined read of what
        is stored, then a transaction per bot whose figures differ. Returns how many were written."""
        bots = [e for e in t.entrants if e.bot_id is not None]
        if not bots:
            return 0
        tid = t.settings.tournament_id
        pipe = self.conn.pipeline(transaction=False)
        for e in bots:
            pipe.hget(keys(e.bot_id or "")["t"], tid)
        stored = pipe.execute()
        sums = totals(t)
        places = {row["entrant"]: row["place"] for row in standings(t, sums)}
        written = 0
        for e, raw in zip(bots, stored):
            figures = tournament_figures(t, version, e.number, sums[e.number], places[e.number])
            old = json.loads(raw) if raw else None
            if old is not None and (old["version"] >= version or _same(old, figures)):
                continue  # a newer write got there first, or nothing of this bot's changed
            games = [(g, finished[g.index]) for g in t.games if g.finished and e.number in g.seats and g.index in finished]
            written += self._write(e.bot_id or "", t, figures, e.number, games)
        return written

    def _write(self, bot_id: str, t: Tournament, figures: dict[str, Any], entrant: int,
               games: Sequence[tuple[TournamentGame, tuple[int, str]]]) -> int:
        k, tid = keys(bot_id), t.settings.tournament_id
        with self.conn.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(k["t"], k["all"], k["gs"])  # type: ignore[no-untyped-call, unused-ignore]  # redis-py leaves it unannotated
                    raw: Any = pipe.hget(k["t"], tid)
                    old = json.loads(raw) if raw else None
                    if old is not None and old["version"] >= figures["version"]:
                        pipe.unwatch()
                        return 0
                    overall = self._replaced(pipe.get(k["all"]), old, figures)
                    since = old["version"] if old else 0
                    fresh = {g.game_id: (_ms(stamp), game_figures(t, g, entrant, stamp))
                             for g, (seq, stamp) in games if seq > since and g.game_id}
                    pipe.multi()
                    pipe.hset(k["t"], tid, canonical_json(figures))
                    pipe.zadd(k["ts"], {tid: _ms(t.settings.created) / 1000})
                    pipe.set(k["all"], canonical_json(overall))
                    for game_id, (at, shown) in fresh.items():
                        pipe.hset(k["g"], game_id, canonical_json(shown))
                        pipe.zadd(k["gs"], {game_id: at})
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        self._trim(k)
        return 1

    @staticmethod
    def _replaced(raw: Any, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> dict[str, Any]:
        """The overall figures with a tournament's old figures replaced by its new ones."""
        overall = _overall(json.loads(raw) if raw else None)
        if old is None:
            overall["tournaments"] += 1
        else:
            callstats.subtract(overall, old)
            for name in _FIGURES:
                overall[name] -= old[name]
        callstats.add(overall, new)
        for name in _FIGURES:
            overall[name] += new[name]
        return overall

    def _trim(self, k: Mapping[str, str]) -> None:
        """Keep the latest KEPT_GAMES games (a race here drops at most what a later trim would)."""
        old: list[Any] = self.conn.zrange(k["gs"], 0, -(KEPT_GAMES + 1))  # type: ignore[assignment]
        if old:
            pipe = self.conn.pipeline(transaction=True)
            pipe.zrem(k["gs"], *old)
            pipe.hdel(k["g"], *old)
            pipe.execute()

    def read(self, bot_id: str) -> dict[str, Any]:
        """The bot's overall figures, its latest tournaments and games: a fixed number of commands
        with bounded answers, whatever its history."""
        k = keys(bot_id)
        pipe = self.conn.pipeline(transaction=False)
        pipe.get(k["all"])
        pipe.zrevrange(k["ts"], 0, SHOWN_TOURNAMENTS - 1)
        pipe.zrevrange(k["gs"], 0, SHOWN_GAMES - 1)
        overall_raw, tids, game_ids = pipe.execute()
        pipe = self.conn.pipeline(transaction=False)
        pipe.hmget(k["t"], [_text(t) for t in tids] or ["-"])
        pipe.hmget(k["g"], [_text(g) for g in game_ids] or ["-"])
        per_tournament, per_game = pipe.execute()
        overall = _overall(json.loads(overall_raw) if overall_raw else None)
        return {"overall": {"tournaments": overall["tournaments"], **{n: overall[n] for n in _FIGURES},
                            **callstats.summary(overall)},
                "tournaments": [_public(json.loads(raw)) for raw in per_tournament if raw],
                "games": [json.loads(raw) for raw in per_game if raw]}


def _same(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """The same figures, whatever stream version each was computed at."""
    return {k: v for k, v in old.items() if k != "version"} == {k: v for k, v in new.items() if k != "version"}


def _public(figures: dict[str, Any]) -> dict[str, Any]:
    """A tournament's figures as shown: the counts and percentiles, not the histogram or version."""
    shown = {k: v for k, v in figures.items() if k not in ("hist", "version")}
    return {"absent": False, **shown, "latency_ms": callstats.histogram_percentiles(figures.get("hist") or {})}


def finished_entries(entries: Sequence[Any]) -> dict[int, tuple[int, str]]:
    """Game index -> (seq, time) of its GameFinished entry, from a tournament's stored entries."""
    return {e.data["index"]: (e.seq, e.entry["time"]) for e in entries if e.type == "GameFinished"}
