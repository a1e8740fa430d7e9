"""Scenario tests — phase 1 (hour glass), phase 2 (census) and phase 3 (followers)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from domain.core import SYSTEM, RejectKind
from domain.orleans import RULES
from domain.orleans.data import Char, Event, Hourglass, Tile
from domain.orleans.evolve import with_player
from domain.orleans.model import (
    RULES_VERSION,
    ApplyTimeout,
    CoinsChanged,
    DrawFollowers,
    DueAssigned,
    DueForgiven,
    FinishLoading,
    FollowersDrawn,
    GameStarted,
    HourglassRevealed,
    LoadTower,
    Phase,
    PhaseBegan,
    RecallFollower,
    RevealHourglass,
    TakeCensus,
    TimeoutApplied,
    TowerLoaded,
    TowerLoadingBegan,
    TowerLoadingEnded,
)
from tests.domain.scenario_helpers import (
    SB,
    SC,
    SF,
    ST,
    B,
    C,
    F,
    K,
    M,
    S,
    T,
    coins,
    fresh,
    in_followers,
    of_type,
    play,
    rejected,
    slots,
    step,
    system,
    with_goods,
    with_place,
    with_track,
)

# --- phase 1: hour glass ---------------------------------------------------------------------------


def test_reveal_takes_the_top_tile_and_starts_the_round():
    s = fresh("classic", 4)
    top = s.hourglass[0]
    s2, events = system(s, RevealHourglass())
    assert HourglassRevealed(1, top) in events
    assert s2.round == 1 and s2.event == Hourglass(Event.PILGRIMAGE)  # F§7.4 round 1 is Pilgrimage
    assert len(s2.hourglass) == 17 and s2.phase is Phase.CENSUS
    assert RULES.legal_moves(s2, SYSTEM) == [TakeCensus()]


def test_reveal_is_a_system_step_only():
    s = fresh("classic", 4)
    rejected(s, RevealHourglass(seat=0), RejectKind.NOT_YOUR_TURN, listed_check=False)
    rejected(s, TakeCensus(), RejectKind.WRONG_PHASE, listed_check=False)


def test_the_hourglass_deck_order_stays_hidden():
    s = fresh("classic", 4)
    for seat in (0, 1, None):
        view = RULES.view(s, seat)
        assert view["hourglass_remaining"] == 18
        assert view["event"] is None
        assert "hourglass" not in view
        text = json.dumps(view)
        assert "seed" not in text
    started = RULES.event_view(GameStarted(s.config, s.supply, s.removed, s.roads, s.goods_market,
                                           s.removed_goods, s.tech_supply, s.removed_techs, s.hourglass, 0), 0)
    assert started["hourglass"] == 18  # only the count of the hidden deck
    s2, _ = system(s, RevealHourglass())
    assert RULES.view(s2, 0)["event"] == {"event": "pilgrimage", "level": ""}
    assert RULES.view(s2, 0)["hourglass_remaining"] == 17


# --- phase 2: census (F§2.1, F§8.1 census) -----------------------------------------------------------


def census_state(positions, edition="classic", players=4, start_player=0, rules_version=RULES_VERSION):
    s = fresh(edition, players, start_player=start_player, rules_version=rules_version)
    s = replace(s, phase=Phase.CENSUS, round=2, event=Hourglass(Event.INCOME))
    for seat, pos in enumerate(positions):
        s = with_track(s, seat, Char.FARMER, pos)
    return s


def census(positions, **kw):
    s = census_state(positions, **kw)
    s2, events = system(s, TakeCensus())
    return s, s2, events


def test_census_single_leader_gains_and_single_last_pays():
    s, s2, events = census((3, 1, 1, 0))
    assert [coins(s2, i) for i in range(4)] == [6, 5, 5, 4]  # +1 leader, -1 last
    assert s2.phase is Phase.FOLLOWERS


def test_census_tied_leaders_gain_nothing():
    _, s2, _ = census((3, 3, 1, 0))
    assert [coins(s2, i) for i in range(4)] == [5, 5, 5, 4]


def test_census_tied_last_pay_nothing():
    _, s2, _ = census((3, 1, 0, 0))
    assert [coins(s2, i) for i in range(4)] == [6, 5, 5, 5]


def test_census_all_equal_nothing_happens():
    _, s2, events = census((2, 2, 2, 2))
    assert not of_type(events, CoinsChanged)


def test_census_two_players_nobody_pays():
    _, s2, _ = census((2, 0), players=2)
    assert [coins(s2, i) for i in range(2)] == [6, 5]  # R14: in 2-player games the last does not pay
    _, s2, _ = census((0, 4), edition="2023", players=2)
    assert [coins(s2, i) for i in range(2)] == [5, 6]


def test_census_last_player_without_coins_is_tortured():
    s = census_state((3, 1, 1, 0))
    s = with_player(s, 3, coins=0)
    s = with_goods(s, 3, wool=1)
    s2, events = system(s, TakeCensus())
    assert DueAssigned(3, "torture", 1, "census") in events  # R14 Torture: census payments too
    assert RULES.to_act(s2) == frozenset({3})


def test_census_last_player_with_nothing_at_all_is_forgiven():
    s = census_state((3, 1, 1, 0))
    s = with_player(s, 3, coins=0, stations=0, market=(SF, SB, SC, ST), bag=())
    s2, events = system(s, TakeCensus())
    assert DueForgiven(3, 1) in events
    assert s2.dues == ()


def test_classic_census_pays_nothing_while_the_coin_supply_is_empty():
    s = census_state((3, 1, 1, 0))
    s = with_player(s, 0, coins=47 - 15)  # all 47 coins are in players' hands (D11)
    s2, _ = system(s, TakeCensus())
    assert coins(s2, 0) == 32  # no payout
    assert coins(s2, 3) == 4  # paying still works


def test_census_settles_in_turn_order_so_the_last_players_coin_reaches_the_leader():
    # R14 l.533-536 "Turn Order": payments are resolved in turn order from the start player. Seat 3
    # is last on the Farmers track and starts, so its coin is in the empty classic supply (D11)
    # by the time the leader, seat 0, is paid.
    s = census_state((3, 1, 1, 0), start_player=3)
    s = with_player(s, 0, coins=47 - 15)  # all 47 coins are in players' hands
    s2, events = system(s, TakeCensus())
    assert of_type(events, CoinsChanged) == [CoinsChanged(3, -1, "census"), CoinsChanged(0, 1, "census")]
    assert (coins(s2, 0), coins(s2, 3)) == (33, 4)


def test_census_in_turn_order_pays_the_leader_first_when_the_leader_comes_first():
    s = census_state((3, 1, 1, 0), start_player=0)
    s = with_player(s, 0, coins=47 - 15)
    s2, events = system(s, TakeCensus())
    assert of_type(events, CoinsChanged) == [CoinsChanged(3, -1, "census")]  # the supply was empty for seat 0
    assert (coins(s2, 0), coins(s2, 3)) == (32, 4)


def test_rules_2_games_keep_paying_the_census_leader_before_the_last():
    s = census_state((3, 1, 1, 0), start_player=3, rules_version=2)
    s = with_player(s, 0, coins=47 - 15)
    s2, events = system(s, TakeCensus())
    assert of_type(events, CoinsChanged) == [CoinsChanged(3, -1, "census")]
    assert coins(s2, 0) == 32


# --- phase 3: followers (F§2.6, R14 phase 3 and "Placed Character Tiles") --------------------------


def followers_state(seat_changes=None, players=4, rules_version=RULES_VERSION):
    s = in_followers(fresh("classic", players, rules_version=rules_version))
    for seat in range(players):
        s = with_player(s, seat, market=(), bag=(SF, SB, SC, ST, F, F, K, K, S, M))
    return s


@pytest.mark.parametrize("knights,limit", [(0, 4), (1, 5), (2, 6), (3, 7), (4, 7), (5, 8)])
def test_draw_up_to_the_knights_limit(knights, limit):
    s = with_track(followers_state(), 0, Char.KNIGHT, knights)
    s = with_player(s, 0, bag=s.players[0].bag * 2)
    draws = [m for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)]
    assert [m.count for m in draws] == list(range(limit + 1))  # F§2.6 draws per round
    rejected(s, DrawFollowers(0, limit + 1))
    s2, events = play(s, DrawFollowers(0, limit))
    (drawn,) = of_type(events, FollowersDrawn)
    assert len(drawn.tiles) == limit
    assert len(s2.players[0].market) == limit and len(s2.players[0].bag) == 20 - limit


def test_draw_is_limited_by_free_market_spaces():
    s = followers_state()
    s = with_player(s, 0, market=(F, F, B, B, C, C))  # 6 of 8 market spaces taken (F§7.4)
    assert max(m.count for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)) == 2
    rejected(s, DrawFollowers(0, 3))


def test_an_empty_bag_draws_what_it_has():
    s = followers_state()
    s = with_player(s, 0, bag=(K, S))
    assert [m.count for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)] == [0, 1, 2]
    s2, _ = play(s, DrawFollowers(0, 2))
    assert sorted(s2.players[0].market) == sorted((K, S)) and s2.players[0].bag == ()
    s = with_player(s, 0, bag=())
    assert [m for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)] == [DrawFollowers(0, 0)]


def test_each_follower_not_drawn_may_recall_a_character_from_an_action_space():
    s = followers_state()
    s = with_place(s, 0, "castle", (F, None, T))
    s = with_place(s, 0, "monastery", (S, None))
    s, _ = play(s, RecallFollower(0, "castle", 0))
    assert slots(s, 0, "castle") == (None, None, "trader")
    assert F in s.players[0].market
    assert max(m.count for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)) == 3  # 4 - 1
    s, _ = play(s, RecallFollower(0, "castle", 2))
    s, _ = play(s, RecallFollower(0, "monastery", 0))
    assert max(m.count for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)) == 1
    # an empty space has nothing to recall
    rejected(s, RecallFollower(0, "castle", 1))


def test_recalls_are_capped_by_the_draw_limit():
    s = followers_state()
    s = with_place(s, 0, "village", (F, B, C))
    s = with_place(s, 0, "castle", (F, B, T))
    for place, space in (("village", 0), ("village", 1), ("village", 2), ("castle", 0)):
        s, _ = play(s, RecallFollower(0, place, space))
    rejected(s, RecallFollower(0, "castle", 1))  # 4 draws declined, 4 recalls used
    assert [m for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)] == [DrawFollowers(0, 0)]


def test_a_technology_tile_is_never_recalled():
    s = followers_state()
    s = with_place(s, 0, "castle", ("tech", B, T))
    rejected(s, RecallFollower(0, "castle", 0))


FULL = (F, F, B, B, C, C, T, T)


def tower_state(market=FULL, tower=(), knights=5, rules_version=RULES_VERSION):
    """Seat 0 owns the Gunpowder Tower and may draw 8 (Knights track space 5)."""
    s = followers_state(rules_version=rules_version)
    s = with_track(s, 0, Char.KNIGHT, knights)
    s = with_place(s, 0, "gunpowder_tower")
    return with_player(s, 0, market=tuple(market), tower=tuple(tower))


def test_gunpowder_tower_adds_two_market_spaces():
    s = followers_state()
    s = with_track(s, 1, Char.KNIGHT, 5)
    s = with_player(s, 1, market=FULL)
    assert [m.count for m in RULES.legal_moves(s, 1) if isinstance(m, DrawFollowers)] == [0]
    s = tower_state()
    assert max(m.count for m in RULES.legal_moves(s, 0) if isinstance(m, DrawFollowers)) == 2  # F§6 +2


def test_the_seat_chooses_which_characters_overflow_onto_the_tower():
    # R14 l.675-677 / R23 l.594-596: in phase 3 the owner places 1 or 2 character tiles of its
    # choice on the tower; beyond the 8 market spaces it must, but which ones is its choice.
    s = tower_state(market=(SF, F, B, B, C, C, T, T))
    s, events = play(s, DrawFollowers(0, 2))
    assert TowerLoadingBegan(0) in events
    assert len(s.players[0].market) == 10 and s.players[0].tower == ()  # nothing moved by itself
    assert RULES.to_act(s) == frozenset({0, 1, 2, 3}) and s.players[0].drew
    assert rejected(s, FinishLoading(0)).message.startswith("the market holds 8")
    assert LoadTower(0, B) in RULES.legal_moves(s, 0)  # an old market tile, not only a drawn one
    s, _ = play(s, LoadTower(0, B))
    s, events = play(s, LoadTower(0, SF))  # a starting follower too: it may be planned from there
    assert s.players[0].tower == (B, SF) and len(s.players[0].market) == 8
    assert TowerLoadingEnded(0) in events and not s.players[0].loading  # the tower is full
    assert 0 not in RULES.to_act(s)


def test_loading_the_tower_is_optional_within_the_market():
    s = tower_state(market=(F, B))
    s, _ = play(s, DrawFollowers(0, 4))
    assert s.players[0].loading
    s, events = play(s, FinishLoading(0))
    assert s.players[0].tower == () and len(s.players[0].market) == 6
    assert TowerLoadingEnded(0) in events


def test_one_character_may_go_on_the_tower_and_a_second_one_in_a_later_round():
    # rules 4: a full tower ends the loading (rules 5 lets the tower's characters go back: D15)
    s = tower_state(market=(F, B), rules_version=4)
    s, _ = play(s, DrawFollowers(0, 0))
    s, _ = play(s, LoadTower(0, F))
    s, _ = play(s, FinishLoading(0))
    assert s.players[0].tower == (F,)
    s = in_followers(s)
    s, _ = play(s, DrawFollowers(0, 0))
    assert [m for m in RULES.legal_moves(s, 0) if isinstance(m, LoadTower)] == [LoadTower(0, B)]
    s, events = play(s, LoadTower(0, B))
    assert TowerLoadingEnded(0) in events and s.players[0].tower == (F, B)


def test_no_loading_step_without_the_tower_or_without_room():
    s = followers_state()
    s, events = play(s, DrawFollowers(0, 4))
    assert not of_type(events, TowerLoadingBegan) and not s.players[0].loading
    s = tower_state(market=(F,), tower=(K, S), rules_version=4)  # rules 5: a full tower may be unloaded (D15)
    s, events = play(s, DrawFollowers(0, 2))
    assert not of_type(events, TowerLoadingBegan)
    rejected(s, LoadTower(0, F), RejectKind.NOT_YOUR_TURN, listed_check=False)


def test_followers_phase_waits_for_a_seat_loading_its_tower():
    s = tower_state(market=(F,))
    for seat in (1, 2, 3):
        s, _ = play(s, DrawFollowers(seat, 0))
    s, events = play(s, DrawFollowers(0, 0))
    assert s.phase is Phase.FOLLOWERS and RULES.to_act(s) == frozenset({0})
    s, events = play(s, FinishLoading(0))
    assert PhaseBegan(Phase.PLANNING) in events


def test_a_recall_stays_on_the_market_until_the_seat_loads_the_tower():
    s = tower_state(knights=0)
    s = with_place(s, 0, "monastery", (S, T))
    s, _ = play(s, RecallFollower(0, "monastery", 0))
    assert len(s.players[0].market) == 9 and s.players[0].tower == ()
    s, _ = play(s, DrawFollowers(0, 1))
    rejected(s, FinishLoading(0))
    s, _ = play(s, LoadTower(0, S))
    s, _ = play(s, LoadTower(0, F))
    assert s.players[0].tower == (F, S) and len(s.players[0].market) == 8


def test_a_timeout_while_loading_leaves_the_tower_or_loads_what_must_go():
    s = tower_state(market=(F, B))
    s, _ = play(s, DrawFollowers(0, 0))
    assert RULES.default_move(s, 0) == FinishLoading(0)
    s = tower_state()
    s, _ = play(s, DrawFollowers(0, 1))
    assert isinstance(RULES.default_move(s, 0), LoadTower)


# --- one timeout, one phase 3: a tower loading ends with the timeout (rules 4, D14; R14 l.675-677) ---------


def test_one_timeout_draws_and_ends_the_tower_loading_D14():
    s = tower_state(market=(F, B), knights=0)  # draws 4: the market holds them all
    s, events = step(s, ApplyTimeout(0))
    assert [type(e) for e in events][:3] == [TimeoutApplied, FollowersDrawn, TowerLoadingBegan]
    assert events[0] == TimeoutApplied(0, "DrawFollowers") and TowerLoadingEnded(0) in events
    assert not of_type(events, TowerLoaded) and s.players[0].tower == ()  # within the market: nothing moves
    assert not s.players[0].loading and 0 not in RULES.to_act(s)


def test_a_timeout_puts_only_what_the_market_cannot_hold_on_the_tower_D14():
    s = tower_state()  # a full market of 8; the draw of 2 overflows it
    s, events = step(s, ApplyTimeout(0))
    (drawn,) = of_type(events, FollowersDrawn)
    assert len(drawn.tiles) == 2
    loaded = [e.tile for e in of_type(events, TowerLoaded)]
    assert len(loaded) == 2 and loaded[0] == min(FULL + drawn.tiles, key=list(Tile).index)  # market order
    assert len(s.players[0].market) == 8 and not s.players[0].loading and 0 not in RULES.to_act(s)


def test_a_timeout_while_loading_ends_the_loading_in_one_command_D14():
    s = tower_state(knights=0)
    s = with_place(s, 0, "monastery", (S, T))
    s, _ = play(s, RecallFollower(0, "monastery", 0))
    s, _ = play(s, DrawFollowers(0, 1))  # the market holds 10: two must go
    s, events = step(s, ApplyTimeout(0))
    assert events[0] == TimeoutApplied(0, "LoadTower") and len(of_type(events, TowerLoaded)) == 2
    assert not s.players[0].loading and len(s.players[0].market) == 8


def test_rules_3_games_took_a_timeout_per_loading_step():
    s = tower_state(market=(F, B), knights=0, rules_version=3)
    s, events = step(s, ApplyTimeout(0))
    assert TowerLoadingBegan(0) in events and TowerLoadingEnded(0) not in events
    assert s.players[0].loading and 0 in RULES.to_act(s)
    s, events = step(s, ApplyTimeout(0))
    assert events == [TimeoutApplied(0, "FinishLoading"), TowerLoadingEnded(0)]


def test_rules_2_games_overflowed_onto_the_tower_by_themselves():
    s = tower_state(rules_version=2)
    s2, events = play(s, DrawFollowers(0, 2))
    (drawn,) = of_type(events, FollowersDrawn)
    assert sorted(s2.players[0].tower) == sorted(drawn.tiles) and len(s2.players[0].market) == 8
    assert not of_type(events, TowerLoadingBegan)
    s = tower_state(knights=0, rules_version=2)
    s = with_place(s, 0, "monastery", (S, T))
    s, _ = play(s, RecallFollower(0, "monastery", 0))
    assert len(s.players[0].market) == 8 and s.players[0].tower == (S,)


def test_followers_phase_ends_when_every_seat_has_drawn():
    s = followers_state(players=2)
    s, _ = play(s, DrawFollowers(1, 4))
    assert RULES.to_act(s) == frozenset({0})
    rejected(s, DrawFollowers(1, 1), RejectKind.NOT_YOUR_TURN, listed_check=False)
    s, events = play(s, DrawFollowers(0, 0))
    assert PhaseBegan(Phase.PLANNING) in events and s.phase is Phase.PLANNING
