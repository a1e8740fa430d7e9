"""The command handler decides on the caller's copy of a game and, when that copy is behind,
reads the game and decides again itself (core.commands.CommandHandler.apply): the caller sees one
answer, and a guarded seat's checks hold on whichever copy the command was decided on.

Two GameService objects on one Redis play two processes: one holds a copy that the other moves past.
"""
from __future__ import annotations

import pytest
import redis

from core.games import AppendGuard, GameService
from domain.core import SYSTEM, Rejected, RejectKind
from domain.toy.model import Bid, Reveal


def _three_seats(svc: GameService, created: list[str]) -> str:
    made = svc.create({"game": "toy", "edition": "classic", "seats": [{"name": n} for n in ("Ann", "Bob", "Cy")]})
    created.append(made["id"])
    return str(made["id"])


def test_a_command_refused_on_a_copy_that_is_behind_is_decided_again_on_the_stored_game(
        conn: redis.Redis, created: list[str]) -> None:
    here, there = GameService(conn), GameService(conn)
    game_id = _three_seats(here, created)
    behind = here.load(game_id)  # every seat still to bid: a reveal is refused on this copy
    for seat in range(3):
        there.apply(game_id, seat, Bid(seat, 1 + seat))
    applied = here.apply(game_id, SYSTEM, Reveal(), base=behind)
    assert [e.type for e in applied.entries][0] == "BidsRevealed"
    assert applied.version == there.load(game_id).version and applied.version > behind.version + 3


def test_a_guarded_seat_that_left_is_refused_even_when_its_copy_did_not_know(
        conn: redis.Redis, created: list[str]) -> None:
    here, there = GameService(conn), GameService(conn)
    game_id = _three_seats(here, created)
    behind = here.load(game_id)
    there.resign(game_id, 0)  # seat 0 left; the rules alone still list it to bid
    with pytest.raises(Rejected) as refused:
        here.apply(game_id, 0, Bid(0, 2), base=behind, guard=AppendGuard())
    assert refused.value.kind == RejectKind.NOT_YOUR_TURN and "left this game" in str(refused.value)
    # unguarded (a worker playing the departed seat's default move) it is appended
    assert here.apply(game_id, 0, Bid(0, 1), base=behind).game.state.bids[0] == 1
