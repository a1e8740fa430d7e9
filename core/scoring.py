"""What a tournament's games are worth: places, points, ratings, each entrant's totals and the standings.

Pure functions of the fold (``core.tournaments``), shared by the runner, the API and the package
verifier, which re-derives every rating update and the final standings with them.

Places. A game's ranking is the one its replay bundle ends with (departed seats already below
those that stayed). Under tournament rules 2 a seat that made no move of its own and failed at
least one decision (its record: ``moves`` 0, ``calls`` > ``ok``) is moved below every seat that
made one, ties kept within each tier, so a bot that never answered cannot be scored a win in
points or ratings, whatever the game's own rules rank (a seat never asked anything keeps its
place). Tied seats share the mean of the points of the places they span.

Standings order: under rules 2 first the entrants that stayed, then the *absent* ones (withdrawn
for forfeiting a game, or without a single move of their own in all their games although they
were asked); within each, points, then score sum, then wins, then rating ordinal, then entrant
number. A bye scores the mean of the points table.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core import callstats
from core.ratings import Rating, RatingModel

if TYPE_CHECKING:
    from core.tournaments import Tournament, TournamentGame


def unplayed(game: TournamentGame) -> frozenset[int]:
    """Seats of a finished game that made no move of their own although they failed a decision."""
    if not game.records:
        return frozenset()
    return frozenset(r["seat"] for r in game.records if r.get("moves") == 0 and r.get("calls", 0) > r.get("ok", 0))


def _tiered(ranking: Sequence[dict[str, Any]], low: Callable[[int], bool]) -> list[dict[str, Any]]:
    """``ranking`` re-ranked with the seats ``low`` names below the others, ties kept within each tier."""
    out: list[dict[str, Any]] = []
    for level in (False, True):
        group = [r for r in ranking if low(r["seat"]) == level]
        out += [{**r, "rank": len(out) + 1 + sum(o["rank"] < r["rank"] for o in group)} for r in group]
    return out


def entrant_places(game: TournamentGame, accountable: bool = False) -> list[tuple[int, int, float]]:
    """(entrant, rank, score) of a finished game, in seat order (``accountable``: tournament rules 2)."""
    assert game.ranking is not None
    ranking: Sequence[dict[str, Any]] = game.ranking
    if accountable:
        low = unplayed(game)
        if low:
            ranking = _tiered(ranking, low.__contains__)
    by_seat = {r["seat"]: r for r in ranking}
    return [(entrant, by_seat[seat]["rank"], by_seat[seat].get("score") or 0) for seat, entrant in enumerate(game.seats)]


def place_points(points: Sequence[float], ranks: Sequence[int]) -> list[float]:
    """Points per seat: tied seats share the mean of the places they span."""
    out = []
    for rank in ranks:
        tied = sum(1 for r in ranks if r == rank)
        spanned = points[rank - 1:rank - 1 + tied]
        out.append(sum(spanned) / tied)
    return out


def bye_points(points: Sequence[float]) -> float:
    return sum(points) / len(points)


def rate_game(model: RatingModel, t: Tournament, game: TournamentGame) -> dict[int, Rating]:
    places = entrant_places(game, t.settings.accountable)
    new = model.rate([t.ratings[e] for e, _, _ in places], [rank for _, rank, _ in places])
    return {e: rating for (e, _, _), rating in zip(places, new)}


def ratings_due(model: RatingModel, t: Tournament) -> list[dict[str, Any]]:
    """RatingsUpdated events for the finished games next in index order (none past a running game;
    skipped and called-off games are passed over)."""
    events = []
    state = t
    for game in t.games[t.rated:]:
        if not game.done:
            break
        if not game.finished:
            continue
        updated = rate_game(model, state, game)
        event = {"type": "RatingsUpdated", "index": game.index,
                 "ratings": {str(e): [r.mu, r.sigma] for e, r in sorted(updated.items())}}
        events.append(event)
        state = replace(state, ratings={**state.ratings, **updated}, rated=game.index + 1)
    return events


def totals(t: Tournament) -> dict[int, dict[str, Any]]:
    """Per entrant: games, points, score, wins, byes, forfeits, unplayed games, moves, its calls
    summed (with their histogram, ``core.callstats``) and whether it withdrew."""
    accountable = t.settings.accountable
    rows: dict[int, dict[str, Any]] = {
        e.number: {"games": 0, "points": 0.0, "score": 0.0, "wins": 0, "byes": t.byes.get(e.number, 0),
                   "forfeits": 0, "unplayed": 0, "moves": 0, "asked": 0, **callstats.empty_totals()}
        for e in t.entrants}
    points = t.settings.points
    for number, byes in t.byes.items():
        rows[number]["points"] += byes * bye_points(points)
    for game in t.games:
        if not game.finished:
            continue
        places = entrant_places(game, accountable)
        for (entrant, rank, score), got in zip(places, place_points(points, [r for _, r, _ in places])):
            row = rows[entrant]
            row["games"] += 1
            row["points"] += got
            row["score"] += score
            row["wins"] += rank == 1
        forfeited = {d["seat"] for d in game.departed if d.get("reason") == "forfeited"}
        low = unplayed(game)
        for record in game.records or ():
            row = rows[game.seats[record["seat"]]]
            callstats.add(row, record)
            row["moves"] += int(record.get("moves") or 0)
            row["asked"] += record.get("calls", 0) > 0
            row["forfeits"] += record["seat"] in forfeited
            row["unplayed"] += record["seat"] in low
    for number, row in rows.items():
        gone = t.withdrawn.get(number)
        row["withdrawn"] = gone.reason if gone else None
        row["absent"] = accountable and (row["withdrawn"] == "absent"
                                         or (row["asked"] > 0 and row["moves"] == 0 and row["calls"] > row["ok"]))
    return rows


def standings(t: Tournament, sums: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The table: points, score sum, wins, games, rating (and under rules 2 withdrawals, byes,
    forfeits and calls); ordered as the module docstring says. ``sums``: :func:`totals` of ``t``,
    when the caller has them already."""
    accountable = t.settings.accountable
    sums = totals(t) if sums is None else sums
    rows = []
    for e in t.entrants:
        total = sums[e.number]
        row: dict[str, Any] = {"entrant": e.number, "name": e.name, "key": e.key, "kind": e.kind,
                               **{k: total[k] for k in ("games", "points", "score", "wins")}}
        if accountable:
            row.update({k: total[k] for k in ("withdrawn", "absent", "byes", "forfeits", "unplayed")},
                       **callstats.summary(total))
        else:  # rules 1: the columns it always had, and what a late withdrawal or bye adds
            row.update({"withdrawn": total["withdrawn"]} if total["withdrawn"] else {},
                       **({"byes": total["byes"]} if total["byes"] else {}))
        rating = t.ratings[e.number]
        row.update(mu=rating.mu, sigma=rating.sigma, ordinal=rating.ordinal)
        rows.append(row)
    table = sorted(rows, key=lambda r: (bool(r.get("absent")), -r["points"], -r["score"], -r["wins"], -r["ordinal"],
                                        r["entrant"]))
    for place, row in enumerate(table, start=1):
        row["place"] = place
    return table
