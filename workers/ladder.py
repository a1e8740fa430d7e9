"""The matchmaker: keeps every ladder's rated games running (issue 26; the ladder's keys: ``core.ladder``).

A pass runs in the sweeper's thread of every ``hourglass worker`` (one worker at a time holds
``LOCK_KEY``), so it needs no process of its own and no web request. Per ladder it

1. settles each of its games in play that has ended: the result's ranking rates the seats
   (openskill, ``core.ratings``), each seat's record (calls, timeouts, errors, latency, from the
   game's log: ``core.seatrecord``) is kept for the bots' pages; an aborted game counts for nobody.
   Before that it writes the bots' records of any game a dead pass settled but did not record
   (``LadderStore.record_pending``: the ladder's outbox, idempotent per bot);
2. starts new games while the ladders' cap (``games_total``) allows: a table drawn by
   ``core.ladder.choose_table`` among the opted-in bots that are not playing on this ladder,
   each owner's bots at ``games_per_owner`` live ladder games at most. Each owner with a bot at the
   table pays one unit of its work budget (``core.budgets``, the same bucket its requests draw
   from); an owner whose budget is dry has its bot rest until the bucket would hold a unit again.

A pass also expires the challenges that nobody answered (``core.challenges``).
"""
from __future__ import annotations

import contextlib
import logging
import random
import secrets
import uuid
from collections import Counter
from typing import Any

import redis

from core.accounts import AccountNotFound, Accounts
from core.budgets import BudgetExceeded, WorkBudget
from core.challenges import Challenges
from core.games import Game, GameNotFound, GameService, StaleVersion
from core.ladder import (
    Candidate,
    Ladder,
    LadderLimits,
    LadderRejected,
    LadderStore,
    choose_table,
    now_ms,
    parse_ladder,
)
from core.retention import LiveCaps, TooManyGames
from core.seatrecord import from_entries
from domain.core import Rejected
from workers.enqueue import enqueue_advance

log = logging.getLogger("hourglass.ladder")

LOCK_KEY = "hg:{ladder}:lock"
LOCK_MS = 30_000
CREATOR = "ladder"  # the requester the ladder's games are created by (its live-game cap is games_total)


def matchmake(svc: GameService, limits: LadderLimits | None = None, rng: random.Random | None = None,
              queue_conn: redis.Redis | None = None) -> dict[str, int]:
    """One pass over every ladder (skipped while another worker's pass holds the lock); counts."""
    conn = svc.store.conn
    token = uuid.uuid4().hex
    if not conn.set(LOCK_KEY, token, nx=True, px=LOCK_MS):
        return {"busy": 1}
    try:
        return Matchmaker(svc, limits or LadderLimits.from_env(), rng or random.SystemRandom(),
                          queue_conn).run()
    finally:
        held: Any = conn.get(LOCK_KEY)
        if held is not None and (held.decode() if isinstance(held, bytes) else held) == token:
            conn.delete(LOCK_KEY)


