"""Scenario tests — set-up per player count and edition, and the expert exclusion round."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from domain.core import SYSTEM, Rejected, RejectKind
from domain.orleans import RULES
from domain.orleans import data as D
from domain.orleans.data import Char, Event, Hourglass
from domain.orleans.model import (
    ChoiceKind,
    ChoosePlaceTile,
    ExcludePlaceTile,
    ExclusionSkipped,
    Phase,
    PhaseBegan,
    PlaceTileExcluded,
    RevealHourglass,
    SkipExclusion,
    TurnMoved,
)
from tests.domain.scenario_helpers import STARTING, fresh, in_actions, play, rejected

ALL = [("classic", 2), ("classic", 3), ("classic", 4), ("2023", 2), ("2023", 3), ("2023", 4), ("2023", 5)]
CHARS = tuple(Char)

# F§7.3: neutral supply per player count (F, B, C, T, K, S, M)
SUPPLY = {
    2: (12, 6, 6, 6, 8, 8, 8),
    3: (14, 8, 8, 8, 11, 11, 11),
    4: (16, 10, 10, 10, 14, 14, 14),
    5: (18, 12, 12, 12, 17, 17, 17),
}


@pytest.mark.parametrize("edition,players", ALL)
def test_neutral_supply_per_player_count(edition, players):
    s = fresh(edition, players)
    assert s.supply == SUPPLY[players]  # F§7.3
    # classic removes from the 4-player set (R14 set-up), 2023 from the 5-player set (F§7.3)
    full = SUPPLY[5 if edition == "2023" else 4]
    assert s.removed == tuple(f - n for f, n in zip(full, SUPPLY[players]))


def test_classic_removals_match_the_rulebook():
    # R14: 3p removes 2 each of F/B/C/T and 3 each of K/S/M; 2p removes 4 and 6
    assert fresh("classic", 3).removed == (2, 2, 2, 2, 3, 3, 3)
    assert fresh("classic", 2).removed == (4, 4, 4, 4, 6, 6, 6)
    assert fresh("classic", 4).removed == (0,) * 7


@pytest.mark.parametrize("edition,players,supply,removed", [
    ("classic", 2, 16, 0), ("classic", 4, 16, 0), ("2023", 2, 16, 4), ("2023", 4, 16, 4), ("2023", 5, 20, 0),
])
def test_technology_tiles_per_edition(edition, players, supply, removed):
    s = fresh(edition, players)
    assert s.tech_supply == supply  # F§7.3 technology row
    assert s.removed_techs == removed  # F§8.2: 4 of the 20 removed for 2–4 players


# F§1.3: (removed at random, spaces filled, left in the Goods Market)
GOODS_SETUP = {2: (12, 43, 35), 3: (6, 48, 36), 4: (0, 52, 38), 5: (0, 52, 38)}


@pytest.mark.parametrize("edition,players", ALL)
def test_goods_removed_on_map_and_in_market(edition, players):
    s = fresh(edition, players)
    removed, on_map, market = GOODS_SETUP[players]
    assert sum(s.removed_goods) == removed
    assert sum(len(g) for g in s.roads) == on_map
    assert sum(s.goods_market) == market
    # every good is somewhere: 90 in total by type (F§7.1)
    total = Counter()
    for goods in s.roads:
        total.update(goods)
    for g, n in zip(D.Good, s.goods_market):
        total[g] += n
    for g, n in zip(D.Good, s.removed_goods):
        total[g] += n
    assert dict(total) == dict(D.GOOD_COUNTS)


@pytest.mark.parametrize("edition,players", ALL)
def test_goods_on_the_map_follow_the_marks(edition, players):
    # F§1.2/D1: one good on every connection; a second on "3" spaces from 3 players and on "4"
    # spaces from 4 players; 5 players use the 4-player map
    s = fresh(edition, players)
    used = min(players, 4)
    for conn, goods in zip(D.CONNECTIONS, s.roads):
        expected = 1 + (1 if conn.mark is not None and conn.mark <= used else 0)
        assert len(goods) == expected, conn.id


def test_goods_are_removed_and_placed_at_random():
    a = fresh("classic", 2, seed=b"seed")
    b = fresh("classic", 2, seed=b"other seed")
    assert (a.roads, a.removed_goods) != (b.roads, b.removed_goods)


def test_place_tile_stacks_I_and_II():
    s = fresh("classic", 4)
    stack1 = {t for t in s.place_tiles if D.PLACES[t].stack == 1}
    stack2 = {t for t in s.place_tiles if D.PLACES[t].stack == 2}
    # F§6 stacks (D5): I = 12 tiles, II = 8 tiles
    assert stack1 == {"hayrick", "wool_manufacturer", "cheese_factory", "winery", "brewery", "sacristy",
                      "herb_garden", "bathhouse", "windmill", "library", "hospital", "tailor_shop"}
    assert stack2 == {"gunpowder_tower", "cellar", "office", "school", "pharmacy", "horse_wagon",
                      "shipping_line", "laboratory"}


def test_classic_hourglass_deck_pilgrimage_then_17_shuffled():
    s = fresh("classic", 4)
    deck = s.hourglass
    assert len(deck) == 18
    assert deck[0] == Hourglass(Event.PILGRIMAGE)  # F§7.4: the lighter Pilgrimage is round 1
    assert Counter(h.event for h in deck) == dict.fromkeys(Event, 3)  # R14 "3x" each
    assert all(h.level == "" for h in deck)
    other = fresh("classic", 4, seed=b"another")
    assert deck[1:] != other.hourglass[1:]  # the 17 below are shuffled


def test_2023_hourglass_deck_D7():
    deck = fresh("2023", 5).hourglass
    assert len(deck) == 18
    assert deck[0] == Hourglass(Event.PILGRIMAGE)  # D7 start tile
    scaled = (Event.INCOME, Event.HARVEST, Event.TAXES, Event.TRADING_DAY)

    def stack(level, pilgrimage):
        tiles = [Hourglass(e, level) for e in scaled] + [Hourglass(Event.PLAGUE)]
        return Counter(tiles + ([Hourglass(Event.PILGRIMAGE)] if pilgrimage else []))

    assert Counter(deck[1:7]) == stack("A", True)  # D7: A on top
    assert Counter(deck[7:13]) == stack("B", True)
    assert Counter(deck[13:18]) == stack("C", False)  # C at the bottom


@pytest.mark.parametrize("edition,players", ALL)
def test_each_player_starts_the_same(edition, players):
    s = fresh(edition, players)
    assert len(s.players) == players
    for p in s.players:
        assert p.coins == 5  # F§7.4 starting coins
        assert sorted(p.market) == sorted(STARTING)  # 4 starting followers on the market (R14)
        assert p.bag == () and p.tower == ()
        assert p.merchant == "orleans"  # R14: merchant in Orléans
        assert p.stations == 10  # F§7.4
        assert p.tracks == (0,) * 6  # every track at 0
        assert p.development == 0 and D.development_status(p.development) == 1  # F§3 status 1
        assert p.goods == (0,) * 5 and p.citizens == 0 and p.techs == 0
        assert [x.place for x in p.places] == [x.id for x in D.BOARD_PLACES]  # the 10 places (F§5)
    view = RULES.view(s, 0)
    assert all(seat["development_status"] == 1 and seat["followers_per_round"] == 4 for seat in view["seats"])


def test_citizens_placed_at_setup_are_all_free():
    s = fresh("classic", 4)
    # F§4.2: 8 deeds + boatmen + knights + 3 development = 13 on the board, the 14th aside
    assert all(x is None for seats in s.deeds for x in seats)
    assert len(s.deeds) == 8
    assert s.knights_citizen is None and s.boatmen_citizen is None and s.bonus_citizen is None
    assert s.development_citizens == (None, None, None)


def test_start_player_is_the_configured_seat_and_acts_first():
    s = fresh("classic", 4, start_player=2)
    assert s.start_player == 2 and s.phase is Phase.HOURGLASS
    assert RULES.to_act(s) == frozenset({SYSTEM})
    # the actions phase begins with the start player (R14 phase 5)
    from domain.orleans.model import FinishPlanning, PhaseBegan
    from tests.domain.scenario_helpers import in_planning
    p = in_planning(s)
    for seat in (0, 1, 3):
        p, _ = play(p, FinishPlanning(seat))
    p, events = play(p, FinishPlanning(2))
    assert PhaseBegan(Phase.ACTIONS, 2) in events
    assert p.phase is Phase.ACTIONS and p.turn == 2


def test_config_player_counts_per_edition():
    with pytest.raises(Rejected) as info:
        RULES.config_from_json({"edition": "classic", "players": 5})
    assert info.value.kind is RejectKind.INVALID_CONFIG  # classic is 2–4 (F§7.1)
    assert RULES.config_from_json({"edition": "2023", "players": 5}).players == 5  # F§7.2
    with pytest.raises(Rejected):
        RULES.config_from_json({"edition": "2023", "players": 1})


# --- exclusion of place tiles (R14 "Additional Rule") ---------------------------------------------


def test_exclusion_round_one_tile_each_from_the_start_player_clockwise():
    s = fresh("classic", 4, exclusion=True, start_player=1)
    assert s.phase is Phase.EXCLUSION and s.turn == 1
    order = []
    picks = ["bathhouse", "school", "hayrick", "pharmacy"]
    for tile in picks:
        seat = s.turn
        order.append(seat)
        rejected(s, ExcludePlaceTile((seat + 1) % 4, "library"), RejectKind.NOT_YOUR_TURN, listed_check=False)
        s, events = play(s, ExcludePlaceTile(seat, tile))
        assert PlaceTileExcluded(seat, tile) in events
    assert order == [1, 2, 3, 0]
    assert s.phase is Phase.HOURGLASS  # then round 1 begins
    assert set(s.excluded) == set(picks)
    assert not set(picks) & set(s.place_tiles)
    assert len(s.place_tiles) == 16


def test_exclusion_two_tiles_each_with_two_players():
    s = fresh("2023", 2, exclusion=True)
    order = []
    for tile in ("bathhouse", "school", "hayrick", "pharmacy"):
        order.append(s.turn)
        s, _ = play(s, ExcludePlaceTile(s.turn, tile))
    assert sorted(order) == [0, 0, 1, 1]  # R14: 2 each in a 2-player game
    assert s.phase is Phase.HOURGLASS and len(s.excluded) == 4


def test_excluded_tile_cannot_be_excluded_twice_or_taken_by_a_trader():
    s = fresh("classic", 3, exclusion=True)
    s, _ = play(s, ExcludePlaceTile(0, "bathhouse"))
    rejected(s, ExcludePlaceTile(1, "bathhouse"))
    s, _ = play(s, ExcludePlaceTile(1, "school"))
    s, _ = play(s, ExcludePlaceTile(2, "hayrick"))
    assert s.phase is Phase.HOURGLASS
    # a Trader's place-tile choice never offers an excluded tile
    from domain.orleans.model import Choice
    a = replace(in_actions(s), choice=Choice(0, ChoiceKind.PLACE_TILE, "village", stacks=(1, 2)))
    assert ChoosePlaceTile(0, "bathhouse") not in RULES.legal_moves(a, 0)
    rejected(a, ChoosePlaceTile(0, "bathhouse"))


def test_each_player_may_skip_the_exclusion():
    # R14 l.448-449: "each player may exclude one Place Tile"
    s = fresh("classic", 4, exclusion=True, start_player=2)
    assert SkipExclusion(2) in RULES.legal_moves(s, 2)
    s, events = play(s, SkipExclusion(2))
    assert events == [ExclusionSkipped(2), TurnMoved(3)]
    s, _ = play(s, ExcludePlaceTile(3, "school"))
    s, _ = play(s, SkipExclusion(0))
    s, events = play(s, SkipExclusion(1))
    assert events[-1] == PhaseBegan(Phase.HOURGLASS)
    assert s.excluded == ("school",) and len(s.place_tiles) == 19


def test_with_two_players_the_exclusion_cannot_be_skipped():
    # R14 l.449-450: "In a 2-player game, each player excludes 2 tiles" (no "may")
    s = fresh("classic", 2, exclusion=True)
    assert rejected(s, SkipExclusion(0)).message.startswith("with 2 players each seat excludes 2")
    assert RULES.default_move(s, 0) == ExcludePlaceTile(0, s.place_tiles[0])


def test_a_timeout_skips_an_optional_exclusion():
    s = fresh("2023", 5, exclusion=True)
    assert RULES.default_move(s, 0) == SkipExclusion(0)


def test_rules_2_games_had_every_seat_exclude_a_tile():
    s = fresh("classic", 4, exclusion=True, rules_version=2)
    rejected(s, SkipExclusion(0), RejectKind.WRONG_PHASE)
    assert RULES.default_move(s, 0) == ExcludePlaceTile(0, s.place_tiles[0])


def test_without_exclusion_the_game_starts_with_the_hourglass():
    s = fresh("classic", 4)
    assert s.phase is Phase.HOURGLASS and s.excluded == ()
    assert RULES.legal_moves(s, SYSTEM) == [RevealHourglass()]
