"""Scenario tests — phase 4 planning: exact types, Monks, substitutions, Town Hall, sealed plans."""
from __future__ import annotations

import dataclasses

from domain.core import RejectKind
from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.evolve import with_player
from domain.orleans.game import RULES_3
from domain.orleans.model import (
    RULES_VERSION,
    FinishPlanning,
    FollowerPlaced,
    FollowerTakenBack,
    LoadTower,
    MoveToTower,
    Phase,
    PhaseBegan,
    PlaceFollower,
    PlansRevealed,
    TakeAction,
    TakeBackFollower,
)
from tests.domain.scenario_helpers import (
    SB,
    SC,
    SF,
    ST,
    B,
    F,
    K,
    M,
    S,
    T,
    fresh,
    in_planning,
    of_type,
    play,
    rejected,
    slots,
    step,
    with_place,
)


def planning(market, players=4, seat=0, edition="classic", rules_version=RULES_VERSION):
    s = in_planning(fresh(edition, players, rules_version=rules_version))
    return with_player(s, seat, market=tuple(market))


def finish_all(s, first=None):
    events = []
    order = [i for i in range(len(s.players)) if not s.players[i].planned]
    for seat in order:
        s, ev = play(s, FinishPlanning(seat))
        events += ev
    return s, events


def test_exact_types_fill_the_spaces_of_owned_places():
    s = planning((SB, SC, F))
    # Farm House needs Boatman + Craftsman (F§5)
    rejected(s, PlaceFollower(0, F, "farm_house", 0))
    rejected(s, PlaceFollower(0, SC, "farm_house", 0))
    s, events = play(s, PlaceFollower(0, SB, "farm_house", 0))
    s, _ = play(s, PlaceFollower(0, SC, "farm_house", 1))
    assert FollowerPlaced(0, SB, "farm_house", 0) in events
    assert s.players[0].market == (F,)
    s, _ = finish_all(s)
    assert slots(s, 0, "farm_house") == ("start_boatman", "start_craftsman")
    assert s.phase is Phase.ACTIONS
    assert TakeAction(0, "farm_house") in RULES.legal_moves(s, 0)  # activated: every space filled


def test_only_owned_places_take_characters():
    s = planning((F,))
    rejected(s, PlaceFollower(0, F, "hayrick", 0))  # a place tile the seat does not own
    s = with_place(s, 0, "hayrick")
    play(s, PlaceFollower(0, F, "hayrick", 0))


def test_monks_are_wild_on_place_spaces():
    s = planning((M, M, M))
    for place, space in (("farm_house", 0), ("castle", 2), ("scriptorium", 0)):
        s, _ = play(s, PlaceFollower(0, M, place, space))  # F§8.1: Monks wild on place action spaces


def test_monk_spaces_take_only_monks():
    s = planning((F, S, K, SB))
    s = with_place(s, 0, "brewery")
    s = with_place(s, 0, "cellar")
    for tile in (F, S, K, SB):
        rejected(s, PlaceFollower(0, tile, "brewery", 0))  # F§8.1: nothing replaces a Monk
    rejected(s, PlaceFollower(0, K, "cellar", 0))
    play(s, PlaceFollower(0, S, "cellar", 1))


def test_herb_garden_lets_boatmen_stand_in_for_craftsmen_traders_and_farmers():
    s = planning((B, B, B, B, SB))
    rejected(s, PlaceFollower(0, B, "university", 1))  # no Herb Garden yet
    s = with_place(s, 0, "herb_garden")  # F§6 Herb Garden
    s, _ = play(s, PlaceFollower(0, B, "university", 0))  # Farmer space
    s, _ = play(s, PlaceFollower(0, B, "university", 1))  # Craftsman space
    s, _ = play(s, PlaceFollower(0, SB, "university", 2))  # Trader space, starting boatman too
    rejected(s, PlaceFollower(0, B, "ship", 2))  # not for a Knight
    rejected(s, PlaceFollower(0, B, "monastery", 0))  # nor a Scholar


def test_school_lets_scholars_stand_in_for_anything_but_monks():
    s = planning((S, S, S))
    rejected(s, PlaceFollower(0, S, "castle", 0))  # no School yet
    s = with_place(s, 0, "school")
    s = with_place(s, 0, "brewery")
    for place, space in (("castle", 0), ("ship", 2)):
        s, _ = play(s, PlaceFollower(0, S, place, space))  # F§6 School
    rejected(s, PlaceFollower(0, S, "brewery", 0))  # but never for a Monk


