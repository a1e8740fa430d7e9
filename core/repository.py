"""Games read from the event store and folded, with this process's one cache of folded states.

:class:`GameRepository` loads a game (from the cache plus the entries after it, else from its
snapshot, else from the first event), folds entries a reader already holds into it
(:meth:`~GameRepository.extend`), and travels back in time (:meth:`~GameRepository.state_at`).

The cache is an LRU of ``cache_size`` games (``HOURGLASS_FOLD_CACHE``, default 512: its memory
bound, docs/architecture.md). Each game's slot holds the game at the newest version this process
has seen and, for clocked games, the game as the clocks were last folded to
(:meth:`~GameRepository.clock_base`, ``core.timing``): the clocks fold the batches after that
version only. Both leave the cache together, so there is one bound and one place to forget.
"""
from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core import snapshots, table, viewchain
from core.game import Game, GameInfo, GameNotFound, VersionNotFound
from core.store import EventStore, StoredEntry, meta_key
from domain.canonical import GENESIS_HASH
from domain.games import get_game

CACHE_ENV = "HOURGLASS_FOLD_CACHE"
DEFAULT_CACHE_SIZE = 512  # games per process (an LRU): the fold cache's memory bound, docs/architecture.md
SEAT_CHANGES = ("SeatJoined", "SeatVacated")  # events after which the meta's seats and tokens are re-read


def _batches(entries: Sequence[StoredEntry]) -> list[Sequence[StoredEntry]]:
    """``entries`` cut into batches: a batch starts at an entry that carries its command."""
    starts = [i for i, e in enumerate(entries) if e.command is not None or i == 0]
    return [entries[a:b] for a, b in zip(starts, [*starts[1:], len(entries)])]


@dataclass
class _Slot:
    game: Game  # the newest version this process has seen
    clocks: Game | None = None  # the version the clocks were last folded to (core.timing)


