"""Tournaments as a fold: the events, the state they build, pairings, seeds and withdrawals.

Pure apart from nothing: no Redis, no clock (the store is ``core.tournament_store``, the runner
``workers.tournaments``; points, ratings and standings are ``core.scoring``). Everything a
tournament does is one of these events, in its own stream:

=================== ====================================================================
TournamentCreated   the settings, the seed commitment, the rating model and engine version
EntrantRegistered   one per entrant: who (a registered bot or a built-in), initial rating
RoundPaired         the games of a round: index and the entrant in each seat (and its byes)
GameStarted         a game index got its game id and seed commitment
GameFinished        its ranking (seat, rank, score), departures, each seat's calls, the
                    replay bundle's sha256, final hash
GameCalledOff       a started game that was aborted (a cancelled tournament calls off its
                    games): its bundle's sha256; it counts for nobody
GameSkipped         a game never started because an entrant in it had withdrawn
RatingsUpdated      after game ``index`` (always in index order): the new (mu, sigma)
EntrantWithdrawn    an entrant leaves: by its owner (``owner``) or for forfeiting a game
                    (``absent``); it is paired no more, its games not yet started are skipped
TournamentCancelled the organiser cancelled it: no game starts any more, running ones are
                    called off
TournamentFinished  the revealed seed, the Merkle root of the bundles, the final standings
=================== ====================================================================

Formats. ``round_robin``: every set of ``players_per_game`` entrants meets in every cyclic
rotation of its seating, so every entrant sits in every seat position equally often (round r
holds rotation r of every set). ``swiss``: ``rounds`` rounds; each is paired when the previous one
is rated, in the order of the current rating (openskill ordinal, then points, then entrant number),
into groups (rules 3: :func:`swiss_groups`, no rematch while any alternative exists; before:
consecutive groups), each group's seating rotated by the round number. Entrants that withdrew are
not paired; when those left do not divide into games, the lowest in that order who have had the
fewest byes sit the round out (``byes`` in ``RoundPaired``; a bye scores the mean of the points
table and is not rated); with fewer entrants left than seats in a game, no round is paired.

Tournament rules (``Settings.version``). 1: tournaments created before entrants were
accountable; their streams fold and verify as they always did. 2 (:data:`RULES`, every new
tournament): ``GameFinished`` carries each seat's record (``replays.seatstats``), an entrant that
forfeits a game is withdrawn as ``absent`` in the same append, a seat that made no move of its
own in a game ranks below every seat that did (``core.scoring``), and standings show withdrawals,
byes, forfeits and each entrant's calls. 3 (issue 26): a cooperative game's ``outcome`` is
recorded and scored by the team (``core.scoring``), and Swiss rounds avoid rematches.

Seeds. The tournament draws a 32-byte seed and publishes its sha256 at creation; the seed of game
``i`` is ``HMAC-SHA256(seed, "<tournament id>:game:<i>")``, revealed with the tournament's seed at
the end, so anyone can recompute every game's seed and so every draw.
"""
from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import comb
from typing import Any

from core.ratings import Rating
from core.scoring import standings
from core.seats import SeatKind

FORMATS = ("round_robin", "swiss")
MAX_ENTRANTS = 64
MAX_GAMES = 2_000
RULES = 3  # the tournament rules new tournaments are created under (Settings.version)
MAX_NOTE = 200  # characters of a cancellation's reason
ONE_LINE = r"^[^\x00-\x1f\x7f-\x9f]*$"  # public text (a reason, a name): no control characters
WITHDRAWAL_REASONS = ("owner", "absent")


class TournamentRejected(ValueError):
    """Settings a tournament cannot run with (the message says which)."""


