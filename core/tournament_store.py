"""Tournament streams in Redis, and creating a tournament.

One stream per tournament, ``hg:t:{<id>}:events``, written by the same Lua append as the games
(``core/append.lua``: expected version, explicit ``<seq>-0`` ids, one hash chain over canonical
entries), so two runners racing append each step once and the stream replays exactly. The
companion hash ``hg:t:{<id>}:meta`` keeps the tournament seed (hex) until the end reveals it,
plus status and creation time; ``hg:tournaments`` lists every tournament by creation time and
``hg:tournaments:active`` the running ones (the runner's work list).
"""
from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from core.bots import BotNotFound, BotRegistry, NotTheOwner
from core.leaderboard import Leaderboard
from core.retention import LiveCaps
from core.store import AppendResult, EventStore, StaleVersion, StoredEntry, build_entries
from core.tournaments import (
    MAX_ENTRANTS,
    RULES,
    NotAllowedNow,
    Settings,
    Tournament,
    TournamentRejected,
    cancellation,
    check_settings,
    default_points,
    evolve,
    fold,
    skips_due,
    total_games,
    withdrawal,
)
from domain.bots import bot_names
from domain.canonical import GENESIS_HASH, canonical_json
from domain.core import Rejected
from domain.games import get_game
from domain.rng import seed_commitment

ALL_KEY = "hg:tournaments"
MAX_ATTEMPTS = 8
ACTIVE_KEY = "hg:tournaments:active"


def events_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:events"


def meta_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:meta"


def idem_key(tid: str) -> str:
    return f"hg:t:{{{tid}}}:idem"


class EntryRefused(PermissionError):
    """An entrant the organiser may not enter (another account's bot, not open for entry)."""


class TournamentNotFound(LookupError):
    def __init__(self, tid: str) -> None:
        super().__init__(f"no tournament with id {tid!r}")
        self.tid = tid


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class Loaded:
    tournament: Tournament
    version: int
    last_hash: str
    entries: tuple[StoredEntry, ...]


