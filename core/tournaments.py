"""Tournaments as a fold: the events, the state they build, pairings, seeds and standings.

Pure apart from nothing: no Redis, no clock (the store is ``core.tournament_store``, the runner
``workers.tournaments``). Everything a tournament does is one of these events, in its own stream:

=================== ====================================================================
TournamentCreated   the settings, the seed commitment, the rating model and engine version
EntrantRegistered   one per entrant: who (a registered bot or a built-in), initial rating
RoundPaired         the games of a round: index and the entrant in each seat
GameStarted         a game index got its game id and seed commitment
GameFinished        its ranking (seat, rank, score), the replay bundle's sha256, final hash
RatingsUpdated      after game ``index`` (always in index order): the new (mu, sigma)
TournamentFinished  the revealed seed, the Merkle root of the bundles, the final standings
=================== ====================================================================

Formats. ``round_robin``: every set of ``players_per_game`` entrants meets in every cyclic
rotation of its seating, so every entrant sits in every seat position equally often (round r
holds rotation r of every set). ``swiss``: ``rounds`` rounds; each is paired when the previous one
is rated, by the current rating (openskill ordinal, then points, then entrant number), in
consecutive groups, each group's seating rotated by the round number.

Seeds. The tournament draws a 32-byte seed and publishes its sha256 at creation; the seed of game
``i`` is ``HMAC-SHA256(seed, "<tournament id>:game:<i>")``, revealed with the tournament's seed at
the end, so anyone can recompute every game's seed and so every draw.
"""
from __future__ import annotations

import hashlib
import hmac
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import comb
from typing import Any

from core.ratings import Rating, RatingModel

FORMATS = ("round_robin", "swiss")
MAX_ENTRANTS = 64
MAX_GAMES = 2_000


class TournamentRejected(ValueError):
    """Settings a tournament cannot run with (the message says which)."""


@dataclass(frozen=True)
class Settings:
    tournament_id: str
    name: str | None
    game: str
    edition: str | None
    players_per_game: int
    format: str
    rounds: int
    games_per_pairing: int
    deadline_s: float
    parallel: int
    points: tuple[float, ...]
    seed_commitment: str
    engine_version: str
    rating_model: dict[str, Any]
    created: str
    organiser: str | None = None  # the account that created it (None: before accounts existed)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.tournament_id, "name": self.name, "game": self.game, "edition": self.edition,
                "players_per_game": self.players_per_game, "format": self.format, "rounds": self.rounds,
                "games_per_pairing": self.games_per_pairing, "deadline_s": self.deadline_s,
                "parallel": self.parallel, "points": list(self.points), "seed_commitment": self.seed_commitment,
                "engine_version": self.engine_version, "rating_model": self.rating_model, "created": self.created,
                **({"organiser": self.organiser} if self.organiser else {})}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Settings:
        return cls(d["id"], d.get("name"), d["game"], d.get("edition"), d["players_per_game"], d["format"],
                   d["rounds"], d["games_per_pairing"], d["deadline_s"], d["parallel"], tuple(d["points"]),
                   d["seed_commitment"], d["engine_version"], dict(d["rating_model"]), d["created"],
                   d.get("organiser"))


@dataclass(frozen=True)
class Entrant:
    number: int
    key: str  # leaderboard identity: "bot:<id>" or "builtin:<name>"
    name: str
    kind: str  # http | pull | builtin
    bot_id: str | None
    builtin: str | None
    initial: Rating

    def seat(self, deadline_s: float) -> dict[str, Any]:
        """How a game seats this entrant (``GameService.create``'s seat spec)."""
        if self.bot_id is not None:
            return {"bot_id": self.bot_id, "deadline_s": deadline_s}
        return {"name": self.name, "kind": "bot", "bot": self.builtin}

    def to_json(self) -> dict[str, Any]:
        return {"entrant": self.number, "key": self.key, "name": self.name, "kind": self.kind, "bot_id": self.bot_id,
                "builtin": self.builtin, "mu": self.initial.mu, "sigma": self.initial.sigma}


@dataclass(frozen=True)
class TournamentGame:
    index: int
    round: int
    seats: tuple[int, ...]  # entrant number per seat
    game_id: str | None = None
    seed_commitment: str | None = None
    ranking: tuple[dict[str, Any], ...] | None = None  # (seat, rank, score) once finished
    bundle_sha256: str | None = None
    final_hash: str | None = None

    @property
    def started(self) -> bool:
        return self.game_id is not None

    @property
    def finished(self) -> bool:
        return self.ranking is not None

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "round": self.round, "seats": list(self.seats), "game_id": self.game_id,
                "status": "finished" if self.finished else "playing" if self.started else "waiting",
                "ranking": list(self.ranking) if self.ranking is not None else None,
                "bundle_sha256": self.bundle_sha256}