class NotAllowedNow(ValueError):
    """A cancellation or withdrawal the tournament's state refuses (the message says why)."""


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
    version: int = 1  # the tournament rules it runs under (module docstring)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.tournament_id, "name": self.name, "game": self.game, "edition": self.edition,
                "players_per_game": self.players_per_game, "format": self.format, "rounds": self.rounds,
                "games_per_pairing": self.games_per_pairing, "deadline_s": self.deadline_s,
                "parallel": self.parallel, "points": list(self.points), "seed_commitment": self.seed_commitment,
                "engine_version": self.engine_version, "rating_model": self.rating_model, "created": self.created,
                **({"organiser": self.organiser} if self.organiser else {}),
                **({"version": self.version} if self.version != 1 else {})}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Settings:
        return cls(d["id"], d.get("name"), d["game"], d.get("edition"), d["players_per_game"], d["format"],
                   d["rounds"], d["games_per_pairing"], d["deadline_s"], d["parallel"], tuple(d["points"]),
                   d["seed_commitment"], d["engine_version"], dict(d["rating_model"]), d["created"],
                   d.get("organiser"), int(d.get("version", 1)))

    @property
    def accountable(self) -> bool:
        """Tournament rules 2: records, absences, unplayed seats ranked last (module docstring)."""
        return self.version >= 2

    @property
    def teams(self) -> bool:
        """Tournament rules 3: a cooperative game is scored by its team's outcome (``core.scoring``)
        and Swiss rounds avoid rematches (:func:`swiss_groups`)."""
        return self.version >= 3


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
        return {"name": self.name, "kind": SeatKind.BOT.value, "bot": self.builtin}

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
    void: str | None = None  # "skipped" (never started) or "called_off" (aborted): counts for nobody
    departed: tuple[dict[str, Any], ...] = ()  # seats that left the game: {seat, reason}
    records: tuple[dict[str, Any], ...] | None = None  # per seat (replays.seatstats); tournament rules 2
    outcome: str | None = None  # a cooperative game's shared result, "won" or "lost"; tournament rules 3

    @property
    def started(self) -> bool:
        return self.game_id is not None

    @property
    def finished(self) -> bool:
        """Played to a result (what points and ratings count)."""
        return self.ranking is not None

    @property
    def done(self) -> bool:
        """Finished, skipped or called off: nothing more will happen to it."""
        return self.finished or self.void is not None

    @property
    def status(self) -> str:
        if self.void is not None:
            return self.void
        return "finished" if self.finished else "playing" if self.started else "waiting"

    def to_json(self) -> dict[str, Any]:
        records = [{k: v for k, v in r.items() if k != "hist"} for r in self.records] if self.records else None
        return {"index": self.index, "round": self.round, "seats": list(self.seats), "game_id": self.game_id,
                "status": self.status, "ranking": list(self.ranking) if self.ranking is not None else None,
                "departed": list(self.departed), "records": records, "bundle_sha256": self.bundle_sha256,
                **({"outcome": self.outcome} if self.outcome is not None else {})}


@dataclass(frozen=True)
class Withdrawal:
    by: str  # the account that withdrew it, or "system" (absent)
    reason: str  # owner | absent
    game: int | None = None  # absent: the game it forfeited


@dataclass(frozen=True)
class Cancellation:
    by: str
    reason: str | None


