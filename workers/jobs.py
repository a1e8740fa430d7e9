"""RQ jobs. Each takes ids, re-reads the game from the store and appends through
``GameService.apply`` (the one append path) with an expected version and an idempotency key,
so a job that runs twice, a retried job, or two workers racing append each step once.

- ``advance(game_id)``: while SYSTEM or a bot/HTTP seat is to act, compute its command and
  append it with key ``advance:<game>:<version>``. A stale version or a replayed key means
  someone else did that step: re-read and carry on.
- ``timeout(game_id, seat, stint)``: a seat's clock ran out; append SYSTEM
  ``ApplyTimeout(target=seat)`` with key ``timeout:<game>:<seat>:<stint>``, unless the seat
  already acted (a late or duplicate job changes nothing), then advance.

While it runs, ``advance`` holds the game's lease (``workers.sweeper``) and refreshes it before
every step; when only humans are left it takes the game off the work list (``core.worklist``),
or, while a human's clock runs, sets it due at that clock's deadline, and a clock more than
``GRACE_MS`` past its deadline (a lost timeout job) is timed out on the spot. A job that fails
counts a try at that version; after ``sweeper.MAX_TRIES`` the game is marked stuck and the job
returns instead of raising, so RQ stops retrying it.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from core import clocks, timing
from core.connection import UNAVAILABLE, get_redis
from core.games import Applied, Game, GameNotFound, GameService, IdempotencyConflict, StaleBase, StaleVersion
from core.worklist import GRACE_MS
from domain.core import SYSTEM, Rejected
from workers import httpbot, sweeper, tournaments
from workers.enqueue import cancel_timeout, enqueue_advance, schedule_timeout
from workers.policy import Decision, decide_builtin, default_command, next_actor

log = logging.getLogger(__name__)

MAX_BATCHES_PER_JOB = 500  # then hand over to a fresh job, so one long bot game cannot hog a worker
MAX_SECONDS_PER_JOB = 120.0  # likewise for slow HTTP seats (well inside the job timeout)
DEADLINE_ENV = "HOURGLASS_BOT_DEADLINE_S"
_SERVICES: dict[int, GameService] = {}
_LOCK = threading.Lock()


def service() -> GameService:
    """This process's GameService on the configured Redis (its fold cache survives between jobs)."""
    conn = get_redis()
    with _LOCK:
        return _SERVICES.setdefault(id(conn), GameService(conn, on_finished=tournaments.game_finished))


# --- advance ---------------------------------------------------------------------------------


REDIS_DOWN = UNAVAILABLE  # core.connection: a cluster adds its own ways of being away


def advance(game_id: str) -> dict[str, Any]:
    """Advance ``game_id`` until only humans may act (or the game is over)."""
    svc = service()
    try:
        return run_advance(svc, game_id)
    except GameNotFound:
        return {"game": game_id, "missing": True}  # deleted, or never existed: nothing to retry
    except REDIS_DOWN:
        raise  # an outage is not the game's fault: RQ retries, nothing is counted
    except Exception as exc:
        return failed(svc, game_id, exc)


def failed(svc: GameService, game_id: str, exc: Exception) -> dict[str, Any]:
    """Count a failed try at the game's version; raise again (RQ retries) until there were too many."""
    version = svc.store.version(game_id)
    tries = svc.worklist.count_try(game_id, version)
    if tries < sweeper.MAX_TRIES:
        raise exc
    record = sweeper.give_up(svc.worklist, game_id, version, f"{type(exc).__name__}: {exc}", tries)
    return {"game": game_id, "stuck": record}


def run_advance(svc: GameService, game_id: str, limit: int = MAX_BATCHES_PER_JOB) -> dict[str, Any]:
    conn = svc.store.conn
    try:
        return _advance_steps(svc, game_id, limit)
    finally:
        sweeper.release_lease(conn, game_id)


def _advance_steps(svc: GameService, game_id: str, limit: int) -> dict[str, Any]:
    appended = raced = 0
    stop_at = time.monotonic() + MAX_SECONDS_PER_JOB
    work = svc.worklist
    flags = svc.flags(game_id)
    if flags["stuck"] is not None or flags["status"] == "expired":  # an operator's matter, or over
        work.drop(game_id)
        return {"game": game_id, **{k: v for k, v in flags.items() if v}}
    leased_at = -1.0
    for _ in range(limit):
        if time.monotonic() > stop_at:
            break
        if time.monotonic() - leased_at > 1.0:  # a lease of several seconds, renewed every second
            sweeper.hold_lease(svc.store.conn, game_id, _lease_ms())
            leased_at = time.monotonic()
        generation = work.generation(game_id)
        game = svc.load(game_id)
        current = sync_clocks(svc, game)
        actor = next_actor(game.rules, game.state, game.info.seats, game.to_act, game.table.left)
        if actor is None:
            overdue = _overdue_stint(svc, game, current)
            if overdue is not None and _apply_timeout(svc, game_id, *overdue)["applied"]:
                appended += 1
                continue
            _settle(svc, game, current, generation)
            return {"game": game_id, "version": game.version, "appended": appended, "raced": raced}
        decision = decide(svc, game, actor)
        version = append(svc, game, decision, f"advance:{game_id}:{game.version}")
        if version is None:
            raced += 1
        elif version == game.version:  # a command without events would loop forever
            raise RuntimeError(f"{decision.command!r} by {actor!r} at version {version} of {game_id} changed nothing")
        else:
            appended += 1
    version = svc.load(game_id).version
    enqueue_advance(svc.store.conn, game_id, version)
    return {"game": game_id, "version": version, "appended": appended, "raced": raced, "continued": True}


