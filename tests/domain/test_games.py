"""The registry helpers of domain.games: fold and step."""
from __future__ import annotations

from domain.games import fold, step
from domain.orleans import RULES
from domain.orleans.model import RevealHourglass
from domain.rng import Rng


class Counter:
    """A minimal game without its own ``step``: the state is the number of events so far."""

    @staticmethod
    def decide(state, command, rng):
        return [f"{command}-{i}" for i in range(command)]

    @staticmethod
    def evolve(state, event):
        return (state or 0) + 1


def test_step_without_a_game_step_is_decide_then_fold():
    assert step(Counter, 5, 3, None) == (["3-0", "3-1", "3-2"], 8)


def test_orleans_step_equals_decide_then_fold():
    config = RULES.config_from_json({"edition": "classic", "players": 3})
    state = fold(RULES, RULES.setup(config, Rng(b"s", "g", 0)))
    events, after = step(RULES, state, RevealHourglass(), Rng(b"s", "g", state.draws))
    assert events == RULES.decide(state, RevealHourglass(), Rng(b"s", "g", state.draws))
    assert after == fold(RULES, events, state) and after.round == 1
