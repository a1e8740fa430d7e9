"""The game service: the one object the HTTP views, worker jobs and tools hold (no Flask import).

It puts together what changes for different reasons:

- ``core.repository.GameRepository``: loading and folding games, the process's one fold cache;
- ``core.commands.CommandHandler``: deciding a command and appending it (``apply``), with the
  ``AppendGuard`` a request from outside brings;
- ``core.reactions``: what follows an append (live index, lobby, bot and account feeds, work);
- creating games (here), seating (``core.seating``) and departures (``core.departures``).

Usage from a worker::

    service = GameService(get_redis())
    game = service.load(game_id)
    command = game.rules.default_move(game.state, SYSTEM)
    service.apply(game_id, SYSTEM, command, expected_version=game.version,
                  idempotency_key=f"advance:{game.version}")
"""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import redis

from core import departures, seating, table
from core.botfeed import AccountFeed, BotFeed
from core.bots import BotRegistry, check_distinct_bots
from core.commands import AppendGuard, Applied, CommandHandler, Planned
from core.connection import plain_redis
from core.entropy import MAX_WINDOW_S, EntropyWindows
from core.game import Game, GameInfo, GameNotFound, VersionNotFound, iso_time, token_digest, utc_now
from core.lobby import Lobby
from core.reactions import Change, Feeds, LiveIndex, LobbyIndex, Work
from core.repository import GameRepository
from core.retention import LiveCaps, LiveGames, Retention, TooManyGames
from core.seats import Credential, Player, SeatKind, SeatSpec, new_seat_secret
from core.store import (
    AppendResult,
    EventStore,
    IdempotencyConflict,
    NotThisSeat,
    RateLimited,
    RateWindow,
    StaleVersion,
    StoredEntry,
    build_entries,
)
from core.table import EMPTY as EMPTY_TABLE
from core.worklist import WorkList
from domain.bots import bot_names
from domain.canonical import GENESIS_HASH, canonical_json
from domain.core import SYSTEM, Actor, GameRules, Rejected, RejectKind
from domain.games import get_game
from domain.rng import MAX_CONTRIBUTION, Rng, derive_seed, seed_commitment, seed_from_text, valid_contribution

__all__ = [
    "AppendGuard", "Applied", "EntropyClosed", "Game", "GameInfo", "GameNotFound", "GameService", "IdempotencyConflict",
    "LiveCaps", "NotThisSeat", "Planned", "RateLimited", "RateWindow", "StaleVersion", "TooManyGames", "VersionNotFound",
    "iso_time", "token_digest", "utc_now",
]


class EntropyClosed(Exception):
    """A contribution that comes too late: the seat contributed already, or the window closed."""


DEFAULT_ABORT_MOVES = 4
DEFAULT_INACTIVITY_S = 86_400.0
CLIENT_SEED_POLICIES = ("bots-only", "any")