def _lease_ms() -> int:
    """Long enough for one step, an HTTP seat's whole deadline included."""
    deadline_s = float(os.environ.get(DEADLINE_ENV) or httpbot.DEFAULT_DEADLINE_S)
    return max(sweeper.LEASE_MS, int(deadline_s * 1000) + 5_000)


def _running_stints(game: Game, current: clocks.Clocks | None) -> list[tuple[int, int, int]]:
    """(deadline ms, seat, stint) of every running clock a timeout can end (bots never run out)."""
    if current is None or not game.to_act:
        return []
    return sorted((c.deadline_ms, seat, c.stint) for seat, c in current.seats.items()
                  if c.running and c.deadline_ms is not None and c.stint is not None
                  and game.info.seat_kind(seat) != "bot")


def _overdue_stint(svc: GameService, game: Game, current: clocks.Clocks | None) -> tuple[int, int] | None:
    """A stint whose timeout job should have fired more than ``GRACE_MS`` ago (it was lost)."""
    late = [(seat, stint) for deadline, seat, stint in _running_stints(game, current)
            if now_ms(svc) > deadline + GRACE_MS]
    return late[0] if late else None


def _settle(svc: GameService, game: Game, current: clocks.Clocks | None, generation: int) -> None:
    """Only humans are left: off the work list, or due when the first running clock runs out."""
    stints = _running_stints(game, current)
    if stints:
        svc.worklist.mark(game.game_id, stints[0][0] + GRACE_MS)
    else:
        svc.worklist.retire(game.game_id, generation)


def append(svc: GameService, game: Game, decision: Decision, key: str) -> int | None:
    """Append one decision at ``game.version``: the new version, or None when another writer
    got there first (stale version, or the same key already used: replayed or conflicting)."""
    try:
        applied = _apply_at(svc, game, decision.actor, decision.command, key, decision.meta or None)
    except (StaleVersion, IdempotencyConflict) as exc:
        log.info("advance %s at %d: %s; re-reading", game.game_id, game.version, exc)
        return None
    return None if applied.replayed else applied.version


def _apply_at(svc: GameService, game: Game, actor: Any, command: Any, key: str, meta: dict[str, Any] | None) -> Applied:
    """Apply at ``game.version`` from the game this job already loaded: the append script checks the
    version and the key, so nothing is read again (one round trip, core.games.GameService.apply)."""
    try:
        return svc.apply(game.game_id, actor, command, expected_version=game.version, idempotency_key=key, meta=meta,
                         base=game)
    except StaleBase:  # the rules refuse it on this state: the ordinary path gives the same refusal
        return svc.apply(game.game_id, actor, command, expected_version=game.version, idempotency_key=key, meta=meta)


def decide(svc: GameService, game: Game, actor: Any) -> Decision:
    if actor in game.table.left:  # a seat that resigned or was abandoned: its default moves
        return default_command(game.rules, game.state, actor, {"departed": game.table.departure(actor)})
    if actor != SYSTEM and game.info.seat_kind(actor) == "http":
        return ask_http_seat(svc, game, actor)
    return decide_builtin(game.rules, game.state, actor, game.info.seats, game.info.seed, game.game_id,
                          game.version)


# --- HTTP seats ------------------------------------------------------------------------------


def ask_http_seat(svc: GameService, game: Game, seat: int) -> Decision:
    """POST the seat's view and moves to its URL; the first valid answer or the default move."""
    rules, state = game.rules, game.state
    moves = rules.legal_moves(state, seat)
    if len(moves) == 0:
        return default_command(rules, state, seat, {"http": {"kind": "http", "outcome": "no_moves"}})
    timeout_s = _http_timeout(svc, game, seat)
    body = httpbot.request_body(game.game_id, seat, game.version, rules.view(state, seat),
                                [rules.move_to_json(m) for m in moves], time.time() + timeout_s)
    url, secret = http_endpoint(svc, game, seat)

    def parse(move: dict[str, Any]) -> Any:
        try:
            return rules.command_from_json(move, seat)
        except (Rejected, KeyError, ValueError, TypeError):
            return None

    call = httpbot.ask_bot(url, secret, body, timeout_s, lambda move: parse(move) in moves)
    bot_id = game.info.seats[seat].get("bot_id")
    if bot_id:  # the bot sees every call's outcome on its own stream while the game runs
        svc.feed.call_outcome(bot_id, game.game_id, seat, game.version, call.outcome, call.rtt_ms)
    if call.move is None:
        return default_command(rules, state, seat, {"http": call.meta()})
    return Decision(seat, parse(call.move), {"http": call.meta()})