@dataclass(frozen=True)
class Tournament:
    settings: Settings
    entrants: tuple[Entrant, ...] = ()
    games: tuple[TournamentGame, ...] = ()
    rounds_paired: int = 0
    ratings: Mapping[int, Rating] = field(default_factory=dict)
    rated: int = 0  # every finished game with an index below this is in the ratings
    seed: str | None = None
    merkle_root: str | None = None
    final_standings: tuple[dict[str, Any], ...] | None = None
    withdrawn: Mapping[int, Withdrawal] = field(default_factory=dict)
    byes: Mapping[int, int] = field(default_factory=dict)  # entrant -> rounds it sat out
    cancelled: Cancellation | None = None

    @property
    def finished(self) -> bool:
        """Over, its seed revealed (played out, or cancelled and its games called off)."""
        return self.seed is not None

    @property
    def status(self) -> str:
        return "cancelled" if self.cancelled else "finished" if self.finished else "running"

    def game_id(self, index: int) -> str:
        return f"{self.settings.tournament_id}g{index:04d}"

    def round_done(self, round_number: int) -> bool:
        return all(g.done for g in self.games if g.round == round_number)

    def active(self) -> list[int]:
        """The entrants still in (not withdrawn), by number."""
        return [e.number for e in self.entrants if e.number not in self.withdrawn]

    def unrated(self) -> list[TournamentGame]:
        return [g for g in self.games[self.rated:] if g.finished]

    def bundled(self) -> list[TournamentGame]:
        """The games with a replay bundle (finished or called off), in index order."""
        return [g for g in self.games if g.bundle_sha256 is not None]


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
    byes = dict(t.byes)
    for number in e.get("byes", ()):
        byes[number] = byes.get(number, 0) + 1
    return replace(t, games=(*t.games, *new), rounds_paired=t.rounds_paired + 1, byes=byes)


def _with_game(t: Tournament, index: int, **changes: Any) -> Tournament:
    games = list(t.games)
    games[index] = replace(games[index], **changes)
    return replace(t, games=tuple(games))


