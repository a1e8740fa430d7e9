"""RQ jobs. Each takes ids, re-reads the game from the store and appends through
``GameService.apply`` (the one append path) with an expected version and an idempotency key,
so a job that runs twice, a retried job, or two workers racing append each step once.

- ``advance(game_id)``: one *slice* of the game (``workers.lanes``). The job takes the game's
  lease (``workers.lease``; a job that finds it taken leaves at once), then, while SYSTEM or a
  bot/HTTP seat is to act, computes its command and appends it with key
  ``advance:<game>:<version>`` (a stale version or a replayed key means someone else did that
  step: re-read and carry on). Fast-lane steps are decided one after the other on the game in
  memory and a run of them is stored in one append (``GameService.apply_planned``), each step
  still under its own key. On the fast lane the job stops once its slice is over (``_Slice``:
  ``lanes.slice_s()`` of its CPU, or four times that on the clock) unless it may play the next
  slice too (``_goes_on``: no game's news and no slow-lane work waits, and no other fast-lane
  game waits or this is not yet its ``lanes.TURN_SLICES``-th slice),
  on the slow lane after one decision, and whenever the next actor belongs to another lane; it
  then lets the lease go and puts the game at the back of the right queue, so games take turns.
  A push seat's decision goes to the caller process (``workers.caller``) with the lease: no
  worker waits for an HTTP answer. Without a live caller the slow lane asks inline.
- ``timeout(game_id, seat, stint)``: a seat's clock ran out; append SYSTEM
  ``ApplyTimeout(target=seat)`` with key ``timeout:<game>:<seat>:<stint>``, unless the seat
  already acted (a late or duplicate job changes nothing), then advance. A pull bot that timed
  out N times in a row forfeits (``workers.forfeits``).

``run_advance(svc, game_id)`` without a lane plays the game in this process (tests, tools): every
machine decision, HTTP seats asked inline, up to ``limit`` steps or ``MAX_SECONDS_PER_JOB``.

While it runs, a job renews its lease every second; when only humans are left it takes the game
off the work list (``core.worklist``), or, while a human's clock runs, sets it due at that clock's
deadline, and a clock more than ``GRACE_MS`` past its deadline (a lost timeout job) is timed out
on the spot. A job that fails counts a try at that version; after ``sweeper.MAX_TRIES`` the game
is marked stuck and the job returns instead of raising, so RQ stops retrying it.
"""
from __future__ import annotations

import logging
import math
import os
import threading
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

from rq import get_current_job

from core import clocks, metrics, timing
from core.connection import UNAVAILABLE, get_redis
from core.games import Applied, Game, GameNotFound, GameService, IdempotencyConflict, Planned, StaleVersion
from core.worklist import GRACE_MS
from domain.core import SYSTEM, Rejected
from workers import calls, forfeits, httpbot, lanes, pushcalls, sweeper, tournaments
from workers.bundles import BundleBook
from workers.enqueue import cancel_timeout, enqueue_advance, queued_jobs, schedule_timeout
from workers.lease import LEASE_MS, Lease
from workers.policy import Decision, decide_builtin, default_command, next_actor

log = logging.getLogger(__name__)

MAX_BATCHES_PER_JOB = 500  # then hand over to a fresh job, so one long bot game cannot hog a worker
MAX_SECONDS_PER_JOB = 120.0  # likewise for slow HTTP seats (well inside the job timeout)
MAX_RUN = 200  # fast-lane steps stored in one append (one script call's arguments stay small)
DEADLINE_ENV = "HOURGLASS_BOT_DEADLINE_S"
_SERVICES: dict[int, GameService] = {}
_BOOKS: dict[int, BundleBook] = {}  # by id of the GameService: what it holds of tournament games
_LOCK = threading.Lock()


