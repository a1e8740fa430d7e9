"""/api/v1/tournaments, /api/v1/leaderboard and the page /tournaments/{id} (the others: ``service.pages``).

Creating a tournament writes its first events and wakes the runner (``workers.tournaments``,
wired by the app factory as ``hourglass.tournament_wake``); every read of a running tournament
also wakes a runner that seems to have stopped, so the organiser's page keeps it going. Its
organiser may cancel it, and an entrant's owner withdraw the entrant: each is one event in the
tournament's stream, after which the runner is woken at once.
"""
from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

import flask
from flask import Response, current_app, send_from_directory
from flask_smorest import Blueprint

from core.bots import BotNotFound
from core.leaderboard import Leaderboard
from core.scoring import standings
from core.tournament_store import EntryRefused, Loaded, TournamentNotFound, TournamentStore
from core.tournaments import NotAllowedNow, Tournament, TournamentRejected
from replays.tournament import package_from_store
from service import limits
from service.auth import require_account
from service.ladder_schemas import LeaderboardPageSchema
from service.platform_schemas import (
    CancelTournamentSchema,
    CreateTournamentSchema,
    LeaderboardQuerySchema,
    TournamentEventsQuerySchema,
    TournamentEventsSchema,
    TournamentListSchema,
    TournamentSchema,
)
from service.problems import ApiProblem
from service.web import service

blp = Blueprint("tournaments", __name__, description="Tournaments, the leaderboard and the tournament page")
STATIC_DIR = str(resources.files("service").joinpath("static"))
PACKAGE_MIMETYPE = "application/zip"


def store() -> TournamentStore:
    return TournamentStore(service().store.conn)


def board() -> Leaderboard:
    found: Leaderboard = current_app.extensions.setdefault("hourglass.leaderboard", Leaderboard(service().store.conn))
    return found


def _wake(tid: str, now: bool = False) -> None:
    """Queue a tick: ``now`` (something was just appended), else only if none seems alive."""
    hooks: tuple[Callable[[str], Any], Callable[[str], Any]] | None = current_app.extensions.get(
        "hourglass.tournament_wake")
    if hooks is not None:
        (hooks[0] if now else hooks[1])(tid)


def _load(tid: str) -> Any:
    try:
        return store().load(tid)
    except TournamentNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None


@blp.route("/api/v1/tournaments", methods=["POST"])
@blp.doc(operationId="createTournament")
@blp.arguments(CreateTournamentSchema)
@blp.response(201, TournamentSchema)
def create_tournament(body: dict[str, Any]) -> dict[str, Any]:
    """Create and start a tournament organised by the calling account (a key with the
    ``tournaments`` scope); its seed commitment is published now, the seed at the end. Every game
    it will play is charged to the organiser's work budget now, and its games count toward the
    organiser's live games while they run (``parallel`` may not exceed that cap). A registered
    bot is entered by its owner's account only, unless it is open for entry."""
    caller, _ = require_account("tournaments")
    caps = limits.live_caps(current_app.config, caller)

    def charge(games: int) -> None:
        limits.charge(games, f"a tournament of {games} games")

    try:
        created = store().create(body, service().bots, board(), organiser=caller.account_id,
                                 live_cap=caps.per_creator if caps else 0, live_total=caps.total if caps else 0,
                                 charge=charge)
    except TournamentRejected as exc:
        raise ApiProblem(422, "INVALID_CONFIG", str(exc), title="Invalid tournament") from None
    except EntryRefused as exc:
        raise ApiProblem(403, "FORBIDDEN", str(exc)) from None
    _wake(created["id"], now=True)
    return summary(_load(created["id"]))


@blp.route("/api/v1/tournaments/<string:tid>/cancel", methods=["POST"])
@blp.doc(operationId="cancelTournament")
@blp.arguments(CancelTournamentSchema)
@blp.response(200, TournamentSchema)
def cancel_tournament(body: dict[str, Any], tid: str) -> dict[str, Any]:
    """The organiser (its account key, scope ``tournaments``) cancels a running tournament:
    ``TournamentCancelled`` (who, reason) in its stream; no game starts any more, its running games
    are called off (aborted, in each game's log), and it ends with status ``cancelled``, its seed
    revealed and a Merkle root over the bundles of its games. 403 for any other account, 409 once it
    is over or cancelled."""
    caller, _ = require_account("tournaments")
    t = _load(tid).tournament
    if t.settings.organiser is None or t.settings.organiser != caller.account_id:
        raise ApiProblem(403, "FORBIDDEN", "only the tournament's organiser may cancel it")
    try:
        loaded = store().cancel(tid, caller.account_id or "", body.get("reason"))
    except NotAllowedNow as exc:
        raise ApiProblem(409, "NOT_RUNNING", str(exc), title="Conflict") from None
    _wake(tid, now=True)
    return summary(loaded)