def _started(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return _with_game(t, e["index"], game_id=e["game_id"], seed_commitment=e["seed_commitment"])


def _game_finished(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    records = e.get("records")
    return _with_game(t, e["index"], ranking=tuple(e["ranking"]), bundle_sha256=e["bundle_sha256"],
                      final_hash=e["final_hash"], departed=tuple(e.get("departed") or ()),
                      records=tuple(records) if records is not None else None, outcome=e.get("outcome"))


def _called_off(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return _with_game(t, e["index"], void="called_off", bundle_sha256=e["bundle_sha256"], final_hash=e["final_hash"])


def _skipped(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return _with_game(t, e["index"], void="skipped")


def _rated(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    updated = {int(k): Rating(v[0], v[1]) for k, v in e["ratings"].items()}
    return replace(t, ratings={**t.ratings, **updated}, rated=e["index"] + 1)


def _withdrawn(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    gone = Withdrawal(e["by"], e["reason"], e.get("game"))
    return replace(t, withdrawn={**t.withdrawn, e["entrant"]: gone})


def _cancelled(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return replace(t, cancelled=Cancellation(e["by"], e.get("reason")))


def _tournament_finished(t: Tournament, e: Mapping[str, Any]) -> Tournament:
    return replace(t, seed=e["seed"], merkle_root=e["merkle_root"], final_standings=tuple(e["standings"]))


_HANDLERS = {"EntrantRegistered": _registered, "RoundPaired": _paired, "GameStarted": _started,
             "GameFinished": _game_finished, "GameCalledOff": _called_off, "GameSkipped": _skipped,
             "RatingsUpdated": _rated, "EntrantWithdrawn": _withdrawn, "TournamentCancelled": _cancelled,
             "TournamentFinished": _tournament_finished}


# --- settings, seeds ------------------------------------------------------------------------------


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


# --- pairings -------------------------------------------------------------------------------------


def round_robin_round(entrants: int, players: int, round_number: int, games_per_pairing: int,
                      first_index: int) -> list[dict[str, Any]]:
    """Rotation ``round_number`` of every set of ``players`` entrants, each set ``games_per_pairing`` times."""
    games: list[dict[str, Any]] = []
    for group in itertools.combinations(range(entrants), players):
        seats = group[round_number:] + group[:round_number]
        for _ in range(games_per_pairing):
            games.append({"index": first_index + len(games), "seats": list(seats)})
    return games


def swiss_round(t: Tournament, round_number: int) -> tuple[list[dict[str, Any]], list[int]]:
    """Groups of consecutive entrants still in, in the current order (rating, points, number),
    and the entrants that sit this round out (module docstring)."""
    players = t.settings.players_per_game
    table = {row["entrant"]: row for row in standings(t)}
    order = sorted(t.active(), key=lambda n: (-t.ratings[n].ordinal, -table[n]["points"], n))
    byes = bye_takers(t, order)
    paired = [n for n in order if n not in byes]
    if t.settings.teams:
        groups = swiss_groups(paired, players, met(t), t.settings.rounds - round_number - 1)
    else:  # rules 1 and 2: consecutive groups, as they were paired
        groups = [tuple(paired[start:start + players]) for start in range(0, len(paired), players)]
    games: list[dict[str, Any]] = []
    first = len(t.games)
    for grouped in groups:
        group = list(grouped)
        shift = round_number % players
        for repeat in range(t.settings.games_per_pairing):
            turn = (shift + repeat) % players
            games.append({"index": first + len(games), "seats": group[turn:] + group[:turn]})
    return games, byes


SEARCH_BUDGET = 4_000  # groups tried per search depth: bounds a pairing's cost, here and in an audit
LOOKAHEAD = 4  # later rounds a pairing makes sure can still be rematch-free (all of them for 6 entrants)


Met = Mapping[frozenset[int], int]  # a pair of entrants -> how many tables they shared


def met(t: Tournament) -> Met:
    """How often each pair of entrants shared a table (a skipped game was never played)."""
    counts: dict[frozenset[int], int] = {}
    for g in t.games:
        for pair in itertools.combinations(g.seats, 2) if g.void != "skipped" else ():
            counts[frozenset(pair)] = counts.get(frozenset(pair), 0) + 1
    return counts


def _plus(seen: Met, groups: Iterable[Sequence[int]]) -> Met:
    counts = dict(seen)
    for group in groups:
        for pair in itertools.combinations(group, 2):
            counts[frozenset(pair)] = counts.get(frozenset(pair), 0) + 1
    return counts


def _partitions(order: Sequence[int], players: int, seen: Met, allowed: int,
                budget: list[int], tightest_first: bool = False) -> Iterable[list[tuple[int, ...]]]:
    """Partitions of ``order`` into groups of ``players`` whose pairs met at most ``allowed`` times
    before, all told (``seen``),
    in preference order: the first entrant left with the next ones in ``order`` first (for two
    seats, the standard Swiss rule: the top one meets the highest it has not met), backtracking
    when the rest cannot be grouped. ``budget[0]`` counts down the groups tried. ``tightest_first``:
    the entrant left with the fewest it has not met leads instead of the first (the classic
    backtracking order, which finds a grouping of a sparse field the preference order misses)."""
    def grouped(rest: list[int], used: int, acc: list[tuple[int, ...]]) -> Iterable[list[tuple[int, ...]]]:
        if not rest:
            yield list(acc)
            return
        if tightest_first:
            lead = min(rest, key=lambda n: sum(frozenset((n, m)) not in seen for m in rest))
            rest = [lead, *(n for n in rest if n != lead)]
        for group in _groups(rest, players, seen, allowed - used):
            budget[0] -= 1
            if budget[0] < 0:
                return
            repeats = sum(seen.get(frozenset(pair), 0) for pair in itertools.combinations(group, 2))
            acc.append(group)
            yield from grouped([n for n in rest if n not in group], used + repeats, acc)
            acc.pop()
    return grouped(list(order), 0, [])


def _groups(rest: Sequence[int], players: int, seen: Met, allowed: int) -> Iterable[tuple[int, ...]]:
    """The groups of ``rest[0]`` and ``players - 1`` of the others, in ``itertools.combinations``
    order, whose pairs met at most ``allowed`` times before; with none allowed, each member is
    drawn only from those who met none of the members chosen (so a crowded field costs no search)."""
    if allowed > 0:
        for others in itertools.combinations(rest[1:], players - 1):
            group = (rest[0], *others)
            if sum(seen.get(frozenset(pair), 0) for pair in itertools.combinations(group, 2)) <= allowed:
                yield group
        return

    def extend(chosen: tuple[int, ...], candidates: Sequence[int]) -> Iterable[tuple[int, ...]]:
        if len(chosen) == players:
            yield chosen
            return
        for i, n in enumerate(candidates):
            yield from extend((*chosen, n), [m for m in candidates[i + 1:] if frozenset((n, m)) not in seen])

    first = rest[0]
    yield from extend((first,), [n for n in rest[1:] if frozenset((first, n)) not in seen])


def _completable(order: Sequence[int], players: int, seen: Met, rounds: int,
                 budget: list[int]) -> bool:
    """``rounds`` more rounds of these entrants can be grouped without a rematch."""
    if rounds == 0:
        return True
    return any(_completable(order, players, _plus(seen, p), rounds - 1, budget)
               for p in _partitions(order, players, seen, 0, budget))


def swiss_groups(order: Sequence[int], players: int, seen: Met, rounds_after: int) -> list[tuple[int, ...]]:
    """This round's groups (tournament rules 3): the first partition in preference order that
    repeats no pair of entrants who met before and leaves the later rounds a way to repeat none
    either (looking up to :data:`LOOKAHEAD` rounds ahead, as many as can be rematch-free at all,
    then fewer); when no round
    without a rematch is found that way, the same search led by the tightest entrant, then one whose
    pairs met few times before: the first found allowing 1, 2, 4… repeated meetings in all. Deterministic: each search
    is bounded by :data:`SEARCH_BUDGET` groups tried."""
    if not order:
        return []
    possible = (len(order) - 1) // max(players - 1, 1) - 1  # rematch-free rounds after this one, at most
    for depth in range(min(rounds_after, max(possible, 0), LOOKAHEAD), -1, -1):
        budget = [SEARCH_BUDGET]
        for partition in _partitions(order, players, seen, 0, budget):
            if _completable(order, players, _plus(seen, partition), depth, budget):
                return partition
            if budget[0] < 0:
                break
    for partition in _partitions(order, players, seen, 0, [SEARCH_BUDGET], tightest_first=True):
        return partition
    allowed, most = 1, len(order) * (players - 1) * max(seen.values(), default=1)
    while allowed <= most:  # fewest repeats: a bounded search at 1, 2, 4… repeated meetings
        for partition in _partitions(order, players, seen, allowed, [SEARCH_BUDGET], tightest_first=True):
            return partition
        allowed *= 2
    return [tuple(order[i:i + players]) for i in range(0, len(order), players)]


def bye_takers(t: Tournament, order: Sequence[int]) -> list[int]:
    """Who sits out when ``order`` does not divide into games: the fewest byes so far, lowest first."""
    count = len(order) % t.settings.players_per_game
    from_bottom = sorted(range(len(order)), key=lambda i: (t.byes.get(order[i], 0), -i))
    return sorted(order[i] for i in from_bottom[:count])


def pairing_over(t: Tournament) -> bool:
    """No round is paired any more: all are, the tournament was cancelled, or (Swiss) too few are left."""
    s = t.settings
    if t.cancelled is not None or t.rounds_paired >= s.rounds:
        return True
    return s.format == "swiss" and len(t.active()) < s.players_per_game


def next_round(t: Tournament) -> dict[str, Any] | None:
    """The RoundPaired event due now, or None (none is due, or the last one still runs)."""
    s = t.settings
    if pairing_over(t):
        return None
    if s.format == "round_robin":
        games = round_robin_round(len(t.entrants), s.players_per_game, t.rounds_paired, s.games_per_pairing,
                                  len(t.games))
        return {"type": "RoundPaired", "round": t.rounds_paired, "games": games}
    if t.rounds_paired > 0 and not (t.round_done(t.rounds_paired - 1) and not t.unrated()):
        return None
    games, byes = swiss_round(t, t.rounds_paired)
    return {"type": "RoundPaired", "round": t.rounds_paired, "games": games, **({"byes": byes} if byes else {})}


def may_start(t: Tournament, game: TournamentGame) -> bool:
    """A paired game, not started or void, none of its entrants withdrawn, the tournament running."""
    return (t.cancelled is None and not t.finished and not game.started and not game.done
            and not any(n in t.withdrawn for n in game.seats))


def startable(t: Tournament) -> list[TournamentGame]:
    """Games that may start now, in index order."""
    return [g for g in t.games if may_start(t, g)]


def finish_due(t: Tournament) -> bool:
    """Everything is over: a cancelled tournament's started games, or every game of a whole one, and
    every finished game rated."""
    if t.finished or t.unrated():
        return False
    if t.cancelled is not None:
        return all(g.done for g in t.games if g.started)
    return pairing_over(t) and all(g.done for g in t.games)


# --- withdrawals and cancellation -----------------------------------------------------------------


def check_open(t: Tournament) -> None:
    if t.finished or t.cancelled is not None:
        raise NotAllowedNow(f"the tournament is {t.status}")


def withdrawal(t: Tournament, entrant: int, by: str, reason: str, game: int | None = None) -> dict[str, Any]:
    """The EntrantWithdrawn event (NotAllowedNow when the tournament or the entrant refuses it)."""
    if reason not in WITHDRAWAL_REASONS:
        raise NotAllowedNow(f"a withdrawal's reason is one of {', '.join(WITHDRAWAL_REASONS)}")
    if reason == "owner":
        check_open(t)
    elif t.finished:
        raise NotAllowedNow("the tournament is over")
    if not 0 <= entrant < len(t.entrants):
        raise NotAllowedNow(f"the tournament has entrants 0..{len(t.entrants) - 1}")
    if entrant in t.withdrawn:
        raise NotAllowedNow(f"entrant {entrant} ({t.entrants[entrant].name}) has withdrawn already")
    return {"type": "EntrantWithdrawn", "entrant": entrant, "by": by, "reason": reason,
            **({"game": game} if game is not None else {})}


def one_line(text: str) -> bool:
    """Public text a stream may hold: no control characters (:data:`ONE_LINE`) and no lone
    surrogate (JSON may escape one; it has no UTF-8 form, so Redis could not store it)."""
    return re.match(ONE_LINE, text) is not None and not any("\ud800" <= c <= "\udfff" for c in text)


def cancellation(t: Tournament, by: str, reason: str | None) -> dict[str, Any]:
    """The TournamentCancelled event (NotAllowedNow once it is over or cancelled)."""
    check_open(t)
    if reason is not None and (len(reason) > MAX_NOTE or not one_line(reason)):
        raise NotAllowedNow(f"a reason is one line of at most {MAX_NOTE} characters, without control characters")
    return {"type": "TournamentCancelled", "by": by, **({"reason": reason} if reason else {})}


def skips_due(t: Tournament) -> list[dict[str, Any]]:
    """GameSkipped for every game not started whose seats hold an entrant that withdrew."""
    if t.cancelled is not None:
        return []
    return [{"type": "GameSkipped", "index": g.index, "withdrawn": [n for n in g.seats if n in t.withdrawn]}
            for g in t.games if not g.started and not g.done and any(n in t.withdrawn for n in g.seats)]


def absences_due(t: Tournament, index: int) -> list[dict[str, Any]]:
    """After game ``index`` finished (tournament rules 2): an entrant that forfeited it is withdrawn
    as absent, unless it had withdrawn already."""
    game = t.games[index]
    if not t.settings.accountable or not game.finished:
        return []
    out = []
    for gone in game.departed:
        entrant = game.seats[gone["seat"]]
        if gone.get("reason") == "forfeited" and entrant not in t.withdrawn:
            out.append(withdrawal(t, entrant, "system", "absent", index))
    return out
