"""/api/v1/challenges: a bot or an account challenges a registered bot (``core.challenges``).

Who challenges: a bot (its own bearer token, or its owner's account key with ``as_bot``), or an
account that plays the seat itself (an account key with the ``play`` scope). The challenge costs
the challenger one unit of its work budget when it is made, and the game is created as the
challenger's. The challenged bot answers on its event stream (``challenge``), or its owner's
policy answers at once (``PUT /api/v1/bots/{id}/challenge-policy``).
"""
from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from flask import current_app
from flask_smorest import Blueprint

from core.bots import Bot, BotNotFound
from core.challenges import Challenger, ChallengeRefused, Challenges, NotPending, Policy, TooManyChallenges, public
from core.ladder import iso, now_ms
from core.retention import LiveCaps, TooManyGames
from domain.bots import bot_names
from domain.core import Rejected
from domain.games import get_game
from service import limits
from service.auth import principal, require_account, unauthorized
from service.ladder_schemas import (
    ChallengeCreateSchema,
    ChallengeDeclineSchema,
    ChallengePolicySchema,
    ChallengeSchema,
)
from service.problems import ApiProblem
from service.web import service

blp = Blueprint("challenges", __name__, url_prefix="/api/v1", description="Challenges between bots and accounts")


def challenges() -> Challenges:
    return Challenges(service().store.conn)


def _bot(bot_id: str) -> Bot:
    try:
        return service().bots.get(bot_id)
    except BotNotFound as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None


def _challenger(body: Mapping[str, Any]) -> Challenger:
    caller = principal()
    if caller.kind == "bot" and caller.bot_id is not None:
        bot = _bot(caller.bot_id)
        if bot.owner is None:
            raise ApiProblem(403, "FORBIDDEN", "a bot without an owning account cannot pay for a challenge")
        return Challenger(bot.owner, bot.name, bot.bot_id)
    if body.get("as_bot"):
        account, _ = require_account("bots")
        bot = _bot(body["as_bot"])
        if bot.owner != account.account_id:
            raise ApiProblem(403, "FORBIDDEN", f"bot {bot.name} belongs to another account")
        return Challenger(bot.owner or "", bot.name, bot.bot_id)
    account, record = require_account("play")
    return Challenger(account.account_id or "", record.name)


def _answerer(record: Mapping[str, Any]) -> None:
    """The challenged bot's token, or its owner's account key (scope ``bots``); 403 for anyone else."""
    caller = principal()
    if caller.kind == "bot":
        if caller.bot_id != record["bot_id"]:
            raise ApiProblem(403, "FORBIDDEN", "only the challenged bot (or its owner) answers a challenge")
        return
    if caller.kind != "account":
        raise unauthorized("answering a challenge needs the challenged bot's token or its owner's account key")
    account, _ = require_account("bots")
    if _bot(record["bot_id"]).owner != account.account_id:
        raise ApiProblem(403, "FORBIDDEN", "only the challenged bot (or its owner) answers a challenge")


def shown(record: Mapping[str, Any]) -> dict[str, Any]:
    view = public(record)
    return {**view, "viewer": f"/games/{view['game_id']}" if view.get("game_id") else None}


