"""``hourglass caller``: one process that makes the push calls of every game at once.

An advance job whose next actor is a push seat hands the decision over as a ticket, with the
game's lease (``workers.calls``). The caller takes tickets from ``hg:calls:<base>`` and serves
each in an asyncio task: it reads the game, builds and signs the request, makes the call with
``workers.asyncbot`` (httpx; the deadline bounds the whole exchange), appends the answer or the
default move through ``GameService.apply`` with the key ``advance:<game>:<version>``
(``workers.pushcalls``), lets the lease go and puts the game back on the fast queue. A call that
waits for its deadline holds a coroutine and a socket, no worker: a thousand slow bots cost the
other games nothing.

Limits: ``--max-calls`` calls open at once per process (tickets beyond it wait in the list), and
``--per-bot`` open calls per bot (a registered bot by id, a seat's own URL by host), so one
bot's many games queue behind each other, not behind anyone else's. While a ticket waits for its
bot's turn, its lease is renewed; the seat's deadline starts when its request is sent.

Work that needs the CPU or blocks (reading and folding the game, the append, name resolution)
runs in a thread pool, so the event loop only waits on sockets and timers. The caller announces
itself every second (``hg:calls:<base>:alive``, a sorted set of callers by expiry); jobs hand
over only while one is alive. SIGINT/SIGTERM stop taking tickets and end the open calls first.
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import redis

from core import metrics
from core.connection import UNAVAILABLE, get_redis, plain_redis, redis_url
from core.games import GameNotFound, GameService
from core.seats import Player
from workers import asyncbot, calls, httpbot, jobs, lanes, pushcalls, tournaments
from workers.calls import Ticket
from workers.enqueue import QUEUE_ENV, base_name, enqueue_advance
from workers.lease import LEASE_MS, Lease
from workers.policy import next_actor

log = logging.getLogger("hourglass.caller")

MAX_CALLS_ENV = "HOURGLASS_CALLER_MAX_CALLS"
PER_BOT_ENV = "HOURGLASS_BOT_CONCURRENCY"
DEFAULT_MAX_CALLS = 512
DEFAULT_PER_BOT = 4
BEAT_S = 1.0
THREADS = 16


@dataclass
class _Limiter:
    """At most ``per_bot`` open calls per key; a key's semaphore lives while anyone holds or waits for it."""

    per_bot: int
    slots: dict[str, tuple[asyncio.Semaphore, int]] = field(default_factory=dict)

    @asynccontextmanager
    async def slot(self, key: str) -> AsyncIterator[None]:
        sem, users = self.slots.get(key) or (asyncio.Semaphore(self.per_bot), 0)
        self.slots[key] = (sem, users + 1)
        try:
            async with sem:
                yield
        finally:
            sem, users = self.slots[key]
            if users <= 1:
                del self.slots[key]
            else:
                self.slots[key] = (sem, users - 1)


