"""Issue 26: the shortcuts the move listing takes (Travel candidates limited to the routes that
touch the builder's place; a Deliver or Travel type skipped when ``market_open``/``may_travel``
refuse; command objects built once) list exactly what the plain definitions list: every
candidate of the type through its validator. Checked on every position of seeded games."""
from __future__ import annotations

from typing import Any

import pytest

from domain.cathedral import RULES, market, moves, travel, turn
from domain.cathedral import data as D
from domain.cathedral.data import Item, Route, Space
from domain.cathedral.model import Deliver, PlaceFollower, State, Target, Travel
from tests.cathedral.test_hidden import positions


def plain_candidates(state: State, seat: int, cls: type) -> list[Any]:
    """Every command of ``cls`` a seat could name, built afresh (no route or item left out)."""
    if cls is Travel:
        return [Travel(seat, route) for route in Route]
    if cls is Deliver:
        others = [p for p in range(state.config.players) if p != seat]
        return [Deliver(seat, item, to, player) for item in Item
                for to, player in [(Target.HOUR_GLASS, None), (Target.WORKSHOP, None),
                                   *((Target.PLAYER, p) for p in others)]]
    if cls is PlaceFollower:
        return [PlaceFollower(seat, space) for space in Space]
    return list(moves.COMMAND_RULES[cls].candidates(state, seat))


def plain_options(state: State, seat: int, cls: type) -> list[Any]:
    validate = moves.COMMAND_RULES[cls].validate
    return [m for m in plain_candidates(state, seat, cls) if validate(state, m) is None]


def plain_action_possible(state: State) -> bool:
    if state.pending is None:
        return False
    return any(plain_options(state, state.active, cls) for cls in moves.ACTION_COMMANDS.get(state.pending.action, ()))


@pytest.mark.parametrize("players,edition,seed_index", [(2, "standard", 910), (3, "expert", 911), (4, "standard", 912)])
def test_the_listing_shortcuts_list_what_the_validators_accept(players: int, edition: str, seed_index: int) -> None:
    states, _ = positions(players, edition, seed_index)
    shut_seen = {Deliver: 0, Travel: 0}
    for state in states:
        if RULES.is_finished(state):
            continue
        assert moves.action_possible(state) == plain_action_possible(state), (state.round, state.step)
        for seat in range(players):
            for cls in (Travel, Deliver, PlaceFollower):
                listed = moves.options(state, seat, (cls,))
                plain = plain_options(state, seat, cls)
                # the same moves; Deliver's plain list runs over every Item, the listing over the knapsack
                assert sorted(map(repr, listed)) == sorted(map(repr, plain)), (cls.__name__, seat, state.step)
                if cls is not Deliver:
                    assert listed == plain  # and in the same order
            for cls, shut in moves.SHUT.items():
                why = shut(state)
                if why:
                    shut_seen[cls] += 1
                    validate = moves.COMMAND_RULES[cls].validate
                    assert all(validate(state, m) == why for m in plain_candidates(state, seat, cls))
    assert shut_seen[Deliver] > 50 and shut_seen[Travel] > 50, shut_seen


def test_shared_command_values_are_the_ones_a_seat_would_build() -> None:
    state = positions(3, "standard", 913)[0][-1]
    for seat in range(3):
        assert list(turn.candidates_place(state, seat)) == [PlaceFollower(seat, s) for s in Space]
        here = state.builders[seat]
        assert list(travel.candidates_travel(state, seat)) == [
            Travel(seat, r) for r in Route if D.ROUTES[r].other_end(here) is not None]
        assert list(market.candidates_deliver(state, seat)) == [
            Deliver(seat, item, to, player) for item in dict.fromkeys(state.knapsacks[seat])
            for to, player in [(Target.HOUR_GLASS, None), (Target.WORKSHOP, None),
                               *((Target.PLAYER, p) for p in range(3) if p != seat)]]
