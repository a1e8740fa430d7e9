"""Forfeits: a bot that fails N decisions in a row leaves the game (``core.table.Forfeit``).

A push seat (``http``) fails a decision when its call does (timeout, error, bad_signature,
http_status, garbage, illegal, too_large, rejected_url: the default move is played); a pull seat
when its clock runs out (``ApplyTimeout``). The table counts these from the log, and after
``HOURGLASS_FORFEIT_AFTER`` of them in a row (default 5; 0 turns forfeits off) the worker appends
SYSTEM ``Forfeit(seat, after=N)``: ``SeatResigned(reason="forfeited")``, after which the seat's
default moves are played for it and it ranks below every seat that stayed, as after a
resignation. The table itself checks the count (a replay verifier re-derives it from the log), so
a forfeit is never appended early; the key ``forfeit:<game>:<seat>`` appends it once.

Humans (and built-in bots, which never fail) do not forfeit: an absent human is a matter for a
claim or its clock.
"""
from __future__ import annotations

import logging
import os

from core import metrics, table
from core.games import GameService, IdempotencyConflict, StaleVersion
from domain.core import SYSTEM, Rejected

log = logging.getLogger("hourglass.forfeits")

FORFEIT_ENV = "HOURGLASS_FORFEIT_AFTER"
DEFAULT_AFTER = 5


def after() -> int:
    """N: the failed decisions in a row that make a bot forfeit (0: never)."""
    raw = os.environ.get(FORFEIT_ENV)
    return max(0, int(raw)) if raw else DEFAULT_AFTER


def check(svc: GameService, game_id: str, seat: int) -> bool:
    """Forfeit ``seat`` if it is a bot seat that has failed N decisions in a row; True if it did now."""
    n = after()
    if n <= 0:
        return False
    game = svc.load(game_id)
    kind = game.info.seat_kind(seat)
    if (not game.info.seat_policy(seat).forfeits or game.finished or seat in game.table.left
            or game.table.failed_in_a_row(seat) < n):
        return False
    try:
        applied = svc.apply(game_id, SYSTEM, table.Forfeit(seat, n), idempotency_key=f"forfeit:{game_id}:{seat}")
    except (Rejected, StaleVersion, IdempotencyConflict) as exc:  # the game ended or moved on meanwhile
        log.info("forfeit of seat %d in %s not appended: %s", seat, game_id, exc)
        return False
    if applied.replayed:
        return False
    log.warning("hourglass: seat %d (%s) of game %s forfeited after %d failed decisions in a row",
                seat, kind, game_id, n)
    metrics.forfeit(kind)
    return True
