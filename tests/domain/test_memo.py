"""Memoised derived values on frozen states: never stale, never visible."""
from __future__ import annotations

from domain.orleans import RULES
from domain.orleans.dispatch import to_act
from domain.orleans.evolve import replace, with_player
from domain.orleans.model import Phase, Slots, place_map
from domain.orleans.queries import activated, activated_places
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
