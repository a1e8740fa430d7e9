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
    assert "_place_map" not in moved.__dict__ and "_activated_places" not in moved.__dict__
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


def test_to_act_survives_a_players_change_it_does_not_read():
    """to_act reads drew, loading and planned of the players: a placement keeps it, a finished
    plan drops it."""
    s = with_player(replace(fresh(), phase=Phase.PLANNING), 1, planned=True)
    assert to_act(s) == {0, 2, 3}
    placed = with_player(s, 0, pending=(), market=())
    assert placed.__dict__["_to_act"] is s.__dict__["_to_act"]
    done = with_player(s, 0, planned=True)
    assert "_to_act" not in done.__dict__ and to_act(done) == {2, 3}
    assert "_to_act" not in replace(s, players=s.players).__dict__  # the whole field: dropped


def test_stale_keys_of_parts_of_a_field():
    from domain.orleans.memo import _touches

    reads = frozenset({"phase", "players.planned"})
    assert _touches(reads, frozenset({"players"}))  # the whole field reaches its parts
    assert _touches(reads, frozenset({"players.planned", "players.market"}))
    assert not _touches(reads, frozenset({"players.market"}))
    assert _touches(frozenset({"players"}), frozenset({"players.market"}))  # a part reaches its field