def service() -> GameService:
    """This process's GameService on the configured Redis (its fold cache survives between jobs)."""
    conn = get_redis()
    with _LOCK:
        if id(conn) not in _SERVICES:  # built once: a GameService imports every game and registers scripts
            metrics.use(conn)
            book = BundleBook()  # what this process plays of tournament games, for their bundles
            svc = GameService(conn, on_finished=partial(tournaments.game_finished, book=book))
            svc.commands.listen_first(book)
            _SERVICES[id(conn)] = svc
            _BOOKS[id(svc)] = book
        return _SERVICES[id(conn)]


# --- advance ---------------------------------------------------------------------------------


REDIS_DOWN = UNAVAILABLE  # core.connection: a cluster adds its own ways of being away


def advance(game_id: str) -> dict[str, Any]:
    """One slice of ``game_id`` on the lane of the queue this job came from."""
    svc = service()
    job = get_current_job()
    lane = lanes.lane_of_queue(job.origin) if job is not None and job.origin else lanes.FAST
    if lane == lanes.NOW:  # a game with news: its first slice came first; it goes on like any other
        lane = lanes.FAST
    try:
        return run_advance(svc, game_id, lane=lane, owner=job.id if job is not None else None)
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


def run_advance(svc: GameService, game_id: str, limit: int = MAX_BATCHES_PER_JOB,
                lane: lanes.Lane | None = None, owner: str | None = None) -> dict[str, Any]:
    """Advance ``game_id``: one slice on ``lane`` (an RQ job), or, without a lane, every machine
    decision in this process up to ``limit`` steps and ``MAX_SECONDS_PER_JOB``. Either way the
    game continues in a fresh job on the right queue when this one stops early.

    Returns what happened: ``appended``, ``raced`` (someone else appended that step), and
    ``continued`` (re-queued), ``called`` (handed to the caller process) or ``busy`` (another job
    holds the game; it will look again). ``owner``: the lease token (an RQ job's id, so that its
    retry takes the lease back); default a fresh one."""
    conn = svc.store.conn
    lease = Lease(conn, game_id, owner) if owner else Lease(conn, game_id)
    if not lease.take(_lease_ms()):
        return {"game": game_id, "busy": True}
    started = time.monotonic()
    out: dict[str, Any] = {"game": game_id}
    try:
        out = _advance_steps(svc, game_id, limit, lane, lease)
    finally:
        woken = False if out.get("called") else lease.release()  # a call took the lease with it
    if lane is not None:
        metrics.job_slice(lane, time.monotonic() - started, int(out.get("appended", 0)))
    if out.get("continued") or woken:  # after the release: the next job must find the game free
        version = svc.store.version(game_id) if woken or "version" not in out else out["version"]
        # news came while we held the game (a job found it leased): that is the now lane's business
        enqueue_advance(conn, game_id, version, lane=out.get("next") or (lanes.NOW if woken else lanes.FAST))
    return out


@dataclass(frozen=True)
class _Slice:
    """When a job's slice is over: after ``lanes.slice_s()`` of this thread's CPU, or
    ``lanes.SLICE_WALL_FACTOR`` times that in wall time, whichever comes first (a loaded machine
    does not cut a slice into pieces that cost more in queue bookkeeping than in play, and a
    slice still ends in bounded time); without a lane, after ``MAX_SECONDS_PER_JOB``."""

    cpu_until: float  # time.thread_time()
    wall_until: float  # time.monotonic()
    started_at: float  # time.monotonic() when the job's first slice began
    number: int = 1  # the job's first slice, its second...

    @classmethod
    def start(cls, lane: lanes.Lane | None, last: _Slice | None = None) -> _Slice:
        """The job's first slice, or the one after ``last`` (``_goes_on``)."""
        now = time.monotonic()
        began, number = (last.started_at, last.number + 1) if last is not None else (now, 1)
        if lane is None:
            return cls(math.inf, now + MAX_SECONDS_PER_JOB, began, number)
        length = lanes.slice_s()
        return cls(time.thread_time() + length, now + length * lanes.SLICE_WALL_FACTOR, began, number)

    def over(self, wall_until: float = math.inf) -> bool:
        return time.thread_time() > self.cpu_until or time.monotonic() > min(self.wall_until, wall_until)


