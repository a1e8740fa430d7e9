"""The plugin (domain.core.GamePlugin): registry, JSON edges, timeouts, summary."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from domain.artificium import RULES
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    SYSTEM,
    ApplyTimeout,
    CommitCard,
    DiscardFromHand,
    FinishTurn,
    PassMarket,
    Phase,
    ResolveCard,
    StartTurn,
    TakeCardBack,
    TimeoutApplied,
)
from domain.core import GamePlugin, GameRules, Rejected, RejectKind
from domain.games import fold, get_game, step
from domain.rng import Rng
from tests.artificium.helpers import fresh, give, play, rejected, resolving, resources, started


def test_registered_under_its_name_with_its_engine_version() -> None:
    rules: GameRules = get_game("artificium")
    assert rules is RULES and RULES.name == "artificium" and RULES.engine_version == "artificium-2"
    assert isinstance(RULES, GamePlugin)


def test_step_equals_decide_then_fold() -> None:
    state = fresh(4)
    events, after = step(RULES, state, StartTurn(), Rng(b"s", "g", state.draws))
    assert events == RULES.decide(state, StartTurn(), Rng(b"s", "g", state.draws))
    assert after == fold(RULES, events, state)


@pytest.mark.parametrize("command", [
    StartTurn(), ApplyTimeout(2), PassMarket(1), CommitCard(0, Card.FAIR),
    ResolveCard(0), ResolveCard(1, target=2, resource=Resource.BEER), ResolveCard(3, card=Card.SAWMILL),
    DiscardFromHand(2, Card.CASTLE), FinishTurn(0),
])
def test_commands_survive_json(command: object) -> None:
    data = json.loads(json.dumps(RULES.command_to_json(command)))
    assert RULES.command_from_json(data) == command
    move = RULES.move_to_json(command)
    assert "seat" not in move
    if not isinstance(command, (StartTurn, ApplyTimeout)):
        assert RULES.command_from_json(move, command.seat) == command  # type: ignore[attr-defined]


@pytest.mark.parametrize("data,kind", [
    ({"type": "Nope"}, RejectKind.UNKNOWN_MOVE),
    ({"type": "CommitCard", "card": "joker"}, RejectKind.MALFORMED),
    ({"type": "CommitCard"}, RejectKind.MALFORMED),
    ({"type": "CommitCard", "card": "fair", "seat": 1}, RejectKind.MALFORMED),
    ({"type": "ResolveCard", "target": "1"}, RejectKind.MALFORMED),
    ({"type": "StartTurn"}, RejectKind.NOT_YOUR_TURN),
    ([], RejectKind.MALFORMED),
])
def test_bad_moves_from_a_seat_are_refused_with_their_kind(data: object, kind: RejectKind) -> None:
    with pytest.raises(Rejected) as info:
        RULES.command_from_json(data, 0)  # type: ignore[arg-type]
    assert info.value.kind is kind


def test_the_worker_timeout_command_decodes_for_the_system() -> None:
    assert RULES.command_from_json({"type": "ApplyTimeout", "target": 2}, SYSTEM) == ApplyTimeout(2)


def test_a_timeout_applies_the_default_move() -> None:
    """Defaults keep what the seat has: pass the market; take a revealed card back; finish the turn."""
    state = started(3)
    seat = state.market_turn
    assert seat is not None and RULES.default_move(state, seat) == PassMarket(seat)
    events = RULES.decide(state, ApplyTimeout(seat), Rng(b"seed", "g", state.draws))
    assert events[0] == TimeoutApplied(seat, "PassMarket")
    assert RULES.legal_moves(state, SYSTEM) == [ApplyTimeout(seat)]
    other = (seat + 1) % 3
    with pytest.raises(Rejected) as info:
        RULES.decide(state, ApplyTimeout(other), Rng(b"seed", "g", state.draws))
    assert info.value.kind is RejectKind.ILLEGAL_MOVE


def test_default_moves_in_each_phase() -> None:
    assert RULES.default_move(resolving(3, 0, Card.CASTLE), 0) == TakeCardBack(0)
    owing = replace(give(resolving(3, 0, Card.FARM, hand=[Card.FAIR, Card.CASTLE]), 0, revealed=None),
                    owed_discards=2)
    assert RULES.default_move(owing, 0) == DiscardFromHand(0, Card.CASTLE)
    state = resolving(2, 0, Card.FARM, resources=resources(coal=1))
    state, _ = play(state, ResolveCard(0))
    assert state.phase is Phase.TURN_END and RULES.default_move(state, 0) == FinishTurn(0)
    assert RULES.default_move(state, SYSTEM) == ApplyTimeout(0)


def test_seats_out_of_turn_and_system_commands_out_of_phase() -> None:
    state = started(3)
    not_first = (state.first_player + 1) % 3
    rejected(state, PassMarket(not_first), RejectKind.NOT_YOUR_TURN)
    with pytest.raises(Rejected) as info:
        RULES.decide(state, StartTurn(), Rng(b"seed", "g", state.draws))
    assert info.value.kind is RejectKind.NOT_YOUR_TURN


def test_summary_and_view_shapes() -> None:
    state = started(4)
    summary = RULES.summary(state)
    assert summary["phase"] == "market" and summary["round"] == 1 and summary["to_act"] == [state.first_player]
    view = RULES.view(state, 1)
    assert view["turn_space"] == "I" and len(view["market"]) == 6 and view["result"] is None
    assert json.loads(json.dumps(view)) == view
    assert json.loads(json.dumps(RULES.state_to_json(state)))["turn"] == 1
