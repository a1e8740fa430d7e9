"""Issue 26: the fast greedy bot (a per-decision cache of simulated moves and estimates, a
leaner fold) must pick exactly what the bot before it picked, with the same rng, on positions of
seeded games of every seat count and both editions."""
from __future__ import annotations

import pytest

from domain.bots import bot_rng, cathedral_greedy
from domain.cathedral import RULES
from tests.cathedral import greedy_reference
from tests.cathedral.test_hidden import positions


@pytest.mark.parametrize("players,edition,seed_index", [(2, "standard", 900), (3, "expert", 901), (4, "standard", 902)])
def test_the_fast_bot_picks_what_the_reference_picks(players: int, edition: str, seed_index: int) -> None:
    states, _ = positions(players, edition, seed_index)
    compared = 0
    for version, state in enumerate(states):
        if RULES.is_finished(state):
            continue
        for seat in sorted(s for s in RULES.to_act(state) if isinstance(s, int) and 0 <= s < players):
            moves = RULES.legal_moves(state, seat)
            if len(moves) < 2:
                continue
            new = cathedral_greedy.choose(RULES, state, seat, moves, bot_rng(b"same", "g", seat, version))
            old = greedy_reference.choose(RULES, state, seat, moves, bot_rng(b"same", "g", seat, version))
            assert new == old, (version, seat, state.round, state.step)
            compared += 1
    assert compared >= 80, compared  # rules 3 (re-tuned tables): seat 2's game at seed 900 compares 88