def test_town_hall_takes_one_or_two_non_starting_characters():
    s = planning((K, M, SF, ST, F))
    for tile in (SF, ST):
        rejected(s, PlaceFollower(0, tile, "town_hall", 0))  # F§5: not starting followers
    s, _ = play(s, PlaceFollower(0, M, "town_hall", 0))  # D9: Monks allowed
    s, _ = play(s, PlaceFollower(0, K, "town_hall", 1))
    rejected(s, PlaceFollower(0, F, "town_hall", 0))  # only two spaces
    s, _ = finish_all(s)
    assert slots(s, 0, "town_hall") == ("monk", "knight")


def test_town_hall_is_activated_by_one_character():
    s = planning((K,))
    s, _ = play(s, PlaceFollower(0, K, "town_hall", 1))
    s, _ = finish_all(s)
    assert TakeAction(0, "town_hall") in RULES.legal_moves(s, 0)  # R14: one is enough


def test_a_place_may_be_filled_over_several_rounds():
    s = planning((F,))
    s = with_place(s, 0, "castle", (None, B, T))
    s, _ = play(s, PlaceFollower(0, F, "castle", 0))
    s, _ = finish_all(s)
    assert slots(s, 0, "castle") == ("farmer", "boatman", "trader")
    assert TakeAction(0, "castle") in RULES.legal_moves(s, 0)


def test_tiles_never_move_between_action_spaces():
    s = planning((K, F))
    s = with_place(s, 0, "ship", (None, B, None))
    rejected(s, PlaceFollower(0, K, "ship", 1))  # an occupied space
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))
    rejected(s, PlaceFollower(0, K, "castle", 0))  # the placed knight is no longer on the market
    rejected(s, PlaceFollower(0, F, "ship", 2))  # nor can another tile take its space
    assert not [m for m in RULES.legal_moves(s, 0) if isinstance(m, PlaceFollower) and m.tile is K]


def test_plans_are_sealed_until_every_seat_is_done():
    s = planning((K, F, B))
    s, events = play(s, PlaceFollower(0, K, "ship", 2))
    (placed,) = of_type(events, FollowerPlaced)
    # D10: the other seats see neither the event nor the placement
    hidden = RULES.event_view(placed, 1)
    assert hidden.get("hidden") is True and "place" not in hidden and "tile" not in hidden
    assert RULES.event_view(placed, 0)["place"] == "ship"
    other = RULES.view(s, 1)["seats"][0]
    assert all(sp["holds"] is None for pl in other["places"] for sp in pl["spaces"])
    assert sorted(other["market"]) == sorted(["knight", "farmer", "boatman"])
    assert "planned" not in other
    own = RULES.view(s, 0)["seats"][0]
    assert own["planned"] == [{"tile": "knight", "place": "ship", "space": 2, "from_tower": False}]
    s, events = finish_all(s)
    (revealed,) = of_type(events, PlansRevealed)
    assert revealed.placements[0][0] == 0
    assert RULES.view(s, 1)["seats"][0]["places"][5]["spaces"][2]["holds"] == "knight"


def test_done_locks_the_plan():
    s = planning((K, F))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))
    s, _ = play(s, FinishPlanning(0))
    assert RULES.legal_moves(s, 0) == []
    rejected(s, PlaceFollower(0, F, "ship", 0), RejectKind.NOT_YOUR_TURN, listed_check=False)
    rejected(s, FinishPlanning(0), RejectKind.NOT_YOUR_TURN, listed_check=False)
    assert 0 not in RULES.to_act(s)


def test_planning_ends_and_actions_begin_with_the_start_player():
    s = in_planning(fresh("2023", 5, start_player=3))
    for seat in (0, 1, 2, 4):
        s, _ = play(s, FinishPlanning(seat))
    assert s.phase is Phase.PLANNING
    s, events = play(s, FinishPlanning(3))
    assert PhaseBegan(Phase.ACTIONS, 3) in events


def test_gunpowder_tower_characters_can_be_planned_onto_action_spaces():
    s = planning((F,))
    s = with_place(s, 0, "gunpowder_tower")
    s = with_player(s, 0, tower=(K, S))
    s, _ = play(s, PlaceFollower(0, K, "scriptorium", 0, from_tower=True))  # R14 Gunpowder Tower: in Planning
    s, _ = finish_all(s)
    assert s.players[0].tower == (S,)
    assert slots(s, 0, "scriptorium") == ("knight", None)


