"""Scenario tests — rules 5 (D15): the Gunpowder Tower's copy of a character.

The Gunpowder Tower "expands your Market by 2 spaces"; in phase 3 its owner puts 1 or 2 characters
on it, and in planning "you can place one or both of these tiles on Action Spaces" (R14 l.675-678;
in German, R14 l.662-666). A placement therefore says which copy it takes (``from_tower``), a take-back
returns the tile to that copy's spaces, and in phase 3 a tower character may go back to a free
space of the market proper. Rules 4 games keep the old reading (the market's copy first; a
take-back went to the tower whenever the tower had lent that kind).
"""
from __future__ import annotations

from domain.core import SYSTEM
from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.data import Char
from domain.orleans.evolve import with_player
from domain.orleans.model import (
    ApplyTimeout,
    DrawFollowers,
    FinishLoading,
    FinishPlanning,
    FollowerPlaced,
    LoadTower,
    PlaceFollower,
    TakeBackFollower,
    TowerLoadingBegan,
    TowerLoadingEnded,
    TowerUnloaded,
    UnloadTower,
)
from tests.domain.scenario_helpers import (
    SF,
    B,
    F,
    K,
    M,
    S,
    fresh,
    in_followers,
    in_planning,
    of_type,
    play,
    rejected,
    slots,
    step,
    with_place,
    with_track,
)


def tower_planning(market, tower, rules_version=5):
    s = in_planning(fresh("classic", 3, rules_version=rules_version))
    s = with_place(s, 0, "gunpowder_tower")
    return with_player(s, 0, market=tuple(market), tower=tuple(tower))


def tower_followers(market, tower, rules_version=5):
    """Phase 3, seat 0 owns the Gunpowder Tower and may draw 8 (Knights track space 5)."""
    s = in_followers(fresh("classic", 3, rules_version=rules_version))
    for seat in range(3):
        s = with_player(s, seat, market=(), bag=(F, F, K, K, S, M))
    s = with_track(s, 0, Char.KNIGHT, 5)
    s = with_place(s, 0, "gunpowder_tower")
    return with_player(s, 0, market=tuple(market), tower=tuple(tower))


def placements(s, tile):
    return [m for m in RULES.legal_moves(s, 0) if isinstance(m, PlaceFollower) and m.tile is tile]


# --- planning: which copy (R14 l.677-678) -----------------------------------------------------------


def test_both_copies_of_a_kind_on_market_and_tower_are_listed_as_separate_moves():
    s = tower_planning(market=(K,), tower=(K, S))
    ship = [(m.from_tower, m.place, m.space) for m in placements(s, K) if m.place == "ship"]
    assert ship == [(False, "ship", 2), (True, "ship", 2)]
    assert all(m.from_tower for m in placements(s, S))  # the scholar stands only on the tower


def test_the_tower_copy_may_be_placed_while_the_market_holds_one():
    s = tower_planning(market=(K,), tower=(K, S))
    s, events = play(s, PlaceFollower(0, K, "ship", 2, from_tower=True))
    assert events == [FollowerPlaced(0, K, "ship", 2, True)]
    assert s.players[0].market == (K,) and s.players[0].tower == (S,)
    s, _ = play(s, FinishPlanning(0))
    s, _ = play(s, FinishPlanning(1))
    s, _ = play(s, FinishPlanning(2))
    assert slots(s, 0, "ship")[2] == "knight" and s.players[0].market == (K,) and s.players[0].tower == (S,)


def test_a_taken_back_market_knight_returns_to_the_market_though_the_tower_lent_a_knight():
    s = tower_planning(market=(K,), tower=(K, S))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))  # the market's knight
    s, _ = play(s, PlaceFollower(0, K, "wagon", 2, from_tower=True))  # the tower's knight
    assert s.players[0].market == () and s.players[0].tower == (S,)
    s, _ = play(s, TakeBackFollower(0, "ship", 2))
    assert s.players[0].market == (K,) and s.players[0].tower == (S,)  # back where it came from
    s, _ = play(s, TakeBackFollower(0, "wagon", 2))
    assert s.players[0].market == (K,) and s.players[0].tower == (K, S)


