"""Builders for the Artificium scenario tests: start from a real set-up, then craft the state.

Every scenario starts from ``fresh(players)`` and changes only what it needs with
``dataclasses.replace`` / ``with_player``. Commands go through ``RULES.decide`` exactly as the
service sends them; ``play`` also checks the command is listed and that ``RULES.step`` agrees.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from domain.artificium import RULES
from domain.artificium.data import Card, Resource
from domain.artificium.evolve import with_player
from domain.artificium.model import NO_RESOURCES, RESOURCE_INDEX, Phase, StartTurn, State, sort_cards
from domain.core import Rejected, RejectKind
from domain.games import fold
from domain.rng import Rng

SEED = b"seed"
GAME = "g"


def rng(state: State) -> Rng:
    return Rng(SEED, GAME, state.draws)


@cache
def fresh(players: int = 4, seed: bytes = SEED) -> State:
    """The state right after set-up (states are frozen, so caching is safe)."""
    config = RULES.config_from_json({"edition": "standard", "players": players})
    return fold(RULES, RULES.setup(config, Rng(seed, GAME, 0)))


def step(state: State, command: Any) -> tuple[State, list[Any]]:
    """Decide and fold one command; returns (new state, events). Checks ``RULES.step`` on the way."""
    events = RULES.decide(state, command, rng(state))
    new = fold(RULES, events, state)
    assert RULES.step(state, command, rng(state)) == (events, new)
    return new, events


def play(state: State, command: Any) -> tuple[State, list[Any]]:
    """Like ``step`` but first checks the command is among the actor's legal moves."""
    moves = RULES.legal_moves(state, command.seat)
    assert command in moves, f"{command} not in legal moves {moves}"
    return step(state, command)


def rejected(state: State, command: Any, kind: RejectKind = RejectKind.ILLEGAL_MOVE) -> Rejected:
    """Assert the command is refused with ``kind`` and not listed."""
    with pytest.raises(Rejected) as info:
        RULES.decide(state, command, rng(state))
    assert info.value.kind is kind, info.value
    assert command not in RULES.legal_moves(state, command.seat)
    return info.value


def of_type(events: Iterable[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def resources(**counts: int) -> tuple[int, ...]:
    out = list(NO_RESOURCES)
    for name, n in counts.items():
        out[RESOURCE_INDEX[Resource(name)]] = n
    return tuple(out)


def have(state: State, seat: int, resource: Resource) -> int:
    return state.players[seat].resources[RESOURCE_INDEX[resource]]


def give(state: State, seat: int, **changes: Any) -> State:
    """Change one seat; ``hand`` may be any iterable of cards (it is sorted)."""
    if "hand" in changes:
        changes["hand"] = sort_cards(changes["hand"])
    return with_player(state, seat, **changes)


def take_out(state: State, cards: Iterable[Card]) -> State:
    """Remove the given cards from the deck (so a crafted hand keeps 108 cards in the game)."""
    deck = list(state.deck)
    for c in cards:
        deck.remove(c)
    return replace(state, deck=tuple(deck))


def started(players: int = 4) -> State:
    """Turn 1 after StartTurn: hands dealt, the market open, the first player to act."""
    state, _ = step(fresh(players), StartTurn())
    return state


def resolving(players: int, seat: int, card: Card, hand: Iterable[Card] = (), **changes: Any) -> State:
    """Turn 1, step 1: ``seat`` has revealed ``card`` and is first to resolve; every other seat has passed.

    Cards are conserved: the crafted hand and the revealed card come out of the deck, the dealt
    hands and market go back into it.
    """
    base = fresh(players)
    hand = tuple(hand)
    state = take_out(base, (card,) + hand)
    players_ = tuple(replace(p, passed=i != seat) for i, p in enumerate(state.players))
    state = replace(state, players=players_, turn=1, phase=Phase.RESOLVE, step=1, queue=(seat,))
    return give(state, seat, hand=hand, revealed=card, **changes)


def under_rules(state: State, version: int) -> State:
    """The same state in a game played by rules ``version`` (its config records the version)."""
    return replace(state, config=replace(state.config, rules_version=version))
