"""The contract suite's own checks catch what they are for: shown here on the toy game, changed on
purpose (a view that leaks the sealed bids; a listing whose order is not the fresh one)."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from domain.toy import RULES as TOY
from domain.toy.game import view
from domain.toy.model import State
from tests.contract.cold import compare
from tests.contract.playout import Case, playout
from tests.contract.test_contract import Checks

CASE = Case(TOY, {"edition": "classic", "players": 3}, "self-check")


def test_a_view_that_shows_another_seats_sealed_bid_is_caught() -> None:
    def leaky(state: State, seat: int | None) -> dict[str, Any]:
        return {**view(state, seat), "bids": list(state.bids)}

    with pytest.raises(AssertionError, match="sees a difference it was not shown"):
        playout(dataclasses.replace(CASE, plugin=dataclasses.replace(TOY, view=leaky)), Checks(3, hidden_every=1))


def test_a_listing_in_another_order_than_a_fresh_one_is_caught() -> None:
    def reordered(state: State, actor: Any) -> list[Any]:
        return TOY.legal_moves(state, actor)[::-1]

    _, record = playout(dataclasses.replace(CASE, plugin=dataclasses.replace(TOY, legal_moves=reordered)), bots=False)
    problems = compare(dataclasses.asdict(record))
    assert problems and all("the same moves in another order" in p for p in problems)
    _, fair = playout(CASE, bots=False)
    assert compare(dataclasses.asdict(fair)) == []

