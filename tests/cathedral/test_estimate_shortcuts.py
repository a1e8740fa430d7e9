"""Issue 26: the greedy bot's estimate takes shortcuts (the leftover worth of a knapsack and of a
(rosettes, loose items) pair worked out once; the open orders remembered per search). On every
position of seeded games they give exactly the floats the plain computation gives."""
from __future__ import annotations

import pytest

from domain.bots import cathedral_estimate as E
from domain.cathedral.data import Item
from domain.cathedral.model import State
from tests.cathedral.test_hidden import positions


def plain_knapsack_value(state: State, orders: list[E.Order]) -> float:
    """knapsack_value as it was before the shortcuts, kept verbatim."""
    offers = []
    knapsacks = state.knapsacks
    for seat, knapsack in enumerate(knapsacks):
        if not knapsack:
            continue
        here = state.builders[seat]
        for item in set(knapsack):
            for k, order in enumerate(orders):
                if item in order.lacks:
                    offers.append((order.worth_at(here), seat, item, k))
    value = 0.0
    left: list[dict[Item, int]] = []
    for knapsack in knapsacks:
        counts: dict[Item, int] = {}
        for item in knapsack:
            counts[item] = counts.get(item, 0) + 1
        left.append(counts)
    if offers:
        offers.sort(key=lambda o: -o[0])
        wants = [dict(o.lacks) for o in orders]
        for worth, seat, item, k in offers:
            held, wanted = left[seat], wants[k]
            while held.get(item, 0) and wanted.get(item, 0):
                held[item] -= 1
                wanted[item] -= 1
                value += worth
    for counts in left:
        rosettes = counts.get(Item.ROSETTE, 0)
        loose = sum(counts.values()) - rosettes
        value += rosettes * E.LOOSE_ROSETTE + E.rest_value(loose)
    return value


@pytest.mark.parametrize("players,edition,seed_index", [(2, "expert", 920), (3, "standard", 921), (4, "standard", 922)])
def test_the_estimate_shortcuts_give_the_plain_floats(players: int, edition: str, seed_index: int) -> None:
    states, _ = positions(players, edition, seed_index)
    carried: E.Carried = {}
    listed: E.Listed = {}
    held = 0
    for state in states:
        orders = E.open_orders(state)
        assert E.knapsack_value(state, orders) == plain_knapsack_value(state, orders)
        assert E.estimate(state, carried, listed) == E.estimate(state)
        held += any(state.knapsacks)
    assert held > 50, held
