"""/api/v1/ladders: opt bots in and out of the ladders, and read their standings, games and history.

A ladder is ``<game>-<players>`` (``core.ladder``); its games are started by the matchmaker in the
workers (``workers.ladder``), never by a request. Opting in and out is the bot's owner's business
(an account key with the ``bots`` scope); reading is public.
"""
from __future__ import annotations

from typing import Any

from flask import Response
from flask_smorest import Blueprint

from core.bots import Bot, BotNotFound
from core.ladder import LadderFull, LadderLimits, LadderRejected, LadderStore, parse_ladder
from service.auth import require_account
from service.ladder_schemas import (
    LadderEntrySchema,
    LadderHistorySchema,
    LadderListSchema,
    LadderMemberSchema,
    LadderSchema,
)
from service.problems import ApiProblem
from service.web import service

PLOT_POINTS = 100  # rating points per ladder in a bot's record and on its page: a bounded answer
blp = Blueprint("ladders", __name__, url_prefix="/api/v1/ladders",
                description="Ladders: rated games that keep running, per game and player count")


def ladders() -> LadderStore:
    return LadderStore(service().store.conn)


def _ladder(lid: str) -> Any:
    try:
        return parse_ladder(lid)
    except LadderRejected as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None


def _owned(bot_id: str) -> Bot:
    """The bot, when the caller's account key (scope ``bots``) owns it: 403 for anyone else."""
    caller, _ = require_account("bots")
    try:
        bot = service().bots.get(bot_id)
    except BotNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None
    if bot.owner is None or bot.owner != caller.account_id:
        raise ApiProblem(403, "FORBIDDEN", f"bot {bot.name} belongs to another account: only its owner enters "
                                           "it on a ladder")
    return bot


def summary(lid: str, full: bool = False) -> dict[str, Any]:
    ladder = _ladder(lid)
    store = ladders()
    live = store.live(lid)
    out: dict[str, Any] = {"id": lid, "game": ladder.game, "edition": ladder.edition, "players": ladder.players,
                           "members": len(store.members(lid)), "live": len(live)}
    if full:
        out["standings"] = [{**row, "page": f"/bots/{row['bot_id']}"} for row in store.standings(lid)]
        out["playing"] = sorted(live)
        out["games"] = [{**g, "viewer": f"/games/{g['game_id']}"} for g in store.recent_games(lid)]
    return out


def ladder_ids(game: str | None = None) -> list[str]:
    return [lid for lid in ladders().ladders() if game is None or lid.rpartition("-")[0] == game]


@blp.route("", methods=["GET"])
@blp.doc(operationId="listLadders")
@blp.response(200, LadderListSchema)
def list_ladders() -> dict[str, Any]:
    """The ladders that have (or had) bots: game, players, members, games in play."""
    return {"ladders": [summary(lid) for lid in ladder_ids()]}


@blp.route("/<string:lid>", methods=["GET"])
@blp.doc(operationId="getLadder")
@blp.response(200, LadderSchema)
def get_ladder(lid: str) -> dict[str, Any]:
    """A ladder (``<game>-<players>``, such as ``artificium-2``): its standings by rating ordinal
    (openskill, mu - 3 sigma), its games in play and its latest finished games with viewer links."""
    return summary(lid, full=True)


@blp.route("/<string:lid>/history", methods=["GET"])
@blp.doc(operationId="getLadderHistory")
@blp.response(200, LadderHistorySchema)
def ladder_history(lid: str) -> dict[str, Any]:
    """Every rated game of the ladder (the latest 1,000), each seat's rating before and after."""
    _ladder(lid)
    return {"id": lid, "history": ladders().history(lid)}


@blp.route("/<string:lid>/entries", methods=["POST"])
@blp.doc(operationId="enterLadder")
@blp.arguments(LadderEntrySchema)
@blp.response(201, LadderMemberSchema)
def enter_ladder(body: dict[str, Any], lid: str) -> dict[str, Any]:
    """The owner (account key, scope ``bots``) opts a bot in: the matchmaker starts rated games
    for it, each drawing one unit from the owner's work budget. Entering again changes its
    deadline. 403 for another account's bot; 409 beyond ``HOURGLASS_LADDER_BOTS_PER_OWNER`` (5)
    bots of one owner on one ladder."""
    ladder = _ladder(lid)
    bot = _owned(body["bot_id"])
    try:
        return ladders().opt_in(ladder, bot.bot_id, bot.name, bot.owner or "", body.get("deadline_s"),
                                LadderLimits.from_env().bots_per_owner)
    except LadderFull as exc:
        raise ApiProblem(409, "LADDER_FULL", str(exc), title="Conflict") from None
    except LadderRejected as exc:
        raise ApiProblem(422, "INVALID_CONFIG", str(exc)) from None


@blp.route("/<string:lid>/entries/<string:bot_id>", methods=["DELETE"])
@blp.doc(operationId="leaveLadder")
@blp.response(204)
def leave_ladder(lid: str, bot_id: str) -> Response:
    """The owner opts the bot out: no new game starts for it; a game in play is played out and rated."""
    _ladder(lid)
    _owned(bot_id)
    if not ladders().opt_out(lid, bot_id):
        raise ApiProblem(404, "NOT_FOUND", f"bot {bot_id} is not on ladder {lid}")
    return Response(status=204)


def bot_ladders(bot_id: str) -> dict[str, Any]:
    """The ladder part of a bot's public record: each ladder it is on or was rated on (rating
    now, games, its rating after each of its latest ``PLOT_POINTS`` games there) and its latest
    ladder games with their figures."""
    store = ladders()
    history = store.bot_history(bot_id)
    joined = set(store.joined(bot_id))
    rows = []
    for lid in sorted(joined | {p["ladder"] for p in history}):
        record = store.ratings(lid).get(bot_id)
        rating = store.rating(record)
        rows.append({"ladder": lid, "opted_in": lid in joined, "mu": rating.mu, "sigma": rating.sigma,
                     "ordinal": rating.ordinal, "games": (record or {}).get("games", 0),
                     "history": [p for p in history if p["ladder"] == lid][-PLOT_POINTS:]})
    games = [{**g, "viewer": f"/games/{g['game_id']}", "replay": f"/api/v1/games/{g['game_id']}/replay"}
             for g in store.bot_games(bot_id)]
    return {"ladders": rows, "ladder_games": games}