class GameRepository:
    """Loads and folds games of one event store; thread-safe (a web process serves threads)."""

    def __init__(self, store: EventStore, cache_size: int | None = None) -> None:
        self.store = store
        self._slots: OrderedDict[str, _Slot] = OrderedDict()
        self._size = cache_size if cache_size is not None else int(os.environ.get(CACHE_ENV) or DEFAULT_CACHE_SIZE)
        self._lock = threading.Lock()

    # -- reading ---------------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        """The game at its current version, folding only entries newer than the cached state (or,
        in a process that does not hold the game, than its snapshot: ``core.snapshots``)."""
        cached = self.cached(game_id)
        if cached is None:
            return self._load_cold(game_id)
        entries = self.store.read(game_id, after=cached.version)
        if not entries:
            return cached
        game = self.folded(cached, entries)
        self.remember(game)
        return game

    def load_over(self, game_id: str) -> Game:
        """:meth:`load` for a game its meta says is over: from the final snapshot (the append that
        ends a game keeps one, ``core.snapshots.due``) rather than this process's copy plus
        everything another process appended since, folded batch by batch (a tournament's tick
        reading a result)."""
        cached = self.cached(game_id)
        if cached is not None and cached.finished:
            return cached
        return self._load_cold(game_id, behind=cached)

    def cached(self, game_id: str) -> Game | None:
        """The game as this process last saw it, without asking Redis (it may be behind)."""
        with self._lock:
            slot = self._slots.get(game_id)
            if slot is not None:
                self._slots.move_to_end(game_id)
        return slot.game if slot is not None else None

    def extend(self, game: Game, entries: Sequence[StoredEntry]) -> Game:
        """``game`` with ``entries``, the next entries of its stream, folded in (no Redis read).

        For readers that already hold the new entries, such as a live stream's XREAD.
        """
        if not entries:
            return game
        if entries[0].seq != game.version + 1:
            raise ValueError(f"entries start at seq {entries[0].seq}, the game is at version {game.version}")
        extended = self.folded(game, entries)
        self.remember(extended)
        return extended

    def state_at(self, game_id: str, version: int) -> Game:
        """Time travel: the game as of ``version``, which must end a batch (1 <= version <= now)."""
        current = self.load(game_id)
        if version == current.version:
            return current
        if not 1 <= version < current.version:
            raise VersionNotFound(f"version {version} is outside 1..{current.version}")
        entries = self.store.read(game_id, until=version + 1)
        if entries[-1].command is None:
            raise VersionNotFound(f"version {version} is inside a batch; a state exists only after whole batches")
        start = Game(current.info, current.rules, None, 0, GENESIS_HASH)
        return self.folded(start, entries[:-1])

    def batch_ends(self, game_id: str) -> list[int]:
        """Every version that ends a batch (the valid time-travel targets), ascending."""
        entries = self.store.read(game_id)
        ends = [e.seq - 1 for e in entries[1:] if e.command is not None]
        return ends + ([entries[-1].seq] if entries else [])

    def entries(self, game_id: str, after: int = 0, until: int | None = None) -> list[StoredEntry]:
        return self.store.read(game_id, after=after, until=until)

    def info(self, game_id: str) -> GameInfo:
        """The game's info as its meta hash says now."""
        meta = self.store.meta(game_id)
        if meta is None:
            raise GameNotFound(game_id)
        return GameInfo.from_meta(game_id, meta)

    def flags(self, game_id: str) -> dict[str, Any]:
        """What the meta hash says beyond the fold: ``status`` "expired" (or None) and ``stuck``."""
        status, stuck = self.store.conn.hmget(meta_key(game_id), ["status", "stuck"])  # type: ignore[misc]
        return {"status": "expired" if status == b"expired" else None,
                "stuck": json.loads(stuck) if stuck else None}

    # -- folding ---------------------------------------------------------------------------

    def folded(self, start: Game, entries: Sequence[StoredEntry]) -> Game:
        """``start`` with ``entries`` (whole batches) folded in (not remembered), batch by batch:
        every seat's view-chain head advances after each batch (``core.viewchain``)."""
        rules, state, tbl = start.rules, start.state, start.table
        seats = len(start.info.seats)
        heads = start.view_heads or viewchain.genesis_heads(seats)
        for batch in _batches(entries):
            data = [e.data for e in batch]
            events = table.decoded(rules, data)  # once for the fold and the view chains
            state, tbl = table.fold_decoded(rules, data, events, state, tbl)
            tbl = table.note(tbl, batch[0].actor, batch[0].command, batch[0].entry.get("meta"))  # who played
            heads = viewchain.advance_all(rules, heads, batch[-1].seq, data, decoded=events)
        info = start.info
        if any(e.type in SEAT_CHANGES for e in entries):  # a joiner's name, kind and token: the meta
            info = self.info(info.game_id)
        return Game(info, rules, state, entries[-1].seq, entries[-1].hash, tbl, heads)

    def _load_cold(self, game_id: str, behind: Game | None = None) -> Game:
        """The game from its snapshot and the entries after it; ``behind``: this process's older
        copy, folded on instead when the snapshot is older than it or unusable."""
        meta, snapshot = self.store.snapshot_and_meta(game_id)
        if meta is None:
            raise GameNotFound(game_id)
        info = GameInfo.from_meta(game_id, meta)
        start = Game(info, get_game(info.game), None, 0, GENESIS_HASH)
        restored = snapshots.decode(start.rules, snapshot, game_id) if snapshot is not None else None
        entries = self.store.read(game_id, after=restored.version - 1) if restored is not None else []
        if (restored is not None and entries and entries[0].seq == restored.version and entries[0].hash == restored.hash
                and len(restored.view_heads) == len(info.seats)
                and (behind is None or restored.version > behind.version)):
            start = Game(info, start.rules, restored.state, restored.version, restored.hash, restored.table,
                         restored.view_heads)
            entries = entries[1:]
        elif behind is not None:
            start, entries = behind, self.store.read(game_id, after=behind.version)
        else:
            entries = self.store.read(game_id)
        if not entries:
            if start.version == 0:
                raise GameNotFound(game_id)
            game = start
        else:
            game = self.folded(start, entries)
        self.remember(game)
        return game

    # -- the cache -------------------------------------------------------------------------

    def remember(self, game: Game) -> None:
        """Keep ``game`` unless the cache holds a newer version of it."""
        with self._lock:
            slot = self._slots.get(game.game_id)
            if slot is None:
                self._slots[game.game_id] = _Slot(game)
            elif slot.game.version < game.version:
                slot.game = game
            self._slots.move_to_end(game.game_id)
            while len(self._slots) > self._size:
                self._slots.popitem(last=False)

    def clock_base(self, game_id: str) -> Game | None:
        """The game as its clocks were last folded to in this process (``core.timing``), if held."""
        with self._lock:
            slot = self._slots.get(game_id)
            return slot.clocks if slot is not None else None

    def set_clock_base(self, game: Game) -> None:
        """The clocks are folded to ``game``: the next clock fold starts from it."""
        self.remember(game)
        with self._lock:
            slot = self._slots.get(game.game_id)
            if slot is not None:
                slot.clocks = game

    def forget(self) -> None:
        """Drop every cached game (a test that plays a process which has seen nothing)."""
        with self._lock:
            self._slots.clear()
