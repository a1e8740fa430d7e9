"""The tournament runner: RQ jobs that move a tournament forward, each step an event in its stream.

``tick(tid)`` reads the tournament (a fold of its stream), then appends, in this order, whatever is
due: the next round's pairings; ``GameFinished`` for every started game that has ended (with its
replay bundle's sha256, the bundle stored beside the game, and under tournament rules 2 its
departures and each seat's record from ``replays.seatstats``), followed at once by
``EntrantWithdrawn`` (``absent``) for an entrant that forfeited it, or ``GameCalledOff`` for one
that was aborted; ``GameSkipped`` for games not started whose entrant withdrew;
``RatingsUpdated`` for finished games in index order; new games up to ``parallel`` at a time
(``GameStarted``, the game created with its derived seed and a deterministic id, and its advance
job enqueued); and at the end ``TournamentFinished`` (revealed seed, Merkle root, standings),
after which the leaderboard takes the tournament's games once. After every step each bot
entrant's public record is brought up to the stream's version (``core.botrecords``).

A cancelled tournament (``TournamentCancelled``, appended by the organiser's request) pairs and
starts nothing more: each tick aborts its running games (SYSTEM's table ``Abort``, in the game's
own log) and records them as called off; when none is left it finishes like any other. A game
created by a step whose append then lost to a cancellation or a withdrawal is aborted the same way.

Every append names the version it was computed at, so two ticks racing (a duplicate job, a worker
that died mid-tick and its retry) append each step once; creating a game twice is refused by the
store (its deterministic id already has a stream). Nothing lives in a process: a tick after a
restart of every web server and worker continues where the stream is.

What wakes a tick: the tournament's creation, the end of any of its games (``GameService``'s
``on_finished`` hook, wired by the web app and the worker jobs), a safety tick every
``SAFETY_S`` while games run, and a page or API read that finds no tick alive for ``ALIVE_MS``.
A game that has not moved for ``STALL_S`` while a machine is to act gets a fresh advance job
(its worker may have died holding the last one).
"""
from __future__ import annotations

import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from functools import partial
from typing import Any

import redis

from core import table
from core.botrecords import BotRecords, finished_entries
from core.connection import get_redis
from core.game import iso_time
from core.games import Game, GameNotFound, GameService, IdempotencyConflict, StaleVersion, TooManyGames
from core.leaderboard import Leaderboard
from core.ratings import RatingModel
from core.scoring import ratings_due, standings
from core.store import EventStore
from core.tournament_store import Loaded, TournamentNotFound, TournamentStore
from core.tournaments import (
    Tournament,
    absences_due,
    finish_due,
    fold,
    game_seed,
    merkle_root,
    next_round,
    skips_due,
    startable,
)
from domain.core import SYSTEM, Rejected
from replays.bundle import OVER, KnownAfter
from replays.entries import Entry
from replays.seatstats import seat_stats
from replays.source import published_bundle
from workers.bundles import BundleBook
from workers.enqueue import ADVANCE_TIMEOUT_S, enqueue_advance, queue, retry_policy
from workers.lanes import FAST, NOW
from workers.lease import Lease

log = logging.getLogger("hourglass.tournaments")

SAFETY_S = 3.0
ALIVE_MS = 15_000
LOCK_MS = 60_000
BUNDLING_MS = 30_000  # how long a tick leaves a game's bundle to the worker that ended it
STALL_S = 8.0
MAX_STEPS = 50


def lock_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:lock"


def alive_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:alive"


def queued_key(tid: str, when: str) -> str:
    return f"hg:t:{{{tid}}}:queued:{when}"


def seen_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:seen"


def again_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:again"


def bundling_key(game_id: str) -> str:
    """Set while the worker that ended the game builds its bundle (``game_finished``)."""
    return f"hg:{{{game_id}}}:bundling"


class TickLock(Lease):
    """One tick at a time (``lock_key``). A tick that finds the lock taken leaves the *again* flag
    in the same script (``workers.lease``'s take and release, on these keys); the holder's release
    returns it and the holder queues a tick at once: a game that ended during a tick has its
    result taken and its place refilled without waiting for a delayed tick."""

    @property
    def keys(self) -> list[str]:
        return [lock_key(self.game_id), again_key(self.game_id)]  # game_id: the tournament's id here


