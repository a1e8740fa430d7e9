"""The registry helpers of domain.games: fold and step."""
from __future__ import annotations

import importlib

from domain.games import fold, step
from domain.orleans import RULES
from domain.orleans.model import RevealHourglass
from domain.rng import Rng


def test_step_without_a_game_step_is_decide_then_fold():
    from domain.toy import RULES as TOY
    from domain.toy.model import Bid

    assert TOY.step is None  # the toy game declares no step of its own
    state = fold(TOY, TOY.setup(TOY.config_from_json({"edition": "classic", "players": 2}), Rng(b"s", "g", 0)))
    events, after = step(TOY, state, Bid(1, 2), Rng(b"s", "g", state.draws))
    assert events == TOY.decide(state, Bid(1, 2), Rng(b"s", "g", state.draws))
    assert after == fold(TOY, events, state) and after.bids == (None, 2)


def test_orleans_step_equals_decide_then_fold():
    config = RULES.config_from_json({"edition": "classic", "players": 3})
    state = fold(RULES, RULES.setup(config, Rng(b"s", "g", 0)))
    events, after = step(RULES, state, RevealHourglass(), Rng(b"s", "g", state.draws))
    assert events == RULES.decide(state, RevealHourglass(), Rng(b"s", "g", state.draws))
    assert after == fold(RULES, events, state) and after.round == 1


def test_provisional_commands_are_what_each_game_declares_and_empty_by_default():
    """The commands after which a seat that stays to act is still in the same decision (core/clocks.py
    runs one stint over them): every name is a command of that game, and a game without the
    declaration has none."""
    from domain.games import get_game, provisional
    from domain.toy import RULES as TOY

    assert provisional(TOY) == frozenset()
    declared = {name: provisional(get_game(name)) for name in ("orleans", "artificium", "cathedral")}
    assert declared == {
        "orleans": {"RecallFollower", "DrawFollowers", "LoadTower", "UnloadTower", "PlaceFollower", "TakeBackFollower",
                    "MoveToTower"},
        "artificium": {"BuyResource", "SellResource", "DiscardFromHand"},
        "cathedral": frozenset(),
    }
    for name, names in declared.items():  # real seat commands of that game
        model = importlib.import_module(f"domain.{name}.model")
        assert names <= {c.__name__ for c in model.SEAT_COMMANDS}
