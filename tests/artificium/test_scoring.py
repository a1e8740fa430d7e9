"""The final score (A-rules l.257-260)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.artificium import RULES
from domain.artificium import data as D
from domain.artificium.data import Card, Resource
from domain.artificium.model import EverythingSold, GameEnded, ResolveCard
from tests.artificium.helpers import give, of_type, play, resolving, resources, under_rules


@pytest.mark.parametrize("version", sorted(D.TABLES))
def test_everything_is_sold_and_every_four_coins_score_one_vp(version: int) -> None:
    """A-rules l.257-258: sell all resources, count coins, 1 VP per 4 coins. Rules 1 pays the sale
    out of the bank; rules 2 counts it at the sell prices and moves no token (A§5.1)."""
    state = under_rules(replace(resolving(3, 0, Card.FARM, vp=10, coins=3), turn=4), version)
    state = give(state, 1, vp=12, coins=3, resources=resources(sword=1, wheat=1))
    bank = state.bank
    state, events = play(state, ResolveCard(0))
    sell = D.TABLES[version].sell
    sale = sell[Resource.SWORD] + sell[Resource.WHEAT]  # 5 + 1 under rules 1, 4 + 1 under rules 2
    if version == 1:
        assert EverythingSold(1, resources(sword=1, wheat=1), sale) in events
        assert EverythingSold(0, resources(wheat=2), 2) in events
    else:
        assert not of_type(events, EverythingSold) and state.bank == bank - 2, "only the Farm's Wheat left the bank"
    ended = of_type(events, GameEnded)[0]
    # seat 0: 10 + 1 (Farm) VP and 3 coins + 2 Wheat -> 1; seat 1: 12 VP and 3 + sale coins -> 2;
    # seat 2: 0 VP, 5 coins -> 1
    assert (3 + sale) // 4 == 2 and (3 + 2 * sell[Resource.WHEAT]) // 4 == 1
    assert ended.scores == (12, 14, 1) and ended.winners == (1,)
    result = RULES.result(state)
    assert result is not None and result["scores"] == [12, 14, 1] and result["winners"] == [1]
    assert result["parts"][1] == {"vp": 12, "coins": 3 + sale, "coin_points": 2, "total": 14}
    assert [r["rank"] for r in result["ranking"]] == [1, 2, 3]


def test_tied_players_share_the_win() -> None:
    """A-rules l.259-260: with the same number of VP, all tied players win."""
    state = replace(resolving(3, 0, Card.FARM, vp=5, coins=0), turn=4)
    state = give(state, 1, vp=6, coins=0)
    state = give(state, 2, vp=2, coins=3)
    state, events = play(state, ResolveCard(0))
    ended = of_type(events, GameEnded)[0]
    assert ended.scores == (6, 6, 2) and ended.winners == (0, 1)
    result = RULES.result(state)
    assert result is not None and [r["rank"] for r in result["ranking"]] == [1, 1, 3]


def test_no_result_before_the_end() -> None:
    assert RULES.result(resolving(3, 0, Card.FARM)) is None