def _advance_steps(svc: GameService, game_id: str, limit: int, lane: lanes.Lane | None,
                   lease: Lease) -> dict[str, Any]:
    appended = raced = 0
    budget = _Slice.start(lane)
    work = svc.worklist
    flags = svc.flags(game_id)
    if flags["stuck"] is not None or flags["status"] == "expired":  # an operator's matter, or over
        work.drop(game_id)
        return {"game": game_id, **{k: v for k, v in flags.items() if v}}
    renewed = time.monotonic()
    step = 0
    while step < limit:
        if lane is None and budget.over():
            break
        if time.monotonic() - renewed > 1.0:  # a lease of several seconds, renewed every second
            if not lease.renew(_lease_ms()):
                return {"game": game_id, "appended": appended, "raced": raced, "lost_lease": True}
            renewed = time.monotonic()
        generation = work.generation(game_id)
        game = read_game(svc, game_id)
        current = sync_clocks(svc, game)
        actor = next_actor(game.rules, game.state, game.info.seats, game.to_act, game.table.left)
        done = {"game": game_id, "version": game.version, "appended": appended, "raced": raced}
        if actor is None:
            overdue = _overdue_stint(svc, game, current)
            if overdue is not None and _apply_timeout(svc, game_id, *overdue)["applied"]:
                appended += 1
                continue
            _settle(svc, game, current, generation)
            return done
        kind = lanes.actor_lane(game.info.game, actor, game.info.seats, game.table.left)
        push = actor if kind == lanes.CALL and isinstance(actor, int) else None  # a push seat's decision
        if lane is not None:
            if push is not None and calls.dispatch(svc, game, push, lease, _http_timeout(svc, game, push)):
                return {**done, "called": True}
            wanted = lanes.SLOW if kind == lanes.CALL else kind
            if wanted != lane or (step > 0 and (lane == lanes.SLOW or budget.over())):
                if not _goes_on(svc, wanted, lane, budget):
                    return {**done, "continued": True, "next": wanted}
                budget = _Slice.start(lane, budget)
        if push is not None:  # asked inline: the lease must outlast the seat's whole answer budget
            lease.renew(int(_http_timeout(svc, game, push) * 1000) + LEASE_MS)
            applied = ask_http_seat(svc, game, push)
            appended += applied is not None
            raced += applied is None
            step += 1
            continue
        run = _plan_run(svc, game, actor, budget, renewed + 1.0, limit - step) \
            if kind == lanes.FAST and current is None else []
        if run:
            stored = _store_run(svc, game_id, run)
            appended += len(run) if stored else 0
            raced += not stored
            step += len(run) if stored else 1
            handover = _handover(run[-1].after) if stored and lane is not None and budget.over() else None
            if handover is not None:  # the slice is over and the run's end says who is next: no read
                if not _goes_on(svc, handover, lane, budget):
                    return {"game": game_id, "version": run[-1].after.version, "appended": appended,
                            "raced": raced, "continued": True, "next": handover}
                budget = _Slice.start(lane, budget)
            continue
        step += 1
        decision = decide(svc, game, actor)
        version = append(svc, game, decision, f"advance:{game_id}:{game.version}")
        if version is None:
            raced += 1
        elif version == game.version:  # a command without events would loop forever
            raise RuntimeError(f"{decision.command!r} by {actor!r} at version {version} of {game_id} changed nothing")
        else:
            appended += 1
    version = svc.load(game_id).version
    return {"game": game_id, "version": version, "appended": appended, "raced": raced, "continued": True,
            "next": lane or lanes.FAST}


