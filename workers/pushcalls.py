"""A push seat's decision, apart from how the HTTP call is made: what is sent, and what the
answer (or its failure) appends.

Two transports use it: an advance job asks inline (``workers.httpbot``, a thread that waits),
and the caller process asks many seats at once (``workers.asyncbot``, ``workers.caller``). Both
prepare a :class:`PushCall` from the game as it stands, and hand the outcome to :func:`conclude`,
which appends through ``GameService.apply`` with the key ``advance:<game>:<version>`` of the
version the seat was asked at: a repeated conclusion (a retried job, a second caller) appends
nothing twice. The answer is decided on the game as it is when it arrives: a human may have moved
meanwhile (a planning phase), and an answer that is still legal is played; one that no longer is
is dropped without counting against the bot, and the seat is asked again at the new version.

After a failed call (anything but ``ok`` and ``no_moves``) the seat's default move is played and,
once the seat has failed ``HOURGLASS_FORFEIT_AFTER`` decisions in a row, it forfeits
(``workers.forfeits``).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core import metrics
from core.games import Applied, Game, GameService, IdempotencyConflict
from domain.core import Rejected
from workers import forfeits, httpbot

Parse = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class PushCall:
    """Everything one call needs, read from the game at ``version`` (the secret never leaves the worker)."""

    game_id: str
    seat: int
    version: int
    url: str
    secret: str = field(repr=False)
    timeout_s: float
    view: dict[str, Any] = field(repr=False)
    moves: tuple[dict[str, Any], ...] = field(repr=False)
    bot_id: str | None
    bot: str  # the metrics label (core.metrics.bot_label)
    limiter: str  # what the per-bot concurrency limit counts: the bot's id, else the URL's host

    def body(self, now_s: float | None = None) -> bytes:
        """The signed request's body, with the deadline ``timeout_s`` from ``now_s`` (default: now)."""
        started = time.time() if now_s is None else now_s
        return httpbot.request_body(self.game_id, self.seat, self.version, self.view, list(self.moves),
                                    started + self.timeout_s)


def endpoint(svc: GameService, game: Game, seat: int) -> tuple[str, str]:
    """(url, HMAC secret) of an http seat: a registered bot's current ones, else the seat's own."""
    spec = game.info.seats[seat]
    if spec.bot_id:
        return svc.bots.get(spec.bot_id).url or "", svc.bots.secret(spec.bot_id)
    return spec.url or "", svc.store.meta_field(game.game_id, f"secret:{seat}") or ""


def prepare(svc: GameService, game: Game, seat: int, timeout_s: float) -> PushCall | None:
    """The call to make for ``seat`` at the game's version; None when it has no legal move."""
    rules, state = game.rules, game.state
    moves = rules.legal_moves(state, seat)
    if len(moves) == 0:
        return None
    url, secret = endpoint(svc, game, seat)
    spec = game.info.seats[seat]
    bot_id = spec.bot_id
    limiter = f"bot:{bot_id}" if bot_id else f"url:{url.split('//', 1)[-1].split('/', 1)[0]}"
    return PushCall(game.game_id, seat, game.version, url, secret, timeout_s, rules.view(state, seat),
                    tuple(rules.move_to_json(m) for m in moves), bot_id,
                    metrics.bot_label(spec.name if bot_id else None, svc.store.conn), limiter)


def parser(game: Game, seat: int) -> Parse:
    """The bot's JSON move as a command of ``seat`` on ``game``, or None when it is none."""
    rules = game.rules

    def parse(move: dict[str, Any]) -> Any:
        try:
            return rules.command_from_json(move, seat)
        except (Rejected, KeyError, ValueError, TypeError, AttributeError):
            return None

    return parse


def legal_on(game: Game, seat: int) -> Callable[[dict[str, Any]], bool]:
    """Is a JSON move one of the seat's legal moves on ``game`` (the list the bot was sent)?"""
    parse, moves = parser(game, seat), game.rules.legal_moves(game.state, seat)
    return lambda move: (command := parse(move)) is not None and command in moves


def no_moves() -> httpbot.BotCall:
    """The record of a decision the seat had no choice in (nothing was sent)."""
    return httpbot.BotCall("", "no_moves", 0.0)


def record(svc: GameService, push: PushCall | None, call: httpbot.BotCall) -> None:
    """Tell the bot's stream and the metrics about one call (only the outcome code and latency)."""
    if push is None:
        return
    metrics.bot_call(push.bot, call.outcome, call.rtt_ms / 1000)
    if push.bot_id:  # the bot sees every call's outcome on its own stream while the game runs
        svc.feed.call_outcome(push.bot_id, push.game_id, push.seat, push.version, call.outcome, call.rtt_ms)


def conclude(svc: GameService, game_id: str, seat: int, version: int, call: httpbot.BotCall) -> Applied | None:
    """Append the seat's answer (or, after a failed call, its default move) with the key of
    ``version``; None when there is nothing to append any more (the seat is no longer to act, or
    its answer is no longer legal: it is asked again)."""
    game = svc.load(game_id)
    if game.finished or seat not in game.to_act or seat in game.table.left:
        return None
    meta: dict[str, Any] = {"http": call.meta() if call.outcome != "no_moves" else {"kind": "http", "outcome": "no_moves"}}
    command = parser(game, seat)(call.move) if call.move is not None else None
    if command is None:
        command = game.rules.default_move(game.state, seat)
        meta["default"] = True
    key = f"advance:{game_id}:{version}"
    try:  # refused on this state, it is decided again on the stored one (which may refuse too)
        applied = svc.apply(game_id, seat, command, idempotency_key=key, meta=meta, base=game)
    except (Rejected, IdempotencyConflict):
        return None
    if not applied.replayed and meta.get("default"):
        forfeits.check(svc, game_id, seat)
    return applied
