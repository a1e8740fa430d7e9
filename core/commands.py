"""The command handler: decide a command on a game, append what it causes, tell the reactions.

Everything that changes an existing game goes through :meth:`CommandHandler.apply`. It runs the
game's ``decide`` with ``Rng(seed, game_id, draw_counter)`` and appends through the store's single
Lua script, which checks the version, the idempotency key and, for a request from outside, the
:class:`AppendGuard` (the seat's token and the requester's window) in the same round trip.

A caller that holds the game already passes it as ``base``: nothing is read first. When ``base``
turns out to be behind (the rules refuse the command on it, the script answers that the version
moved, or the caller expects another version) the handler reads the game and decides again; the
caller sees one answer.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from typing import Any

from core import snapshots, table, viewchain
from core.game import Game, iso_time
from core.reactions import Change, Reaction
from core.repository import GameRepository
from core.store import (
    AppendResult,
    EventStore,
    GameExpired,
    IdempotencyConflict,
    RateWindow,
    StaleVersion,
    StoredEntry,
    build_entries,
    fingerprint,
)
from core.worklist import WorkList
from domain.core import Actor, GameRules, Rejected, RejectKind
from domain.rng import Rng

MAX_APPLY_ATTEMPTS = 8


@dataclass(frozen=True)
class AppendGuard:
    """What a request from outside must pass before its command is appended; the service layer
    makes it from the request, the core checks it (no HTTP concept below this line).

    ``token_field``: the meta field (``token:<sha256>``) that must name the acting seat, checked by
    the append script itself, so a copy of the game that is behind can never let a withdrawn
    token act (``core.store.NotThisSeat``). ``window``: the requester's request window, counted
    by the first append script that runs (``core.store.RateLimited`` above its limit; its
    ``count`` says whether it was counted). A guarded seat that left the game acts no more.
    """

    token_field: str | None = None
    window: RateWindow | None = None

    def check(self, game: Game, actor: Actor) -> None:
        if isinstance(actor, int):
            reason = game.table.departure(actor)
            if reason is not None:
                raise Rejected(RejectKind.NOT_YOUR_TURN, f"seat {actor} left this game ({reason}); it plays no more")

    def token_check(self, actor: Actor) -> tuple[str, int] | None:
        return (self.token_field, actor) if self.token_field is not None and isinstance(actor, int) else None


@dataclass(frozen=True)
class Applied:
    """The outcome of :meth:`CommandHandler.apply`: the new entries (or the replayed ones)."""

    result: AppendResult
    entries: tuple[StoredEntry, ...]
    game: Game
    views: tuple[list[dict[str, Any]], ...] = ()  # each seat's view of the new entries' events; () when replayed

    @property
    def version(self) -> int:
        return self.result.version

    @property
    def replayed(self) -> bool:
        return self.result.replayed


@dataclass(frozen=True)
class Planned:
    """One batch decided on a game held in memory and not yet stored (:meth:`CommandHandler.plan`):
    the game before and after it, its entries, and the idempotency key it is to be stored under."""

    before: Game
    after: Game
    entries: tuple[StoredEntry, ...]
    key: str
    fingerprint: str


@dataclass(frozen=True)
class _Step:
    """One batch decided on ``before`` (:meth:`CommandHandler._step`), its views not yet worked out."""

    before: Game
    entries: list[StoredEntry]
    events: list[dict[str, Any]]
    decided: list[Any] | None  # the events as the rules decided them (core.table.step_events), for the views
    state: Any
    tbl: table.Table

    def unshown(self) -> Game:
        """The game after the batch with the view-chain heads before it: its status, who is to act
        and what a worker has to do, which the heads do not change."""
        return self._after(self.before.view_heads)

    def shown(self) -> tuple[Game, list[list[dict[str, Any]]]]:
        """The game after the batch, each seat's view-chain head advanced, and what each seat is
        shown of the batch's events."""
        heads = self.before.view_heads
        views: list[list[dict[str, Any]]] = []
        if self.entries:
            heads = heads or viewchain.genesis_heads(len(self.before.info.seats))
            views = viewchain.batch_views(self.before.rules, self.events, len(heads), self.decided)
            heads = viewchain.advance_views(heads, self.entries[-1].seq, views)
        return self._after(heads), views

    def show_into(self, out: list[tuple[Game, list[list[dict[str, Any]]]]]) -> None:
        out.append(self.shown())

    def _after(self, heads: tuple[str, ...]) -> Game:
        game, entries = self.before, self.entries
        return Game(game.info, game.rules, self.state, game.version + len(entries),
                    entries[-1].hash if entries else game.last_hash, self.tbl, heads)


def command_json(rules: GameRules, command: Any) -> dict[str, Any]:
    if isinstance(command, table.TABLE_COMMANDS):
        return table.command_to_json(command)
    return rules.command_to_json(command)


