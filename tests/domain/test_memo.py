"""Memoised derived values on frozen states: never stale, never visible."""
from __future__ import annotations

import dataclasses

import pytest

from domain.orleans import RULES
from domain.orleans.dispatch import to_act
from domain.orleans.evolve import replace, with_player
from domain.orleans.followers import occupied_spaces
from domain.orleans.model import Phase, Slots, place_map
from domain.orleans.planning import free_spaces
from domain.orleans.queries import activated, activated_places
from domain.selfplay import play
from tests.domain.scenario_helpers import fresh


def test_to_act_is_recomputed_after_any_change():
    s = fresh()
    assert to_act(s) == {"system"}
    s2 = replace(s, phase=Phase.ACTIONS, turn=2)
    assert to_act(s2) == {2} and to_act(s) == {"system"}


def test_place_memos_survive_other_changes_and_follow_the_places():
    s = fresh()
    p = s.players[0]
    assert "cellar" not in place_map(p) and not activated(p, "castle")
    richer = replace(p, coins=9)
    assert richer.__dict__["_place_map"] is p.__dict__["_place_map"]  # kept: places did not change
    castle = p.places[place_map(p)["castle"]]
    moved = replace(p, places=(*p.places, Slots("cellar", (None, None))))
    assert "_place_map" not in moved.__dict__ and "_activated" not in moved.__dict__
    assert "cellar" in place_map(moved)
    filled = with_player(s, 0, places=tuple(
        Slots("castle", ("farmer", "boatman", "trader")) if x is castle else x for x in p.places))
    assert activated(filled.players[0], "castle")


def test_memos_are_invisible_to_equality_and_json():
    s = fresh()
    bare = replace(s, round=s.round)
    to_act(s), place_map(s.players[0]), activated_places(s.players[0])
    assert s == bare and hash(s.players[0]) == hash(bare.players[0])
    assert RULES.state_to_json(s) == RULES.state_to_json(bare)


def _bare(obj):
    """The same dataclass without any memoised value."""
    return type(obj)(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})


@pytest.mark.parametrize(("edition", "players", "bots"), [("classic", 4, "random"), ("2023", 3, "greedy")])
def test_every_memo_left_on_a_state_equals_a_fresh_derivation(edition, players, bots):
    """Memos survive replace when their fields did not change, and evolve carries place_map over
    slot-only changes: after every decision of a whole game, each memo still present equals what
    a memo-less copy derives."""
    config = RULES.config_from_json({"edition": edition, "players": players})
    game = play(RULES, config, b"memo-check", f"memo-{edition}-{bots}", [bots])
    state, checked = None, 0
    for _, events in game.batches:
        for event in events:
            state = RULES.evolve(state, event)
        for seat in range(players):
            RULES.legal_moves(state, seat)  # compute the memos, as play does on its own path
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


PLAYER_MEMOS = {"_place_map": place_map, "_activated": activated_places, "_free_spaces": free_spaces,
                "_occupied": occupied_spaces}