def test_the_gunpowder_tower_is_not_loaded_during_planning():
    # R14 l.675-677: characters go on the tower "during Phase 3"; planning only takes them off
    s = with_place(planning((F, K)), 0, "gunpowder_tower")
    rejected(s, MoveToTower(0, F), RejectKind.WRONG_PHASE)
    rejected(s, LoadTower(0, F), RejectKind.WRONG_PHASE)


def test_rules_2_games_loaded_the_tower_during_planning_at_most_two():
    s = planning((F, K, S), rules_version=2)
    rejected(s, MoveToTower(0, F))  # no tower
    s = with_place(s, 0, "gunpowder_tower")
    s, _ = play(s, MoveToTower(0, F))
    s, _ = play(s, MoveToTower(0, K))
    rejected(s, MoveToTower(0, S))


# --- taking placements back until done (R23 l.375-376, D10) -----------------------------------------


def test_a_placement_can_be_taken_back_until_the_seat_is_done():
    s = planning((K, F, B))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))
    assert TakeBackFollower(0, "ship", 2) in RULES.legal_moves(s, 0)
    s, events = play(s, TakeBackFollower(0, "ship", 2))
    assert events == [FollowerTakenBack(0, "ship", 2, K)]
    assert s.players[0].pending == () and sorted(s.players[0].market) == sorted((K, F, B))
    s, _ = play(s, PlaceFollower(0, F, "ship", 0))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))  # the space is free again
    s, _ = play(s, FinishPlanning(0))
    rejected(s, TakeBackFollower(0, "ship", 2), RejectKind.NOT_YOUR_TURN, listed_check=False)
    s, _ = finish_all(s)
    assert slots(s, 0, "ship") == ("farmer", None, "knight")


def test_only_this_rounds_own_placements_can_be_taken_back():
    s = planning((K,))
    s = with_place(s, 0, "scriptorium", (K, None))  # placed in an earlier round: never moves again
    rejected(s, TakeBackFollower(0, "scriptorium", 0))
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))
    rejected(s, TakeBackFollower(0, "ship", 1))
    rejected(s, TakeBackFollower(1, "ship", 2))


def test_a_character_taken_back_returns_to_the_gunpowder_tower_it_left():
    s = with_place(planning((K, F)), 0, "gunpowder_tower")
    s = with_player(s, 0, tower=(K, S))
    s, _ = play(s, PlaceFollower(0, S, "scriptorium", 1, from_tower=True))
    s, _ = play(s, PlaceFollower(0, K, "scriptorium", 0))  # from the market, which has a knight
    s, _ = play(s, TakeBackFollower(0, "scriptorium", 1))
    assert s.players[0].tower == (K, S) and sorted(s.players[0].market) == sorted((F,))
    s, _ = play(s, TakeBackFollower(0, "scriptorium", 0))
    assert s.players[0].tower == (K, S) and sorted(s.players[0].market) == sorted((K, F))


def test_rules_2_games_could_not_take_a_placement_back():
    s = planning((K, F), rules_version=2)
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))
    rejected(s, TakeBackFollower(0, "ship", 2), RejectKind.WRONG_PHASE)


def test_timeouts_draw_the_most_then_finish_planning_then_pass():
    from domain.core import SYSTEM
    from domain.orleans.model import ApplyTimeout, DrawFollowers, Pass
    from tests.domain.scenario_helpers import in_actions, in_followers
    s = in_followers(fresh("classic", 2))
    s = with_player(s, 0, market=(), bag=(F, F, K, K, S, M))
    assert RULES.default_move(s, 0) == DrawFollowers(0, 4)
    assert ApplyTimeout(0) in RULES.legal_moves(s, SYSTEM)
    s2, _ = step(s, ApplyTimeout(0))
    assert len(s2.players[0].market) == 4
    assert RULES.default_move(planning((K,)), 0) == FinishPlanning(0)
    assert RULES.default_move(in_actions(fresh()), 0) == Pass(0)


# --- at most 10 take-backs per planning phase (rules 4, D13) -----------------------------------------


def take_back_loop(s, times):
    """Place a Knight on the Ship and take it back, ``times`` times."""
    for _ in range(times):
        s, _ = play(s, PlaceFollower(0, K, "ship", 2))
        s, _ = play(s, TakeBackFollower(0, "ship", 2))
    return s


