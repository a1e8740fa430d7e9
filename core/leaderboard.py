"""The persistent leaderboard: one openskill rating per entrant, per game and edition, across tournaments.

``hg:lb:{<game>:<edition>}`` holds one JSON record per entrant key (``bot:<id>``,
``builtin:<name>``): name, mu, sigma, games, tournaments. A finished tournament is applied once
(``hg:lb:{…}:applied`` remembers it, checked in the same MULTI/WATCH transaction as the write):
its games are re-rated in index order on top of the ratings the leaderboard has at that moment,
so two tournaments that ran at the same time both count. Every application is also an entry in
``hg:lb:{…}:events`` (tournament, and each entrant's rating before and after), so the board
itself is a fold of its history.

A tournament starts its entrants from the board's ratings at its creation (recorded in its
``EntrantRegistered`` events); Swiss pairings use those plus what the tournament adds.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import redis

from core.ratings import Rating, RatingModel
from core.scoring import rate_match, rating_matches
from core.tournaments import Tournament
from domain.canonical import canonical_json


def board_key(game: str, edition: str | None) -> str:
    return f"hg:lb:{{{game}:{edition or '-'}}}"


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class Leaderboard:
    def __init__(self, conn: redis.Redis, model: RatingModel | None = None) -> None:
        self.conn = conn
        self.model = model or RatingModel()

    def ratings(self, game: str, edition: str | None, keys: Iterable[str]) -> dict[str, Rating]:
        """Current ratings of ``keys`` (the model's initial rating for a newcomer)."""
        keys = list(keys)
        raw: list[Any] = self.conn.hmget(board_key(game, edition), keys) if keys else []  # type: ignore[assignment]
        out = {}
        for key, value in zip(keys, raw):
            record = json.loads(value) if value else None
            out[key] = Rating(record["mu"], record["sigma"]) if record else self.model.initial()
        return out

    def entries(self, game: str, edition: str | None) -> list[dict[str, Any]]:
        raw: dict[Any, Any] = self.conn.hgetall(board_key(game, edition))  # type: ignore[assignment]
        rows = [{"key": _text(k), **json.loads(v)} for k, v in raw.items()]
        for row in rows:
            row["ordinal"] = row["mu"] - 3 * row["sigma"]
        rows.sort(key=lambda r: (-r["ordinal"], r["key"]))
        for place, row in enumerate(rows, start=1):
            row["place"] = place
        return rows

    def apply(self, t: Tournament) -> bool:
        """Add a finished tournament's games; False when it was applied before."""
        s = t.settings
        key = board_key(s.game, s.edition)
        applied_key = f"{key}:applied"
        with self.conn.pipeline(transaction=True) as pipe:  # the default, said aloud: a RedisCluster needs it for WATCH
            while True:
                try:
                    pipe.watch(key, applied_key)  # type: ignore[no-untyped-call, unused-ignore]  # redis-py leaves it unannotated
                    if pipe.sismember(applied_key, s.tournament_id):
                        pipe.unwatch()
                        return False
                    updates, history = self._rerated(t, pipe)
                    pipe.multi()
                    pipe.hset(key, mapping={k: canonical_json(v) for k, v in updates.items()})
                    pipe.sadd(applied_key, s.tournament_id)
                    pipe.xadd(f"{key}:events", {"tournament": s.tournament_id, "data": canonical_json(history)})
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def _rerated(self, t: Tournament, conn: Any) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        s = t.settings
        keys = [e.key for e in t.entrants]
        raw = conn.hmget(board_key(s.game, s.edition), keys)
        records = {k: (json.loads(v) if v else None) for k, v in zip(keys, raw)}
        current = {e.number: self._rating(records[e.key]) for e in t.entrants}
        before = dict(current)
        played = dict.fromkeys(current, 0)
        for game in t.games:
            for entrant in game.seats if game.finished else ():  # skipped and called-off games count for nobody
                played[entrant] += 1
        for _, ranks in rating_matches(replace(t, rated=0)):  # as the tournament rated them (cooperative: by round)
            current.update(rate_match(self.model, current, ranks))
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        updates = {}
        for e in t.entrants:
            old = records[e.key] or {"games": 0, "tournaments": 0}
            updates[e.key] = {"name": e.name, "kind": e.kind, "mu": current[e.number].mu,
                              "sigma": current[e.number].sigma, "games": old["games"] + played[e.number],
                              "tournaments": old["tournaments"] + 1, "updated": stamp}
        history = {e.key: {"before": [before[e.number].mu, before[e.number].sigma],
                           "after": [current[e.number].mu, current[e.number].sigma]} for e in t.entrants}
        return updates, history

    def _rating(self, record: dict[str, Any] | None) -> Rating:
        return Rating(record["mu"], record["sigma"]) if record else self.model.initial()

    def history(self, game: str, edition: str | None) -> list[Mapping[str, Any]]:
        rows: list[Any] = self.conn.xrange(f"{board_key(game, edition)}:events")  # type: ignore[assignment]
        return [{"tournament": _text(f[b"tournament"] if b"tournament" in f else f["tournament"]),
                 "ratings": json.loads(_text(f[b"data"] if b"data" in f else f["data"]))} for _, f in rows]
