"""Phase 7 and the end (R14 "Phase 7", "End of the Game and Scoring", F§8.1): the start player
passes to the left (D8); after round 18 the most-stations citizen is awarded and the game is
scored: coins, goods, (stations + citizens) x development status; ties go to development."""
from __future__ import annotations

from typing import Any

from domain.orleans import data as D
from domain.orleans.common import Tx
from domain.orleans.model import (
    GOODS,
    PHASE_BEGAN,
    CitizenTaken,
    EndGame,
    GameEnded,
    PassStartPlayer,
    Phase,
    StartPlayerPassed,
    State,
)
from domain.orleans.queries import built_stations, status


def pass_start_player(tx: Tx, c: PassStartPlayer) -> None:
    n = tx.state.config.players
    tx.emit(StartPlayerPassed((tx.state.start_player + 1) % n, tx.state.round + 1))  # D8: to the left
    tx.emit(PHASE_BEGAN(Phase.HOURGLASS))


def end_game(tx: Tx, c: EndGame) -> None:
    state = tx.state
    counts = [built_stations(state, s) for s in range(state.config.players)]
    top = max(counts)
    if top > 0 and counts.count(top) == 1:  # the 14th citizen; a tie means nobody (F§4.2)
        tx.emit(CitizenTaken(counts.index(top), "most_stations"))
    scores = tuple(score(tx.state, s)["total"] for s in range(state.config.players))
    tx.emit(GameEnded(tx.state.bonus_citizen, scores, winners(tx.state, scores)))


def score(state: State, seat: int) -> dict[str, int]:
    p = state.players[seat]
    goods = sum(n * D.GOOD_POINTS[g] for g, n in zip(GOODS, p.goods))
    stations = (built_stations(state, seat) + p.citizens) * status(p)
    return {"coins": p.coins, "goods": goods, "stations_and_citizens": stations,
            "total": p.coins + goods + stations}


def winners(state: State, scores: tuple[int, ...]) -> tuple[int, ...]:
    best = max(scores)
    tied = [s for s, v in enumerate(scores) if v == best]
    dev = max(state.players[s].development for s in tied)  # tie-break: development (F§8.1)
    return tuple(s for s in tied if state.players[s].development == dev)


def result(state: State) -> dict[str, Any] | None:
    if state.phase is not Phase.FINISHED:
        return None
    n = state.config.players
    parts = [score(state, s) for s in range(n)]
    scores = [p["total"] for p in parts]
    order = sorted(range(n), key=lambda s: (-scores[s], -state.players[s].development, s))
    ranking, rank = [], 0
    for pos, s in enumerate(order):
        key = (scores[s], state.players[s].development)
        if pos == 0 or key != (scores[order[pos - 1]], state.players[order[pos - 1]].development):
            rank = pos + 1
        ranking.append({"seat": s, "rank": rank, "score": scores[s],
                        "development_position": state.players[s].development})
    return {"scores": scores, "winners": list(winners(state, tuple(scores))), "ranking": ranking,
            "parts": parts, "most_stations_citizen": state.bonus_citizen}