@blp.route("/api/v1/tournaments/<string:tid>/entrants/<int:number>/withdraw", methods=["POST"])
@blp.doc(operationId="withdrawEntrant")
@blp.response(200, TournamentSchema)
def withdraw_entrant(tid: str, number: int) -> dict[str, Any]:
    """The entrant's owner withdraws it: a registered bot by its owner's account key (scope
    ``bots``), a built-in entrant (or a bot registered before accounts) by the organiser's (scope
    ``tournaments``). ``EntrantWithdrawn`` (reason ``owner``) in the stream: it is paired no more,
    its games not yet started are skipped, games it is playing are played out. 403 for anyone
    else, 409 when the tournament is over or the entrant withdrew already."""
    caller, _ = require_account()
    t = _load(tid).tournament
    if not 0 <= number < len(t.entrants):
        raise ApiProblem(404, "NOT_FOUND", f"tournament {tid} has entrants 0..{len(t.entrants) - 1}")
    _check_owner(t, number, caller)
    try:
        loaded = store().withdraw(tid, number, caller.account_id or "")
    except NotAllowedNow as exc:
        raise ApiProblem(409, "NOT_RUNNING", str(exc), title="Conflict") from None
    _wake(tid, now=True)
    return summary(loaded)


def _check_owner(t: Tournament, number: int, caller: Any) -> None:
    """403 unless the caller owns the entrant (module docstring of ``withdraw_entrant``)."""
    entrant = t.entrants[number]
    owner, scope = t.settings.organiser, "tournaments"
    if entrant.bot_id is not None:
        try:
            bot_owner = service().bots.get(entrant.bot_id).owner
        except BotNotFound:
            bot_owner = None
        if bot_owner is not None:
            owner, scope = bot_owner, "bots"
    if owner is None or owner != caller.account_id:
        raise ApiProblem(403, "FORBIDDEN", f"entrant {number} ({entrant.name}) is withdrawn only by its owner's "
                                           "account (a built-in entrant: the organiser's)")
    if scope not in caller.scopes:
        raise ApiProblem(403, "FORBIDDEN", f"this key lacks the {scope!r} scope a withdrawal of this entrant needs")


@blp.route("/api/v1/tournaments", methods=["GET"])
@blp.doc(operationId="listTournaments")
@blp.response(200, TournamentListSchema)
def list_tournaments() -> dict[str, Any]:
    """The latest tournaments: id, name, game, status, created, and the links to its page and, once
    it is over, its audit package."""
    return {"tournaments": tournament_rows()}


def tournament_rows() -> list[dict[str, Any]]:
    """The latest tournaments (the list endpoint's rows and the /tournaments page's)."""
    rows = []
    for tid in store().listing():
        try:
            t = store().load(tid).tournament
        except TournamentNotFound:
            continue
        rows.append({"id": tid, "name": t.settings.name, "game": t.settings.game, "edition": t.settings.edition,
                     "status": t.status, "entrants": len(t.entrants), "games": len(t.games),
                     "created": t.settings.created, "page": f"/tournaments/{tid}", "ranked_by": ranked_by(t),
                     "package": f"/api/v1/tournaments/{tid}/package" if t.finished else None})
    return rows


@blp.route("/api/v1/tournaments/<string:tid>", methods=["GET"])
@blp.doc(operationId="getTournament")
@blp.response(200, TournamentSchema)
def get_tournament(tid: str) -> dict[str, Any]:
    """Settings, entrants, every game with its viewer link, standings and ratings."""
    loaded = _load(tid)
    if not loaded.tournament.finished:
        _wake(tid)
    return summary(loaded)


@blp.route("/api/v1/tournaments/<string:tid>/events", methods=["GET"])
@blp.doc(operationId="listTournamentEvents")
@blp.arguments(TournamentEventsQuerySchema, location="query")
@blp.response(200, TournamentEventsSchema)
def tournament_events(query: dict[str, Any], tid: str) -> dict[str, Any]:
    """The tournament's stream after seq ``after``: every registration, pairing, game and rating update."""
    loaded = _load(tid)
    entries = [e for e in loaded.entries if e.seq > query["after"]]
    return {"id": tid, "version": loaded.version,
            "events": [{"seq": e.seq, "time": e.entry["time"], "type": e.type, "data": e.data, "hash": e.hash}
                       for e in entries]}


@blp.route("/api/v1/tournaments/<string:tid>/package", methods=["GET"])
@blp.doc(operationId="getTournamentPackage",
         responses={200: {"description": "the audit package (zip)", "content": {PACKAGE_MIMETYPE: {}}}})
