"""Scenario tests — phase 7 (start player, D8), the end after round 18, the 14th citizen, scoring
and the tie-break."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from domain.core import SYSTEM, RejectKind
from domain.orleans import RULES
from domain.orleans.data import Event, Hourglass
from domain.orleans.evolve import with_player
from domain.orleans.model import (
    CitizenTaken,
    EndGame,
    GameEnded,
    PassStartPlayer,
    Phase,
    PhaseBegan,
    RevealHourglass,
    StartPlayerPassed,
)
from tests.domain.scenario_helpers import fresh, of_type, rejected, step, system, with_goods


def start_player_phase(start, round=5, edition="classic", players=4):
    s = fresh(edition, players, start_player=start)
    return replace(s, phase=Phase.START_PLAYER, round=round, event=Hourglass(Event.INCOME))


@pytest.mark.parametrize("players,start,to", [(4, 0, 1), (4, 3, 0), (2, 1, 0), (3, 1, 2)])
def test_start_player_passes_to_the_left_D8(players, start, to):
    s = start_player_phase(start, players=players)
    s2, events = system(s, PassStartPlayer())
    assert StartPlayerPassed(to, 6) in events and s2.start_player == to  # D8: next seat clockwise
    assert PhaseBegan(Phase.HOURGLASS) in events
    s3, _ = system(s2, RevealHourglass())
    assert s3.round == 6


def test_five_players_2023_wrap_around():
    s = start_player_phase(4, edition="2023", players=5)
    s2, _ = system(s, PassStartPlayer())
    assert s2.start_player == 0


def test_the_game_ends_after_round_18():
    s = start_player_phase(0, round=17)
    assert RULES.legal_moves(s, SYSTEM) == [PassStartPlayer()]
    s = start_player_phase(0, round=18)
    s = replace(s, hourglass=())
    assert RULES.legal_moves(s, SYSTEM) == [EndGame()]
    rejected(s, PassStartPlayer(), RejectKind.WRONG_PHASE, listed_check=False)
    s2, events = system(s, EndGame())
    assert s2.phase is Phase.FINISHED and RULES.is_finished(s2)
    assert of_type(events, GameEnded)
    rejected(s2, EndGame(), RejectKind.GAME_OVER, listed_check=False)
    assert RULES.legal_moves(s2, 0) == [] and RULES.to_act(s2) == frozenset()


def end(stations=(), edition="classic", players=4, **per_seat):
    s = replace(start_player_phase(0, round=18, edition=edition, players=players), hourglass=(),
                stations=tuple(sorted(stations)))
    for seat, changes in per_seat.items():
        goods = changes.pop("goods", None)
        s = with_player(s, int(seat[1:]), **changes)
        if goods:
            s = with_goods(s, int(seat[1:]), **goods)
    return system(s, EndGame())


def test_the_14th_citizen_goes_to_the_single_player_with_most_stations():
    s, events = end(stations=(("blois", 1), ("orleans", 1), ("orleans", 0)))
    assert CitizenTaken(1, "most_stations") in events
    assert s.bonus_citizen == 1 and s.players[1].citizens == 1
    assert RULES.result(s)["most_stations_citizen"] == 1


def test_the_14th_citizen_goes_to_nobody_on_a_tie():
    s, events = end(stations=(("blois", 1), ("orleans", 0)))
    assert not of_type(events, CitizenTaken) and s.bonus_citizen is None
    s, events = end()
    assert not of_type(events, CitizenTaken)


def test_the_rulebooks_scoring_example():
    # R14: 5 trading stations + 2 citizens at development status 4 = (5 + 2) × 4 = 28
    towns = ("blois", "chartres", "tours", "orleans", "vierzon")
    others = ("nevers", "bourges", "sancerre", "briare", "loches")  # seat 1 ties: no 14th citizen
    s, _ = end(stations=[(t, 0) for t in towns] + [(t, 1) for t in others],
               s0={"coins": 0, "citizens": 2, "development": 15})  # status 4 from position 15 (F§3)
    assert s.bonus_citizen is None
    parts = RULES.result(s)["parts"][0]
    assert parts["stations_and_citizens"] == 28
    assert parts == {"coins": 0, "goods": 0, "stations_and_citizens": 28, "total": 28}


def test_score_coins_goods_and_stations_times_status():
    s, events = end(stations=[("blois", 0), ("orleans", 0)],
                    s0={"coins": 7, "citizens": 1, "development": 9,
                        "goods": {"grain": 2, "cheese": 1, "wine": 1, "wool": 1, "brocade": 2}})
    # 7 coins + goods (2×1 + 2 + 3 + 4 + 2×5 = 21) + (2 stations + 1 citizen + the 14th) × status 3
    score = RULES.result(s)["parts"][0]
    assert score == {"coins": 7, "goods": 21, "stations_and_citizens": (2 + 2) * 3, "total": 7 + 21 + 12}
    assert of_type(events, GameEnded)[0].scores[0] == 40


def test_tie_break_by_development_position():
    s, events = end(s0={"coins": 10, "development": 3}, s1={"coins": 10, "development": 2},
                    s2={"coins": 1}, s3={"coins": 1})
    assert of_type(events, GameEnded)[0].winners == (0,)
    ranking = RULES.result(s)["ranking"]
    assert [r["seat"] for r in ranking][:2] == [0, 1] and ranking[1]["rank"] == 2


def test_shared_win_when_still_tied():
    s, events = end(s0={"coins": 10, "development": 3}, s1={"coins": 10, "development": 3},
                    s2={"coins": 1}, s3={"coins": 1})
    assert of_type(events, GameEnded)[0].winners == (0, 1)
    assert RULES.result(s)["winners"] == [0, 1]
    ranking = RULES.result(s)["ranking"]
    assert ranking[0]["rank"] == ranking[1]["rank"] == 1


def test_final_view_lists_every_seats_results():
    s, _ = end(stations=[("blois", 2)], s2={"coins": 3, "development": 4, "citizens": 1, "goods": {"wool": 1}})
    view = RULES.view(s, None)
    json.dumps(view)
    seat = view["seats"][2]
    assert seat["coins"] == 3 and seat["goods"]["wool"] == 1
    assert seat["trading_stations_built"] == 1 and seat["citizens"] == 2  # with the 14th
    assert seat["development_position"] == 4 and seat["development_status"] == 2
    assert seat["score"] == {"coins": 3, "goods": 4, "stations_and_citizens": 6, "total": 13}
    assert view["result"]["ranking"][0]["seat"] == 2


def test_a_round_runs_the_seven_phases_in_order():
    from domain.orleans.model import DrawFollowers, FinishPlanning, Pass, ResolveEvent, TakeCensus
    s = fresh("classic", 2)
    phases = [s.phase]
    s, _ = system(s, RevealHourglass())
    phases.append(s.phase)
    s, _ = system(s, TakeCensus())
    phases.append(s.phase)
    for seat in (0, 1):
        s, _ = step(s, DrawFollowers(seat, 0))
    phases.append(s.phase)
    for seat in (0, 1):
        s, _ = step(s, FinishPlanning(seat))
    phases.append(s.phase)
    for seat in (0, 1):
        s, _ = step(s, Pass(seat))
    phases.append(s.phase)
    s, _ = system(s, ResolveEvent())
    phases.append(s.phase)
    s, _ = system(s, PassStartPlayer())
    phases.append(s.phase)
    assert phases == [Phase.HOURGLASS, Phase.CENSUS, Phase.FOLLOWERS, Phase.PLANNING, Phase.ACTIONS,
                      Phase.EVENT, Phase.START_PLAYER, Phase.HOURGLASS]
    assert s.round == 1 and s.start_player == 1
