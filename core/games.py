"""The game service: create games, load them (cached incremental fold), apply commands.

Everything that changes a game goes through :meth:`GameService.apply` (and :meth:`create` for
the first batch), which runs the game's ``decide`` with ``Rng(seed, game_id, draw_counter)`` and
appends through the store's single Lua script. HTTP views, worker jobs and tools all use this
class; it has no Flask import.

Usage from a worker::

    service = GameService(get_redis())
    game = service.load(game_id)
    command = game.rules.default_move(game.state, SYSTEM)
    service.apply(game_id, SYSTEM, command, expected_version=game.version,
                  idempotency_key=f"advance:{game.version}")
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import redis

from core import departures, seating, snapshots, table
from core.botfeed import AccountFeed, BotFeed
from core.bots import BotRegistry, check_distinct_bots
from core.connection import plain_redis
from core.lobby import Lobby
from core.retention import LiveCaps, LiveGames, Retention, TooManyGames
from core.seats import Credential, Player, SeatKind, SeatPolicy, SeatSpec, new_seat_secret
from core.store import (
    AppendResult,
    EventStore,
    GameExpired,
    IdempotencyConflict,
    NotThisSeat,
    RateLimited,
    RateWindow,
    StaleVersion,
    StoredEntry,
    build_entries,
    fingerprint,
    meta_key,
)
from core.table import EMPTY as EMPTY_TABLE
from core.table import Table
from core.worklist import WorkList
from domain.bots import bot_names
from domain.canonical import GENESIS_HASH, canonical_json
from domain.core import SYSTEM, Actor, GameRules, Rejected, RejectKind
from domain.games import game_names, get_game
from domain.rng import Rng, seed_commitment, seed_from_text

__all__ = [
    "Applied", "Game", "GameInfo", "GameNotFound", "GameService", "IdempotencyConflict", "LiveCaps", "NotThisSeat",
    "RateLimited", "RateWindow", "StaleBase", "StaleVersion", "TooManyGames", "VersionNotFound", "iso_time",
    "token_digest",
]

log = logging.getLogger(__name__)

MAX_APPLY_ATTEMPTS = 8
CACHE_ENV = "HOURGLASS_FOLD_CACHE"
DEFAULT_CACHE_SIZE = 512  # games per process (an LRU): the fold cache's memory bound, docs/architecture.md
DEFAULT_ABORT_MOVES = 4
DEFAULT_INACTIVITY_S = 86_400.0
CLIENT_SEED_POLICIES = ("bots-only", "any")


class GameNotFound(LookupError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game with id {game_id!r}")
        self.game_id = game_id


class VersionNotFound(LookupError):
    """Time travel to a version the game does not have (or one inside a batch)."""


class StaleBase(Exception):
    """The rules refused a command decided on a cached game (``apply(base=...)``) before anything
    was sent: the cache may be behind, so the caller decides again on a fresh load."""

    def __init__(self, rejected: Rejected) -> None:
        super().__init__(str(rejected))
        self.rejected = rejected


def iso_time(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and a Z, e.g. 2025-01-31T12:00:00.123Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _command_json(rules: GameRules, command: Any) -> dict[str, Any]:
    if isinstance(command, table.TABLE_COMMANDS):
        return table.command_to_json(command)
    return rules.command_to_json(command)


def utc_now() -> datetime:
    return datetime.now(UTC)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class GameInfo:
    """The immutable part of a game's meta hash."""

    game_id: str
    game: str
    config: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed: bytes
    seed_commitment: str
    created: str
    engine_version: str
    tournament: str | None = None
    tokens: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)  # digest -> seat
    accounts: Mapping[int, str] = field(default_factory=dict, compare=False)  # seat -> the account it is bound to
    creator: str | None = None  # the requester that created it ("acct:<id>" or "addr:<address>")

    @classmethod
    def from_meta(cls, game_id: str, meta: Mapping[str, str]) -> GameInfo:
        """``tokens``: the seat tokens' sha256 digests as of this read. A token is withdrawn only
        when a joined seat is given back before the game's first move (``core.seating.vacate``;
        its field is then empty); the append script checks the meta itself, so a copy of this
        that is behind can never let a withdrawn token act. One not found here may be newer."""
        return cls(
            game_id=game_id,
            game=meta["game"],
            config=json.loads(meta["config"]),
            seats=tuple(SeatSpec.from_json(s) for s in json.loads(meta["seats"])),
            seed=bytes.fromhex(meta["seed"]),
            seed_commitment=meta["seed_commitment"],
            created=meta["created"],
            engine_version=meta.get("engine_version", ""),
            tournament=meta.get("tournament") or None,
            tokens={k[6:]: int(v) for k, v in meta.items() if k.startswith("token:") and v},
            accounts={int(k[8:]): v for k, v in meta.items() if k.startswith("account:") and v},
            creator=meta.get("creator") or None,
        )

    def seat_kind(self, seat: int) -> SeatKind:
        return self.seats[seat].kind

    def seat_policy(self, seat: int) -> SeatPolicy:
        """How ``seat``'s kind behaves (``core.seats.SEAT_POLICIES``)."""
        return self.seats[seat].policy


