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
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis

from core.botfeed import BotFeed
from core.bots import EXTERNAL_SEAT_KINDS, BotRegistry, check_distinct_bots
from core.seats import new_seat_secret, seat_entry
from core.store import (
    AppendResult,
    EventStore,
    IdempotencyConflict,
    StaleVersion,
    StoredEntry,
    build_entries,
    fingerprint,
)
from domain.canonical import GENESIS_HASH, canonical_json
from domain.core import SYSTEM, Actor, GameRules, Rejected, RejectKind
from domain.games import fold, get_game, step
from domain.rng import Rng, seed_commitment, seed_from_text

__all__ = [
    "Applied", "Game", "GameInfo", "GameNotFound", "GameService", "IdempotencyConflict",
    "StaleVersion", "VersionNotFound", "iso_time", "token_digest",
]

log = logging.getLogger(__name__)

MAX_APPLY_ATTEMPTS = 8
CLIENT_SEED_POLICIES = ("bots-only", "any")


class GameNotFound(LookupError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game with id {game_id!r}")
        self.game_id = game_id


class VersionNotFound(LookupError):
    """Time travel to a version the game does not have (or one inside a batch)."""


def iso_time(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and a Z, e.g. 2025-01-31T12:00:00.123Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


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
    seats: tuple[dict[str, Any], ...]
    seed: bytes
    seed_commitment: str
    created: str
    engine_version: str
    tournament: str | None = None

    @classmethod
    def from_meta(cls, game_id: str, meta: Mapping[str, str]) -> GameInfo:
        return cls(
            game_id=game_id,
            game=meta["game"],
            config=json.loads(meta["config"]),
            seats=tuple(json.loads(meta["seats"])),
            seed=bytes.fromhex(meta["seed"]),
            seed_commitment=meta["seed_commitment"],
            created=meta["created"],
            engine_version=meta.get("engine_version", ""),
            tournament=meta.get("tournament") or None,
        )

    def seat_kind(self, seat: int) -> str:
        return self.seats[seat]["kind"]


@dataclass(frozen=True)
class Game:
    """A game folded up to ``version``."""

    info: GameInfo
    rules: GameRules
    state: Any
    version: int
    last_hash: str

    @property
    def game_id(self) -> str:
        return self.info.game_id

    @property
    def finished(self) -> bool:
        return self.rules.result(self.state) is not None

    @property
    def to_act(self) -> frozenset[Actor]:
        return frozenset() if self.finished else self.rules.to_act(self.state)

    def needs_worker(self) -> bool:
        """True when SYSTEM or a non-human seat is to act: a worker has to advance the game."""
        return any(isinstance(a, str) or self.info.seat_kind(a) not in EXTERNAL_SEAT_KINDS  # str: SYSTEM
                   for a in self.to_act)

    def status(self) -> str:
        return "finished" if self.finished else "active"


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

    ``advance(game_id, version)`` is called after a create or an applied command that leaves
    SYSTEM or a bot seat to act (the web app passes ``workers.enqueue.enqueue_advance``;
    workers, which loop themselves, pass nothing). ``clock`` returns an aware datetime.
    ``on_finished(game)`` is called after the append that ends a game (the roots pass one that
    wakes the game's tournament, ``workers.tournaments``). Registered bots of a game hear of
    every append on their own stream (``core.botfeed``).
    """

    def __init__(
        self,
        conn: redis.Redis,
        *,
        clock: Callable[[], datetime] = utc_now,
        advance: Callable[[str, int], None] | None = None,
        cache_size: int = 512,
        client_seeds: str = "bots-only",
        on_finished: Callable[[Game], None] | None = None,
    ) -> None:
        if client_seeds not in CLIENT_SEED_POLICIES:
            raise ValueError(f"client_seeds must be one of {', '.join(CLIENT_SEED_POLICIES)}")
        self.client_seeds = client_seeds
        self.store = EventStore(conn)
        self.clock = clock
        self.advance = advance
        self.on_finished = on_finished
        self.bots = BotRegistry(conn)
        self.feed = BotFeed(conn)
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    # -- create ----------------------------------------------------------------------------

    def create(self, body: Mapping[str, Any], *, game_id: str | None = None, seed: bytes | None = None,
               tournament: str | None = None) -> dict[str, Any]:
        """Create a game from ``{game, edition?, seats, options?, seed?}`` (no edition: the game's default).

        Returns ``{id, game, edition, version, seed_commitment, seats}`` where every human seat
        carries its bearer token (shown only here; the store keeps its sha256). Raises
        ``Rejected(INVALID_CONFIG)`` for a bad game, edition, seat list or options. A seat
        ``{"bot_id": ...}`` names a registered bot (``core.bots``).

        The keyword arguments are for the tournament runner, never a client: a chosen
        ``game_id`` (creating it twice raises StaleVersion, so a retried job creates it once),
        the game's ``seed`` bytes (derived from the tournament's committed seed) and the
        ``tournament`` id the game belongs to.
        """
        rules = get_game(body["game"])
        seats = [self.bots.seat(i, s) if isinstance(s, Mapping) and s.get("bot_id") is not None else seat_entry(i, s)
                 for i, s in enumerate(body["seats"])]
        check_distinct_bots(seats)
        config = rules.config_from_json(_config_json(body, len(seats)))
        config_json = rules.config_to_json(config)
        seed = seed if seed is not None else self._seed(body.get("seed"), seats)
        game_id = game_id or secrets.token_hex(8)
        events = [rules.event_to_json(e) for e in rules.setup(config, Rng(seed, game_id, 0))]
        now = iso_time(self.clock())
        entries = build_entries(0, GENESIS_HASH, events, actor=SYSTEM, time=now,
                                command={"type": "CreateGame", "config": config_json})
        tokens = {s["seat"]: secrets.token_urlsafe(24) for s in seats if s["kind"] == "human"}
        bot_secrets = {s["seat"]: new_seat_secret() for s in seats if s["kind"] == "http" and not s.get("bot_id")}
        meta = {
            "game": rules.name,
            "engine_version": rules.engine_version,
            "config": canonical_json(config_json),
            "seats": canonical_json([{k: v for k, v in s.items() if k != "seat"} for s in seats]),
            "seed": seed.hex(),
            "seed_commitment": seed_commitment(seed),
            "created": now,
            "status": "active",
            **{f"token:{token_digest(t)}": str(seat) for seat, t in tokens.items()},
            **{f"secret:{seat}": secret for seat, secret in bot_secrets.items()},
            **({"tournament": tournament} if tournament else {}),
        }
        result = self.store.create(game_id, meta, entries)
        game = self.load(game_id)
        self._tell_bots(None, game, entries)
        self._after_change(game)
        return {
            "id": game_id,
            "game": rules.name,
            "edition": config_json.get("edition", body.get("edition")),
            "version": result.version,
            "seed_commitment": meta["seed_commitment"],
            "seats": [{**s, **({"token": tokens[s["seat"]]} if s["seat"] in tokens else {}),
                       **({"secret": bot_secrets[s["seat"]]} if s["seat"] in bot_secrets else {})} for s in seats],
        }

    def _seed(self, client_seed: str | None, seats: Sequence[Mapping[str, Any]]) -> bytes:
        """The server's 32 random bytes, or the client's seed where the policy allows it.

        A seed the client knows (or chose) lets it compute every hidden draw from the public
        commitment, so with the default policy ``bots-only`` it is refused as soon as one seat
        is human; ``any`` (an operator's choice for test and demo servers) accepts it always.
        """
        if client_seed is None:
            return secrets.token_bytes(32)
        if self.client_seeds == "bots-only" and any(s["kind"] == "human" for s in seats):
            raise Rejected(RejectKind.INVALID_CONFIG,
                           "a client seed is accepted only when no seat is human: a known seed reveals "
                           "every hidden draw; leave 'seed' out and the server draws one")
        return seed_from_text(client_seed)

    # -- read ------------------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        """The game at its current version, folding only entries newer than the cached state."""
        with self._lock:
            cached = self._cache.get(game_id)
            if cached is not None:
                self._cache.move_to_end(game_id)
        if cached is None:
            meta = self.store.meta(game_id)
            if meta is None:
                raise GameNotFound(game_id)
            info = GameInfo.from_meta(game_id, meta)
            cached = Game(info, get_game(info.game), None, 0, GENESIS_HASH)
        entries = self.store.read(game_id, after=cached.version)
        if not entries:
            if cached.version == 0:
                raise GameNotFound(game_id)
            return cached
        game = self._folded(cached, entries)
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

    def seat_for_token(self, game_id: str, token: str) -> int | None:
        """The seat a bearer token plays: a human seat's own token, or a pull bot's token."""
        value = self.store.meta_field(game_id, f"token:{token_digest(token)}")
        if value is not None:
            return int(value)
        bot_id = self.bots.bot_for_token(token) if token.startswith("hgb_") else None
        if bot_id is None:
            return None
        seats = self.load(game_id).info.seats
        return next((i for i, s in enumerate(seats) if s.get("bot_id") == bot_id and s.get("kind") == "pull"), None)

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
    ) -> Applied:
        """Decide ``command`` for ``actor`` and append the events it causes.

        Order of checks: unknown game (GameNotFound) -> idempotency key (the stored result for
        the same request, IdempotencyConflict for another) -> ``expected_version``
        (StaleVersion carrying the current version) -> the rules (Rejected). Without an
        expected version, a race with another writer is retried transparently.
        """
        for _ in range(MAX_APPLY_ATTEMPTS):
            game = self.load(game_id)
            command_json = game.rules.command_to_json(command)
            request = fingerprint(actor, command_json)
            if idempotency_key:
                replay = self._replay(game, idempotency_key, request)
                if replay is not None:
                    return replay
            if expected_version is not None and expected_version != game.version:
                raise StaleVersion(expected_version, game.version)
            entries, new_state = self._decide(game, actor, command, command_json, meta)
            new_game = Game(game.info, game.rules, new_state, game.version + len(entries),
                            entries[-1].hash if entries else game.last_hash)
            updates = {"status": "finished", "finished": entries[0].entry["time"]} if (
                entries and new_game.finished) else None
            try:
                result = self.store.append(game_id, game.version, entries, idempotency_key=idempotency_key,
                                           request_fingerprint=request, meta_updates=updates)
            except StaleVersion as stale:
                if expected_version is not None:
                    raise StaleVersion(expected_version, stale.current) from None
                continue
            if result.replayed:
                return self._replayed(self.load(game_id), result)
            self._remember(new_game)
            self._tell_bots(game, new_game, entries)
            self._after_change(new_game)
            return Applied(result, tuple(entries), new_game)
        raise StaleVersion(expected_version if expected_version is not None else -1, self.store.version(game_id))

    def _decide(self, game: Game, actor: Actor, command: Any, command_json: dict[str, Any],
                meta: dict[str, Any] | None) -> tuple[list[StoredEntry], Any]:
        if game.finished:
            raise Rejected(RejectKind.GAME_OVER, "the game is over; no more moves")
        rng = Rng(game.info.seed, game.game_id, game.rules.draw_counter(game.state))
        events, state = step(game.rules, game.state, command, rng)
        entries = build_entries(game.version, game.last_hash, [game.rules.event_to_json(e) for e in events],
                                actor=actor, time=iso_time(self.clock()), command=command_json, meta=meta)
        return entries, state

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
        state = fold(rules, (rules.event_from_json(e.data) for e in entries), start.state)
        return Game(start.info, rules, state, entries[-1].seq, entries[-1].hash)

    def _remember(self, game: Game) -> None:
        with self._lock:
            cached = self._cache.get(game.game_id)
            if cached is None or cached.version < game.version:
                self._cache[game.game_id] = game
                self._cache.move_to_end(game.game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _tell_bots(self, before: Game | None, after: Game, entries: Sequence[StoredEntry]) -> None:
        """The bots' streams hear of the append; a failure there must not undo a stored move."""
        try:
            self.feed.after_append(before, after, entries)
        except redis.RedisError:
            log.exception("could not tell the bots of game %s about version %d", after.game_id, after.version)

    def _after_change(self, game: Game) -> None:
        if game.finished and self.on_finished is not None and game.info.tournament:
            self.on_finished(game)
        clocked = any(s.get("clock") for s in game.info.seats)  # every move restarts a clock
        if self.advance is not None and (game.needs_worker() or (clocked and not game.finished)):
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
