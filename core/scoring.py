"""What a tournament's games are worth: places, points, ratings, each entrant's totals and the standings.

Pure functions of the fold (``core.tournaments``), shared by the runner, the API and the package
verifier, which re-derives every rating update and the final standings with them.

Places. A game's ranking is the one its replay bundle ends with (departed seats already below
those that stayed). Under tournament rules 2 a seat that made no move of its own and failed at
least one decision (its record: ``moves`` 0, ``calls`` > ``ok``) is moved below every seat that
made one, ties kept within each tier, so a bot that never answered cannot be scored a win in
points or ratings, whatever the game's own rules rank (a seat never asked anything keeps its
place). Tied seats share the mean of the points of the places they span.

Cooperative games (tournament rules 3). A game whose result is one shared ``outcome`` (The
Cathedral: ``won`` or ``lost``, the sections built as every seat's score) is scored by its team's
result: each seat of a won game gets the first place's points and counts a win, each seat of a
lost one the last place's (a seat that made no move of its own never counts a win), and the score
sum is the sections built. Ratings cannot come from one game, whose seats all share one result:
a round's games are rated together, once it is over, as one openskill match of its entrants, each
ranked by its team results in that round (the share of its games won, then the mean score), ties
sharing a rank; a seat that made no move of its own ranks below the others. So a team that built
more sections than another in the same round gains rating on it; a round with a single team (all
entrants tied) moves no mu. See docs/tournaments.md, "Cooperative games".

Standings order: under rules 2 first the entrants that stayed, then the *absent* ones (withdrawn
for forfeiting a game, or without a single move of their own in all their games although they
were asked); within each, points, then score sum, then wins, then rating ordinal, then entrant
number. A bye scores the mean of the points table.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
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


def won(game: TournamentGame, seat: int) -> bool:
    """The seat counts a win: first in its game, or (a cooperative game) in a team that won, and
    in either case not a seat without a move of its own."""
    if game.outcome is not None:
        return game.outcome == "won" and seat not in unplayed(game)
    places = [rank for _, rank, _ in entrant_places(game, True)]
    return places[seat] == 1


def game_points(t: Tournament, game: TournamentGame) -> list[float]:
    """Points per seat of a finished game: place points, or a cooperative game's team points."""
    points = t.settings.points
    if game.outcome is not None:
        return [points[0] if won(game, seat) else points[-1] for seat in range(len(game.seats))]
    places = entrant_places(game, t.settings.accountable)
    return place_points(points, [rank for _, rank, _ in places])


def bye_points(points: Sequence[float]) -> float:
    return sum(points) / len(points)


def rate_game(model: RatingModel, t: Tournament, game: TournamentGame) -> dict[int, Rating]:
    places = entrant_places(game, t.settings.accountable)
    new = model.rate([t.ratings[e] for e, _, _ in places], [rank for _, rank, _ in places])
    return {e: rating for (e, _, _), rating in zip(places, new)}


def team_ranks(games: Sequence[TournamentGame]) -> dict[int, int]:
    """Rank of each entrant of a round of cooperative games by its team results there: the share of
    its games won, then its mean score; a seat without a move of its own below every other."""
    rows: dict[int, list[Any]] = {}
    for game in games:
        low = unplayed(game)
        for seat, entrant in enumerate(game.seats):
            row = rows.setdefault(entrant, [False, 0, 0, 0])  # unplayed, games, wins, score
            score = next((r.get("score") or 0 for r in game.ranking or () if r["seat"] == seat), 0)
            row[0] = row[0] or seat in low
            row[1] += 1
            row[2] += won(game, seat)
            row[3] += score
    keys = {e: (r[0], -Fraction(r[2], r[1]), -Fraction(r[3], r[1])) for e, r in rows.items()}
    distinct = sorted(set(keys.values()))
    return {e: distinct.index(key) + 1 for e, key in sorted(keys.items())}


def rating_matches(t: Tournament) -> Iterator[tuple[int, dict[int, int]]]:
    """The matches still to be rated, in order: (the last game index it covers, entrant -> rank).
    A game played to a ranking is a match of its own; the cooperative games of a round are one
    match, due when the round is over. Stops at the first match not over yet."""
    games = t.games
    index = t.rated
    while index < len(games):
        game = games[index]
        if not game.done:
            return
        if not game.finished:
            index += 1
            continue
        if game.outcome is None:
            places = entrant_places(game, t.settings.accountable)
            yield index, {e: rank for e, rank, _ in places}
            index += 1
            continue
        rest = [g for g in games[index:] if g.round == game.round]
        if any(not g.done and (g.started or t.cancelled is None) for g in rest):
            return  # the round is not over (a cancellation leaves its unstarted games waiting for ever)
        yield rest[-1].index, team_ranks([g for g in rest if g.finished])
        index = rest[-1].index + 1


def rate_match(model: RatingModel, ratings: Mapping[int, Rating], ranks: Mapping[int, int]) -> dict[int, Rating]:
    entrants = list(ranks)
    new = model.rate([ratings[e] for e in entrants], [ranks[e] for e in entrants])
    return dict(zip(entrants, new))


def ratings_due(model: RatingModel, t: Tournament) -> list[dict[str, Any]]:
    """RatingsUpdated events for the matches next in index order (:func:`rating_matches`; none past
    a running game; skipped and called-off games are passed over)."""
    events = []
    state = t
    for last, ranks in list(rating_matches(t)):
        if state.games[last].outcome is None and not state.settings.teams:
            updated = rate_game(model, state, state.games[last])  # rules 1 and 2, exactly as they were
        else:
            updated = rate_match(model, state.ratings, ranks)
        event = {"type": "RatingsUpdated", "index": last,
                 "ratings": {str(e): [r.mu, r.sigma] for e, r in sorted(updated.items())}}
        events.append(event)
        state = replace(state, ratings={**state.ratings, **updated}, rated=last + 1)
    return events


def totals(t: Tournament) -> dict[int, dict[str, Any]]:
    """Per entrant: games, points, score, wins, byes, forfeits, unplayed games, moves, its calls
    summed (with their histogram, ``core.callstats``) and whether it withdrew."""
    accountable = t.settings.accountable
    rows: dict[int, dict[str, Any]] = {
        e.number: {"games": 0, "points": 0.0, "score": 0.0, "wins": 0, "byes": t.byes.get(e.number, 0),
                   "forfeits": 0, "unplayed": 0, "moves": 0, "asked": 0, "won": 0, "lost": 0, **callstats.empty_totals()}
        for e in t.entrants}
    points = t.settings.points
    for number, byes in t.byes.items():
        rows[number]["points"] += byes * bye_points(points)
    for game in t.games:
        if not game.finished:
            continue
        places = entrant_places(game, accountable)
        got_points = game_points(t, game) if t.settings.teams else place_points(points, [r for _, r, _ in places])
        for seat, ((entrant, rank, score), got) in enumerate(zip(places, got_points)):
            row = rows[entrant]
            row["games"] += 1
            row["points"] += got
            row["score"] += score
            row["wins"] += won(game, seat) if t.settings.teams else rank == 1
            row["won"] += game.outcome == "won"
            row["lost"] += game.outcome == "lost"
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
        if t.settings.teams and total["won"] + total["lost"]:  # cooperative games: what the team did
            row.update(ranked_by="team", team_won=total["won"], team_lost=total["lost"])
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
