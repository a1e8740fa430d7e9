"""Time left for a decision: clocks for readers (the summary, the state, the live streams), and a
push bot's answer budget for the worker.

The worker keeps every clocked game's clocks folded in Redis (``core.clocks``, ``hg:{<id>}:clock``)
and is asked to after every change; a reader that finds the cache behind the game folds the
missing batches itself, through the same :func:`current`. When only the last batch is missing
(the usual case, right after a move) who is to act after it is the game's own ``to_act``, so
nothing is re-folded. Several missing batches (a worker that played a run of bot moves) are
folded from the game state this process last folded the clocks to, when its fold cache still
holds it (``core.repository.GameRepository.clock_base``), else from the first event; the result
is cached for everyone.

A push bot's seat has no clock, only ``deadline_s``, and that covers a whole decision (a stint,
``core.clocks.Batch.ends``) too: all the calls of one stint together may take no longer. What
they took is folded from the same batches, each push decision's entry meta carrying its call's
``http.rtt_ms`` (:func:`decision_spent_ms`), so it is the log's and survives a restart; this
process keeps the fold per game (``STINTS_MAX`` games) and only adds the new batches to it.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core import clocks, table
from core.store import StoredEntry
from domain import games

if TYPE_CHECKING:
    from core.games import Game, GameService

STINTS_MAX = 256  # games whose push-call stints this process keeps (a few seats each)
_STINTS: OrderedDict[str, tuple[int, dict[int, Stint]]] = OrderedDict()  # game -> (version, stints)
_LOCK = threading.Lock()
_UNREAD: Any = object()


def controls(game: Game) -> dict[int, clocks.TimeControl]:
    return {i: clocks.TimeControl.from_json(s.clock) for i, s in enumerate(game.info.seats) if s.clock}


def entry_ms(stamp: str) -> int:
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def current(svc: GameService, game: Game, cached: clocks.Clocks | None = _UNREAD) -> clocks.Clocks | None:
    """The game's clocks as of its version, folded and saved if the cache was behind; None when no
    seat has a clock. ``cached`` is what the caller already read of the cache (the worker does)."""
    tc = controls(game)
    if not tc:
        return None
    conn = svc.store.conn
    if cached is _UNREAD:
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


@dataclass(frozen=True)
class Stint:
    """A seat's running decision: the version of the batch that began it and what its push calls
    have taken so far."""

    start: int
    spent_ms: float = 0.0


def step_stints(stints: Mapping[int, Stint], batch: clocks.Batch) -> dict[int, Stint]:
    """The stint of every seat to act after ``batch``: a new one where the batch began it, else the
    same, charged with the call that made the seat's own provisional move."""
    out: dict[int, Stint] = {}
    for seat in batch.to_act_after:
        if not isinstance(seat, int):
            continue
        known = stints.get(seat)
        if known is None or batch.ends(seat):
            out[seat] = Stint(batch.version)
        elif batch.actor == seat:
            out[seat] = Stint(known.start, known.spent_ms + batch.rtt_ms)
        else:
            out[seat] = known
    return out


def decision_spent_ms(svc: GameService, game: Game, seat: int) -> float:
    """What the push calls of ``seat``'s running decision have taken, as the log records them
    (0 when the seat is not to act)."""
    with _LOCK:
        known = _STINTS.get(game.game_id)
    version, stints = known if known is not None and known[0] <= game.version else (0, {})
    if version < game.version:
        for batch in _batches(svc, game, version):
            stints = step_stints(stints, batch)
        with _LOCK:
            _STINTS[game.game_id] = (game.version, stints)
            _STINTS.move_to_end(game.game_id)
            while len(_STINTS) > STINTS_MAX:
                _STINTS.popitem(last=False)
    stint = stints.get(seat)
    return stint.spent_ms if stint is not None else 0.0


def decision_left_s(svc: GameService, game: Game, seat: int, deadline_s: float) -> float:
    """A push seat's answer budget for its next call: ``deadline_s`` less what its calls in this
    decision took; 0.0 once nothing is left (then no call is made: the seat's default move)."""
    return max(0.0, deadline_s - decision_spent_ms(svc, game, seat) / 1000)


def _batches(svc: GameService, game: Game, after: int) -> Iterator[clocks.Batch]:
    """Every batch after version ``after`` with its time and who was to act after it."""
    entries = svc.entries(game.game_id, after=after, until=game.version)
    provisional = games.provisional(game.rules)
    if entries and entries[0].command is not None and all(e.command is None for e in entries[1:]):
        yield _batch(entries, game.to_act, provisional)  # one batch missing: the game's to_act is the one after it
    else:
        known = svc.repository.clock_base(game.game_id)
        rules, state, tbl = game.rules, None, table.EMPTY
        if after and known is not None and known.version == after:
            state, tbl = known.state, known.table
        else:
            entries = svc.entries(game.game_id, until=game.version)
        batch: list[StoredEntry] = []
        for entry in [*entries, None]:
            if batch and (entry is None or entry.command is not None):
                state, tbl = table.fold(rules, (e.data for e in batch), state, tbl)
                if batch[-1].seq > after:
                    yield _batch(batch, table.to_act(rules, state, tbl), provisional)
                batch = []
            if entry is not None:
                batch.append(entry)
    svc.repository.set_clock_base(game)  # the game is the state at its version: the next fold may start from it


def forget_folded() -> None:
    """Drop this process's stints (tests that rewrite a log start from nothing; the folded states
    belong to each service's repository)."""
    with _LOCK:
        _STINTS.clear()


def _batch(batch: list[StoredEntry], to_act: frozenset[Any], provisional: frozenset[str]) -> clocks.Batch:
    first = batch[0]
    command = first.command or {}
    target = command.get("target") if command.get("type") == "ApplyTimeout" else None
    http = (first.entry.get("meta") or {}).get("http") or {}
    return clocks.Batch(batch[-1].seq, entry_ms(first.entry["time"]), first.actor, target, to_act,
                        command.get("type") in provisional, float(http.get("rtt_ms") or 0.0))