def _seats(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    players, seat, deadline = record["players"], record["seat"], record["deadline_s"]
    challenger = record["challenger"]
    seats: list[dict[str, Any]] = [{"kind": "bot", "bot": record.get("builtin") or "random", "name": f"Built-in {i}"}
                                   for i in range(players)]
    seats[seat] = ({"bot_id": challenger["bot_id"], "deadline_s": deadline} if challenger["bot_id"]
                   else {"kind": "human", "name": challenger["name"][:40], "clock": {"move_s": deadline}})
    seats[(seat + 1) % players] = {"bot_id": record["bot_id"], "deadline_s": deadline}
    return seats


def _create_game(record: Mapping[str, Any]) -> str:
    """The accepted challenge's game, created as the challenger's (its live-game cap)."""
    caps = record.get("caps") or {}
    body = {"game": record["game"], "seats": _seats(record),
            **({"edition": record["edition"]} if record.get("edition") else {})}
    account = None if record["challenger"]["bot_id"] else record["payer"]
    created = service().create(body, f"acct:{record['payer']}", account=account,
                               caps=LiveCaps(int(caps.get("per_creator", 0)), int(caps.get("total", 0)))
                               if caps else None)
    game_id: str = created["id"]
    return game_id


def _accept(cid: str) -> dict[str, Any]:
    try:
        return challenges().accept(cid, _create_game)
    except NotPending as exc:
        raise ApiProblem(409, "NOT_PENDING", str(exc), title="Conflict") from None
    except Rejected as exc:
        raise ApiProblem(422, "INVALID_CONFIG", f"the challenge's game: {exc.message}") from None
    except TooManyGames as exc:
        raise ApiProblem(429, "TOO_MANY_GAMES", f"the challenger's live games: {exc}",
                         headers={"Retry-After": "60"}) from None


@blp.route("/challenges", methods=["POST"])
@blp.doc(operationId="createChallenge")
@blp.arguments(ChallengeCreateSchema)
@blp.response(201, ChallengeSchema)
def create_challenge(body: dict[str, Any]) -> dict[str, Any]:
    """Challenge a registered bot. The answer is the challenge as it stands: ``accepted`` (with
    its game) or ``declined`` when the bot's owner set a policy, else ``pending`` until the bot
    answers on its stream or it expires (``expires_s``). Costs the challenger one unit of work; at
    most 5 of one challenger's and 20 to one bot wait at a time (429 ``TOO_MANY_CHALLENGES``)."""
    challenger = _challenger(body)
    target = _bot(body["bot_id"])
    _check_game(body)
    policy = challenges().policy(target.bot_id)
    caps = limits.live_caps(current_app.config, principal())
    store = challenges()
    try:
        limits.charge(1, "a challenge")
        record = store.create(challenger, target.bot_id, target.name, body,
                              {"per_creator": caps.per_creator, "total": caps.total} if caps else None)
    except ChallengeRefused as exc:
        raise ApiProblem(422, "INVALID_CONFIG", str(exc)) from None
    except TooManyChallenges as exc:
        raise ApiProblem(429, "TOO_MANY_CHALLENGES", str(exc), headers={"Retry-After": "60"}) from None
    if policy is Policy.ACCEPT_ALL or (policy is Policy.ACCEPT_RATED_PEERS and challenger.bot_id is not None
                                       and store.rated_in(challenger.bot_id, body["game"], body.get("edition"))):
        return shown(_accept(record["id"]))
    if policy in (Policy.DECLINE_ALL, Policy.ACCEPT_RATED_PEERS):
        why = "the bot declines all challenges" if policy is Policy.DECLINE_ALL else \
            "the bot accepts challenges only from bots rated in this game"
        return shown(store.decline(record["id"], why))
    store.offer(record)
    return shown(record)


@blp.route("/challenges/<string:cid>", methods=["GET"])
@blp.doc(operationId="getChallenge")
@blp.response(200, ChallengeSchema)
def get_challenge(cid: str) -> dict[str, Any]:
    """A challenge as it stands (anyone with its id); one past its time reads as expired even
    before the workers' next pass has sent its ``challenge_expired`` events."""
    record = _found(cid)
    if record["status"] == "pending" and record["expires"] <= iso(now_ms()):
        with contextlib.suppress(NotPending):  # answered meanwhile: read it again either way
            challenges().expire(cid)
        record = _found(cid)
    return shown(record)


@blp.route("/challenges/<string:cid>/accept", methods=["POST"])
@blp.doc(operationId="acceptChallenge")
@blp.response(200, ChallengeSchema)
def accept_challenge(cid: str) -> dict[str, Any]:
    """The challenged bot (its token) or its owner accepts: the game is created (the challenger's)
    and ``challenge_accepted`` with its id goes to both sides' streams. 409 once it was answered or
    expired."""
    _answerer(_found(cid))
    return shown(_accept(cid))


@blp.route("/challenges/<string:cid>/decline", methods=["POST"])
@blp.doc(operationId="declineChallenge")
@blp.arguments(ChallengeDeclineSchema)
@blp.response(200, ChallengeSchema)
def decline_challenge(body: dict[str, Any], cid: str) -> dict[str, Any]:
    """The challenged bot or its owner declines (``challenge_declined`` on both sides' streams)."""
    _answerer(_found(cid))
    try:
        return shown(challenges().decline(cid, body.get("reason") or "declined"))
    except NotPending as exc:
        raise ApiProblem(409, "NOT_PENDING", str(exc), title="Conflict") from None


@blp.route("/bots/<string:bot_id>/challenge-policy", methods=["PUT"])
@blp.doc(operationId="setChallengePolicy")
@blp.arguments(ChallengePolicySchema)
@blp.response(200, ChallengePolicySchema)
def set_policy(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """The owner (account key, scope ``bots``) sets how the bot answers challenges."""
    account, _ = require_account("bots")
    bot = _bot(bot_id)
    if bot.owner is None or bot.owner != account.account_id:
        raise ApiProblem(403, "FORBIDDEN", f"bot {bot.name} belongs to another account")
    challenges().set_policy(bot_id, Policy(body["policy"]))
    return {"policy": body["policy"]}


@blp.route("/bots/<string:bot_id>/challenge-policy", methods=["GET"])
@blp.doc(operationId="getChallengePolicy")
@blp.response(200, ChallengePolicySchema)
def get_policy(bot_id: str) -> dict[str, Any]:
    """How the bot answers challenges (public: a challenger may look before it pays)."""
    _bot(bot_id)
    return {"policy": challenges().policy(bot_id).value}


def _check_game(body: Mapping[str, Any]) -> None:
    """422 for a game, edition, seat count, seat or built-in the game would refuse on acceptance."""
    if body["seat"] >= body["players"]:
        raise ApiProblem(422, "INVALID_CONFIG", f"seat must be below players ({body['players']})")
    try:
        rules = get_game(body["game"])
        rules.config_from_json({"players": body["players"], **({"edition": body["edition"]} if body.get("edition") else {})})
    except Rejected as exc:
        raise ApiProblem(422, "INVALID_CONFIG", exc.message) from None
    except Exception:
        raise ApiProblem(422, "INVALID_CONFIG", f"no game named {body['game']!r}") from None
    builtin = body.get("builtin")
    if builtin is not None and builtin not in bot_names(rules.name):
        raise ApiProblem(422, "INVALID_CONFIG", f"builtin {builtin!r} does not play {rules.name}; "
                                                f"bots for it: {', '.join(bot_names(rules.name))}")


def _found(cid: str) -> dict[str, Any]:
    try:
        return challenges().get(cid)
    except NotPending as exc:
        raise ApiProblem(404, "NOT_FOUND", str(exc)) from None