@dataclass(frozen=True)
class Tournament:
    settings: Settings
    entrants: tuple[Entrant, ...] = ()
    games: tuple[TournamentGame, ...] = ()
    rounds_paired: int = 0
    ratings: Mapping[int, Rating] = field(default_factory=dict)
    rated: int = 0  # games 0..rated-1 are in the ratings
    seed: str | None = None
    merkle_root: str | None = None
    final_standings: tuple[dict[str, Any], ...] | None = None

    @property
    def finished(self) -> bool:
        return self.seed is not None

    @property
    def status(self) -> str:
        return "finished" if self.finished else "running"

    def game_id(self, index: int) -> str:
        return f"{self.settings.tournament_id}g{index:04d}"

    def round_done(self, round_number: int) -> bool:
        return all(g.finished for g in self.games if g.round == round_number)


# --- the fold ---------------------------------------------------------------------------------


def evolve(state: Tournament | None, event: Mapping[str, Any]) -> Tournament:
    kind = event["type"]
    if kind == "TournamentCreated":
        return Tournament(Settings.from_json(event["settings"]))
    assert state is not None, f"{kind} before TournamentCreated"
    handler = _HANDLERS[kind]
    return handler(state, event)


def fold(events: Iterable[Mapping[str, Any]], state: Tournament | None = None) -> Tournament:
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("a tournament stream starts with TournamentCreated")
    return state