# --- waking a tournament ---------------------------------------------------------------------------


def enqueue_tick(conn: redis.Redis, tid: str, delay_s: float = 0.0) -> bool:
    """Queue a tick (at most one waiting "now" and one waiting "later" per tournament); True if queued."""
    when = "later" if delay_s > 0 else "now"
    if not conn.set(queued_key(tid, when), b"1", nx=True, px=int((delay_s + 60) * 1000)):
        return False
    # a tick woken now (a game ended, the tournament began) records results and starts the games
    # waiting for a place, and plays nothing itself: it goes before the games' continuations
    q = queue(conn, lane=NOW if delay_s <= 0 else FAST)
    options: dict[str, Any] = {"job_id": f"tick-{tid}-{uuid.uuid4().hex[:10]}", "result_ttl": 60,
                               "failure_ttl": 86_400, "job_timeout": ADVANCE_TIMEOUT_S, "retry": retry_policy()}
    if delay_s > 0:
        q.enqueue_in(timedelta(seconds=delay_s), "workers.tournaments.tick", tid, when, **options)
    else:
        q.enqueue("workers.tournaments.tick", tid, when, **options)
    return True


def wake_if_idle(conn: redis.Redis, tid: str) -> bool:
    """A reader's nudge: queue a tick when a running tournament shows no live tick."""
    if conn.exists(alive_key(tid)) or not conn.sismember("hg:tournaments:active", tid):
        return False
    return enqueue_tick(conn, tid)


def game_finished(game: Game, book: BundleBook | None = None) -> None:
    """``GameService.on_finished`` for the worker processes: a tournament game just ended. The
    worker that played its last step builds and keeps its replay bundle now (the tick that records
    the result then reads it, and the games still running wait for no bundle of another), then
    queues the tick. ``book``: what this process holds of the game (``workers.bundles``): the
    batches it played are not folded again."""
    if game.info.tournament:
        conn = get_redis()
        conn.set(bundling_key(game.game_id), b"1", px=BUNDLING_MS)  # a tick meanwhile leaves it to us
        try:
            known = book.known(game.game_id) if book is not None else None
            game_bundle(EventStore(conn), game.game_id, known, known.tail() if known is not None else ())
        except Exception:  # a reaction never undoes the append: the tick builds it, or says why not
            log.exception("tournament %s: could not build the bundle of %s", game.info.tournament, game.game_id)
        finally:
            conn.delete(bundling_key(game.game_id))
            if book is not None:
                book.forget(game.game_id)
        enqueue_tick(conn, game.info.tournament)


def tick_after(game: Game) -> None:
    """``GameService.on_finished`` for a process that must not stop for a bundle (the caller
    process, whose event loop holds many calls open): only queue the tick, which builds it."""
    if game.info.tournament:
        enqueue_tick(get_redis(), game.info.tournament)


def game_bundle(store: EventStore, game_id: str, known: KnownAfter | None = None, tail: Sequence[Entry] = ()) -> str:
    """A finished game's replay bundle: the stored one, else built, signed and kept now
    (``replays.source.published_bundle``, what ``GET /replay`` serves; ``known`` and ``tail``:
    what this process holds of the game, ``workers.bundles``)."""
    return published_bundle(store, game_id, known=known, tail=tail)


# --- the job ------------------------------------------------------------------------------------


def tick(tid: str, when: str = "now") -> dict[str, Any]:
    conn = get_redis()
    conn.delete(queued_key(tid, when))
    lock = TickLock(conn, tid)
    if not lock.take(LOCK_MS):  # another tick is at work: it ticks again when it lets go
        enqueue_tick(conn, tid, delay_s=1.0)  # and, should it die holding the lock, look again later
        return {"tournament": tid, "busy": True}
    try:
        conn.set(alive_key(tid), b"1", px=ALIVE_MS)
        from workers import jobs  # imports this module: the worker's GameService, its fold cache warm

        svc = jobs.service()  # on get_redis(), as conn
        runner = TournamentRunner(conn, games=svc, load=partial(jobs.read_game, svc))
        outcome = runner.run(tid)
    except TournamentNotFound:
        return {"tournament": tid, "missing": True}
    finally:
        again = lock.release()
    if again and not outcome.get("finished"):
        enqueue_tick(conn, tid)
    elif not outcome.get("finished"):
        enqueue_tick(conn, tid, delay_s=SAFETY_S)
    return outcome