def _goes_on(svc: GameService, wanted: lanes.Lane, lane: lanes.Lane | None, budget: _Slice) -> bool:
    """True when a fast slice that is over may play the game's next slice in this job: the game
    stays on the fast lane, no game's news waits (an advance job on the now lane; a tournament
    tick there waits a slice more) and no slow-lane work, and either no other fast-lane game
    waits or this is not yet the game's ``lanes.TURN_SLICES``-th slice in a row. A queue hop
    costs RQ's bookkeeping and, when the next slice lands on the other worker, a fold of what
    this one appended (``workers.bundles``)."""
    if lane != lanes.FAST or wanted != lanes.FAST or budget.started_at + MAX_SECONDS_PER_JOB < time.monotonic():
        return False
    waiting = queued_jobs(svc.store.conn)
    if waiting.news or waiting.slow:
        return False
    return waiting.fast == 0 or budget.number < lanes.TURN_SLICES


def read_game(svc: GameService, game_id: str) -> Game:
    """The game now; a tournament game through this process's book (``workers.bundles``)."""
    book = _BOOKS.get(id(svc))
    if book is None or svc.cached(game_id) is None:  # a cold load (and a seeding game's set-up) as ever
        return svc.load(game_id)
    return book.load(svc.repository, game_id)


def _handover(game: Game) -> lanes.Lane | None:
    """The queue lane of whoever acts next in ``game`` as a run left it (a job that ran out of
    slice hands the game over without reading it again); None when that takes a fresh look: only
    humans left (the work list), or a push seat (its call is dispatched by a job holding the game)."""
    actor = next_actor(game.rules, game.state, game.info.seats, game.to_act, game.table.left)
    if actor is None:
        return None
    kind = lanes.actor_lane(game.info.game, actor, game.info.seats, game.table.left)
    return None if kind == lanes.CALL else kind


def _plan_run(svc: GameService, game: Game, actor: Any, budget: _Slice, renew_by: float, most: int) -> list[Planned]:
    """A run of fast-lane steps (SYSTEM, cheap built-in bots, a departed seat's default moves)
    decided one after the other on the game in memory, from ``actor``'s: at least one, then more
    while the next actor is also on the fast lane, up to ``most`` steps or ``MAX_RUN``, until the
    slice is over or the monotonic time ``renew_by`` (the lease's next renewal). Nothing is stored;
    :func:`_store_run` appends the run in one round trip. Empty when the first step cannot be
    planned on this copy (the single-step path then reads and decides again)."""
    run: list[Planned] = []
    current, who = game, actor
    while True:
        decision = decide(svc, current, who)
        try:
            planned = svc.plan(current, decision.actor, decision.command, f"advance:{game.game_id}:{current.version}",
                               decision.meta or None)
        except Rejected:
            return run
        if not planned.entries:  # the single-step path reports it
            return run
        run.append(planned)
        current = planned.after
        if len(run) >= min(most, MAX_RUN) or budget.over(renew_by):
            return run
        who = next_actor(current.rules, current.state, current.info.seats, current.to_act, current.table.left)
        if who is None or lanes.actor_lane(current.info.game, who, current.info.seats, current.table.left) != lanes.FAST:
            return run


def _store_run(svc: GameService, game_id: str, run: list[Planned]) -> bool:
    """Append a planned run in one round trip; False when another writer got there first."""
    try:
        result = svc.apply_planned(game_id, run)
    except (StaleVersion, IdempotencyConflict) as exc:
        log.info("advance %s at %d: %s; re-reading", game_id, run[0].before.version, exc)
        return False
    return not result.replayed


def _lease_ms() -> int:
    """Long enough for one step, an HTTP seat's whole deadline included."""
    deadline_s = float(os.environ.get(DEADLINE_ENV) or httpbot.DEFAULT_DEADLINE_S)
    return max(LEASE_MS, int(deadline_s * 1000) + 5_000)


