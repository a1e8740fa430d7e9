"""The lobby: which games exist, filtered and paged, from Redis sorted-set indexes (no SCAN).

Every game is a member of a few sorted sets, scored by its creation time (microseconds, with a
few bits of its id so two games of the same millisecond still have distinct scores):

- ``hg:lobby:all``; ``hg:lobby:status:<status>`` (open, active, finished, aborted);
- ``hg:lobby:game:<game>`` and ``hg:lobby:edition:<game>:<edition>``;
- ``hg:lobby:open``: games with a public open seat;
- ``hg:lobby:player:<name, case-folded>`` (human seats) and ``hg:lobby:bot:<bot>`` (bot seats).

A query walks the smallest set that its filters name, newest first, checks the other filters
with ``ZMSCORE`` and finally against the game's meta hash, which is the truth: the indexes are
written after the game's own append (a Redis Cluster cannot do both in one script, as they live
on other slots), so an index may briefly lag; an entry found stale is repaired on the spot.
A page walks at most ``SCAN_FACTOR * limit`` index entries, so it may hold fewer games than
``limit`` while ``next`` is not null: follow ``next`` until it is.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis

from core.seats import Credential, SeatSpec
from core.store import meta_key

PREFIX = "hg:lobby"
STATUSES = ("open", "active", "finished", "aborted", "expired")
SCAN_FACTOR = 10
CHUNK = 100
META_FIELDS = ("game", "config", "seats", "status", "created")


class BadCursor(ValueError):
    """A ``cursor`` this server did not hand out."""


@dataclass(frozen=True)
class Filters:
    game: str | None = None
    edition: str | None = None
    status: str | None = None
    open: bool | None = None  # True: a public seat is open; False: none is
    player: str | None = None
    bot: str | None = None


def _key(*parts: str) -> str:
    return ":".join((PREFIX, *parts))


def score(game_id: str, created: str) -> float:
    moment = datetime.strptime(created, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    # a spread of games created in the same millisecond; any id (tournament games' are not hex)
    spread = int(hashlib.sha256(game_id.encode()).hexdigest()[:4], 16) % 1000
    micros = int(moment.timestamp() * 1000) * 1000 + spread
    return float(micros)


def public_open(seats: Sequence[SeatSpec]) -> list[int]:
    """The seats a stranger may take: open and not private (``core.seating``)."""
    return [i for i, s in enumerate(seats) if s.policy.credential is Credential.INVITE and not s.private]


def keys_for(game: str, edition: Any, status: str, seats: Sequence[SeatSpec]) -> list[str]:
    keys = [_key("all"), _key("status", status), _key("game", game), _key("edition", game, str(edition))]
    if status == "open" and public_open(seats):
        keys.append(_key("open"))
    for s in seats:
        if s.policy.lobby_index == "player":
            keys.append(_key("player", s.name.casefold()))
        elif s.policy.lobby_index == "bot":
            keys.append(_key("bot", str(s.bot)))
    return keys


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class Lobby:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn

    # -- writing ----------------------------------------------------------------------------

    def add(self, game_id: str, game: str, edition: Any, status: str, created: str,
            seats: Sequence[SeatSpec]) -> None:
        value = score(game_id, created)
        pipe = self.conn.pipeline(transaction=False)
        for key in keys_for(game, edition, status, seats):
            pipe.zadd(key, {game_id: value})
        pipe.execute()

    def reindex(self, game_id: str) -> None:
        """Bring the game's index entries in line with its meta hash (after a status change or
        a join); entries the game no longer belongs to are removed."""
        meta = self._metas([game_id])[0]
        value: float | None = self.conn.zscore(_key("all"), game_id)  # type: ignore[assignment]
        if meta is None or value is None:
            return
        wanted = set(keys_for(meta["game"], meta["config"].get("edition"), meta["status"], meta["seats"]))
        stale = {_key("status", s) for s in STATUSES} | {_key("open")}
        pipe = self.conn.pipeline(transaction=False)
        for key in stale - wanted:
            pipe.zrem(key, game_id)
        for key in wanted:
            pipe.zadd(key, {game_id: value})
        pipe.execute()

    # -- reading ----------------------------------------------------------------------------

    def query(self, filters: Filters, limit: int, cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
        """Up to ``limit`` games matching ``filters``, newest first, and the cursor of the next page."""
        keys = self._filter_keys(filters)
        driver = self._smallest(keys)
        rest = [k for k in keys if k != driver]
        top, after = _decode_cursor(cursor) if cursor else (float("inf"), None)
        found: list[dict[str, Any]] = []
        walked = 0
        while len(found) < limit and walked < SCAN_FACTOR * limit:
            rows = self._page(driver, top, after)
            if not rows:
                return found, None
            for game_id, value in rows:
                walked += 1
                top, after = value, game_id
                item = self._check(game_id, rest, filters, driver)
                if item is not None:
                    found.append(item)
                if len(found) >= limit or walked >= SCAN_FACTOR * limit:
                    break
        return found, _encode_cursor(top, after) if after is not None else None

    def _filter_keys(self, f: Filters) -> list[str]:
        keys = [_key("all")]
        if f.status:
            keys.append(_key("status", f.status))
        if f.game:
            keys.append(_key("game", f.game) if f.edition is None else _key("edition", f.game, f.edition))
        if f.open:
            keys.append(_key("open"))
        if f.player:
            keys.append(_key("player", f.player.casefold()))
        if f.bot:
            keys.append(_key("bot", f.bot))
        return keys

    def _smallest(self, keys: list[str]) -> str:
        pipe = self.conn.pipeline(transaction=False)
        for key in keys:
            pipe.zcard(key)
        sizes = pipe.execute()
        return min(zip(sizes, keys))[1]

    def _page(self, key: str, top: float, after: str | None) -> list[tuple[str, float]]:
        """The next entries of ``key`` below (top, after) in (score, id) descending order."""
        rows = self.conn.zrevrangebyscore(key, top, "-inf", start=0, num=CHUNK, withscores=True)
        page = [(_text(m), float(s)) for m, s in rows]
        unseen = [(m, s) for m, s in page if not (s == top and after is not None and m >= after)]
        if page and not unseen and len(page) == CHUNK:  # a whole chunk of one score: step below it
            rows = self.conn.zrevrangebyscore(key, f"({top}", "-inf", start=0, num=CHUNK, withscores=True)
            return [(_text(m), float(s)) for m, s in rows]
        return unseen

    def _check(self, game_id: str, rest: list[str], f: Filters, driver: str) -> dict[str, Any] | None:
        if rest:
            pipe = self.conn.pipeline(transaction=False)
            for key in rest:
                pipe.zscore(key, game_id)
            if any(v is None for v in pipe.execute()):
                return None
        meta = self._metas([game_id])[0]
        if meta is None:  # deleted: forget it
            self.conn.zrem(_key("all"), game_id)
            self.conn.zrem(driver, game_id)
            return None
        item = listing(game_id, meta)
        if not _matches(item, meta, f):
            self.reindex(game_id)  # the index lagged behind the game: repair it
            return None
        return item

    def _metas(self, game_ids: Iterable[str]) -> list[dict[str, Any] | None]:
        pipe = self.conn.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hmget(meta_key(game_id), list(META_FIELDS))
        out: list[dict[str, Any] | None] = []
        for values in pipe.execute():
            if any(v is None for v in values):
                out.append(None)
                continue
            raw = dict(zip(META_FIELDS, (_text(v) for v in values)))
            out.append({**raw, "config": json.loads(raw["config"]),
                        "seats": [SeatSpec.from_json(s) for s in json.loads(raw["seats"])]})
        return out


def listing(game_id: str, meta: Mapping[str, Any]) -> dict[str, Any]:
    """A game as the lobby lists it (from its meta hash alone: no fold)."""
    seats = [{"seat": i, **{k: v for k, v in s.to_json().items() if k not in ("url", "private")}}
             for i, s in enumerate(meta["seats"])]
    public = public_open(meta["seats"])
    return {"id": game_id, "game": meta["game"], "edition": meta["config"].get("edition"),
            "status": meta["status"], "created": meta["created"], "seats": seats,
            "open_seats": public if meta["status"] == "open" else []}


def _matches(item: Mapping[str, Any], meta: Mapping[str, Any], f: Filters) -> bool:
    names = {s.name.casefold() for s in meta["seats"] if s.policy.lobby_index == "player"}
    bots = {s.bot for s in meta["seats"] if s.policy.lobby_index == "bot"}
    return ((f.status is None or item["status"] == f.status)
            and (f.game is None or item["game"] == f.game)
            and (f.edition is None or str(item["edition"]) == f.edition)
            and (f.open is None or bool(item["open_seats"]) == f.open)
            and (f.player is None or f.player.casefold() in names)
            and (f.bot is None or f.bot in bots))


def _encode_cursor(top: float, after: str) -> str:
    return base64.urlsafe_b64encode(f"{int(top)}:{after}".encode()).decode("ascii").rstrip("=")


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        top, after = text.split(":", 1)
        if not after.isalnum() or len(after) > 32:
            raise ValueError(after)
        return float(int(top)), after
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadCursor("cursor is not one this server handed out") from None