class TournamentStore:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self._append = conn.register_script((Path(__file__).parent / "append.lua").read_text("utf-8"))

    def append(self, tid: str, loaded: Loaded, events: Sequence[dict[str, Any]],
               meta_updates: Mapping[str, str] | None = None) -> AppendResult:
        """Append ``events`` after ``loaded.version``; StaleVersion when another runner got there first."""
        entries = build_entries(loaded.version, loaded.last_hash, events, actor="system", time=_now(),
                                command={"type": events[0]["type"]} if events else None)
        return self._write(tid, loaded.version, entries, meta_updates or {})

    def _write(self, tid: str, base: int, entries: Sequence[StoredEntry], meta: Mapping[str, str]) -> AppendResult:
        last = entries[-1].seq if entries else base
        result = AppendResult(last, base + 1, last)
        # append.lua's arguments (core.store.EventStore.append): no idempotency key, token, rate window
        # or snapshot; KEYS[4] and KEYS[5] are never touched then (the idem key stands in, same slot)
        argv: list[Any] = [base, "", "", "{}", "", -1, 0, 0, "", len(meta)]
        for name, value in meta.items():
            argv += [name, value]
        argv.append(0)  # no further batches
        for e in entries:
            argv += [f"{e.seq}-0", e.text if e.text is not None else canonical_json(e.entry), e.hash]
        keys = [events_key(tid), idem_key(tid), meta_key(tid), idem_key(tid), idem_key(tid)]
        answer = self._append(keys=keys, args=argv)
        status, payload = _text(answer[0]), _text(answer[1])
        if status != "ok":
            raise StaleVersion(base, int(payload))
        return result

    def entries(self, tid: str, after: int = 0) -> list[StoredEntry]:
        rows: list[Any] = self.conn.xrange(events_key(tid), f"{after + 1}-0", "+")  # type: ignore[assignment]
        return [EventStore._decode(i, f) for i, f in rows]

    def load(self, tid: str) -> Loaded:
        entries = self.entries(tid)
        if not entries:
            raise TournamentNotFound(tid)
        tournament = fold(e.data for e in entries)
        return Loaded(tournament, entries[-1].seq, entries[-1].hash, tuple(entries))

    def reload(self, tid: str, loaded: Loaded) -> Loaded:
        """:meth:`load`, from ``loaded`` (an earlier load of ``tid``): only the entries appended
        since are read and folded on (a runner reading its own append back)."""
        entries = self.entries(tid, after=loaded.version)
        if not entries:
            return loaded
        tournament = fold((e.data for e in entries), loaded.tournament)
        return Loaded(tournament, entries[-1].seq, entries[-1].hash, loaded.entries + tuple(entries))

    def seed(self, tid: str) -> bytes:
        value: Any = self.conn.hget(meta_key(tid), "seed")
        if value is None:
            raise TournamentNotFound(tid)
        return bytes.fromhex(_text(value))

    def listing(self, limit: int = 50) -> list[str]:
        ids: list[Any] = self.conn.zrevrange(ALL_KEY, 0, limit - 1)  # type: ignore[assignment]
        return [_text(i) for i in ids]

    def active(self) -> list[str]:
        ids: set[Any] = self.conn.smembers(ACTIVE_KEY)  # type: ignore[assignment]
        return sorted(_text(i) for i in ids)

    def finish(self, tid: str) -> None:
        self.conn.srem(ACTIVE_KEY, tid)

    def delete(self, tids: Sequence[str]) -> None:
        """Remove tournaments entirely (tests and tooling only)."""
        for tid in tids:
            self.conn.delete(events_key(tid), meta_key(tid), idem_key(tid), f"hg:t:{{{tid}}}:package",
                             f"hg:t:{{{tid}}}:seen")
            self.conn.zrem(ALL_KEY, tid)
            self.conn.srem(ACTIVE_KEY, tid)

    # -- creation ----------------------------------------------------------------------------

    def create(self, spec: Mapping[str, Any], bots: BotRegistry, board: Leaderboard, *,
               organiser: str | None = None, live_cap: int = 0, live_total: int = 0,
               charge: Callable[[int], None] | None = None) -> dict[str, Any]:
        """Validate ``spec`` (the POST body) and write the tournament's first events; returns its
        id, commitment and number of games.

        ``organiser`` (an account id) owns it; its registered-bot entrants must be the organiser's
        or open for entry (``core.bots``). ``live_cap``: the organiser's live games at once, which
        the runner respects and ``parallel`` may not exceed (0: none); ``live_total``: the service's
        cap on live games overall, which the runner respects too. ``charge(games)`` is called
        with the number of games the tournament will play once it is valid, before anything is
        written (it raises to refuse). Raises TournamentRejected with a message naming what is wrong.
        """
        players, fmt = int(spec["players_per_game"]), spec.get("format") or "round_robin"
        entrant_specs = list(spec["entrants"])
        if not 2 <= len(entrant_specs) <= MAX_ENTRANTS:
            raise TournamentRejected(f"a tournament has 2..{MAX_ENTRANTS} entrants")
        gpp = int(spec.get("games_per_pairing") or 1)
        rounds = check_settings(players, len(entrant_specs), fmt, spec.get("rounds"), gpp, spec.get("points"))
        rules, edition = _game(spec, players)
        entrants = _entrants(entrant_specs, bots, rules.name, organiser)
        parallel = int(spec.get("parallel") or 4)
        if live_cap and parallel > live_cap:
            raise TournamentRejected(f"parallel {parallel} is more than the {live_cap} live games the organiser may "
                                     "have at once")
        games = total_games(players, len(entrants), fmt, rounds, gpp)
        if charge is not None:
            charge(games)
        initial = board.ratings(rules.name, edition, [e["key"] for e in entrants])
        seed, tid = secrets.token_bytes(32), "t" + secrets.token_hex(7)
        model = board.model
        settings = Settings(tid, spec.get("name"), rules.name, edition, players, fmt, rounds, gpp,
                            float(spec.get("deadline_s") or 5.0), parallel,
                            tuple(float(p) for p in (spec.get("points") or default_points(players))),
                            seed_commitment(seed), rules.engine_version, model.describe(), _now(), organiser, RULES)
        events: list[dict[str, Any]] = [{"type": "TournamentCreated", "settings": settings.to_json()}]
        for number, entrant in enumerate(entrants):
            rating = initial[entrant["key"]]
            events.append({"type": "EntrantRegistered", "entrant": number, **entrant, "mu": rating.mu,
                           "sigma": rating.sigma})
        entries = build_entries(0, GENESIS_HASH, events, actor="system", time=settings.created,
                                command={"type": "CreateTournament"})
        self._write(tid, 0, entries, {"seed": seed.hex(), "status": "running", "created": settings.created,
                                      "game": rules.name, "live_cap": str(live_cap), "live_total": str(live_total),
                                      **({"organiser": organiser} if organiser else {})})
        self.conn.zadd(ALL_KEY, {tid: datetime.now(UTC).timestamp()})
        self.conn.sadd(ACTIVE_KEY, tid)
        for entrant in entrants:
            if entrant["bot_id"]:
                bots.entered(entrant["bot_id"], tid)
        return {"id": tid, "seed_commitment": settings.seed_commitment, "games": games}

    # -- the organiser's and the owners' decisions ---------------------------------------------

    def cancel(self, tid: str, by: str, reason: str | None) -> Loaded:
        """Append ``TournamentCancelled`` (the runner then calls off its games and ends it); raises
        NotAllowedNow once it is over or cancelled."""
        return self._decide(tid, lambda t: [cancellation(t, by, reason)], {"status": "cancelled"})

    def withdraw(self, tid: str, entrant: int, by: str) -> Loaded:
        """Append ``EntrantWithdrawn`` (reason ``owner``) and, in the same append, ``GameSkipped``
        for its games not yet started; raises NotAllowedNow when the tournament or entrant refuses."""
        def events(t: Tournament) -> list[dict[str, Any]]:
            withdrawn = withdrawal(t, entrant, by, "owner")
            return [withdrawn, *skips_due(evolve(t, withdrawn))]

        return self._decide(tid, events, {})

    def _decide(self, tid: str, decide: Callable[[Tournament], list[dict[str, Any]]],
                meta: Mapping[str, str]) -> Loaded:
        for _ in range(MAX_ATTEMPTS):
            loaded = self.load(tid)
            events = decide(loaded.tournament)
            try:
                self.append(tid, loaded, events, meta)
            except StaleVersion:
                continue  # the runner appended meanwhile: decide again on what it wrote
            return self.load(tid)
        raise NotAllowedNow("the tournament kept changing; try again")

    def runner_caps(self, tid: str) -> tuple[str | None, LiveCaps]:
        """(the requester its games are charged to, the caps they are created under) for the runner:
        the organiser's live-game cap and the service's, as they were when it was accepted."""
        organiser, cap, total = self.conn.hmget(meta_key(tid), ["organiser", "live_cap", "live_total"])  # type: ignore[misc]
        return (f"acct:{_text(organiser)}" if organiser else None), LiveCaps(int(cap or 0), int(total or 0))