def http_endpoint(svc: GameService, game: Game, seat: int) -> tuple[str, str]:
    """(url, HMAC secret) of an http seat: a registered bot's current ones, else the seat's own."""
    spec = game.info.seats[seat]
    if spec.get("bot_id"):
        bot_id = spec["bot_id"]
        return svc.bots.get(bot_id).url or "", svc.bots.secret(bot_id)
    return spec["url"], svc.store.meta_field(game.game_id, f"secret:{seat}") or ""


def _http_timeout(svc: GameService, game: Game, seat: int) -> float:
    """The seat's answer budget: what its ``deadline_s`` (else the default) leaves after the calls
    of its running decision (core.timing.decision_left_s: a planning phase is one decision), cut
    to what is left on its clock; 0.0 when nothing is left (httpbot then sends nothing: the
    seat's default move)."""
    deadline_s = float(game.info.seats[seat].get("deadline_s") or os.environ.get(DEADLINE_ENV)
                       or httpbot.DEFAULT_DEADLINE_S)
    budget = timing.decision_left_s(svc, game, seat, deadline_s)
    controls = timing.controls(game)
    current = clocks.load(svc.store.conn, game.game_id) if seat in controls else None
    if current is not None and seat in current.seats and current.seats[seat].running:
        left_s = current.remaining_at(seat, now_ms(svc)) / 1000
        budget = min(budget, max(0.05, left_s))
    return budget


# --- clocks ----------------------------------------------------------------------------------


def now_ms(svc: GameService) -> int:
    return int(svc.clock().timestamp() * 1000)


def sync_clocks(svc: GameService, game: Game) -> clocks.Clocks | None:
    """Bring the cached clocks up to ``game.version`` and schedule the running stints' timeouts."""
    controls = timing.controls(game)
    if not controls:
        return None
    conn = svc.store.conn
    cached = clocks.load(conn, game.game_id)
    current = timing.current(svc, game, cached)
    assert current is not None  # the game has clocks
    for seat, clock in current.seats.items():
        before = cached.seats.get(seat) if cached is not None else None
        stopped = before.timer if before is not None else None
        if stopped is not None and stopped[0] != clock.stint:
            cancel_timeout(conn, game.game_id, seat, stopped[0])
        if game.to_act and clock.timer is not None and game.info.seat_kind(seat) != "bot":  # bots never run out
            schedule_timeout(conn, game.game_id, seat, *clock.timer)
    return current


def timeout(game_id: str, seat: int, stint: int) -> dict[str, Any]:
    """A seat's clock ran out during the stint that began at version ``stint``."""
    svc = service()
    try:
        return run_timeout(svc, game_id, seat, stint)
    except GameNotFound:
        return {"game": game_id, "seat": seat, "applied": False, "reason": "missing"}
    except REDIS_DOWN:
        raise
    except Exception as exc:
        return failed(svc, game_id, exc)


def run_timeout(svc: GameService, game_id: str, seat: int, stint: int) -> dict[str, Any]:
    outcome = _apply_timeout(svc, game_id, seat, stint)
    if outcome["applied"]:
        outcome["advance"] = run_advance(svc, game_id)
    return outcome


def _apply_timeout(svc: GameService, game_id: str, seat: int, stint: int) -> dict[str, Any]:
    for _ in range(8):
        game = svc.load(game_id)
        current = sync_clocks(svc, game)
        clock = current.seats.get(seat) if current else None
        timer = clock.timer if clock is not None else None
        if timer is None or timer[0] != stint or not game.to_act:
            return {"game": game_id, "seat": seat, "applied": False, "reason": "stale"}
        deadline_ms = timer[1]
        late = now_ms(svc) - deadline_ms
        if late < 0:  # fired early (clock skew): try again at the deadline
            schedule_timeout(svc.store.conn, game_id, seat, stint, deadline_ms, again=True)
            return {"game": game_id, "seat": seat, "applied": False, "reason": "early"}
        command = game.rules.command_from_json({"type": "ApplyTimeout", "target": seat}, SYSTEM)
        meta = {"clock": {"seat": seat, "stint": stint, "deadline_ms": deadline_ms, "late_ms": late}}
        try:
            applied = _apply_at(svc, game, SYSTEM, command, f"timeout:{game_id}:{seat}:{stint}", meta)
        except StaleVersion:
            continue  # something else moved: is the seat still on the same stint?
        except IdempotencyConflict:
            return {"game": game_id, "seat": seat, "applied": False, "reason": "conflict"}
        return {"game": game_id, "seat": seat, "applied": not applied.replayed,
                "reason": "replayed" if applied.replayed else "timeout", "version": applied.version}
    raise RuntimeError(f"timeout for seat {seat} of {game_id}: the game kept moving; RQ retries the job")
