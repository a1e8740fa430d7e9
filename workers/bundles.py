"""What a worker process holds of the tournament games it plays, for their replay bundles.

The worker that plays a tournament game's last step builds its bundle (``workers.tournaments``).
Built from the stream alone, that is one more game's worth of work: every event decoded from its
JSON and folded, every seat's view-chain head advanced. But this process decided most of those
batches itself, and after each one it held the state, the table and the heads the fold would
give again. :class:`BundleBook` is a reaction of the worker's GameService that keeps, per game,
the game after every batch this process appended (a slice's run, a single step, the creation by a
tick) or folded in when it took the game back from another worker (:meth:`BundleBook.load`, what
the advance jobs read a game with); the bundle builder takes those and folds only the batches it
does not hold (``replays.bundle.build_lines``'s ``known``), and reads from the stream only the
entries before the run of held batches that ends the game (:meth:`KnownLookup.tail`; the book
keeps each batch's entries too). The bundle's bytes are the same.

A batch is taken from the book only when its first and last seq and its last entry's chain hash
are the ones the stream holds. Memory: a batch's Game shares most of its state with the one
before; a whole 4-player Orléans game (834 batches) held 3.7 MB (tracemalloc), a 2-player one
about half that. The book keeps the ``MAX_GAMES`` games it heard of last (a finished game, never
touched again, goes first), so at most about 30 MB, and forgets a game once its bundle is built.
A game it no longer holds costs only the fold the bundle did before.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from threading import Lock

from core.game import Game
from core.reactions import Change
from core.repository import GameRepository
from core.store import StoredEntry
from replays.bundle import Known
from replays.entries import Entry

MAX_GAMES = 8  # tournament games in play at once on one worker, with room to spare


@dataclass(frozen=True)
class _Held:
    last_seq: int
    last_hash: str
    after: Game
    entries: tuple[StoredEntry, ...]  # the batch as appended or read


class BundleBook:
    """The games after each batch this process appended, for the tournament games it plays."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        self.max_games = max_games
        self._games: OrderedDict[str, dict[int, _Held]] = OrderedDict()
        self._lock = Lock()

    def __call__(self, change: Change) -> None:
        self.record(change.after, change.entries)

    def record(self, game: Game, entries: Sequence[StoredEntry]) -> None:
        """``game`` as it is after the batch ``entries`` (appended or folded by this process)."""
        if not entries or not game.info.tournament or len(game.view_heads) != len(game.info.seats):
            return
        with self._lock:
            held = self._games.setdefault(game.game_id, {})
            self._games.move_to_end(game.game_id)
            held[entries[0].seq] = _Held(entries[-1].seq, entries[-1].hash, game, tuple(entries))
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)

    def known(self, game_id: str) -> KnownLookup:
        """What this process holds of ``game_id``, for ``replays.source.published_bundle``."""
        with self._lock:
            return KnownLookup(dict(self._games.get(game_id, {})))

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def load(self, repository: GameRepository, game_id: str) -> Game:
        """``repository.load``, for a tournament game this process holds: what another process
        appended since is folded batch by batch and each batch kept, so that the bundle folds
        none of it again."""
        cached = repository.cached(game_id)
        if cached is None or not cached.info.tournament:
            return repository.load(game_id)
        entries = repository.store.read(game_id, after=cached.version)
        game = cached
        for batch in split_stored(entries):
            game = repository.folded(game, batch)
            self.record(game, batch)
        if game is not cached:
            repository.remember(game)
        return game


def split_stored(entries: Sequence[StoredEntry]) -> list[list[StoredEntry]]:
    """Entries grouped by the command that caused them (a non-null command opens a batch)."""
    batches: list[list[StoredEntry]] = []
    for entry in entries:
        if entry.command is not None or not batches:
            batches.append([])
        batches[-1].append(entry)
    return batches


@dataclass(frozen=True)
class KnownLookup:
    held: dict[int, _Held]

    def __call__(self, batch: Sequence[Entry]) -> Known | None:
        found = self.held.get(batch[0]["seq"])
        last = batch[-1]
        if found is None or found.last_seq != last["seq"] or found.last_hash != last.get("hash"):
            return None
        after = found.after
        return after.state, after.table, after.view_heads

    def tail(self) -> list[Entry]:
        """The entries (with their ``hash``) of the held batches that follow one another up to the
        last one held, in order: the end of the game as this process appended or read it, which
        the bundle need not read from the stream again (``replays.source.load_game``)."""
        by_last = {h.last_seq: h for h in self.held.values()}
        batches: list[tuple[StoredEntry, ...]] = []
        found = by_last.get(max(by_last)) if by_last else None
        while found is not None:
            batches.append(found.entries)
            found = by_last.get(found.entries[0].seq - 1)
        return [{**e.entry, "hash": e.hash} for batch in reversed(batches) for e in batch]

    def __len__(self) -> int:
        return len(self.held)