def tournament_package(tid: str) -> Response:
    """Every game's replay bundle, the stream, the standings and a manifest with a Merkle root."""
    _load(tid)
    try:
        data = package_from_store(service().store.conn, tid)
    except ValueError as exc:
        raise ApiProblem(409, "NOT_FINISHED", str(exc)) from None
    return Response(data, mimetype=PACKAGE_MIMETYPE,
                    headers={"Content-Disposition": f'attachment; filename="tournament-{tid}.zip"'})


@blp.route("/api/v1/leaderboard", methods=["GET"])
@blp.doc(operationId="getLeaderboard")
@blp.arguments(LeaderboardQuerySchema, location="query")
@blp.response(200, LeaderboardPageSchema)
def leaderboard(query: dict[str, Any]) -> dict[str, Any]:
    """Ratings across finished tournaments, per game and edition (openskill Plackett–Luce, by
    ordinal), and the game's ladders with their standings (``ladders``; the page /leaderboard/{game})."""
    return leaderboard_json(query["game"], query.get("edition"))


def leaderboard_json(game: str, edition: str | None) -> dict[str, Any]:
    from domain.games import get_game
    from service.routes.ladders import ladder_ids
    from service.routes.ladders import summary as ladder_summary

    try:
        rules = get_game(game)
    except Exception:
        raise ApiProblem(404, "NOT_FOUND", f"unknown game {game!r}") from None
    if edition is None:
        edition = rules.config_to_json(rules.config_from_json({"players": 2})).get("edition")
    entries = board().entries(game, edition)
    for row in entries:
        row["page"] = f"/bots/{row['key'][4:]}" if row["key"].startswith("bot:") else None
    return {"game": game, "edition": edition, "model": board().model.describe()["name"], "entries": entries,
            "ladders": [ladder_summary(lid, full=True) for lid in ladder_ids(game)]}


# The tournament page and its files are for people, not part of the API document: a plain
# Flask blueprint, registered beside the API's (service.app).
pages = flask.Blueprint("tournament_pages", __name__)


@pages.route("/tournaments/<string:tid>", methods=["GET"])
def tournament_page(tid: str) -> Response:
    return send_from_directory(STATIC_DIR, "tournament.html")


@pages.route("/static/platform/<path:name>", methods=["GET"])
def platform_static(name: str) -> Response:
    return send_from_directory(STATIC_DIR, name)


def summary(loaded: Loaded) -> dict[str, Any]:
    t: Tournament = loaded.tournament
    s = t.settings
    entrants = [{"entrant": e.number, "name": e.name, "kind": e.kind, "key": e.key, "bot_id": e.bot_id,
                 "builtin": e.builtin, "initial": {"mu": e.initial.mu, "sigma": e.initial.sigma},
                 "withdrawn": _withdrawal(t, e.number)} for e in t.entrants]
    games = []
    for g in t.games:
        row = g.to_json()
        if t.cancelled is not None and row["status"] == "waiting":
            row["status"] = "not_played"
        row["viewer"] = f"/games/{g.game_id}" if g.game_id else None
        row["names"] = [t.entrants[n].name for n in g.seats]
        games.append(row)
    return {"id": s.tournament_id, "name": s.name, "status": t.status, "game": s.game, "edition": s.edition,
            "players_per_game": s.players_per_game, "format": s.format, "rounds": s.rounds,
            "games_per_pairing": s.games_per_pairing, "deadline_s": s.deadline_s, "parallel": s.parallel,
            "points": list(s.points), "seed_commitment": s.seed_commitment, "seed": t.seed,
            "merkle_root": t.merkle_root, "version": loaded.version, "entrants": entrants, "games": games,
            "standings": list(t.final_standings) if t.final_standings is not None else standings(t),
            "created": s.created, "organiser": s.organiser, "rules": s.version, "ranked_by": ranked_by(t),
            "cancelled": ({"by": t.cancelled.by, "reason": t.cancelled.reason} if t.cancelled else None)}


def ranked_by(t: Tournament) -> str:
    """``team`` when the standings rank a cooperative game's seats by their team's shared outcome
    (tournament rules 3, a game whose published result carries one ``outcome`` for every seat, as
    the Cathedral's does), known before its first game ends; ``place`` otherwise."""
    from domain.games import find_game

    if not t.settings.teams:
        return "place"
    if any(g.outcome is not None for g in t.games):
        return "team"
    rules = find_game(t.settings.game)
    schema = rules.api_schema if rules is not None else None
    return "team" if schema is not None and "outcome" in schema.result.get("properties", {}) else "place"


def _withdrawal(t: Tournament, number: int) -> dict[str, Any] | None:
    gone = t.withdrawn.get(number)
    return None if gone is None else {"by": gone.by, "reason": gone.reason, "game": gone.game}

