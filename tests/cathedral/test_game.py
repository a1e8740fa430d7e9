"""The plugin (domain.core.GamePlugin): registry, JSON edges, timeouts and default moves, the
summary, the view and the shared result."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from domain.cathedral import RULES
from domain.cathedral.data import Bag, Follower, Item, Place, Reward, Route, Space
from domain.cathedral.model import (
    SYSTEM,
    ApplyTimeout,
    Deliver,
    DrawFollower,
    EndTurn,
    FinishAction,
    Forgo,
    GiveRosette,
    MakeGlass,
    PaintGlass,
    PlaceFollower,
    PutMonk,
    Rest,
    TakeItem,
    Target,
    TimeoutApplied,
    Travel,
)
from domain.core import GamePlugin, GameRules, Rejected, RejectKind
from domain.games import fold, game_names, get_game, step
from domain.rng import Rng
from tests.cathedral.helpers import fresh, holding, knapsack, occupy, placed, play

COMMANDS = [
    ApplyTimeout(1), DrawFollower(0, Bag.BLUE), PlaceFollower(2, Space.B5), Travel(0, Route.TOURS_BOURGES),
    TakeItem(1, 15, Item.WOOD), TakeItem(1, 3), Deliver(0, Item.ROSETTE, Target.PLAYER, 2),
    Deliver(3, Item.STONE, Target.WORKSHOP), MakeGlass(0), MakeGlass(0, Item.BREAD), PaintGlass(1), FinishAction(2),
    GiveRosette(0, 3, None), GiveRosette(1, 1, Item.STONE), PutMonk(0, Bag.RED), Forgo(2), Rest(1), EndTurn(0),
]


def test_registered_under_its_name_with_its_engine_version() -> None:
    rules: GameRules = get_game("cathedral")
    assert rules is RULES and "cathedral" in game_names() and RULES.engine_version == "cathedral-3"
    assert isinstance(RULES, GamePlugin)


def test_step_equals_decide_then_fold() -> None:
    state = fresh(3)
    command = DrawFollower(0, Bag.RED)
    events, after = step(RULES, state, command, Rng(b"s", "g", state.draws))
    assert events == RULES.decide(state, command, Rng(b"s", "g", state.draws))
    assert after == fold(RULES, events, state)


@pytest.mark.parametrize("command", COMMANDS)
def test_commands_survive_json(command: object) -> None:
    data = json.loads(json.dumps(RULES.command_to_json(command)))
    assert RULES.command_from_json(data) == command
    move = RULES.move_to_json(command)
    assert "seat" not in move
    if not isinstance(command, ApplyTimeout):
        assert RULES.command_from_json(move, command.seat) == command  # type: ignore[attr-defined]


@pytest.mark.parametrize("data,kind", [
    ({"type": "Nope"}, RejectKind.UNKNOWN_MOVE),
    ({"type": "DrawFollower", "bag": "black"}, RejectKind.MALFORMED),
    ({"type": "DrawFollower"}, RejectKind.MALFORMED),
    ({"type": "DrawFollower", "bag": "red", "seat": 1}, RejectKind.MALFORMED),
    ({"type": "TakeItem", "spot": "3"}, RejectKind.MALFORMED),
    ({"type": "TakeItem", "spot": True}, RejectKind.MALFORMED),
    ({"type": "Deliver", "item": "gold", "to": "player"}, RejectKind.MALFORMED),
    ({"type": "PlaceFollower", "space": "R9"}, RejectKind.MALFORMED),
    ({"type": "ApplyTimeout", "target": 1}, RejectKind.NOT_YOUR_TURN),
    ([], RejectKind.MALFORMED),
])
def test_bad_moves_from_a_seat_are_refused_with_their_kind(data: object, kind: RejectKind) -> None:
    with pytest.raises(Rejected) as info:
        RULES.command_from_json(data, 0)  # type: ignore[arg-type]
    assert info.value.kind is kind


def test_a_move_of_the_wrong_moment_is_wrong_phase() -> None:
    state = fresh(3)
    with pytest.raises(Rejected) as info:
        RULES.decide(state, PlaceFollower(0, Space.R1), Rng(b"s", "g", state.draws))
    assert info.value.kind is RejectKind.WRONG_PHASE


def test_the_worker_timeout_command_decodes_for_the_system() -> None:
    assert RULES.command_from_json({"type": "ApplyTimeout", "target": 2}, SYSTEM) == ApplyTimeout(2)


def test_a_timeout_applies_the_default_move_of_the_seat_to_act() -> None:
    state = fresh(3)
    assert RULES.legal_moves(state, SYSTEM) == [ApplyTimeout(0)] and RULES.default_move(state, SYSTEM) == ApplyTimeout(0)
    events = RULES.decide(state, ApplyTimeout(0), Rng(b"s", "g", state.draws))
    assert events[0] == TimeoutApplied(0, "DrawFollower")
    with pytest.raises(Rejected) as info:
        RULES.decide(state, ApplyTimeout(1), Rng(b"s", "g", state.draws))
    assert info.value.kind is RejectKind.ILLEGAL_MOVE


def test_default_moves_are_the_mildest_legal_moves() -> None:
    """Draw red; a refusable space first, the Bell Tower last; stop the action; a rosette into
    one's own knapsack (left if full); a Monk into the red bag; end the turn without resting."""
    state = fresh(3)
    assert RULES.default_move(state, 0) == DrawFollower(0, Bag.RED)
    assert RULES.default_move(replace(state, red_bag=()), 0) == DrawFollower(0, Bag.BLUE)
    assert RULES.default_move(holding(state, Follower.KNIGHT), 0) == PlaceFollower(0, Space.R1)
    crowded = holding(occupy(state, Space.R1, Space.R2, Space.R5), Follower.KNIGHT)
    assert RULES.default_move(crowded, 0) == PlaceFollower(0, Space.R7)
    assert RULES.default_move(holding(occupy(state, Space.R1, Space.R2, Space.R5, Space.R7, Space.B7),
                                      Follower.KNIGHT), 0) == PlaceFollower(0, Space.BT)
    assert RULES.default_move(placed(state, Space.R1, Follower.KNIGHT), 0) == FinishAction(0)
    assert RULES.default_move(replace(state, rewards=(Reward.ROSETTE,)), 0) == GiveRosette(0, 0)
    full = knapsack(state, 0, Item.WOOD, Item.WOOD, Item.STONE, Item.BREAD, Item.BREAD)
    assert RULES.default_move(replace(full, rewards=(Reward.ROSETTE,)), 0) == Forgo(0)
    assert RULES.default_move(replace(state, rewards=(Reward.MONK,)), 0) == PutMonk(0, Bag.RED)
    ended, _ = play(placed(full, Space.R4, Follower.TRADER), FinishAction(0))
    assert RULES.default_move(ended, 0) == EndTurn(0)
    for crafted in (state, crowded, ended):
        assert RULES.default_move(crafted, crafted.active) in RULES.legal_moves(crafted, crafted.active)


def test_nobody_has_a_default_move_in_a_finished_game() -> None:
    state = replace(fresh(3), round=3)
    state, _ = play(holding(state, Follower.FARMER), PlaceFollower(0, Space.BT))
    with pytest.raises(Rejected):
        RULES.default_move(state, 0)


def test_summary_view_and_result_shapes() -> None:
    state = fresh(4)
    summary = RULES.summary(state)
    assert summary == {"phase": "draw", "round": 1, "active": 0, "to_act": [0], "sections_built": 0,
                       "finished": False}
    view = RULES.view(state, 2)
    assert view["you"] == 2 and view["stage"] == "draw" and view["result"] is None
    assert view["seats"][3] == {"seat": 3, "builder": Place.ORLEANS.value,
                                "knapsack": [state.knapsacks[3][0].value]}
    assert len(view["board"]["routes"]) == 13 and len(view["spots"]) == 16 and len(view["board"]["spaces"]) == 15
    assert view["sections"] == {"built": 0, "needed": 8} and view["hour_glass_stack"] == 2
    assert json.loads(json.dumps(view)) == view
    assert json.loads(json.dumps(RULES.state_to_json(state)))["round"] == 1
    assert RULES.result(state) is None
