"""Memos left on states by a whole game are never stale: replace keeps those whose fields did not
change, and the fold carries place_map over slot-only changes (evolve.with_slots)."""
from __future__ import annotations

import dataclasses

import pytest

from domain.orleans import RULES
from domain.orleans.dispatch import to_act
from domain.orleans.followers import occupied_spaces
from domain.orleans.memo import KEYS
from domain.orleans.model import place_map
from domain.orleans.planning import free_spaces
from domain.orleans.queries import activated_places
from domain.selfplay import play

PLAYER_MEMOS = {KEYS[query]: query for query in (place_map, activated_places, free_spaces, occupied_spaces)}


def _bare(obj):
    """The same dataclass without any memoised value."""
    return type(obj)(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})


@pytest.mark.parametrize(("edition", "players", "bots"), [("classic", 4, "random"), ("2023", 3, "greedy")])
def test_every_memo_left_on_a_state_equals_a_fresh_derivation(edition, players, bots):
    """After every batch of a whole game, each memo still present on a Player (place_map,
    activated places, free and occupied spaces) or on the State (to_act, the listed moves) equals
    what a memo-less copy derives."""
    config = RULES.config_from_json({"edition": edition, "players": players})
    game = play(RULES, config, b"memo-check", f"memo-{edition}-{bots}", [bots])
    state, checked = None, 0
    for _, events in game.batches:
        for event in events:
            state = RULES.evolve(state, event)
        for seat in range(players):
            RULES.legal_moves(state, seat)  # computes the memos, as play does on its own path
        for p in state.players:
            bare = _bare(p)
            for key, derive in PLAYER_MEMOS.items():
                if key in p.__dict__:
                    assert p.__dict__[key] == derive(bare), key
                    checked += 1
        bare = _bare(state)
        assert to_act(state) == to_act(bare)
        for seat, moves in state.__dict__.get("_listed", {}).items():
            assert list(moves) == RULES.legal_moves(bare, seat)
    assert checked > 1000


def test_a_recall_keeps_place_map_and_rederives_the_rest():
    config = RULES.config_from_json({"edition": "classic", "players": 2})
    game = play(RULES, config, b"memo-recall", "memo-recall", ["random"])
    state = None
    for command, events in game.batches:
        if type(command).__name__ == "RecallFollower":
            before = state.players[command.seat]
            place_map(before), occupied_spaces(before)
            after = RULES.step(state, command, None)[1].players[command.seat]
            assert after.__dict__["_place_map"] is before.__dict__["_place_map"]
            assert KEYS[occupied_spaces] not in after.__dict__
            assert occupied_spaces(after) == occupied_spaces(_bare(after)) != occupied_spaces(before)
            return
        for event in events:
            state = RULES.evolve(state, event)
    pytest.fail("no recall in the game")
