"""Hidden information: hands, the draw pile's order and sealed cards never leak (design.md).

Property: a seat's ``view`` and ``event_view`` do not change when everything it may not see is
changed (other seats' hands and sealed cards, the deck order); a spectator's do not change when
any seat's hidden data changes. Checked over many positions of random playouts.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from domain.artificium import RULES
from domain.artificium.data import Card
from domain.artificium.model import (
    CardCommitted,
    CardExplored,
    CardsDrawn,
    DeckReshuffled,
    GameStarted,
    Phase,
    State,
    sort_cards,
)
from domain.canonical import canonical_json
from tests.artificium.test_playout import playout

OTHER = {c: list(Card)[(i + 5) % len(Card)] for i, c in enumerate(Card)}  # a different kind for each kind


def disguise(state: State, keep: int | None) -> State:
    """The same position with every hidden thing ``keep`` may not see changed."""
    players = tuple(
        p if seat == keep else replace(
            p, hand=sort_cards(OTHER[c] for c in p.hand),
            committed=None if p.committed is None else OTHER[p.committed])
        for seat, p in enumerate(state.players))
    return replace(state, players=players, deck=state.deck[::-1])


def disguise_event(event: Any) -> Any:
    if isinstance(event, (GameStarted, DeckReshuffled)):
        return replace(event, deck=event.deck[::-1])
    if isinstance(event, CardsDrawn):
        return replace(event, cards=tuple(OTHER[c] for c in event.cards))
    if isinstance(event, (CardCommitted, CardExplored)):
        return replace(event, card=OTHER[event.card])
    return event


def viewers(state: State) -> list[int | None]:
    return [None, *range(state.config.players)]


def positions(players: int, seed_index: int) -> tuple[list[State], list[Any]]:
    state, log = playout(players, seed_index)
    states, current = [], None
    for event in log:
        current = RULES.evolve(current, event)
        states.append(current)
    return states, log


@pytest.mark.parametrize("players,seed_index", [(2, 0), (3, 1), (4, 2), (5, 3), (6, 4)])
def test_no_view_shows_what_its_seat_may_not_see(players: int, seed_index: int) -> None:
    states, _ = positions(players, seed_index)
    sealed_seen = 0
    for state in states[::3]:
        if state.phase is Phase.COMMIT and any(p.committed for p in state.players):
            sealed_seen += 1
        for seat in viewers(state):
            assert RULES.view(state, seat) == RULES.view(disguise(state, seat), seat), (seat, state.phase)
    assert sealed_seen, "the sample must contain sealed cards"


@pytest.mark.parametrize("players,seed_index", [(2, 5), (4, 6), (6, 7)])
def test_no_event_view_shows_what_its_seat_may_not_see(players: int, seed_index: int) -> None:
    _, log = positions(players, seed_index)
    hidden_kinds = set()
    for event in log:
        other = disguise_event(event)
        owners = {getattr(event, "seat", None), getattr(event, "target", None)} - {None}
        for seat in [None, *range(players)]:
            if other is not event and seat not in owners:
                assert RULES.event_view(event, seat) == RULES.event_view(other, seat), (seat, event)
                hidden_kinds.add(type(event).__name__)
    assert {"GameStarted", "CardsDrawn", "CardCommitted"} <= hidden_kinds


def test_a_seat_sees_its_own_hand_and_sealed_card_and_no_one_elses() -> None:
    states, _ = positions(4, 8)
    state = next(s for s in states if s.phase is Phase.COMMIT and sum(p.committed is not None for p in s.players) >= 2)
    sealed = [i for i, p in enumerate(state.players) if p.committed is not None]
    for seat in sealed:
        mine = RULES.view(state, seat)["seats"]
        assert mine[seat]["committed_card"] == state.players[seat].committed.value
        assert mine[seat]["hand"] == [c.value for c in state.players[seat].hand]
        for other in range(4):
            if other != seat:
                assert "hand" not in mine[other] and "committed_card" not in mine[other]
                assert mine[other]["committed"] is (state.players[other].committed is not None)
    spectator = RULES.view(state, None)
    assert all("hand" not in s and "committed_card" not in s for s in spectator["seats"])
    assert "deck" not in spectator and isinstance(spectator["deck_count"], int)
    text = canonical_json(spectator)
    assert "committed_card" not in text


def test_redacted_event_forms() -> None:
    drawn = CardsDrawn(1, (Card.FARM, Card.CASTLE))
    assert RULES.event_view(drawn, 1)["cards"] == ["farm", "castle"]
    assert RULES.event_view(drawn, 0) == {"type": "CardsDrawn", "seat": 1, "count": 2, "hidden": True}
    assert RULES.event_view(CardCommitted(2, Card.FAIR), None) == {"type": "CardCommitted", "seat": 2, "hidden": True}
    explored = CardExplored(0, 2, Card.FAIR, 7)
    assert RULES.event_view(explored, 2)["card"] == "fair" and RULES.event_view(explored, 0)["card"] == "fair"
    assert "card" not in RULES.event_view(explored, 1)
    assert RULES.event_view(DeckReshuffled((Card.FARM, Card.FAIR), 3), 0)["deck"] == 2