def test_rules_4_games_keep_their_reading_market_first_and_the_tower_first_on_a_take_back():
    s = tower_planning(market=(K,), tower=(K, S), rules_version=4)
    assert not any(m.from_tower for m in RULES.legal_moves(s, 0) if isinstance(m, PlaceFollower))
    rejected(s, PlaceFollower(0, K, "ship", 2, from_tower=True))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))  # the market's knight
    s, _ = play(s, PlaceFollower(0, K, "wagon", 2))  # the tower's, the market having none left
    s, _ = play(s, TakeBackFollower(0, "ship", 2))
    assert s.players[0].market == () and s.players[0].tower == (K, S)  # what rules 5 corrects


def test_a_placement_names_a_copy_that_is_there():
    s = tower_planning(market=(K, F), tower=(S,))
    why = rejected(s, PlaceFollower(0, K, "ship", 2, from_tower=True))
    assert "no knight on your Gunpowder Tower" in str(why)
    why = rejected(s, PlaceFollower(0, S, "scriptorium", 1))
    assert "no scholar on your market" in str(why) and "from_tower" in str(why)


def test_a_tower_copy_sent_from_the_plan_is_hidden_from_others_like_any_placement():
    s = tower_planning(market=(K,), tower=(K, S))
    before = RULES.view(s, 1)["seats"][0]
    s2, events = play(s, PlaceFollower(0, K, "ship", 2, from_tower=True))
    seen = [RULES.event_view(e, 1) for e in events]
    assert all(v.get("hidden") for v in seen if v is not None)
    other = RULES.view(s2, 1)["seats"][0]
    assert (other["market"], other["tower"]) == (before["market"], before["tower"]) == (["knight"], ["knight", "scholar"])
    assert RULES.view(s2, 0)["seats"][0]["planned"] == [{"tile": "knight", "place": "ship", "space": 2, "from_tower": True}]


# --- phase 3: the tower's characters back to the market (R14 l.675-677) ------------------------------


def test_a_tower_character_may_go_back_to_the_market_in_phase_3():
    s = tower_followers(market=(F,), tower=(K, S))
    s, events = play(s, DrawFollowers(0, 2))
    assert of_type(events, TowerLoadingBegan)  # the tower is full, but may be unloaded
    assert [m for m in RULES.legal_moves(s, 0) if isinstance(m, UnloadTower)] == [UnloadTower(0, K), UnloadTower(0, S)]
    market = s.players[0].market
    s, events = play(s, UnloadTower(0, K))
    assert events == [TowerUnloaded(0, K)]
    assert s.players[0].tower == (S,) and sorted(s.players[0].market) == sorted(market + (K,))
    assert s.players[0].loading and s.players[0].tower_returns == 1
    s, events = play(s, FinishLoading(0))
    assert of_type(events, TowerLoadingEnded) and s.players[0].tower_returns == 0


def test_returns_are_bounded_so_phase_3_cannot_be_kept_going():
    """Abuse case (D15): at most TOWER_SPACES returns per phase 3, so load/unload cannot loop."""
    s = tower_followers(market=(F,), tower=(K, S))
    s, _ = play(s, DrawFollowers(0, 0))
    moves = 0
    while s.players[0].loading and moves < 50:  # a script that swaps for as long as it may
        unload = [m for m in RULES.legal_moves(s, 0) if isinstance(m, UnloadTower)]
        load = [m for m in RULES.legal_moves(s, 0) if isinstance(m, LoadTower)]
        s, _ = play(s, unload[0] if unload else load[0] if load else FinishLoading(0))
        moves += 1
    assert moves <= 2 * D.TOWER_SPACES + D.TOWER_SPACES + 1
    assert not s.players[0].loading and s.players[0].tower_returns == 0


def test_no_return_into_a_full_market_and_none_in_rules_4():
    s = tower_followers(market=(F,) * 6 + (B, M), tower=(K,))
    s, _ = play(s, DrawFollowers(0, 0))
    assert s.players[0].loading  # the tower has room to load
    why = rejected(s, UnloadTower(0, K))
    assert "full" in str(why)
    old = tower_followers(market=(F,), tower=(K, S), rules_version=4)
    old, events = play(old, DrawFollowers(0, 2))
    assert not of_type(events, TowerLoadingBegan)  # rules 4: a full tower, nothing to load


def test_a_timeout_while_loading_leaves_the_tower_as_it_is():
    s = tower_followers(market=(SF,), tower=(K, S))
    s, _ = play(s, DrawFollowers(0, 0))
    assert s.players[0].loading
    s, events = step(s, ApplyTimeout(0))
    assert not of_type(events, TowerUnloaded) and s.players[0].tower == (K, S) and not s.players[0].loading
    assert ApplyTimeout(0) not in RULES.legal_moves(s, SYSTEM)
