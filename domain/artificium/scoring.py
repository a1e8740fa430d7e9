"""The final score (A-rules l.257-260): every resource is sold, every 4 coins score 1 VP, and all
seats tied for the most VP win together.

Rules 1 pays the final sale out of the bank (``EverythingSold``). Rules 2 holds the bank to its 100
tokens, and a final sale could ask it for more coins than the box holds; the sale only serves the
count, so rules 2 counts each resource at its sell price and moves no token (A§5.1).
"""
from __future__ import annotations

from typing import Any

from domain.artificium import data as D
from domain.artificium.common import Tx
from domain.artificium.model import RESOURCES, EverythingSold, GameEnded, Phase, Player, State, tables


def sale_value(state: State, resources: tuple[int, ...]) -> int:
    sell = tables(state).sell
    return sum(n * sell[r] for r, n in zip(RESOURCES, resources))


def final_points(state: State, p: Player) -> int:
    """VP plus the coin points this seat would score if the game ended now."""
    return p.vp + (p.coins + sale_value(state, p.resources)) // D.COINS_PER_VP


def winners(scores: tuple[int, ...]) -> tuple[int, ...]:
    best = max(scores)
    return tuple(s for s, v in enumerate(scores) if v == best)


def end_game(tx: Tx) -> None:
    if tables(tx.state).final_sale_moves_tokens:
        for seat, p in enumerate(tx.state.players):
            if any(p.resources):
                tx.emit(EverythingSold(seat, p.resources, sale_value(tx.state, p.resources)))
    scores = tuple(final_points(tx.state, p) for p in tx.state.players)
    tx.emit(GameEnded(scores, winners(scores)))


def parts(state: State, p: Player) -> dict[str, int]:
    coins = p.coins + sale_value(state, p.resources)
    return {"vp": p.vp, "coins": coins, "coin_points": coins // D.COINS_PER_VP, "total": final_points(state, p)}


def ranking(scores: tuple[int, ...]) -> list[dict[str, Any]]:
    """Standard competition ranking: tied seats share a rank."""
    return [{"seat": s, "rank": 1 + sum(v > scores[s] for v in scores), "score": scores[s]}
            for s in sorted(range(len(scores)), key=lambda s: (-scores[s], s))]


def result(state: State) -> dict[str, Any] | None:
    if state.phase is not Phase.FINISHED:
        return None
    scores = tuple(final_points(state, p) for p in state.players)
    return {"scores": list(scores), "winners": list(winners(scores)), "ranking": ranking(scores),
            "parts": [parts(state, p) for p in state.players]}
