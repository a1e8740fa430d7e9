"""The tournament runner: RQ jobs that move a tournament forward, each step an event in its stream.

``tick(tid)`` reads the tournament (a fold of its stream), then appends, in this order, whatever is
due: the next round's pairings; ``GameFinished`` for every started game that has ended (with its
replay bundle's sha256, the bundle stored beside the game); ``RatingsUpdated`` for finished games
in index order; new games up to ``parallel`` at a time (``GameStarted``, the game created with its
derived seed and a deterministic id, and its advance job enqueued); and at the end
``TournamentFinished`` (revealed seed, Merkle root, standings), after which the leaderboard takes
the tournament's games once.

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
from datetime import timedelta
from typing import Any

import redis

from core.connection import get_redis
from core.games import Game, GameNotFound, GameService, StaleVersion, TooManyGames
from core.leaderboard import Leaderboard
from core.ratings import RatingModel
from core.tournament_store import Loaded, TournamentNotFound, TournamentStore
from core.tournaments import Tournament, game_seed, merkle_root, next_round, ratings_due, standings
from replays.bundle import build_bundle
from replays.source import load_game
from workers.enqueue import ADVANCE_TIMEOUT_S, enqueue_advance, queue, retry_policy

log = logging.getLogger("hourglass.tournaments")

SAFETY_S = 3.0
ALIVE_MS = 15_000
LOCK_MS = 60_000
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


# --- waking a tournament ---------------------------------------------------------------------------


def enqueue_tick(conn: redis.Redis, tid: str, delay_s: float = 0.0) -> bool:
    """Queue a tick (at most one waiting "now" and one waiting "later" per tournament); True if queued."""
    when = "later" if delay_s > 0 else "now"
    if not conn.set(queued_key(tid, when), b"1", nx=True, px=int((delay_s + 60) * 1000)):
        return False
    q = queue(conn)
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


def game_finished(game: Game) -> None:
    """``GameService.on_finished`` for the worker processes: a tournament game just ended."""
    if game.info.tournament:
        enqueue_tick(get_redis(), game.info.tournament)


# --- the job ------------------------------------------------------------------------------------


def tick(tid: str, when: str = "now") -> dict[str, Any]:
    conn = get_redis()
    conn.delete(queued_key(tid, when))
    token = uuid.uuid4().hex.encode()
    if not conn.set(lock_key(tid), token, nx=True, px=LOCK_MS):
        enqueue_tick(conn, tid, delay_s=1.0)  # another tick is at work: look again after it
        return {"tournament": tid, "busy": True}
    try:
        conn.set(alive_key(tid), b"1", px=ALIVE_MS)
        runner = TournamentRunner(conn)
        outcome = runner.run(tid)
    except TournamentNotFound:
        return {"tournament": tid, "missing": True}
    finally:
        if conn.get(lock_key(tid)) == token:
            conn.delete(lock_key(tid))
    if not outcome.get("finished"):
        enqueue_tick(conn, tid, delay_s=SAFETY_S)
    return outcome


class TournamentRunner:
    def __init__(self, conn: redis.Redis, model: RatingModel | None = None) -> None:
        self.conn = conn
        self.store = TournamentStore(conn)
        self.games = GameService(conn, on_finished=game_finished)
        self.board = Leaderboard(conn, model)
        self.model = self.board.model

    def run(self, tid: str) -> dict[str, Any]:
        """Append everything that is due now; the counts of what was done."""
        done: dict[str, Any] = {"tournament": tid, "appended": 0}
        for _ in range(MAX_STEPS):
            loaded = self.store.load(tid)
            if loaded.tournament.finished:
                self.close(loaded.tournament)
                done["finished"] = True
                return done
            events = self.due(tid, loaded)
            if not events:
                self.nudge(loaded.tournament)
                return done
            try:
                self.store.append(tid, loaded, events, self._meta_updates(events))
            except StaleVersion:
                continue  # another tick appended first: read again
            done["appended"] += len(events)
        return done

    def due(self, tid: str, loaded: Loaded) -> list[dict[str, Any]]:
        t = loaded.tournament
        pairing = next_round(t)
        if pairing is not None:
            return [pairing]
        finished = [e for g in t.games if g.started and not g.finished for e in self._game_result(t, g.index)]
        if finished:
            return finished
        rated = ratings_due(self.model, t)
        if rated:
            return rated
        started = self._start_games(tid, t)
        if started:
            return started
        if t.rounds_paired == t.settings.rounds and all(g.finished for g in t.games) and t.rated == len(t.games):
            return [self._finish(tid, t)]
        return []

    def _game_result(self, t: Tournament, index: int) -> list[dict[str, Any]]:
        game_id = t.games[index].game_id
        assert game_id is not None
        game = self.games.load(game_id)
        if not game.finished:
            return []
        text = self._bundle(game_id)
        # the table's result, as the bundle's footer has it: seats that left or never played rank last
        result = game.result or {}
        ranking = [{"seat": r["seat"], "rank": r["rank"], "score": r.get("score")} for r in result.get("ranking", [])]
        return [{"type": "GameFinished", "index": index, "game_id": game_id, "ranking": ranking,
                 "bundle_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "final_hash": game.last_hash}]

    def _bundle(self, game_id: str) -> str:
        store = self.games.store
        text = store.stored_bundle(game_id)
        if text is None:
            meta, entries = load_game(store, game_id)
            text = build_bundle(game_id, meta, entries)
            store.store_bundle(game_id, text)
        return text

    def _start_games(self, tid: str, t: Tournament) -> list[dict[str, Any]]:
        playing = sum(1 for g in t.games if g.started and not g.finished)
        events = []
        for game in t.games:
            if playing >= t.settings.parallel:
                break
            if game.started:
                continue
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
        leaves = [g.bundle_sha256 or "" for g in t.games]
        return {"type": "TournamentFinished", "seed": self.store.seed(tid).hex(), "merkle_root": merkle_root(leaves),
                "standings": standings(t)}

    @staticmethod
    def _meta_updates(events: list[dict[str, Any]]) -> dict[str, str]:
        return {"status": "finished"} if any(e["type"] == "TournamentFinished" for e in events) else {}

    def close(self, t: Tournament) -> None:
        """After TournamentFinished: the leaderboard takes the games (once), the runner lets go."""
        self.board.apply(t)
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
            if not g.started or g.finished or g.game_id is None:
                continue
            try:
                game = self.games.load(g.game_id)
            except GameNotFound:
                continue
            clocked = any(s.get("clock") for s in game.info.seats)
            if game.finished or not (game.needs_worker() or clocked):
                continue
            raw: Any = self.conn.hget(seen_key(tid), g.game_id)
            seen_version, _, seen_at = (raw.decode() if raw else "-1:0").partition(":")
            if int(seen_version) != game.version:
                self.conn.hset(seen_key(tid), g.game_id, f"{game.version}:{now}")
            elif now - float(seen_at) > STALL_S:
                log.warning("tournament %s: game %s still at version %d; a fresh advance job", tid, g.game_id,
                            game.version)
                queue(self.conn).enqueue("workers.jobs.advance", g.game_id,
                                         job_id=f"advance-{g.game_id}-{game.version}-t{uuid.uuid4().hex[:6]}",
                                         result_ttl=60, failure_ttl=86_400, job_timeout=ADVANCE_TIMEOUT_S,
                                         retry=retry_policy())
                self.conn.hset(seen_key(tid), g.game_id, f"{game.version}:{now}")