class Caller:
    """Serves the tickets of one queue base name (``HOURGLASS_QUEUE``) until ``stop`` is set."""

    def __init__(self, svc: GameService, *, max_calls: int = DEFAULT_MAX_CALLS, per_bot: int = DEFAULT_PER_BOT,
                 base: str | None = None) -> None:
        self.svc = svc
        self.conn = svc.store.conn
        self.plain = plain_redis(self.conn)
        self.base = base or base_name()
        self.name = secrets.token_hex(6)
        self.max_calls = max_calls
        self.limiter = _Limiter(per_bot)
        self.held: dict[int, Lease] = {}
        self.served = 0
        self.stop = asyncio.Event()

    async def run(self) -> None:
        """Take and serve tickets until :attr:`stop` is set; then finish the open calls."""
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(THREADS, thread_name_prefix="hourglass-caller"))
        metrics.register_depth(self.conn, calls.tickets_key(self.base))
        self.http = asyncbot.client()
        open_calls: set[asyncio.Task[None]] = set()
        beat = asyncio.create_task(self._beat())
        free = asyncio.Semaphore(self.max_calls)
        try:
            while not self.stop.is_set():
                await free.acquire()
                ticket = await self._next_ticket()
                if ticket is None:
                    free.release()
                    continue
                task = asyncio.create_task(self._serve(ticket))
                open_calls.add(task)

                def done(finished: asyncio.Task[None]) -> None:
                    open_calls.discard(finished)
                    free.release()

                task.add_done_callback(done)
            if open_calls:
                await asyncio.wait(open_calls)
        finally:
            beat.cancel()
            with suppress(asyncio.CancelledError):
                await beat
            await self.http.aclose()
            with suppress(*UNAVAILABLE):
                await asyncio.to_thread(self.plain.zrem, calls.alive_key(self.base), self.name)

    async def _next_ticket(self) -> Ticket | None:
        try:
            popped = await asyncio.to_thread(self.plain.brpop, [calls.tickets_key(self.base)], 1)
        except UNAVAILABLE as exc:
            log.warning("hourglass caller: Redis unreachable (%s); trying again", exc)
            await asyncio.sleep(1.0)
            return None
        if not popped:
            return None
        try:
            return Ticket.from_json(popped[1])  # type: ignore[index]
        except (ValueError, KeyError, TypeError):
            log.error("hourglass caller: dropped a ticket that does not parse")
            return None

    async def _beat(self) -> None:
        """Say we are alive, and renew the lease of every ticket we hold, every second."""
        while True:
            with suppress(*UNAVAILABLE):
                await asyncio.to_thread(self._beat_once)
            await asyncio.sleep(BEAT_S)

    def _beat_once(self) -> None:
        now_ms = int(time.time() * 1000)
        pipe = self.plain.pipeline(transaction=False)
        pipe.zadd(calls.alive_key(self.base), {self.name: now_ms + calls.ALIVE_MS})
        pipe.zremrangebyscore(calls.alive_key(self.base), "-inf", now_ms)
        pipe.execute()
        for lease in list(self.held.values()):
            lease.renew(_ttl_ms())

    async def _serve(self, ticket: Ticket) -> None:
        lease = Lease(self.conn, ticket.game_id, ticket.lease)
        key = id(lease)
        self.held[key] = lease
        ours = False
        try:
            ours = await asyncio.to_thread(lease.renew, _ttl_ms())
            if not ours:  # it lapsed before we came to it: whoever holds it now asks
                log.info("hourglass caller: ticket for %s at %d came too late; dropped", ticket.game_id, ticket.version)
                return
            await self._call(ticket, lease)
        except GameNotFound:
            pass
        except Exception:  # one ticket's failure must not stop the others; the game is queued again below
            log.exception("hourglass caller: ticket for game %s failed", ticket.game_id)
        finally:
            self.held.pop(key, None)
            if ours:
                with suppress(*UNAVAILABLE):
                    await asyncio.to_thread(self._hand_back, ticket.game_id, lease)
            self.served += 1

    async def _call(self, ticket: Ticket, lease: Lease) -> None:
        game = await asyncio.to_thread(self.svc.load, ticket.game_id)
        actor = next_actor(game.rules, game.state, game.info.seats, game.to_act, game.table.left)
        if actor != ticket.seat or game.info.seat_policy(ticket.seat).played_by is not Player.HTTP_CALL:
            return  # the game moved on since the ticket was written: the next job decides afresh
        push = await asyncio.to_thread(jobs.prepare_call, self.svc, game, ticket.seat)
        if push is None:
            call = pushcalls.no_moves()
        else:
            legal = pushcalls.legal_on(game, ticket.seat)
            async with self.limiter.slot(push.limiter):
                await asyncio.to_thread(lease.renew, _ttl_ms())
                call = await asyncbot.ask_bot(self.http, push.url, push.secret, push.body(), push.timeout_s, legal)
        await asyncio.to_thread(self._conclude, push, game.game_id, ticket.seat, game.version, call)

    def _conclude(self, push: pushcalls.PushCall | None, game_id: str, seat: int, version: int,
                  call: httpbot.BotCall) -> None:
        pushcalls.record(self.svc, push, call)
        pushcalls.conclude(self.svc, game_id, seat, version, call)

    def _hand_back(self, game_id: str, lease: Lease) -> None:
        """Let the lease go and queue the game's next slice (the job settles it if nothing is left):
        on the now lane when news came meanwhile (a job found the game leased), else the fast one."""
        woken = lease.release()
        version = self.svc.store.version(game_id)
        if version:
            enqueue_advance(self.conn, game_id, version, lane=lanes.NOW if woken else lanes.FAST)


def _ttl_ms() -> int:
    """A held ticket's lease: renewed every second, so it lapses only when this process stalls."""
    return LEASE_MS + calls.QUEUE_WAIT_MS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hourglass caller", description=__doc__.splitlines()[0])
    p.add_argument("--url", help="event-store Redis URL (default: $REDIS_URL, else the embedded server)")
    p.add_argument("--queue", help=f"queue base name (default: ${QUEUE_ENV} or 'hourglass')")
    p.add_argument("--max-calls", type=int, default=int(os.environ.get(MAX_CALLS_ENV) or DEFAULT_MAX_CALLS),
                   help=f"calls open at once (default: ${MAX_CALLS_ENV} or {DEFAULT_MAX_CALLS})")
    p.add_argument("--per-bot", type=int, default=int(os.environ.get(PER_BOT_ENV) or DEFAULT_PER_BOT),
                   help=f"open calls per bot (default: ${PER_BOT_ENV} or {DEFAULT_PER_BOT})")
    p.add_argument("--logging-level", default="INFO")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.max_calls < 1 or args.per_bot < 1:
        print("hourglass caller: --max-calls and --per-bot must be at least 1", flush=True)
        return 2
    os.environ["REDIS_URL"] = args.url or redis_url()
    if args.queue:
        os.environ[QUEUE_ENV] = args.queue
    from workers.cli import setup_logging

    setup_logging(args.logging_level)
    svc = GameService(get_redis(), on_finished=tournaments.tick_after)  # no bundle built in the event loop
    metrics.use(svc.store.conn)
    caller = Caller(svc, max_calls=args.max_calls, per_bot=args.per_bot)
    return asyncio.run(_run(caller))


async def _run(caller: Caller) -> int:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, caller.stop.set)
    log.warning("hourglass caller: serving push calls for queue %s (%d at once, %d per bot)",
                caller.base, caller.max_calls, caller.limiter.per_bot)
    while True:
        try:
            await caller.run()
            return 0
        except redis.RedisError as exc:  # the loop itself lost Redis (connection errors included): wait, go on
            log.warning("hourglass caller: %s; starting again in 1 s", exc)
            await asyncio.sleep(1.0)