@dataclass(frozen=True)
class Game:
    """A game folded up to ``version``: the game's own state and the table around it."""

    info: GameInfo
    rules: GameRules
    state: Any
    version: int
    last_hash: str
    table: Table = EMPTY_TABLE

    @property
    def game_id(self) -> str:
        return self.info.game_id

    @property
    def finished(self) -> bool:
        """Over: finished by the rules or by departures, or aborted (the seed is revealed)."""
        return self.status() in ("finished", "aborted")

    @property
    def to_act(self) -> frozenset[Actor]:
        return table.to_act(self.rules, self.state, self.table)

    @property
    def result(self) -> dict[str, Any] | None:
        return table.result(self.rules, self.state, self.table)

    def needs_worker(self) -> bool:
        """True when SYSTEM, a seat the worker plays or a seat that left is to act: a worker plays it."""
        return any(isinstance(a, str) or not self.info.seat_policy(a).acts_from_outside  # str: SYSTEM
                   or a in self.table.left for a in self.to_act)

    @property
    def clocked(self) -> bool:
        return any(s.clock for s in self.info.seats)

    def wants_worker(self) -> bool:
        """A worker has something to do: a machine to act, or clocks to run (every move restarts one)."""
        return not self.finished and (self.needs_worker() or self.clocked)

    def status(self) -> str:
        return table.status(self.rules, self.state, self.table)

    def seats(self) -> list[dict[str, Any]]:
        """The seats as clients see them (no bot URLs), each with its ``status`` at the table."""
        return table.seat_views(self.info.seats, self.table)


@dataclass(frozen=True)
class Applied:
    """The outcome of :meth:`GameService.apply`: the new entries (or the replayed ones)."""

    result: AppendResult
    entries: tuple[StoredEntry, ...]
    game: Game = field(repr=False)

    @property
    def version(self) -> int:
        return self.result.version

    @property
    def replayed(self) -> bool:
        return self.result.replayed