class CommandHandler:
    """Decides and appends commands for the games of one store."""

    def __init__(self, repository: GameRepository, worklist: WorkList, clock: Callable[[], datetime],
                 reactions: Sequence[Reaction]) -> None:
        self.repository = repository
        self.store: EventStore = repository.store
        self.worklist = worklist
        self.clock = clock
        self.reactions = tuple(reactions)

    def apply(self, game_id: str, actor: Actor, command: Any, *, expected: int | None = None,
              key: str | None = None, guard: AppendGuard | None = None, base: Game | None = None,
              meta: dict[str, Any] | None = None, meta_fields: Mapping[str, str] | None = None) -> Applied:
        """Decide ``command`` (the game's, or a table command of ``core.table``) for ``actor``
        and append the events it causes; ``meta_fields`` are written to the game's meta hash in
        the same atomic append.

        Order of checks: the guard's token (NotThisSeat) -> unknown game (GameNotFound) ->
        idempotency ``key`` (the stored result for the same request, IdempotencyConflict for
        another) -> ``expected`` version (StaleVersion carrying the current version) -> the
        guard's seat -> the rules (Rejected). Without an expected version, a race with another
        writer is retried transparently.
        """
        game = base if base is not None and (expected is None or expected == base.version) else None
        window = guard.window if guard is not None else None
        token_check = guard.token_check(actor) if guard is not None else None
        fresh = False  # whether ``game`` is the game as the store has it (a rejection on it is final)
        for _ in range(MAX_APPLY_ATTEMPTS):
            if game is None:
                fresh = True
                game = self.repository.load(game_id)
                if key:
                    replay = self._replay(game, key, fingerprint(actor, command_json(game.rules, command)))
                    if replay is not None:
                        return replay
                if expected is not None and expected != game.version:
                    raise StaleVersion(expected, game.version)
            try:
                if guard is not None:
                    guard.check(game, actor)
                cmd_json = command_json(game.rules, command)
                step = self._step(game, actor, command, cmd_json, meta)
            except Rejected:
                if fresh:
                    raise
                game = None  # decided on the caller's copy, which may be behind: read it and decide again
                continue
            entries, unshown = step.entries, step.unshown()
            updates = dict(meta_fields or {})
            if unshown.status() != game.status():
                updates["status"] = unshown.status()
                if unshown.finished:
                    updates["finished"] = entries[0].entry["time"]
            # the work list's mark goes first in the same pipeline (before the append, see core.worklist)
            before = (self.worklist.mark_call(game_id),) if unshown.wants_worker() else ()
            shown: list[tuple[Game, list[list[dict[str, Any]]]]] = []  # the views, worked out once
            if entries and snapshots.due(game.version, unshown.version, unshown.finished):
                shown.append(step.shown())  # the snapshot keeps the view-chain heads
                snapshot = snapshots.encode(unshown.rules, unshown.state, unshown.table, unshown.version,
                                            unshown.last_hash, shown[0][0].view_heads)
            else:
                snapshot = None
            counted, window = window, None  # the window is counted by the first script that runs, once
            try:
                result = self.store.append(game_id, game.version, entries, idempotency_key=key,
                                           request_fingerprint=fingerprint(actor, cmd_json),
                                           meta_updates=updates or None, token_check=token_check, window=counted,
                                           snapshot=snapshot, before=before,
                                           meanwhile=None if shown else partial(step.show_into, shown))
            except StaleVersion as stale:
                if expected is not None:
                    raise StaleVersion(expected, stale.current) from None
                game = self._caught_up(game, stale)  # None: read it
                fresh = game is not None
                continue
            except GameExpired as exc:
                raise Rejected(RejectKind.GAME_OVER, f"{exc}; no more moves") from None
            if result.replayed:
                return self._replayed(self.repository.load(game_id), result)
            new_game, views = shown[0] if shown else step.shown()
            if meta_fields:
                new_game = replace(new_game, info=self.repository.info(game_id))
            self.repository.remember(new_game)
            self.react(Change(game, new_game, tuple(entries), meta_changed="status" in updates or bool(meta_fields)))
            return Applied(result, tuple(entries), new_game, tuple(views))
        raise StaleVersion(expected if expected is not None else -1, self.store.version(game_id))

    def _caught_up(self, game: Game, stale: StaleVersion) -> Game | None:
        """``game`` folded up to the version the append script found, from the entries its stale
        answer carried (no read: a web process's copy one batch behind costs one more round trip,
        the retried append); None when it carried none or not all of them."""
        tail = stale.tail
        if not tail or tail[0].seq != game.version + 1 or tail[-1].seq != stale.current:
            return None
        return self.repository.extend(game, tail)

    def plan(self, game: Game, actor: Actor, command: Any, key: str,
             meta: dict[str, Any] | None = None) -> Planned:
        """Decide ``command`` on ``game`` as held in memory (nothing read or stored; Rejected as
        :meth:`apply` would raise it): the batch :meth:`apply_planned` stores with the others of a run."""
        cmd_json = command_json(game.rules, command)
        entries, after = self._decide(game, actor, command, cmd_json, meta)
        return Planned(game, after, tuple(entries), key, fingerprint(actor, cmd_json))

    def apply_planned(self, game_id: str, run: Sequence[Planned]) -> AppendResult:
        """Store a run of batches planned one after the other (each on the game the previous one
        left) in ONE append: the version is checked once, against the first batch's base, and
        every batch's key is stored with its own result. Then the reactions hear of each batch in
        order, as if each had been appended alone.

        StaleVersion or IdempotencyConflict: nothing was stored (the caller reads the game again);
        a replayed result: the first batch was stored before (by an earlier try), nothing now.
        """
        first, last = run[0].before, run[-1].after
        if any(not p.entries for p in run) or any(a.after is not b.before for a, b in zip(run, run[1:])):
            raise ValueError("a run of planned batches must chain, and each batch must have entries")
        updates: dict[str, str] = {}
        if last.status() != first.status():
            updates["status"] = last.status()
            if last.finished:
                updates["finished"] = run[-1].entries[0].entry["time"]
        before = (self.worklist.mark_call(game_id),) if last.wants_worker() else ()
        snapshot = (snapshots.encode(last.rules, last.state, last.table, last.version, last.last_hash, last.view_heads)
                    if snapshots.due(first.version, last.version, last.finished) else None)
        try:
            result = self.store.append(game_id, first.version, [e for p in run for e in p.entries],
                                       idempotency_key=run[0].key, request_fingerprint=run[0].fingerprint,
                                       meta_updates=updates or None, snapshot=snapshot, before=before,
                                       further=[(p.key, p.fingerprint, p.entries[0].seq) for p in run[1:]])
        except GameExpired as exc:
            raise Rejected(RejectKind.GAME_OVER, f"{exc}; no more moves") from None
        if result.replayed:
            return result
        self.repository.remember(last)
        for p in run:
            changed = p.after.status() != p.before.status()
            self.react(Change(p.before, p.after, p.entries, meta_changed=changed))
        return result

    def listen_first(self, reaction: Reaction) -> None:
        """Have ``reaction`` hear of every append before the others (a worker's own record of
        the games it plays, which its tournament hook then reads: ``workers.bundles``)."""
        self.reactions = (reaction, *self.reactions)

    def react(self, change: Change) -> None:
        for reaction in self.reactions:
            reaction(change)

    def _decide(self, game: Game, actor: Actor, command: Any, cmd_json: dict[str, Any],
                meta: dict[str, Any] | None) -> tuple[list[StoredEntry], Game]:
        entries, after, _ = self._decide_shown(game, actor, command, cmd_json, meta)
        return entries, after

    def _decide_shown(self, game: Game, actor: Actor, command: Any, cmd_json: dict[str, Any],
                      meta: dict[str, Any] | None) -> tuple[list[StoredEntry], Game, list[list[dict[str, Any]]]]:
        """:meth:`_decide`, and what each seat is shown of the batch (its view chain hashes it; a move's
        answer shows it to the mover), from the events as decided: none is decoded again."""
        step = self._step(game, actor, command, cmd_json, meta)
        after, views = step.shown()
        return step.entries, after, views

    def _step(self, game: Game, actor: Actor, command: Any, cmd_json: dict[str, Any],
              meta: dict[str, Any] | None) -> _Step:
        """The batch ``command`` causes on ``game`` and its entries; the seats' views of it are
        worked out apart (:meth:`_Step.shown`): :meth:`apply` has them worked out while Redis runs
        the append."""
        rng = Rng(game.info.seed, game.game_id, game.rules.draw_counter(game.state))
        events, decided, state, tbl = table.step_events(game.rules, game.state, game.table, command, rng,
                                                        len(game.info.seats))
        entries = build_entries(game.version, game.last_hash, events, actor=actor, time=iso_time(self.clock()),
                                command=cmd_json, meta=meta)
        if entries:
            tbl = table.note(tbl, actor, cmd_json, meta)
        return _Step(game, entries, events, decided, state, tbl)

    def _replay(self, game: Game, key: str, request: str) -> Applied | None:
        found = self.store.idempotent_result(game.game_id, key)
        if found is None:
            return None
        stored_request, result = found
        if stored_request != request:
            raise IdempotencyConflict(key)
        return self._replayed(game, result)

    def _replayed(self, game: Game, result: AppendResult) -> Applied:
        entries = self.store.read(game.game_id, after=result.first - 1, until=result.last)
        return Applied(result, tuple(entries), game)