class GameService:
    """Games over one Redis connection.

    ``cache_size``: how many folded games this process keeps (an LRU; default ``HOURGLASS_FOLD_CACHE``
    or 512, ``core.repository``). ``advance(game_id, version)`` is called after a create or an
    applied command that leaves SYSTEM or a bot seat to act (the web app passes
    ``workers.enqueue.enqueue_advance``; workers, which loop themselves, pass nothing). ``clock``
    returns an aware datetime.
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
        # the bot registry writes its global indexes in one MULTI: beside a Redis Cluster it and
        # the bots' feeds live on the plain queue server (core.connection, docs/topology.md)
        self.bots = BotRegistry(plain_redis(conn))
        self.feed = BotFeed(plain_redis(conn))
        self.account_feed = AccountFeed(plain_redis(conn))
        self.repository = GameRepository(self.store, cache_size)
        self.entropy = EntropyWindows(conn)
        self.work = Work(self.worklist, advance, on_finished)
        self.commands = CommandHandler(self.repository, self.worklist, lambda: self.clock(), [
            LiveIndex(self.live), LobbyIndex(self.lobby), Feeds(self.feed, self.account_feed), self.work])

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
        if body.get("entropy") is not None:
            return self._open_seeding(chosen, rules, seats, config_json, seed, plan, creator, caps, body["entropy"])
        created = self.create_planned(chosen, rules, seats, config_json, seed, plan, creator, tournament, caps)
        if created is None:  # only a chosen id can be taken already
            raise StaleVersion(0, self.store.version(chosen))
        return created

    def create_planned(self, game_id: str, rules: GameRules, seats: Sequence[SeatSpec],
                       config_json: dict[str, Any], seed: bytes, plan: seating.Plan,
                       creator: str | None = None, tournament: str | None = None,
                       caps: LiveCaps | None = None, contributions: Sequence[str | None] | None = None,
                       meta_fields: Mapping[str, str] | None = None) -> dict[str, Any] | None:
        """Write a new game with the given seats, config, seed and credentials.

        The set-up batch, then (when seats are open) the SYSTEM batch that opens them. Returns
        None when ``game_id`` already exists (a rematch another seat, or an earlier attempt of a
        tournament step, created first). ``contributions`` (one hex or None per seat): the seats'
        entropy, drawn from with ``seed`` as ``domain.rng.derive_seed`` says; ``meta_fields``: the
        stored credentials when they were issued earlier (``core.entropy``) instead of ``plan``'s.
        """
        now = iso_time(self.clock())
        drawn = seed if contributions is None else derive_seed(seed, contributions)
        setup = [rules.event_to_json(e) for e in rules.setup(rules.config_from_json(config_json), Rng(drawn, game_id, 0))]
        entries = build_entries(0, GENESIS_HASH, setup, actor=SYSTEM, time=now,
                                command=create_command(config_json, contributions),
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
            **({"contributions": canonical_json(list(contributions))} if contributions is not None else {}),
            **(plan.meta_fields() if meta_fields is None else meta_fields),
            **({"tournament": tournament} if tournament else {}),
            **({"creator": creator} if creator else {}),
        }
        opening = self.repository.folded(Game(GameInfo.from_meta(game_id, meta), rules, None, 0, GENESIS_HASH), entries)
        self.live.reserve(game_id, creator, caps if caps is not None else self.live_caps)
        if opening.wants_worker():
            self.worklist.mark(game_id)  # before the append: a game that needs a worker is never off the list
        try:
            result = self.store.create(game_id, meta, entries)
        except StaleVersion:
            return None
        self.commands.react(Change(None, self.load(game_id), tuple(entries), meta_changed=True))
        return {
            "id": game_id,
            "game": rules.name,
            "edition": config_json.get("edition"),
            "version": result.version,
            "status": meta["status"],
            "seed_commitment": meta["seed_commitment"],
            "seats": [plan.shown(s) for s in seats],
        }

    # -- seat-contributed entropy (core.entropy) ---------------------------------------------

    def _open_seeding(self, game_id: str, rules: GameRules, seats: Sequence[SeatSpec], config_json: dict[str, Any],
                      seed: bytes, plan: seating.Plan, creator: str | None, caps: LiveCaps | None,
                      entropy: Any) -> dict[str, Any]:
        """Create a game that waits up to ``entropy["window_s"]`` for its seats' entropy."""
        window = entropy.get("window_s") if isinstance(entropy, Mapping) else None
        if isinstance(window, bool) or not isinstance(window, int | float) or not 0 < window <= MAX_WINDOW_S:
            raise Rejected(RejectKind.INVALID_CONFIG, f"entropy.window_s must be a number of seconds in (0, {MAX_WINDOW_S:g}]")
        if any(s.kind is SeatKind.OPEN for s in seats):
            raise Rejected(RejectKind.INVALID_CONFIG, "a game with an entropy window cannot have open seats: "
                                                      "every seat must be known before the seed is")
        pull = {i: s.bot_id for i, s in enumerate(seats) if s.bot_id is not None and s.policy.played_by is Player.PULL}
        contributors = sorted(set(plan.tokens) | set(pull))
        spec = {
            "game": rules.name, "config": config_json, "seed": seed.hex(), "seed_commitment": seed_commitment(seed),
            "seats": [replace(s, seat=None).to_json() for s in seats], "meta_fields": plan.meta_fields(),
            "creator": creator, "contributors": contributors, "pull_bots": pull, "window_s": window,
            "service_contributions": {i: secrets.token_hex(32) for i in range(len(seats)) if i not in contributors},
        }
        self.live.reserve(game_id, creator, caps if caps is not None else self.live_caps)
        if not self.entropy.open(game_id, spec, self.clock().timestamp() + window, window):
            raise StaleVersion(0, 0)
        if not contributors:
            self.start_seeded(game_id)
        return {"id": game_id, "game": rules.name, "edition": config_json.get("edition"), "version": 0,
                "status": "seeding", "seed_commitment": spec["seed_commitment"],
                "seats": [plan.shown(s) for s in seats],
                "entropy": {"window_s": window, "contributors": contributors}}

    def contribute(self, game_id: str, token: str, value: str) -> dict[str, Any]:
        """Seat entropy: ``value`` (lower-case hex, 1-64 bytes) from the seat ``token`` plays.

        Raises GameNotFound (no game seeding by that id), NotThisSeat (the token plays no seat
        of it that contributes), Rejected (bad hex) and EntropyClosed (contributed already, or
        after the window). Returns ``{id, seat, sha256, status}``; the last contribution starts
        the game."""
        seeding = self.entropy.read(game_id)
        if seeding is None:
            raise GameNotFound(game_id)
        seat = seeding.seat_for_digest(token_digest(token))
        if seat is None and token.startswith("hgb_"):
            bot_id = self.bots.bot_for_token(token)
            seat = seeding.seat_for_bot(bot_id) if bot_id is not None else None
        if seat is None or seat not in seeding.contributors:
            raise NotThisSeat(game_id)
        if not valid_contribution(value):
            raise Rejected(RejectKind.MALFORMED, f"entropy must be lower-case hex of 1 to {MAX_CONTRIBUTION} "
                                                       f"bytes, not {len(value)} characters")
        outcome = self.entropy.contribute(game_id, seat, value, self.clock().timestamp())
        if outcome == "unknown":
            raise GameNotFound(game_id)
        if outcome == "closed":
            self.start_seeded(game_id)  # a late contribution is a read after the deadline: the game starts now
        if outcome != "ok":
            raise EntropyClosed(f"seat {seat} contributed already" if outcome == "again"
                                else f"the entropy window of game {game_id} has closed; the game started without seat {seat}'s")
        started = self.start_seeded(game_id)
        return {"id": game_id, "seat": seat, "sha256": hashlib.sha256(bytes.fromhex(value)).hexdigest(),
                "status": "started" if started else "seeding"}

    def seeding(self, game_id: str) -> dict[str, Any]:
        """Who has contributed to a seeding game (never what), or ``status: started`` once it runs."""
        if self.start_seeded(game_id):
            return {"id": game_id, "status": "started"}
        seeding = self.entropy.read(game_id)
        if seeding is None:
            raise GameNotFound(game_id)
        return seeding.status(self.clock().timestamp())

    def start_seeded(self, game_id: str) -> bool:
        """Set a seeding game up once every contributor has contributed or its deadline passed.
        True when the game exists (now or already); False while it seeds, or for no such game.
        Safe to call from any process, any number of times."""
        if self.store.exists(game_id):
            return True
        seeding = self.entropy.read(game_id)
        if seeding is None:
            return False
        if not seeding.closing and not seeding.complete() and self.clock().timestamp() < seeding.deadline:
            return False
        closed = self.entropy.close(game_id)
        if closed is None:
            return False
        spec = closed.spec
        rules = get_game(spec["game"])
        seats = [replace(SeatSpec.from_json(s), seat=i) for i, s in enumerate(spec["seats"])]
        self.create_planned(game_id, rules, seats, spec["config"], bytes.fromhex(spec["seed"]), seating.Plan(),
                            spec["creator"], caps=LiveCaps(), contributions=closed.contributions(),
                            meta_fields=spec["meta_fields"])  # None: another process set it up first
        return True

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

    # -- read (core.repository) ------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        """The game; a seeding one whose window has closed is set up first (``core.entropy``)."""
        try:
            return self.repository.load(game_id)
        except GameNotFound:
            if not self.start_seeded(game_id):
                raise
            return self.repository.load(game_id)

    def load_over(self, game_id: str) -> Game:
        """A game whose meta says it is over, from its final snapshot (``core.repository``)."""
        try:
            return self.repository.load_over(game_id)
        except GameNotFound:
            return self.load(game_id)  # as ever: a seeding game's set-up, or not found

    def cached(self, game_id: str) -> Game | None:
        return self.repository.cached(game_id)

    def extend(self, game: Game, entries: Sequence[StoredEntry]) -> Game:
        return self.repository.extend(game, entries)

    def state_at(self, game_id: str, version: int) -> Game:
        return self.repository.state_at(game_id, version)

    def batch_ends(self, game_id: str) -> list[int]:
        return self.repository.batch_ends(game_id)

    def entries(self, game_id: str, after: int = 0, until: int | None = None) -> list[StoredEntry]:
        return self.repository.entries(game_id, after, until)

    def flags(self, game_id: str) -> dict[str, Any]:
        return self.repository.flags(game_id)

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

    # -- write (core.commands) -------------------------------------------------------------

    def apply(self, game_id: str, actor: Actor, command: Any, *, expected_version: int | None = None,
              idempotency_key: str | None = None, meta: dict[str, Any] | None = None,
              meta_fields: Mapping[str, str] | None = None, base: Game | None = None,
              guard: AppendGuard | None = None) -> Applied:
        """:meth:`core.commands.CommandHandler.apply`: ``base`` is the game as the caller holds it
        (nothing is read first; the handler reads and decides again when it is behind), ``guard``
        what a request from outside must pass."""
        return self.commands.apply(game_id, actor, command, expected=expected_version, key=idempotency_key,
                                   guard=guard, base=base, meta=meta, meta_fields=meta_fields)

    def plan(self, game: Game, actor: Actor, command: Any, key: str, meta: dict[str, Any] | None = None) -> Planned:
        """:meth:`core.commands.CommandHandler.plan`: a batch decided in memory, not stored."""
        return self.commands.plan(game, actor, command, key, meta)

    def apply_planned(self, game_id: str, run: Sequence[Planned]) -> AppendResult:
        """:meth:`core.commands.CommandHandler.apply_planned`: a run of planned batches, one append."""
        return self.commands.apply_planned(game_id, run)

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


def create_command(config_json: dict[str, Any], contributions: Sequence[str | None] | None) -> dict[str, Any]:
    """The set-up batch's command; the seats' contributions, when the game took them, are in it,
    so the hash chain binds them from the first entry on (docs/replay-format.md)."""
    contributed = {"contributions": list(contributions)} if contributions is not None else {}
    return {"type": "CreateGame", "config": config_json, **contributed}


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