class TournamentRunner:
    """``games``: the process's GameService, whose fold cache already holds the games its jobs
    played (a tick reads every running game); default a fresh one. ``load``: how a running game
    is read (default ``games.load``); a worker's reads through its bundle book
    (``workers.jobs.read_game``), so that what a tick folds in is kept for the game's bundle too."""

    def __init__(self, conn: redis.Redis, model: RatingModel | None = None, games: GameService | None = None,
                 load: Callable[[str], Game] | None = None) -> None:
        self.conn = conn
        self.store = TournamentStore(conn)
        self.games = games or GameService(conn, on_finished=game_finished)
        self.load = load or self.games.load
        self.board = Leaderboard(conn, model)
        self.model = self.board.model
        self.records = BotRecords(conn)

    def run(self, tid: str) -> dict[str, Any]:
        """Append everything that is due now; the counts of what was done."""
        done: dict[str, Any] = {"tournament": tid, "appended": 0}
        loaded = self.store.load(tid)
        for _ in range(MAX_STEPS):
            if loaded.tournament.finished:
                self.close(loaded)
                done["finished"] = True
                return done
            created: list[str] = []
            events = self.due(tid, loaded, created)
            if not events:
                self.nudge(loaded.tournament)
                break
            try:
                self.store.append(tid, loaded, events, self._meta_updates(events, loaded.tournament))
            except StaleVersion:  # another tick, a cancellation or a withdrawal appended first: read again
                loaded = self.store.load(tid)
                self._call_off_strays(tid, loaded.tournament, created)
                continue
            done["appended"] += len(events)
            loaded = self.store.reload(tid, loaded)  # what it just appended: no fold from the first entry
        self._let_go(loaded)
        return done

    def due(self, tid: str, loaded: Loaded, created: list[str] | None = None) -> list[dict[str, Any]]:
        """The next batch of events (``created``: the games this step created, for the caller's
        clean-up when its append loses a race)."""
        t = loaded.tournament
        pairing = next_round(t)
        if pairing is not None:
            return [pairing]
        ended = self._results(tid, t)
        if ended:
            return ended
        skipped = skips_due(t)
        if skipped:
            self._call_off_strays(tid, t, [t.game_id(e["index"]) for e in skipped], skipping=True)
            return skipped
        rated = ratings_due(self.model, t)
        if rated:
            return rated
        started = self._start_games(tid, t)
        if started:
            if created is not None:
                created += [e["game_id"] for e in started]
            return started
        if finish_due(t):
            if t.cancelled is not None:  # a game created by a step whose append lost to the cancellation
                self._call_off_strays(tid, t, [t.game_id(g.index) for g in t.games if not g.started], skipping=True)
            return [self._finish(tid, t)]
        return []

    def _results(self, tid: str, t: Tournament) -> list[dict[str, Any]]:
        """GameFinished (and the absences it shows) or GameCalledOff for every started game that is
        over; a cancelled tournament first calls off those still running."""
        events: list[dict[str, Any]] = []
        state = t
        for g in t.games:
            if not g.started or g.done or g.game_id is None:
                continue
            if t.cancelled is None and self._running(g.game_id):  # no fold of a game still played
                continue
            game = self.games.load_over(g.game_id) if t.cancelled is None else self.load(g.game_id)
            if not game.finished and t.cancelled is not None:
                game = self._call_off(tid, game)
            if not game.finished or self._bundling(game.game_id):
                continue
            ended = self._game_result(state, g.index, game)
            state = fold(ended, state)
            absent = absences_due(state, g.index)
            state = fold(absent, state)
            events += ended + absent
        return events

    def _game_result(self, t: Tournament, index: int, game: Game) -> list[dict[str, Any]]:
        game_id = game.game_id
        text = self._bundle(game_id)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        result = game.result  # the table's, as the bundle's footer has it: departed seats rank last
        if result is None:  # aborted: a cancellation called it off (or a seat aborted it early)
            return [{"type": "GameCalledOff", "index": index, "game_id": game_id, "bundle_sha256": digest,
                     "final_hash": game.last_hash}]
        ranking = [{"seat": r["seat"], "rank": r["rank"], "score": r.get("score")} for r in result["ranking"]]
        event = {"type": "GameFinished", "index": index, "game_id": game_id, "ranking": ranking,
                 "bundle_sha256": digest, "final_hash": game.last_hash}
        if t.settings.accountable:
            event.update(departed=list(result.get("departed") or []), records=seat_stats(text))
        if t.settings.teams and result.get("outcome") is not None:  # a cooperative game (rules 3)
            event["outcome"] = result["outcome"]
        return [event]

    def _call_off(self, tid: str, game: Game) -> Game:
        """Abort a running game of a cancelled tournament: SYSTEM's table Abort, recorded in the
        game's log (meta names the tournament), so its replay verifies like any aborted game's.
        The table event names a seat (the lowest still playing); the batch's actor is SYSTEM."""
        playing = [s for s in range(len(game.info.seats)) if s not in game.table.left]
        if not playing:
            return game
        try:
            self.games.apply(game.game_id, SYSTEM, table.Abort(playing[0]), idempotency_key=f"cancel:{game.game_id}",
                             meta={"tournament": {"id": tid, "cancelled": True}})
        except (Rejected, StaleVersion, IdempotencyConflict) as exc:  # it ended meanwhile
            log.info("tournament %s: calling off %s: %s", tid, game.game_id, exc)
        return self.load(game.game_id)

    def _call_off_strays(self, tid: str, t: Tournament, game_ids: list[str], skipping: bool = False) -> None:
        """Games created for a start that never made it into the stream (its append lost a race to
        a cancellation or a withdrawal, or the runner died in between): abort those that may no
        longer start. ``skipping``: every id given is a game the stream will not start."""
        startable_ids = set() if skipping else {t.game_id(g.index) for g in startable(t)}
        started = {g.game_id for g in t.games if g.started}
        for game_id in game_ids:
            if game_id in started or game_id in startable_ids:
                continue
            try:
                game = self.load(game_id)
            except GameNotFound:
                continue
            if not game.finished:
                self._call_off(tid, game)

    def _running(self, game_id: str) -> bool:
        """Is the game still being played, by its meta's status (one HGET)? A tick looks at every
        running game: loading each would fold in whatever another worker appended since this
        process last held it, only to find it still running."""
        status = self.games.store.meta_field(game_id, "status")
        return status is not None and status not in OVER

    def _bundling(self, game_id: str) -> bool:
        """The worker that ended the game is building its bundle now and queues a tick when it is
        stored: building it here too would be the same work twice (the mark lapses should that
        worker die, and a later tick builds it)."""
        # the mark first: an EXISTS, where looking for the stored bundle reads all of it
        return bool(self.conn.exists(bundling_key(game_id))) and self.games.store.stored_bundle(game_id) is None

    def _bundle(self, game_id: str) -> str:
        return published_bundle(self.games.store, game_id, iso_time(self.games.clock()))

    def _start_games(self, tid: str, t: Tournament) -> list[dict[str, Any]]:
        playing = sum(1 for g in t.games if g.started and not g.done)
        events = []
        for game in startable(t):
            if playing >= t.settings.parallel:
                break
            game_id = t.game_id(game.index)
            try:
                commitment = self._create_game(tid, t, game.index, game_id)
            except TooManyGames:  # the organiser's (or the service's) live games are at a cap: start more later
                break
            events.append({"type": "GameStarted", "index": game.index, "game_id": game_id,
                           "seed_commitment": commitment})
            playing += 1
        return events

    def _create_game(self, tid: str, t: Tournament, index: int, game_id: str) -> str:
        s = t.settings
        seed = game_seed(self.store.seed(tid), tid, index)
        entrants = {e.number: e for e in t.entrants}
        body = {"game": s.game, "edition": s.edition,
                "seats": [entrants[n].seat(s.deadline_s) for n in t.games[index].seats]}
        creator, caps = self.store.runner_caps(tid)  # its games count toward its organiser's live games
        try:
            created = self.games.create(body, creator, game_id=game_id, seed=seed, tournament=tid, caps=caps)
            commitment: str = created["seed_commitment"]
        except StaleVersion:  # created by an earlier attempt of this step
            commitment = self.games.load(game_id).info.seed_commitment
        enqueue_advance(self.conn, game_id, self.games.load(game_id).version)
        return commitment

    def _finish(self, tid: str, t: Tournament) -> dict[str, Any]:
        leaves = [g.bundle_sha256 or "" for g in t.bundled()]
        return {"type": "TournamentFinished", "seed": self.store.seed(tid).hex(), "merkle_root": merkle_root(leaves),
                "standings": standings(t)}

    @staticmethod
    def _meta_updates(events: list[dict[str, Any]], t: Tournament) -> dict[str, str]:
        if not any(e["type"] == "TournamentFinished" for e in events):
            return {}
        return {"status": "cancelled" if t.cancelled is not None else "finished"}

    def _let_go(self, loaded: Loaded) -> None:
        """After a step: each bot's public record as of this version, and the ``entered`` mark of a
        withdrawn bot that has no game left in play here (it may be deleted again)."""
        t = loaded.tournament
        self.records.update(t, loaded.version, finished_entries(loaded.entries))
        playing = {n for g in t.games if g.started and not g.done for n in g.seats}
        for number in t.withdrawn:
            entrant = t.entrants[number]
            if entrant.bot_id and number not in playing:
                self.games.bots.entered(entrant.bot_id, t.settings.tournament_id, running=False)

    def close(self, loaded: Loaded) -> None:
        """After TournamentFinished: the leaderboard takes the games (once), the bots' records their
        final figures, and the runner lets go."""
        t = loaded.tournament
        if any(g.finished for g in t.games):  # a tournament cancelled before any game ended rates nobody
            self.board.apply(t)
        self.records.update(t, loaded.version, finished_entries(loaded.entries))
        self.store.finish(t.settings.tournament_id)
        for entrant in t.entrants:
            if entrant.bot_id:
                self.games.bots.entered(entrant.bot_id, t.settings.tournament_id, running=False)
        self.conn.delete(seen_key(t.settings.tournament_id))

    def nudge(self, t: Tournament) -> None:
        """Give a fresh advance job to a running game that has not moved for STALL_S while a machine
        (SYSTEM, a built-in or push bot, a clock) has something to do."""
        tid = t.settings.tournament_id
        now = time.time()
        for g in t.games:
            if not g.started or g.done or g.game_id is None:
                continue
            raw: Any = self.conn.hget(seen_key(tid), g.game_id)
            seen_version, _, seen_at = (raw.decode() if raw else "-1:0").partition(":")
            version = self.games.store.version(g.game_id)
            if int(seen_version) != version:  # it moved: nothing to look at (no fold of a game in play)
                self.conn.hset(seen_key(tid), g.game_id, f"{version}:{now}")
                continue
            if now - float(seen_at) <= STALL_S:  # not stalled yet: no read (nor fold) of a game waiting its turn
                continue
            try:
                game = self.load(g.game_id)
            except GameNotFound:
                continue
            if game.finished or not (game.needs_worker() or game.clocked):
                continue
            if int(seen_version) != game.version:  # it moved since the look above
                self.conn.hset(seen_key(tid), g.game_id, f"{game.version}:{now}")
            else:
                log.warning("tournament %s: game %s still at version %d; a fresh advance job", tid, g.game_id,
                            game.version)
                queue(self.conn).enqueue("workers.jobs.advance", g.game_id,
                                         job_id=f"advance-{g.game_id}-{game.version}-t{uuid.uuid4().hex[:6]}",
                                         result_ttl=60, failure_ttl=86_400, job_timeout=ADVANCE_TIMEOUT_S,
                                         retry=retry_policy())
                self.conn.hset(seen_key(tid), g.game_id, f"{game.version}:{now}")

