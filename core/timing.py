"""Remaining clock time for readers: the summary, the state and the live streams.

The worker keeps every clocked game's clocks folded in Redis (``core.clocks``, ``hg:{<id>}:clock``)
and is asked to after every change; a reader that finds the cache behind the game folds the
missing batches itself. When only the last batch is missing (the usual case, right after a move)
who is to act after it is the game's own ``to_act``, so nothing is re-folded; otherwise the
whole log is folded once and the result cached for everyone.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core import clocks, table
from core.store import StoredEntry

if TYPE_CHECKING:
    from core.games import Game, GameService


def controls(game: Game) -> dict[int, clocks.TimeControl]:
    return {i: clocks.TimeControl.from_json(s["clock"]) for i, s in enumerate(game.info.seats) if s.get("clock")}


def entry_ms(stamp: str) -> int:
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def current(svc: GameService, game: Game) -> clocks.Clocks | None:
    """The game's clocks as of its version; None when no seat has a clock."""
    tc = controls(game)
    if not tc:
        return None
    conn = svc.store.conn
    cached = clocks.load(conn, game.game_id)
    start = cached if cached is not None and cached.version <= game.version else clocks.start(tc)
    if start.version == game.version:
        return start
    folded = clocks.fold_batches(start, _batches(svc, game, start.version), tc)
    if cached is None or cached.version < folded.version:  # never store an older fold over a newer one
        clocks.save(conn, game.game_id, folded)
    return folded


def figures(svc: GameService, game: Game) -> dict[str, Any] | None:
    """What clients see: per clocked seat (as a string key), remaining ms now, whether it runs,
    and the running stint's deadline (ms since the epoch); None for a game without clocks."""
    found = current(svc, game)
    if found is None:
        return None
    now_ms = int(svc.clock().timestamp() * 1000)
    if game.finished:  # nothing runs once the game is over
        return {str(s): {"remaining_ms": max(0, c.remaining_ms), "running": False, "deadline_ms": None}
                for s, c in found.seats.items()}
    return clocks.public(found, now_ms)


def _batches(svc: GameService, game: Game, after: int) -> Iterator[clocks.Batch]:
    entries = svc.entries(game.game_id, after=after, until=game.version)
    if entries and entries[0].command is not None and all(e.command is None for e in entries[1:]):
        yield _batch(entries, game.to_act)  # one batch missing: the game's to_act is the one after it
        return
    rules, state, tbl = game.rules, None, table.EMPTY
    batch: list[StoredEntry] = []
    everything: list[StoredEntry | None] = [*svc.entries(game.game_id, until=game.version), None]
    for entry in everything:
        if batch and (entry is None or entry.command is not None):
            state, tbl = table.fold(rules, (e.data for e in batch), state, tbl)
            if batch[-1].seq > after:
                yield _batch(batch, table.to_act(rules, state, tbl))
            batch = []
        if entry is not None:
            batch.append(entry)


def _batch(batch: list[StoredEntry], to_act: frozenset[Any]) -> clocks.Batch:
    command = batch[0].command or {}
    target = command.get("target") if command.get("type") == "ApplyTimeout" else None
    return clocks.Batch(batch[-1].seq, entry_ms(batch[0].entry["time"]), batch[0].actor, target, to_act)
