"""Compacting finished games: the stream, snapshot and stored bundle give way to the packed bundle.

A game that has ended never changes, and everything a reader asks of it (state, any past state,
events, the replay, the viewer's timeline) follows from its replay bundle (signed, ``hourglass-replay/4``; before: ``/3``). So
:func:`compact` builds the bundle (or takes the one already stored), packs it (``core.packed``),
checks that the packed form gives back every stored entry with its hash, offers the bundle to
the archive, writes the packed bytes, and then swaps them in with one script
(:meth:`core.store.EventStore.compact`). Every step before the swap only adds, and the swap is
atomic: a compaction that dies half way leaves a whole, readable game, and the next pass does
it again from the start (the packed key is overwritten with the same bytes).

The sweeper (``workers.sweeper``) runs :func:`compact_due` every pass over the games on
``core.retention.COMPACT_KEY`` (put there when they ended, by ``LiveGames.finished``).

The archive (``replays.archive``: ``HOURGLASS_ARCHIVE_DIR`` or ``HOURGLASS_ARCHIVE_S3_URL``, unset:
none) receives every compacted game's bundle as ``<game id>.hourglass-replay.jsonl`` before the
swap: a copy that outlives the Redis keys (``HOURGLASS_FINISHED_TTL_S``). An archive that cannot
take it (:class:`ArchiveError`) stops the pass before the swap: the game stays whole in Redis and
on the list, tried again later.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from core.lobby import PREFIX as LOBBY
from core.packed import pack_opened
from core.retention import LiveGames
from core.store import PACKED_FIELD, EventStore
from replays.archive import ARCHIVE_ENV, Archive, ArchiveError, DirectoryArchive, S3Archive, archive_from_env
from replays.bundle import OVER, NotFinished
from replays.source import GameNotFound, load_game, published_bundle

__all__ = ["ARCHIVE_ENV", "Archive", "ArchiveError", "Compacted", "DirectoryArchive", "S3Archive", "archive_from_env",
           "compact", "compact_due", "queue_over"]

log = logging.getLogger("hourglass.compaction")
RETRY_S = 600  # a game whose compaction failed waits this long before its next try


@dataclass(frozen=True)
class Compacted:
    """What :func:`compact` did: ``outcome`` as :meth:`EventStore.compact` answers (``ok``,
    ``already``, ``live``, ``moved``, ``unpacked``), or ``gone`` (no such game, or it went while
    it was packed); the bundle's and the packed form's sizes."""

    outcome: str
    bundle_bytes: int = 0
    packed_bytes: int = 0


def compact(store: EventStore, game_id: str, archive: Archive | None = None) -> Compacted:
    """Compact one finished game (idempotent; see the module docstring)."""
    if store.meta_field(game_id, PACKED_FIELD) is not None:
        return Compacted("already")
    try:
        meta, entries = load_game(store, game_id)
    except GameNotFound:
        return Compacted("gone")
    if meta.get("status") not in OVER:
        return Compacted("live")
    try:
        text = published_bundle(store, game_id)  # the stored one, or built and signed as /replay would
    except NotFinished:
        return Compacted("live")
    except GameNotFound:
        return Compacted("gone")
    packed, opened = pack_opened(text)  # opened once: the proof of the round trip did it
    if [(e, h) for e, h in opened.entries] != [({k: v for k, v in e.items() if k != "hash"}, e["hash"])
                                               for e in entries]:
        raise ValueError(f"game {game_id}: the packed bundle does not give back the stored entries")
    if archive is not None:
        archive.put(game_id, text)
    if not store.write_packed(game_id, packed, opened):
        return Compacted("gone")  # deleted or expired while it was packed
    outcome = store.compact(game_id, opened.version)
    return Compacted(outcome, len(text.encode("utf-8")), len(packed))


def queue_over(store: EventStore, live: LiveGames, chunk: int = 1000) -> int:
    """Put every finished or aborted game the lobby lists (``hg:lobby:status:<status>``) on the
    compaction list, for the sweeper: the games that ended before this deploy. Those compacted
    already cost the sweeper one ``HGET`` each. How many were added."""
    added = 0
    for status in OVER:
        key, start = f"{LOBBY}:status:{status}", 0
        while True:
            found: list[bytes] = store.conn.zrange(key, start, start + chunk - 1)  # type: ignore[assignment]
            added += live.queue_compaction([g.decode() if isinstance(g, bytes) else str(g) for g in found])
            if len(found) < chunk:
                break
            start += chunk
    return added


def compact_due(store: EventStore, live: LiveGames, limit: int = 100, archive: Archive | None = None) -> int:
    """Compact the finished games whose time has come; how many were compacted. A game that
    fails stays on the list (logged) and is tried again ``RETRY_S`` later; a failing archive
    ends the pass and puts off every game of it, so an unreachable bucket costs one timeout per
    ``limit`` due games every ``RETRY_S``, not one per game and pass."""
    done, due = 0, live.to_compact(limit)
    for n, game_id in enumerate(due):
        try:
            outcome = compact(store, game_id, archive).outcome
        except ArchiveError as exc:  # the archive is down or refuses: the rest would fail alike
            log.error("hourglass: game %s not compacted, its bundle stays in Redis until archived; "
                      "it and %d more due are tried again in %d s: %s", game_id, len(due) - n - 1, RETRY_S, exc)
            for later in due[n:]:
                live.compact_later(later, RETRY_S)
            break
        except Exception:
            log.exception("hourglass: could not compact game %s", game_id)
            live.compact_later(game_id, RETRY_S)
            continue
        if outcome == "moved":
            continue  # appended to meanwhile (a late table entry): the next pass packs it all
        live.compacted(game_id)
        done += outcome == "ok"
    return done