def _running_stints(game: Game, current: clocks.Clocks | None) -> list[tuple[int, int, int]]:
    """(deadline ms, seat, stint) of every running clock a timeout can end (bots never run out)."""
    if current is None or not game.to_act:
        return []
    return sorted((c.deadline_ms, seat, c.stint) for seat, c in current.seats.items()
                  if c.running and c.deadline_ms is not None and c.stint is not None
                  and game.info.seat_policy(seat).clock_runs_out)


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
    version and the key, so nothing is read again (one round trip, core.commands.CommandHandler.apply)."""
    return svc.apply(game.game_id, actor, command, expected_version=game.version, idempotency_key=key, meta=meta,
                     base=game)


def decide(svc: GameService, game: Game, actor: Any) -> Decision:
    """The move of SYSTEM, a built-in bot, or a seat that left (its default move): never an HTTP seat."""
    if actor in game.table.left:  # a seat that resigned, was abandoned or forfeited: its default moves
        return default_command(game.rules, game.state, actor, {"departed": game.table.departure(actor)})
    return decide_builtin(game.rules, game.state, actor, game.info.seats, game.info.seed, game.game_id,
                          game.version)


# --- HTTP seats ------------------------------------------------------------------------------


def prepare_call(svc: GameService, game: Game, seat: int) -> pushcalls.PushCall | None:
    """The call to make for a push seat now (its answer budget from :func:`_http_timeout`)."""
    return pushcalls.prepare(svc, game, seat, _http_timeout(svc, game, seat))


def ask_http_seat(svc: GameService, game: Game, seat: int) -> Applied | None:
    """Ask the seat inline (this job waits for the answer) and append its move or the default."""
    push = prepare_call(svc, game, seat)
    if push is None:
        call = pushcalls.no_moves()
    else:
        call = httpbot.ask_bot(push.url, push.secret, push.body(), push.timeout_s, pushcalls.legal_on(game, seat))
    pushcalls.record(svc, push, call)
    return pushcalls.conclude(svc, game.game_id, seat, game.version, call)


def _http_timeout(svc: GameService, game: Game, seat: int) -> float:
    """The seat's answer budget: what its ``deadline_s`` (else the default) leaves after the calls
    of its running decision (core.timing.decision_left_s: a planning phase is one decision), cut
    to what is left on its clock; 0.0 when nothing is left (httpbot then sends nothing: the
    seat's default move)."""
    deadline_s = float(game.info.seats[seat].deadline_s or os.environ.get(DEADLINE_ENV)
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
        if game.to_act and clock.timer is not None and game.info.seat_policy(seat).clock_runs_out:
            schedule_timeout(conn, game.game_id, seat, *clock.timer)
    return current


def timeout(game_id: str, seat: int, stint: int) -> dict[str, Any]:
    """A seat's clock ran out during the stint that began at version ``stint``."""
    svc = service()
    try:
        return run_timeout(svc, game_id, seat, stint, lane=lanes.FAST)
    except GameNotFound:
        return {"game": game_id, "seat": seat, "applied": False, "reason": "missing"}
    except REDIS_DOWN:
        raise
    except Exception as exc:
        return failed(svc, game_id, exc)


def run_timeout(svc: GameService, game_id: str, seat: int, stint: int,
                lane: lanes.Lane | None = None) -> dict[str, Any]:
    """Time the seat out, then advance the game (one slice on ``lane``; see :func:`run_advance`)."""
    outcome = _apply_timeout(svc, game_id, seat, stint)
    if outcome["applied"]:
        outcome["advance"] = run_advance(svc, game_id, lane=lane)
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
        if not applied.replayed:  # a pull bot that keeps missing its turns forfeits
            forfeits.check(svc, game_id, seat)
        return {"game": game_id, "seat": seat, "applied": not applied.replayed,
                "reason": "replayed" if applied.replayed else "timeout", "version": applied.version}
    raise RuntimeError(f"timeout for seat {seat} of {game_id}: the game kept moving; RQ retries the job")