class GameService:
    """Games over one Redis connection.

    ``cache_size``: how many folded games this process keeps (an LRU; default ``HOURGLASS_FOLD_CACHE``
    or 512). ``advance(game_id, version)`` is called after a create or an applied command that leaves
    SYSTEM or a bot seat to act (the web app passes ``workers.enqueue.enqueue_advance``;
    workers, which loop themselves, pass nothing). ``clock`` returns an aware datetime.
    ``abort_moves``: a game may be aborted while its seats have made fewer moves than this;
    ``inactivity_s``: how long a game must have waited on a human seat without a clock before
    another seat may claim against it.
    ``live_caps`` bounds the live games per creating address and overall; ``retention`` says
    how long the keys of finished and abandoned games are kept (``core.retention``).
    ``on_finished(game)`` is called after the append that ends a game (the roots pass one that
    wakes the game's tournament, ``workers.tournaments``). Registered bots of a game hear of
    every append on their own stream, and accounts of their bound seats (``core.botfeed``).
    """

    def __init__(
        self,
        conn: redis.Redis,
        *,
        clock: Callable[[], datetime] = utc_now,
        advance: Callable[[str, int], None] | None = None,
        cache_size: int | None = None,
        client_seeds: str = "bots-only",
        abort_moves: int = DEFAULT_ABORT_MOVES,
        inactivity_s: float = DEFAULT_INACTIVITY_S,
        live_caps: LiveCaps | None = None,
        retention: Retention | None = None,
        on_finished: Callable[[Game], None] | None = None,
    ) -> None:
        if client_seeds not in CLIENT_SEED_POLICIES:
            raise ValueError(f"client_seeds must be one of {', '.join(CLIENT_SEED_POLICIES)}")
        self.client_seeds = client_seeds
        self.abort_moves = abort_moves
        self.inactivity_s = inactivity_s
        self.store = EventStore(conn)
        self.lobby = Lobby(conn)
        self.worklist = WorkList(conn)
        self.live = LiveGames(conn, retention)
        self.live_caps = live_caps or LiveCaps()
        self.clock = clock
        self.advance = advance
        self.on_finished = on_finished
        # the bot registry writes its global indexes in one MULTI: beside a Redis Cluster it and
        # the bots' feeds live on the plain queue server (core.connection, docs/topology.md)
        self.bots = BotRegistry(plain_redis(conn))
        self.feed = BotFeed(plain_redis(conn))
        self.account_feed = AccountFeed(plain_redis(conn))
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self._cache_size = cache_size if cache_size is not None else int(os.environ.get(CACHE_ENV) or DEFAULT_CACHE_SIZE)
        self._lock = threading.Lock()
        for name in game_names():  # import every game package now, not in some process's first request
            get_game(name)

    # -- create ----------------------------------------------------------------------------

    def create(self, body: Mapping[str, Any], creator: str | None = None, *, game_id: str | None = None,
               seed: bytes | None = None, tournament: str | None = None, caps: LiveCaps | None = None,
               account: str | None = None, reserved_accounts: Mapping[int, str] | None = None) -> dict[str, Any]:
        """Create a game from ``{game, edition?, seats, options?, seed?}`` (no edition: the game's default).

        Returns ``{id, game, edition, version, seed_commitment, seats}`` where every human seat
        carries its bearer token and every open seat its invite token (shown only here; the
        store keeps their sha256). A seat ``{"bot_id": ...}`` names a registered bot
        (``core.bots``). Raises ``Rejected(INVALID_CONFIG)`` for a bad game, edition, seat list or
        options, and ``TooManyGames`` when ``creator`` (the requester, ``service.limits``: an
        account or an address) or the service is at its live-game cap (``caps``, else the
        service's). With ``account`` every human seat is bound to that account;
        ``reserved_accounts`` (open seat -> account id) keeps those open seats for those accounts
        (``core.seating``).

        The keyword arguments ``game_id``, ``seed`` and ``tournament`` are for the tournament
        runner, never a client: a chosen ``game_id`` (creating it twice raises StaleVersion, so a
        retried job creates it once), the game's ``seed`` bytes (derived from the tournament's
        committed seed) and the ``tournament`` id the game belongs to.
        """
        rules = get_game(body["game"])
        reserved = dict(reserved_accounts or {})
        seats = [self.bots.seat(i, s) if isinstance(s, Mapping) and s.get("bot_id") is not None
                 else seating.seat_spec(i, seating.without_invitee(s, i in reserved)) for i, s in enumerate(body["seats"])]
        check_distinct_bots(seats)
        for s in seats:
            if s.policy.played_by is Player.BUILTIN and s.bot not in bot_names(rules.name):
                raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{s.seat}].bot {s.bot!r} does not play "
                                                          f"{rules.name}; bots for it: {', '.join(bot_names(rules.name))}")
        config_json = rules.config_to_json(rules.config_from_json(_config_json(body, len(seats))))
        seed = seed if seed is not None else self._seed(body.get("seed"), seats)
        issued = {i: s.policy.credential if s.bot_id is None else Credential.NONE for i, s in enumerate(seats)}
        plan = seating.Plan(
            tokens={i: secrets.token_urlsafe(24) for i, c in issued.items() if c is Credential.BEARER_TOKEN},
            secrets={i: new_seat_secret() for i, c in issued.items() if c is Credential.HMAC_SECRET},
            invites={i: secrets.token_urlsafe(18) for i, c in issued.items() if c is Credential.INVITE},
            accounts={i: account for i, c in issued.items() if c is Credential.BEARER_TOKEN} if account else {},
            reserved_accounts=reserved,
        )
        chosen = game_id or secrets.token_hex(8)
        created = self.create_planned(chosen, rules, seats, config_json, seed, plan, creator, tournament, caps)
        if created is None:  # only a chosen id can be taken already
            raise StaleVersion(0, self.store.version(chosen))
        return created

    def create_planned(self, game_id: str, rules: GameRules, seats: Sequence[SeatSpec],
                       config_json: dict[str, Any], seed: bytes, plan: seating.Plan,
                       creator: str | None = None, tournament: str | None = None,
                       caps: LiveCaps | None = None) -> dict[str, Any] | None:
        """Write a new game with the given seats, config, seed and credentials.

        The set-up batch, then (when seats are open) the SYSTEM batch that opens them. Returns
        None when ``game_id`` already exists (a rematch another seat, or an earlier attempt of a
        tournament step, created first).
        """
        now = iso_time(self.clock())
        setup = [rules.event_to_json(e) for e in rules.setup(rules.config_from_json(config_json), Rng(seed, game_id, 0))]
        entries = build_entries(0, GENESIS_HASH, setup, actor=SYSTEM, time=now,
                                command={"type": "CreateGame", "config": config_json},
                                meta={"table": table.RULES})  # the table rules it is played by (core.table)
        open_seats = tuple(i for i, s in enumerate(seats) if s.kind is SeatKind.OPEN)
        if open_seats:
            state, tbl = table.fold(rules, setup, None, EMPTY_TABLE)
            command = table.OpenSeats(open_seats)
            events, _, _ = table.step(rules, state, tbl, command, None, len(seats))
            entries += build_entries(len(entries), entries[-1].hash, events, actor=SYSTEM, time=now,
                                     command=table.command_to_json(command))
        meta = {
            "game": rules.name,
            "engine_version": rules.engine_version,
            "config": canonical_json(config_json),
            "seats": canonical_json([replace(s, seat=None).to_json() for s in seats]),  # stored without its index
            "seed": seed.hex(),
            "seed_commitment": seed_commitment(seed),
            "created": now,
            "status": "open" if open_seats else "active",
            **plan.meta_fields(),
            **({"tournament": tournament} if tournament else {}),
            **({"creator": creator} if creator else {}),
        }
        opening = self._folded(Game(GameInfo.from_meta(game_id, meta), rules, None, 0, GENESIS_HASH), entries)
        self.live.reserve(game_id, creator, caps if caps is not None else self.live_caps)
        if opening.wants_worker():
            self.worklist.mark(game_id)  # before the append: a game that needs a worker is never off the list
        try:
            result = self.store.create(game_id, meta, entries)
        except StaleVersion:
            return None
        game = self.load(game_id)
        self.lobby.add(game_id, rules.name, config_json.get("edition"), meta["status"], now, seats)
        self._tell_bots(None, game, entries)
        self._after_change(game)
        return {
            "id": game_id,
            "game": rules.name,
            "edition": config_json.get("edition"),
            "version": result.version,
            "status": meta["status"],
            "seed_commitment": meta["seed_commitment"],
            "seats": [plan.shown(s) for s in seats],
        }

    def _seed(self, client_seed: str | None, seats: Sequence[SeatSpec]) -> bytes:
        """The server's 32 random bytes, or the client's seed where the policy allows it.

        A seed the client knows (or chose) lets it compute every hidden draw from the public
        commitment, so with the default policy ``bots-only`` it is refused as soon as one seat
        is human; ``any`` (an operator's choice for test and demo servers) accepts it always.
        """
        if client_seed is None:
            return secrets.token_bytes(32)
        if self.client_seeds == "bots-only" and any(not s.policy.is_bot for s in seats):
            raise Rejected(RejectKind.INVALID_CONFIG,
                           "a client seed is accepted only when no seat is human: a known seed reveals "
                           "every hidden draw; leave 'seed' out and the server draws one")
        return seed_from_text(client_seed)

    # -- read ------------------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        """The game at its current version, folding only entries newer than the cached state (or,
        in a process that does not hold the game, than its snapshot: ``core.snapshots``)."""
        cached = self.cached(game_id)
        if cached is None:
            return self._load_cold(game_id)
        entries = self.store.read(game_id, after=cached.version)
        if not entries:
            return cached
        game = self._folded(cached, entries)
        self._remember(game)
        return game

    def cached(self, game_id: str) -> Game | None:
        """The game as this process last saw it, without asking Redis (it may be behind)."""
        with self._lock:
            cached = self._cache.get(game_id)
            if cached is not None:
                self._cache.move_to_end(game_id)
        return cached

    def _load_cold(self, game_id: str) -> Game:
        meta, snapshot = self.store.snapshot_and_meta(game_id)
        if meta is None:
            raise GameNotFound(game_id)
        info = GameInfo.from_meta(game_id, meta)
        start = Game(info, get_game(info.game), None, 0, GENESIS_HASH)
        restored = snapshots.decode(start.rules, snapshot, game_id) if snapshot is not None else None
        entries = self.store.read(game_id, after=restored.version - 1) if restored is not None else []
        if restored is not None and entries and entries[0].seq == restored.version and entries[0].hash == restored.hash:
            start = Game(info, start.rules, restored.state, restored.version, restored.hash, restored.table)
            entries = entries[1:]
        else:
            entries = self.store.read(game_id)
        if not entries:
            if start.version == 0:
                raise GameNotFound(game_id)
            game = start
        else:
            game = self._folded(start, entries)
        self._remember(game)
        return game

    def extend(self, game: Game, entries: Sequence[StoredEntry]) -> Game:
        """``game`` with ``entries``, the next entries of its stream, folded in (no Redis read).

        For readers that already hold the new entries, such as a live stream's XREAD.
        """
        if not entries:
            return game
        if entries[0].seq != game.version + 1:
            raise ValueError(f"entries start at seq {entries[0].seq}, the game is at version {game.version}")
        extended = self._folded(game, entries)
        self._remember(extended)
        return extended

    def state_at(self, game_id: str, version: int) -> Game:
        """Time travel: the game as of ``version``, which must end a batch (1 <= version <= now)."""
        current = self.load(game_id)
        if version == current.version:
            return current
        if not 1 <= version < current.version:
            raise VersionNotFound(f"version {version} is outside 1..{current.version}")
        entries = self.store.read(game_id, until=version + 1)
        if entries[-1].command is None:
            raise VersionNotFound(f"version {version} is inside a batch; a state exists only after whole batches")
        start = Game(current.info, current.rules, None, 0, GENESIS_HASH)
        return self._folded(start, entries[:-1])

    def batch_ends(self, game_id: str) -> list[int]:
        """Every version that ends a batch (the valid time-travel targets), ascending."""
        entries = self.store.read(game_id)
        ends = [e.seq - 1 for e in entries[1:] if e.command is not None]
        return ends + ([entries[-1].seq] if entries else [])

    def entries(self, game_id: str, after: int = 0, until: int | None = None) -> list[StoredEntry]:
        return self.store.read(game_id, after=after, until=until)

    def flags(self, game_id: str) -> dict[str, Any]:
        """What the meta hash says beyond the fold: ``status`` "expired" (or None) and ``stuck``."""
        status, stuck = self.store.conn.hmget(meta_key(game_id), ["status", "stuck"])  # type: ignore[misc]
        return {"status": "expired" if status == b"expired" else None,
                "stuck": json.loads(stuck) if stuck else None}

    def seat_for_token(self, game_id: str, token: str) -> int | None:
        """The seat a bearer token plays: a human seat's own token, or a pull bot's token."""
        value = self.store.meta_field(game_id, f"token:{token_digest(token)}")
        if value:
            return int(value)
        bot_id = self.bots.bot_for_token(token) if token.startswith("hgb_") else None
        if bot_id is None:
            return None
        seats = self.load(game_id).info.seats
        return next((i for i, s in enumerate(seats) if s.bot_id == bot_id and s.policy.played_by is Player.PULL), None)

    # -- write -----------------------------------------------------------------------------

    def apply(
        self,
        game_id: str,
        actor: Actor,
        command: Any,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        meta: dict[str, Any] | None = None,
        meta_fields: Mapping[str, str] | None = None,
        base: Game | None = None,
        token_check: tuple[str, int] | None = None,
        window: RateWindow | None = None,
    ) -> Applied:
        """Decide ``command`` (the game's, or a table command of ``core.table``) for ``actor``
        and append the events it causes; ``meta_fields`` are written to the game's meta hash in
        the same atomic append.

        Order of checks: unknown game (GameNotFound) -> idempotency key (the stored result for
        the same request, IdempotencyConflict for another) -> ``expected_version``
        (StaleVersion carrying the current version) -> the rules (Rejected). Without an
        expected version, a race with another writer is retried transparently.

        One round trip in the common case: with ``base`` (the game as the caller already holds
        it, e.g. :meth:`cached`; ``expected_version`` must be None or its version) nothing is read
        first. The command is decided on ``base`` and appended at its version; the script checks
        the idempotency key and the version itself, and its stale answer makes this reload and
        decide again. If the rules refuse the command on ``base``, StaleBase is raised before
        anything is sent (``base`` may be behind: decide again after a load). ``token_check``
        (meta field, seat) and ``window`` (the token's rate window, counted on the first attempt
        only) are checked inside the same script: NotThisSeat, RateLimited.
        """
        game = base
        for attempt in range(MAX_APPLY_ATTEMPTS):
            if game is None:
                game = self.load(game_id)
                if idempotency_key:
                    replay = self._replay(game, idempotency_key, fingerprint(actor, _command_json(game.rules, command)))
                    if replay is not None:
                        return replay
                if expected_version is not None and expected_version != game.version:
                    raise StaleVersion(expected_version, game.version)
            command_json = _command_json(game.rules, command)
            request = fingerprint(actor, command_json)
            try:
                entries, new_game = self._decide(game, actor, command, command_json, meta)
            except Rejected as rejected:
                if game is base and attempt == 0:
                    raise StaleBase(rejected) from None
                raise
            updates = dict(meta_fields or {})
            if new_game.status() != game.status():
                updates["status"] = new_game.status()
                if new_game.finished:
                    updates["finished"] = entries[0].entry["time"]
            # the work list's mark goes first in the same pipeline (before the append, see core.worklist)
            before = (self.worklist.mark_call(game_id),) if new_game.wants_worker() else ()
            snapshot = (snapshots.encode(new_game.rules, new_game.state, new_game.table, new_game.version,
                                         new_game.last_hash)
                        if entries and snapshots.due(game.version, new_game.version, new_game.finished) else None)
            try:
                result = self.store.append(game_id, game.version, entries, idempotency_key=idempotency_key,
                                           request_fingerprint=request, meta_updates=updates or None,
                                           token_check=token_check, window=window if attempt == 0 else None,
                                           snapshot=snapshot, before=before)
            except StaleVersion as stale:
                if expected_version is not None:
                    raise StaleVersion(expected_version, stale.current) from None
                game = None
                continue
            except GameExpired as exc:
                raise Rejected(RejectKind.GAME_OVER, f"{exc}; no more moves") from None
            if result.replayed:
                return self._replayed(self.load(game_id), result)
            if meta_fields:
                new_game = replace(new_game, info=self._info(game_id))
            if new_game.finished:
                self.live.finished(game_id)
            else:
                self.live.touch(game_id)
            self._remember(new_game)
            if "status" in updates or meta_fields:
                self.lobby.reindex(game_id)
            self._tell_bots(game, new_game, entries)
            self._after_change(new_game)
            return Applied(result, tuple(entries), new_game)
        raise StaleVersion(expected_version if expected_version is not None else -1, self.store.version(game_id))

    def _decide(self, game: Game, actor: Actor, command: Any, command_json: dict[str, Any],
                meta: dict[str, Any] | None) -> tuple[list[StoredEntry], Game]:
        rng = Rng(game.info.seed, game.game_id, game.rules.draw_counter(game.state))
        events, state, tbl = table.step(game.rules, game.state, game.table, command, rng, len(game.info.seats))
        entries = build_entries(game.version, game.last_hash, events, actor=actor, time=iso_time(self.clock()),
                                command=command_json, meta=meta)
        if entries:
            tbl = table.note(tbl, actor, command_json, meta)
        return entries, Game(game.info, game.rules, state, game.version + len(entries),
                             entries[-1].hash if entries else game.last_hash, tbl)

    # -- table actions (core.seating, core.departures) --------------------------------------------

    def join(self, game_id: str, seat: int, name: str, invite: str | None = None,
             account: str | None = None) -> dict[str, Any]:
        """Take an open seat; returns the joiner's bearer token (see ``core.seating``)."""
        return seating.join(self, game_id, seat, name, invite, account)

    def rematch(self, game_id: str, seat: int, token: str) -> dict[str, Any]:
        return seating.rematch(self, game_id, seat, token)

    def resign(self, game_id: str, seat: int, idempotency_key: str | None = None) -> Applied:
        return departures.resign(self, game_id, seat, idempotency_key)

    def abort(self, game_id: str, seat: int, idempotency_key: str | None = None) -> Applied:
        return departures.abort(self, game_id, seat, idempotency_key)

    def leave(self, game_id: str, seat: int, idempotency_key: str | None = None) -> Applied:
        return departures.leave(self, game_id, seat, idempotency_key)

    def claim(self, game_id: str, seat: int, absent: int, remedy: str,
              idempotency_key: str | None = None) -> Applied:
        return departures.claim(self, game_id, seat, absent, remedy, idempotency_key)

    def _replay(self, game: Game, key: str, request: str) -> Applied | None:
        found = self.store.idempotent_result(game.game_id, key)
        if found is None:
            return None
        stored_request, result = found
        if stored_request != request:
            raise IdempotencyConflict(key)
        return self._replayed(game, result)

    def _replayed(self, game: Game, result: AppendResult) -> Applied:
        entries = self.store.read(game.game_id, after=result.first - 1, until=result.last)
        return Applied(result, tuple(entries), game)

    # -- internals -------------------------------------------------------------------------

    def _folded(self, start: Game, entries: Sequence[StoredEntry]) -> Game:
        rules = start.rules
        state, tbl = table.fold(rules, (e.data for e in entries), start.state, start.table)
        for head in (e for e in entries if e.command is not None):  # who played (core.table.note)
            tbl = table.note(tbl, head.actor, head.command, head.entry.get("meta"))
        info = start.info
        if any(e.type in ("SeatJoined", "SeatVacated") for e in entries):  # a joiner's name, kind and token: the meta
            info = self._info(info.game_id)
        return Game(info, rules, state, entries[-1].seq, entries[-1].hash, tbl)

    def _info(self, game_id: str) -> GameInfo:
        meta = self.store.meta(game_id)
        if meta is None:
            raise GameNotFound(game_id)
        return GameInfo.from_meta(game_id, meta)

    def _remember(self, game: Game) -> None:
        with self._lock:
            cached = self._cache.get(game.game_id)
            if cached is None or cached.version < game.version:
                self._cache[game.game_id] = game
                self._cache.move_to_end(game.game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _tell_bots(self, before: Game | None, after: Game, entries: Sequence[StoredEntry]) -> None:
        """The bots' and accounts' streams hear of the append; a failure there must not undo a stored move."""
        try:
            self.feed.after_append(before, after, entries)
            if after.info.accounts:
                self.account_feed.after_append(before, after, entries)
        except redis.RedisError:
            log.exception("could not tell the bots and accounts of game %s about version %d", after.game_id,
                          after.version)

    def _after_change(self, game: Game) -> None:
        if game.finished:
            self.worklist.drop(game.game_id)
            if self.on_finished is not None and game.info.tournament:
                self.on_finished(game)
        elif self.advance is not None and game.wants_worker():
            self.advance(game.game_id, game.version)


def _config_json(body: Mapping[str, Any], players: int) -> dict[str, Any]:
    """The game's config: the seat list is the only player count, ``edition`` the only edition."""
    options = dict(body.get("options") or {})
    clashing = sorted({"players", "edition"} & set(options))
    if clashing:
        raise Rejected(RejectKind.INVALID_CONFIG,
                       f"options may not set {' or '.join(clashing)}: the seat list gives the player count "
                       "and the top-level 'edition' the edition")
    edition = body.get("edition")
    return {**options, **({"edition": edition} if edition is not None else {}), "players": players}
