"""Config, set-up and the first Start phase (A-rules l.149-177)."""
from __future__ import annotations

import pytest

from domain.artificium import RULES
from domain.artificium import data as D
from domain.artificium.model import CardsDrawn, GameStarted, MarketDealt, Phase, StartTurn, TurnStarted
from domain.core import SYSTEM, Rejected, RejectKind
from domain.games import fold
from domain.rng import Rng
from tests.artificium.helpers import fresh, of_type, step


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_two_to_six_players(players: int) -> None:
    """A-rules l.2: for 2-6 players."""
    config = RULES.config_from_json({"edition": "standard", "players": players})
    assert config.players == players and RULES.config_to_json(config) == {"edition": "standard", "players": players,
                                                                            "rules_version": D.RULES_VERSION}


@pytest.mark.parametrize("bad", [
    {"players": 1}, {"players": 7}, {"players": True}, {"players": "4"}, {"edition": "classic", "players": 4},
    {"players": 4, "exclusion": True}, [],
])
def test_bad_configs_are_rejected(bad: object) -> None:
    with pytest.raises(Rejected) as info:
        RULES.config_from_json(bad)  # type: ignore[arg-type]
    assert info.value.kind is RejectKind.INVALID_CONFIG


def test_each_seat_starts_with_five_coins_at_zero_and_the_rest_is_the_bank() -> None:
    """A-rules l.151-154: markers on 0, 5 coins each, all other tokens form the bank."""
    state = fresh(5)
    assert all(p.coins == 5 and p.vp == 0 and not any(p.resources) and not p.hand for p in state.players)
    assert state.bank == D.TOKEN_POOL - 5 * D.STARTING_COINS
    assert sorted(state.deck) == sorted(D.FULL_DECK) and state.turn == 0 and state.phase is Phase.START
    assert RULES.to_act(state) == {SYSTEM} and RULES.legal_moves(state, SYSTEM) == [StartTurn()]


def test_the_first_player_is_drawn_at_random() -> None:
    """A-rules l.174: the first player is determined randomly (a recorded draw)."""
    firsts = set()
    for i in range(30):
        config = RULES.config_from_json({"players": 4})
        events = RULES.setup(config, Rng(f"s{i}".encode(), "g", 0))
        assert isinstance(events[0], GameStarted) and events[0].draws > 0
        firsts.add(fold(RULES, events).first_player)
    assert firsts == {0, 1, 2, 3}


def test_first_turn_deals_five_cards_each_and_opens_the_market() -> None:
    """A-rules l.171 (5 cards each), l.180-181 (6 market cards; the first player begins)."""
    state, events = step(fresh(4), StartTurn())
    assert of_type(events, TurnStarted) == [TurnStarted(1, state.first_player)]
    assert [len(e.cards) for e in of_type(events, CardsDrawn)] == [5, 5, 5, 5]
    assert len(of_type(events, MarketDealt)[0].cards) == 6
    assert state.phase is Phase.MARKET and RULES.to_act(state) == {state.first_player}
    assert all(len(p.hand) == 5 for p in state.players) and len(state.deck) == 108 - 26


def test_seats_draw_in_turn_order_from_the_first_player() -> None:
    state, events = step(fresh(4), StartTurn())
    seats = [e.seat for e in of_type(events, CardsDrawn)]
    first = state.first_player
    assert seats == [(first + i) % 4 for i in range(4)]


def test_a_seat_cannot_take_the_system_step() -> None:
    with pytest.raises(Rejected) as info:
        RULES.decide(fresh(3), StartTurn(seat=0), Rng(b"s", "g", 0))  # type: ignore[arg-type]
    assert info.value.kind is RejectKind.NOT_YOUR_TURN