def _registered(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    entrant = Entrant(e["entrant"], e["key"], e["name"], e["kind"], e.get("bot_id"), e.get("builtin"),
                      Rating(e["mu"], e["sigma"]))
    return replace(t, entrants=(*t.entrants, entrant), ratings={**t.ratings, entrant.number: entrant.initial})


def _paired(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    new = tuple(TournamentGame(g["index"], e["round"], tuple(g["seats"])) for g in e["games"])
    return replace(t, games=(*t.games, *new), rounds_paired=t.rounds_paired + 1)


def _with_game(t: Tournament, index: int, **changes: Any) -> Tournament:
    games = list(t.games)
    games[index] = replace(games[index], **changes)
    return replace(t, games=tuple(games))


def _started(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return _with_game(t, e["index"], game_id=e["game_id"], seed_commitment=e["seed_commitment"])


def _game_finished(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return _with_game(t, e["index"], ranking=tuple(e["ranking"]), bundle_sha256=e["bundle_sha256"],
                      final_hash=e["final_hash"])


def _rated(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    updated = {int(k): Rating(v[0], v[1]) for k, v in e["ratings"].items()}
    return replace(t, ratings={**t.ratings, **updated}, rated=e["index"] + 1)


def _tournament_finished(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return replace(t, seed=e["seed"], merkle_root=e["merkle_root"], final_standings=tuple(e["standings"]))


_HANDLERS = {"EntrantRegistered": _registered, "RoundPaired": _paired, "GameStarted": _started,
             "GameFinished": _game_finished, "RatingsUpdated": _rated, "TournamentFinished": _tournament_finished}


# --- settings, seeds, pairings ----------------------------------------------------------------


def default_points(players: int) -> tuple[float, ...]:
    """players-1 points for first place down to 0 for last."""
    return tuple(float(players - 1 - place) for place in range(players))


def total_games(players: int, entrants: int, fmt: str, rounds: int, games_per_pairing: int) -> int:
    """How many games a tournament of this shape plays (what its organiser's work budget pays)."""
    if fmt == "round_robin":
        return comb(entrants, players) * players * games_per_pairing
    return rounds * (entrants // players) * games_per_pairing


def check_settings(players: int, entrants: int, fmt: str, rounds: int | None, games_per_pairing: int,
                   points: Sequence[float] | None) -> int:
    """Validate the shape of a tournament; returns its number of rounds."""
    if entrants < players:
        raise TournamentRejected(f"{entrants} entrants cannot fill a {players}-player game")
    if points is not None and len(points) != players:
        raise TournamentRejected(f"points must give one value per finishing place ({players})")
    if fmt == "round_robin":
        if rounds is not None:
            raise TournamentRejected("a round robin has one round per seat rotation; leave 'rounds' out")
        total = comb(entrants, players) * players * games_per_pairing
        if total > MAX_GAMES:
            raise TournamentRejected(f"a round robin of {entrants} entrants in {players}-player games is {total} games "
                                     f"(at most {MAX_GAMES}); use the swiss format")
        return players
    if entrants % players:
        raise TournamentRejected(f"swiss rounds split the field into {players}-player games: "
                                 f"{entrants} entrants is not a multiple of {players}")
    if rounds is None:
        raise TournamentRejected("a swiss tournament needs 'rounds'")
    if rounds * (entrants // players) * games_per_pairing > MAX_GAMES:
        raise TournamentRejected(f"at most {MAX_GAMES} games")
    return rounds


def game_seed(tournament_seed: bytes, tournament_id: str, index: int) -> bytes:
    return hmac.new(tournament_seed, f"{tournament_id}:game:{index}".encode(), hashlib.sha256).digest()


def round_robin_round(entrants: int, players: int, round_number: int, games_per_pairing: int,
                      first_index: int) -> list[dict[str, Any]]:
    """Rotation ``round_number`` of every set of ``players`` entrants, each set ``games_per_pairing`` times."""
    games: list[dict[str, Any]] = []
    for group in itertools.combinations(range(entrants), players):
        seats = group[round_number:] + group[:round_number]
        for _ in range(games_per_pairing):
            games.append({"index": first_index + len(games), "seats": list(seats)})
    return games


def swiss_round(t: Tournament, round_number: int) -> list[dict[str, Any]]:
    """Groups of consecutive entrants in the current order (rating, points, number)."""
    players = t.settings.players_per_game
    table = {row["entrant"]: row for row in standings(t)}
    order = sorted((e.number for e in t.entrants),
                   key=lambda n: (-t.ratings[n].ordinal, -table[n]["points"], n))
    games: list[dict[str, Any]] = []
    first = len(t.games)
    for start in range(0, len(order), players):
        group = order[start:start + players]
        shift = round_number % players
        for repeat in range(t.settings.games_per_pairing):
            turn = (shift + repeat) % players
            games.append({"index": first + len(games), "seats": group[turn:] + group[:turn]})
    return games


def next_round(t: Tournament) -> dict[str, Any] | None:
    """The RoundPaired event due now, or None (all rounds paired, or the last one still running)."""
    s = t.settings
    if t.rounds_paired >= s.rounds:
        return None
    if s.format == "round_robin":
        games = round_robin_round(len(t.entrants), s.players_per_game, t.rounds_paired, s.games_per_pairing,
                                  len(t.games))
        return {"type": "RoundPaired", "round": t.rounds_paired, "games": games}
    if t.rounds_paired > 0 and not (t.round_done(t.rounds_paired - 1) and t.rated == len(t.games)):
        return None
    return {"type": "RoundPaired", "round": t.rounds_paired, "games": swiss_round(t, t.rounds_paired)}


# --- results, ratings, standings -------------------------------------------------------------


def entrant_places(game: TournamentGame) -> list[tuple[int, int, float]]:
    """(entrant, rank, score) of a finished game, in seat order."""
    assert game.ranking is not None
    by_seat = {r["seat"]: r for r in game.ranking}
    return [(entrant, by_seat[seat]["rank"], by_seat[seat].get("score") or 0) for seat, entrant in enumerate(game.seats)]


def place_points(points: Sequence[float], ranks: Sequence[int]) -> list[float]:
    """Points per seat: tied seats share the mean of the places they span."""
    out = []
    for rank in ranks:
        tied = sum(1 for r in ranks if r == rank)
        spanned = points[rank - 1:rank - 1 + tied]
        out.append(sum(spanned) / tied)
    return out


def rate_game(model: RatingModel, t: Tournament, game: TournamentGame) -> dict[int, Rating]:
    places = entrant_places(game)
    new = model.rate([t.ratings[e] for e, _, _ in places], [rank for _, rank, _ in places])
    return {e: rating for (e, _, _), rating in zip(places, new)}


def ratings_due(model: RatingModel, t: Tournament) -> list[dict[str, Any]]:
    """RatingsUpdated events for the finished games next in index order (none past a running game)."""
    events = []
    state = t
    for game in t.games[t.rated:]:
        if not game.finished:
            break
        updated = rate_game(model, state, game)
        event = {"type": "RatingsUpdated", "index": game.index,
                 "ratings": {str(e): [r.mu, r.sigma] for e, r in sorted(updated.items())}}
        events.append(event)
        state = _rated(state, event)
    return events


def standings(t: Tournament) -> list[dict[str, Any]]:
    """The table: points, score sum, wins, games, rating; ordered by points, score, wins, rating, number."""
    rows: dict[int, dict[str, Any]] = {e.number: {"entrant": e.number, "name": e.name, "key": e.key, "kind": e.kind, "games": 0,
                       "points": 0.0, "score": 0.0, "wins": 0} for e in t.entrants}
    points = t.settings.points
    for game in t.games:
        if not game.finished:
            continue
        places = entrant_places(game)
        for (entrant, rank, score), got in zip(places, place_points(points, [r for _, r, _ in places])):
            row = rows[entrant]
            row["games"] += 1
            row["points"] += got
            row["score"] += score
            row["wins"] += rank == 1
    for number, row in rows.items():
        rating = t.ratings[number]
        row.update(mu=rating.mu, sigma=rating.sigma, ordinal=rating.ordinal)
    table = sorted(rows.values(), key=lambda r: (-r["points"], -r["score"], -r["wins"], -r["ordinal"], r["entrant"]))
    for place, row in enumerate(table, start=1):
        row["place"] = place
    return table


def merkle_root(leaves: Sequence[str]) -> str:
    """Merkle root (sha256, hex) over hex leaf hashes; an odd node is paired with itself; no leaves: sha256("")."""
    level = [bytes.fromhex(leaf) for leaf in leaves]
    if not level:
        return hashlib.sha256(b"").hexdigest()
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        level = [hashlib.sha256(level[i] + level[i + 1]).digest() for i in range(0, len(level), 2)]
    return level[0].hex()
