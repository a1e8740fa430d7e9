"""Leaving a game: resigning, aborting, giving a joined seat back, and claims against an absent seat.

The service's policy around the table commands of ``core.table`` (which checks what the log alone
decides). Who may do what:

- **A seat that joined** (took an open seat, ``core.seating``) and leaves before any seat has made
  a move, by leaving or aborting, only gives its seat back (``VacateSeat``): the game is open
  again and stays in the lobby, so nobody can empty the lobby by joining and aborting. After the
  first move it may not abort the game. A resignation is always a resignation (a recorded
  result: the joiner loses), at any time.
- **The creator's seats** (those the game was created with) may abort the game while its seats
  have made fewer than ``abort_moves`` moves (always while seats are open); after that, resign.
  No seat aborts a tournament's game (a bot could dodge its pairing so): the organiser cancels
  the tournament, which calls its games off.
- **A claim** against an unclocked human seat the game has waited on for ``inactivity_s``:
  ``victory`` counts it as having left, ``default_move`` plays one default move for it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from core import seating, table
from core.store import StaleVersion
from domain.core import Rejected, RejectKind

MAX_ATTEMPTS = 8

if TYPE_CHECKING:
    from core.games import Applied, Game, GameService


def moves_made(svc: GameService, game_id: str) -> int:
    """Moves by seats in the log (SYSTEM steps and table commands are not moves)."""
    return sum(1 for e in svc.store.read(game_id) if e.command is not None and isinstance(e.actor, int)
               and e.command.get("type") not in table.COMMAND_TYPES)


def _gives_back(svc: GameService, game: Game, seat: int) -> bool:
    return not game.finished and seat in game.table.joined and moves_made(svc, game.game_id) == 0


def resign(svc: GameService, game_id: str, seat: int, idempotency_key: str | None = None) -> Applied:
    return svc.apply(game_id, seat, table.Resign(seat), idempotency_key=idempotency_key)


def _vacate(svc: GameService, game_id: str, seat: int, idempotency_key: str | None,
            refuse: Callable[[Game], None]) -> Applied:
    """Give the seat back at the version it was checked at; a worker's SYSTEM step landing in
    between (a joined game starts at once) means: check again."""
    for _ in range(MAX_ATTEMPTS):
        game = svc.load(game_id)
        refuse(game)
        try:
            return seating.vacate(svc, game, seat, idempotency_key)
        except StaleVersion:
            continue
    raise Rejected(RejectKind.ILLEGAL_MOVE, "the game kept changing while the seat was given back; try again")


def leave(svc: GameService, game_id: str, seat: int, idempotency_key: str | None = None) -> Applied:
    """A joined seat gives its seat back before any seat has moved; otherwise refused."""
    def refuse(game: Game) -> None:
        if game.finished:
            raise Rejected(RejectKind.GAME_OVER, f"the game is {game.status()}")
        if seat not in game.table.joined:
            raise Rejected(RejectKind.ILLEGAL_MOVE, "only a seat that joined may give it back; the creator's seats "
                           "abort or resign")
        if not _gives_back(svc, game, seat):
            raise Rejected(RejectKind.ILLEGAL_MOVE, "too late to leave: seats have moved; resign instead")

    return _vacate(svc, game_id, seat, idempotency_key, refuse)


def abort(svc: GameService, game_id: str, seat: int, idempotency_key: str | None = None) -> Applied:
    """Call the game off (a creator's seat, early enough), or give a joined seat back."""
    game = svc.load(game_id)
    if game.finished:
        return svc.apply(game_id, seat, table.Abort(seat))  # refused: GAME_OVER
    if game.info.tournament:
        raise Rejected(RejectKind.ILLEGAL_MOVE, "a tournament's game is called off only by its organiser's "
                       "cancellation; resign instead")
    if seat in game.table.joined:
        def refuse(current: Game) -> None:
            if not _gives_back(svc, current, seat):
                raise Rejected(RejectKind.ILLEGAL_MOVE, "a seat that joined may not call the game off once it has "
                               "begun; resign instead (only the seats the game was created with may abort)")

        return _vacate(svc, game_id, seat, idempotency_key, refuse)
    made = moves_made(svc, game_id)
    if made >= svc.abort_moves:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"too late to abort: seats have made {made} moves and a game "
                       f"may be aborted only before {svc.abort_moves}; resign instead")
    return svc.apply(game_id, seat, table.Abort(seat), idempotency_key=idempotency_key)


def claims_open(svc: GameService, game: Game) -> dict[int, int]:
    """When a claim against each seat the game is waiting on becomes possible (ms since the
    epoch): the unclocked seats a claim may name (``SeatPolicy.claimable``) that are to act and
    still playing; empty for a finished game or when nobody such is awaited. The same test as
    :func:`claim`, which a claim at or after that moment passes (the claimant aside)."""
    if game.status() != "active":
        return {}
    waited_on = [s for s in sorted(a for a in game.to_act if isinstance(a, int))
                 if s < len(game.info.seats) and s not in game.table.left
                 and game.info.seats[s].policy.claimable and not game.info.seats[s].clock]
    if not waited_on:
        return {}
    last = svc.store.last(game.game_id)
    if last is None:
        return {}
    opens = _entry_time(last.entry["time"]).timestamp() + svc.inactivity_s
    return {seat: int(round(opens * 1000)) for seat in waited_on}


def _entry_time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def claim(svc: GameService, game_id: str, seat: int, absent: int, remedy: str,
          idempotency_key: str | None = None) -> Applied:
    """``remedy`` ``victory`` (``absent`` is deemed to have left) or ``default_move`` (one
    default move is played for it), once the game has waited ``inactivity_s`` on ``absent``."""
    game = svc.load(game_id)
    if not 0 <= absent < len(game.info.seats):
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seats are numbered 0..{len(game.info.seats) - 1}")
    spec = game.info.seats[absent]
    if not spec.policy.claimable or spec.clock:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {absent} is a {'clocked ' if spec.clock else ''}"
                       f"{spec.kind} seat: {'its clock' if spec.clock else 'the service'} moves for it")
    if absent == seat:
        raise Rejected(RejectKind.ILLEGAL_MOVE, "a seat cannot claim against itself")
    if absent not in game.to_act or absent in game.table.left:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {absent} is not to act: nobody is waiting for it")
    last = svc.store.last(game_id)
    assert last is not None
    moved = _entry_time(last.entry["time"])
    waited = (svc.clock() - moved).total_seconds()
    if waited < svc.inactivity_s:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"the game has waited {int(waited)} s; a claim needs "
                       f"{svc.inactivity_s:g} s without a move (another {math.ceil(svc.inactivity_s - waited)} s)")
    command = table.ClaimVictory(seat, absent) if remedy == "victory" else table.ForceMove(seat, absent)
    return svc.apply(game_id, seat, command, expected_version=game.version, idempotency_key=idempotency_key)