def _game(spec: Mapping[str, Any], players: int) -> tuple[Any, str | None]:
    try:
        rules = get_game(str(spec["game"]))
        config = rules.config_to_json(rules.config_from_json(
            {"players": players, **({"edition": spec["edition"]} if spec.get("edition") else {})}))
    except Rejected as exc:
        raise TournamentRejected(exc.message) from None
    return rules, config.get("edition")


def _entrants(specs: Sequence[Mapping[str, Any]], bots: BotRegistry, game: str,
              organiser: str | None) -> list[dict[str, Any]]:
    out, seen = [], set()
    for i, spec in enumerate(specs):
        if ("bot_id" in spec) == ("builtin" in spec):
            raise TournamentRejected(f"entrants[{i}] is either {{bot_id}} or {{builtin}}, not both or neither")
        if spec.get("bot_id"):
            try:
                bot = bots.get(str(spec["bot_id"]))
                bot.check_entry(organiser)
            except BotNotFound:
                raise TournamentRejected(f"entrants[{i}]: no bot with id {spec['bot_id']!r}") from None
            except NotTheOwner as exc:
                raise EntryRefused(f"entrants[{i}]: {exc}") from None
            entrant = {"key": f"bot:{bot.bot_id}", "name": bot.name, "kind": bot.kind, "bot_id": bot.bot_id,
                       "builtin": None}
        else:
            name = spec.get("builtin")
            if name not in bot_names(game):
                raise TournamentRejected(f"entrants[{i}].builtin {name!r} is not one of {', '.join(bot_names(game))} "
                                         f"(the built-in bots that play {game})")
            entrant = {"key": f"builtin:{name}", "name": spec.get("name") or name, "kind": "builtin",
                       "bot_id": None, "builtin": name}
        if entrant["key"] in seen:
            raise TournamentRejected(f"entrants[{i}]: {entrant['name']} is entered twice (one rating per entrant)")
        seen.add(entrant["key"])
        out.append(entrant)
    return out
