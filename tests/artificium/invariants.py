"""Invariants every reachable Artificium state keeps (checked after every event of the playouts)."""
from __future__ import annotations

from collections import Counter

from domain.artificium import data as D
from domain.artificium.model import Phase, State, sort_cards, tables

FULL = Counter(D.FULL_DECK)


def cards_everywhere(state: State) -> Counter:
    places = Counter(state.deck) + Counter(state.discard) + Counter(state.market)
    for p in state.players:
        places += Counter(p.hand) + Counter(p.played)
        places += Counter(c for c in (p.committed, p.revealed) if c is not None)
    return places


def check(state: State) -> None:
    assert cards_everywhere(state) == FULL, "every card is in exactly one place"
    held = sum(p.coins + sum(p.resources) for p in state.players)
    assert state.bank + held == D.TOKEN_POOL, "tokens are conserved between the bank and the seats"
    if tables(state).bank_is_limited:  # rules 2: the box holds 100 tokens (A-rules l.22, A§5.1)
        assert state.bank >= 0, f"the bank shows {state.bank} tokens"
    for i, p in enumerate(state.players):
        assert p.coins >= 0 and min(p.resources) >= 0, (i, p.coins, p.resources)
        assert p.vp >= 0, f"seat {i} has negative VP"
        assert p.hand == sort_cards(p.hand)
        assert not (p.committed and p.revealed)
    assert state.discard == sort_cards(state.discard) and state.market == sort_cards(state.market)
    assert 0 <= state.turn <= D.TURNS
    assert 0 <= state.first_player < state.config.players
    if state.phase is Phase.COMMIT:
        assert all(p.revealed is None for p in state.players)
    if state.phase is Phase.RESOLVE:
        assert all(p.committed is None for p in state.players)
        assert all(state.players[s].revealed is not None for s in state.queue[1:])
    if state.phase is Phase.MARKET:
        assert len(state.market) <= D.MARKET_CARDS
    else:
        assert not state.market


def check_between_commands(state: State) -> None:
    """What holds once a command's events are all folded (inside a batch it may not, for one event)."""
    check(state)
    if state.phase is not Phase.FINISHED:
        assert state.deck or not state.discard, "an empty draw pile is refilled at once (A-rules l.255)"
    assert state.turn == D.TURNS or state.phase is not Phase.FINISHED