class Matchmaker:
    def __init__(self, svc: GameService, limits: LadderLimits, rng: random.Random,
                 queue_conn: redis.Redis | None = None) -> None:
        self.svc, self.limits, self.rng = svc, limits, rng
        self.conn = svc.store.conn
        self.queue_conn = queue_conn or self.conn
        self.store = LadderStore(self.conn)
        self.accounts = Accounts(self.conn)

    def run(self) -> dict[str, int]:
        counts = {"settled": 0, "started": 0, "expired": Challenges(self.conn).expire_due(), "resting": 0}
        ladders = self.store.ladders()
        for lid in ladders:
            counts["settled"] += self.settle(lid)
        live = {lid: self.store.live(lid) for lid in ladders}
        total = sum(len(games) for games in live.values())
        owner_games: Counter[str] = Counter(o for games in live.values() for g in games.values()
                                            for o in set(g["owners"]))
        for lid in ladders:
            if total >= self.limits.games_total:
                break
            started, rested = self.start(lid, live[lid], owner_games, self.limits.games_total - total)
            counts["started"] += started
            counts["resting"] += rested
            total += started
        return counts

    # -- settling ------------------------------------------------------------------------------

    def settle(self, lid: str) -> int:
        self.store.record_pending(lid)  # first what a pass that died after settling left unrecorded
        settled = 0
        for game_id in self.store.live(lid):
            try:
                game = self.svc.load(game_id)
            except GameNotFound:  # never created (a pass died between the two steps) or deleted
                self.store.drop(lid, game_id)
                continue
            if not game.finished:
                continue
            if self._settle_game(lid, game) is not None:
                settled += 1
        return settled

    def _settle_game(self, lid: str, game: Game) -> dict[str, Any] | None:
        result = game.result
        entries = self.svc.store.read(game.game_id)
        records = from_entries(entries, len(game.info.seats))
        names = [s.name or "" for s in game.info.seats]
        shown = self.store.settle(lid, game.game_id, result["ranking"] if result else None, records, names)
        if shown is not None:
            log.info("ladder %s: game %s settled (%s)", lid, game.game_id, "rated" if shown["rated"] else "unrated")
        return shown

    # -- starting ------------------------------------------------------------------------------

    def start(self, lid: str, live: dict[str, dict[str, Any]], owner_games: Counter[str],
              room: int) -> tuple[int, int]:
        """Start up to ``room`` games on ladder ``lid``; (started, bots sent to rest)."""
        try:
            ladder = parse_ladder(lid)
        except LadderRejected:
            return 0, 0
        members = self.store.members(lid)
        busy = {b for g in live.values() for b in g["seats"]}
        at = now_ms()
        resting = self.store.resting(lid, at)
        ratings = self.store.ratings(lid)
        waited = self.store.waited_since(lid)
        pool = [Candidate(b, m["owner"], self.store.rating(ratings.get(b)).ordinal, waited.get(b, 0))
                for b, m in members.items() if b not in busy and b not in resting]
        last = self.store.last_tables(lid)
        started = rested = 0
        while started < room:
            seats = choose_table(pool, ladder.players, last, owner_games, self.limits.games_per_owner,
                                 self.limits.spread, self.rng)
            if seats is None:
                break
            owners = [members[b]["owner"] for b in seats]
            short = self._charge(sorted(set(owners)))
            if short is not None:  # that owner's bots rest until its budget holds a unit again
                owner, retry_s = short
                for b, m in members.items():
                    if m["owner"] == owner:
                        self.store.rest(lid, b, at + retry_s * 1000)
                        rested += 1
                pool = [c for c in pool if c.owner != owner]
                continue
            game_id = secrets.token_hex(8)
            self.store.started(lid, game_id, seats, owners)  # first: a pass that dies next leaves no stray game
            try:
                self._create(ladder, game_id, seats, members)
            except TooManyGames:
                self._undo(lid, game_id, owners)
                break
            except (Rejected, StaleVersion) as exc:  # a bot deleted meanwhile, or a seat the game refuses
                self._undo(lid, game_id, owners)
                log.warning("ladder %s: could not seat %s: %s", lid, ", ".join(seats), exc)
                pool = [c for c in pool if c.bot_id not in seats]
                continue
            for b in seats:
                last[b] = list(seats)
            for o in set(owners):
                owner_games[o] += 1
            pool = [c for c in pool if c.bot_id not in seats]
            started += 1
        return started, rested

    def _create(self, ladder: Ladder, game_id: str, seats: tuple[str, ...],
                members: dict[str, dict[str, Any]]) -> None:
        body = {"game": ladder.game, "edition": ladder.edition,
                "seats": [{"bot_id": b, "deadline_s": members[b]["deadline_s"]} for b in seats]}
        created = self.svc.create(body, CREATOR, game_id=game_id,
                                  caps=LiveCaps(self.limits.games_total, self.svc.live_caps.total))
        enqueue_advance(self.queue_conn, game_id, int(created["version"]))
        log.info("ladder %s: game %s started: %s", ladder.ladder_id, game_id, ", ".join(seats))

    def _undo(self, lid: str, game_id: str, owners: list[str]) -> None:
        self.store.drop(lid, game_id)
        self._refund(sorted(set(owners)))

    def _budget(self, owner: str) -> WorkBudget:
        capacity = self.limits.work_capacity if self.limits.budgets else 0
        if capacity:
            with contextlib.suppress(AccountNotFound):  # a deleted account's bots still pay the default
                capacity = self.accounts.get(owner).grants.get("work") or capacity
        return WorkBudget(f"acct:{owner}", capacity, self.limits.work_period_s)

    def _charge(self, owners: list[str]) -> tuple[str, int] | None:
        """One unit from each owner's work budget, all or none; (the owner that is short, seconds to wait)."""
        taken: list[str] = []
        for owner in owners:
            try:
                self._budget(owner).take(self.conn, 1)
            except BudgetExceeded as exc:
                self._refund(taken)
                return owner, exc.retry_after_s
            taken.append(owner)
        return None

    def _refund(self, owners: list[str]) -> None:
        for owner in owners:
            self._budget(owner).give_back(self.conn, 1)