def test_a_seat_takes_back_at_most_ten_placements_per_planning_phase_D13():
    s = take_back_loop(planning((K, F, B)), D.TAKE_BACKS_PER_PLANNING)
    assert D.TAKE_BACKS_PER_PLANNING == 10 and s.players[0].take_backs == 10
    s, _ = play(s, PlaceFollower(0, K, "ship", 2))  # placing stays open
    refusal = rejected(s, TakeBackFollower(0, "ship", 2))  # and no longer listed
    assert "D13" in refusal.message and "finish planning" in refusal.message
    assert RULES.view(s, 0)["seats"][0]["take_backs_left"] == 0
    assert "take_backs_left" not in RULES.view(s, 1)["seats"][0]  # sealed (D10): seat 1 sees only its own
    assert RULES.view(s, 1)["seats"][1]["take_backs_left"] == 10
    assert all("take_backs_left" not in seat for seat in RULES.view(s, None)["seats"])
    s, _ = play(s, PlaceFollower(0, F, "ship", 0))
    s, _ = play(s, FinishPlanning(0))
    assert s.players[0].planned


def test_the_take_back_count_starts_afresh_each_planning_phase_D13():
    s = take_back_loop(planning((K, F)), D.TAKE_BACKS_PER_PLANNING)
    s = RULES.evolve(s, PhaseBegan(Phase.PLANNING))
    assert s.players[0].take_backs == 0 and RULES.view(s, 0)["seats"][0]["take_backs_left"] == 10
    take_back_loop(s, 1)


def test_other_seats_keep_their_own_take_backs_D13():
    s = take_back_loop(planning((K,)), D.TAKE_BACKS_PER_PLANNING)
    s = with_player(s, 1, market=(K,))
    s, _ = play(s, PlaceFollower(1, K, "ship", 2))
    s, _ = play(s, TakeBackFollower(1, "ship", 2))
    assert s.players[1].take_backs == 1


def test_rules_3_games_take_back_without_a_limit():
    s = take_back_loop(planning((K, F), rules_version=3), 2 * D.TAKE_BACKS_PER_PLANNING)
    assert s.players[0].take_backs == 0  # nothing counted: rules 3 states keep their hashes
    assert "take_backs_left" not in RULES.view(s, 0)["seats"][0]


def test_moves_listed_after_a_take_back_follow_the_limit_D13():
    """After each placement or take-back the moves listed on the new state are the ones legal_moves
    derives on a fresh copy, on both sides of the limit."""
    s = planning((K, F, B))
    for _ in range(2 * D.TAKE_BACKS_PER_PLANNING + 2):
        moves = RULES.legal_moves(s, 0)
        backs = [m for m in moves if isinstance(m, TakeBackFollower)]
        command = backs[0] if backs else next(m for m in moves if isinstance(m, PlaceFollower))
        s = RULES.step(s, command, None)[1]  # the very listed object: accepted without re-validation
        assert RULES.legal_moves(s, 0) == RULES.legal_moves(dataclasses.replace(s), 0)
    assert s.players[0].take_backs == D.TAKE_BACKS_PER_PLANNING
    assert not any(isinstance(m, TakeBackFollower) for m in RULES.legal_moves(s, 0))


def test_moves_after_placing_the_markets_last_farmer_come_in_the_fresh_order():
    """Rules 3: a seat places its market's last farmer while another farmer waits in its Gunpowder
    Tower. The moves listed on the new state are in the order a fresh listing of a copy gives
    (placements per space in the order of the seat's tiles, market first), whatever path led
    there (this once differed: the relisting shortcut kept the old order, docs/performance.md)."""
    s = with_player(planning((F, SF, B), rules_version=3), 0, tower=(F,))
    farmer = next(m for m in RULES_3.legal_moves(s, 0) if isinstance(m, PlaceFollower) and m.tile is F)
    after = RULES_3.step(s, farmer, None)[1]  # the very listed object
    listed = RULES_3.legal_moves(after, 0)
    assert listed == RULES_3.legal_moves(dataclasses.replace(after), 0)
    on_university = [m.tile for m in listed if isinstance(m, PlaceFollower) and m.place == "university"]
    assert on_university == [SF, F]  # the tower's farmer comes after the market's tiles
