"""The Redis Streams event store.

One stream per game, ``hg:{<id>}:events``, entry ids ``<seq>-0`` with seq from 1. Companion keys
share the ``{<id>}`` hash tag so a game lives on one Redis Cluster slot:

- ``hg:{<id>}:meta``  hash: game, config, seats, seed, seed_commitment, created, status, and one
  ``token:<sha256 of token>`` field per human seat (value: the seat number);
- ``hg:{<id>}:idem``  hash: idempotency key -> ``<fingerprint>\\n<result JSON>``, kept for the
  life of the game (``core.retention`` sets every key's TTL once a game is over or expired, and
  drops this one when the game ends);
- ``hg:{<id>}:packed`` a finished game's compacted form (``core.packed``): its bundle, compressed.
  :meth:`EventStore.compact` swaps it in for the stream, keeping only the stream's last entry
  (the tail): every read below answers from the packed form where the stream has been trimmed.

Each stream entry has two fields: ``entry``, the canonical JSON of
``{seq, type, data, actor, time, command, meta}``, and ``hash`` =
``entry_hash(prev_hash, entry)`` (``domain.canonical``), chained from ``GENESIS_HASH``.

Appends go through ONE Lua script (``append.lua``): idempotency key first (so a retry of an
applied request gets its stored result even though its expected version is now stale), then
the expected version, then XADD with explicit ids, then the key's result. Nothing else writes a
stream. This module has no Flask import; workers use it directly.
"""
from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.packed import Unpacked, unpack
from domain.canonical import GENESIS_HASH, canonical_json, entry_hash, json_hash, sha256_hex

if TYPE_CHECKING:  # redis is imported where it is used: an offline verifier reads entries without it
    import redis

Actor = int | str


def events_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:events"


def meta_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:meta"


def bundle_key(game_id: str) -> str:
    """The finished game's replay bundle, built once (a finished game never changes)."""
    return f"hg:{{{game_id}}}:bundle"


def idem_key(game_id: str) -> str:
    return f"hg:{{{game_id}}}:idem"


def snap_key(game_id: str) -> str:
    """The game's latest state snapshot (``core.snapshots``): a cache, never the record."""
    return f"hg:{{{game_id}}}:snap"


def packed_key(game_id: str) -> str:
    """A compacted finished game: its bundle, compressed (``core.packed``)."""
    return f"hg:{{{game_id}}}:packed"


PACKED_FIELD = "packed"  # meta field set by the compaction: the version the packed form holds
UNPACKED_CACHE = 8  # opened packed games kept per process (a 4-player Orléans game: 1.7 MB, tracemalloc)

# The compaction's swap (KEYS: events, meta, packed, idem, snap, bundle, tries; ARGV: the
# version the packed form ends at). The packed bytes were written first, by a command of their
# own: a crash before this script leaves the stream whole and the game readable from it. The
# snapshot stays: it is the final state (core.snapshots writes one at the end), so a cold load
# reads it and the tail entry, and opens the packed form only to travel back or list events; so
# do the folded clocks (hg:{<id>}:clock, core.clocks), the final clocks a state read shows.
_COMPACT = """
if redis.call("HGET", KEYS[2], ARGV[2]) then return "already" end
local status = redis.call("HGET", KEYS[2], "status")
if status ~= "finished" and status ~= "aborted" then return "live" end
if redis.call("EXISTS", KEYS[3]) == 0 then return "unpacked" end
local last = redis.call("XREVRANGE", KEYS[1], "+", "-", "COUNT", 1)
if #last == 0 or last[1][1] ~= ARGV[1] .. "-0" then return "moved" end
redis.call("XTRIM", KEYS[1], "MINID", ARGV[1] .. "-0")
redis.call("DEL", KEYS[4], KEYS[6], KEYS[7])
redis.call("HSET", KEYS[2], ARGV[2], ARGV[1])
local ttl = redis.call("PTTL", KEYS[2])
if ttl > 0 then redis.call("PEXPIRE", KEYS[3], ttl) else redis.call("PERSIST", KEYS[3]) end
return "ok"
"""
# The compaction's first step: the packed bytes, with the meta hash's TTL, unless the game is gone
# (deleted or expired while it was being packed: a key written then would outlive it for ever).
_WRITE_PACKED = """
local ttl = redis.call("PTTL", KEYS[1])
if ttl == -2 then return 0 end
if ttl > 0 then redis.call("SET", KEYS[2], ARGV[1], "PX", ttl) else redis.call("SET", KEYS[2], ARGV[1]) end
return 1
"""
# Keep a built bundle unless the game is compacted already (its bundle is in the packed form) or
# gone (deleted or expired while the bundle was built: a bundle of no game would be kept for ever).
_STORE_BUNDLE = """
if redis.call("HEXISTS", KEYS[1], ARGV[2]) == 1 then return 0 end
local ttl = redis.call("PTTL", KEYS[1])
if ttl == -2 then return 0 end
if ttl > 0 then
  return redis.call("SET", KEYS[2], ARGV[1], "NX", "PX", ttl) and 1 or 0
end
return redis.call("SET", KEYS[2], ARGV[1], "NX") and 1 or 0
"""


class StoreError(Exception):
    """Base class of the store's refusals."""


class GameExpired(StoreError):
    """The game was abandoned and expired (``core.retention``): nothing may be appended."""


class StaleVersion(StoreError):
    """The stream moved past the version the batch was computed against."""

    def __init__(self, expected: int, current: int, tail: Sequence[StoredEntry] = ()) -> None:
        super().__init__(f"expected version {expected}, the game is at version {current}")
        self.expected = expected
        self.current = current
        self.tail = tuple(tail)  # the entries after ``expected`` up to ``current``, when the append script sent them


class NotThisSeat(StoreError):
    """The token checked inside the append is not (or no longer) that seat's: nothing happened."""


class RateLimited(StoreError):
    """The requester's window is over its limit (counted with the append): nothing was appended."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} requests in this window")
        self.count = count


@dataclass
class RateWindow:
    """A requester's fixed request window (``core.budgets``), which the append script may count
    itself (no extra round trip).

    ``count`` is filled in by :meth:`EventStore.append` with the window's count after this
    request (also when the append then failed: the request counted).
    """

    key: str
    limit: int
    ttl_s: int
    count: int | None = None


@dataclass(frozen=True)
class ScriptCall:
    """A Lua script run in the same pipeline just before the append (keys of another slot allowed:
    the pipeline is not a transaction). ``source`` is sent with EVAL, so it never misses."""

    source: str
    keys: tuple[str, ...]
    args: tuple[Any, ...]


class IdempotencyConflict(StoreError):
    """The idempotency key was already used for a different request."""

    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was already used for a different request")
        self.key = key


@dataclass(frozen=True)
class StoredEntry:
    """One stream entry: the entry object and its chain hash."""

    seq: int
    entry: dict[str, Any]
    hash: str
    text: str | None = field(default=None, compare=False, repr=False)  # canonical JSON, when built here

    @property
    def type(self) -> str:
        found: str = self.entry["type"]
        return found

    @property
    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = self.entry["data"]
        return found

    @property
    def actor(self) -> Actor:
        found: Actor = self.entry["actor"]
        return found

    @property
    def command(self) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.entry["command"]
        return found


@dataclass(frozen=True)
class AppendResult:
    """What an append produced: seqs ``first..last`` (empty when last < first).

    ``replayed`` is True when an idempotency key matched an earlier identical request and
    nothing was appended.
    """

    version: int
    first: int
    last: int
    replayed: bool = False

    def to_json(self) -> dict[str, int]:
        return {"version": self.version, "from": self.first, "to": self.last}

    @classmethod
    def from_json(cls, data: Mapping[str, int], replayed: bool) -> AppendResult:
        return cls(data["version"], data["from"], data["to"], replayed)


def build_entries(
    base_version: int,
    prev_hash: str,
    events: Sequence[dict[str, Any]],
    *,
    actor: Actor,
    time: str,
    command: dict[str, Any] | None,
    meta: dict[str, Any] | None = None,
) -> list[StoredEntry]:
    """Turn a batch of event JSON objects into chained entries following ``base_version``."""
    out = []
    for i, event in enumerate(events):
        seq = base_version + 1 + i
        entry = {
            "seq": seq,
            "type": event["type"],
            "data": event,
            "actor": actor,
            "time": time,
            "command": command if i == 0 else None,
            "meta": meta if i == 0 else None,
        }
        text = canonical_json(entry)  # hashed and sent to the script: encoded once
        prev_hash = sha256_hex(prev_hash.encode("ascii") + text.encode("utf-8"))  # domain.canonical.entry_hash
        out.append(StoredEntry(seq, entry, prev_hash, text))
    return out


def fingerprint(actor: Actor, command: dict[str, Any] | None) -> str:
    """What an idempotency key is bound to: who asked for which command."""
    return json_hash({"actor": actor, "command": command})


def _seq(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0])


def _pairs(flat: Sequence[Any]) -> dict[Any, Any]:
    """A stream entry's fields as a script returns them (name, value, name, value...)."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


class EventStore:
    """Reads and appends game streams on one Redis connection (any ``decode_responses`` for the
    streams; a compacted game's packed form is binary, read with ``decode_responses=False`` as
    every client of ``core.connection`` is)."""

    def __init__(self, conn: redis.Redis) -> None:
        from redis import Redis
        from redis.cluster import RedisCluster  # imported by redis itself: nothing to load

        self.conn = conn
        self._cluster = isinstance(conn, RedisCluster)  # asked once, not on every append (an ABC check)
        # a plain client on a connection pool: the append can be sent and its answer read apart
        self._split = type(conn) is Redis and getattr(conn, "connection", None) is None
        source = (Path(__file__).parent / "append.lua").read_text("utf-8")
        self._append = conn.register_script(source)
        self._compact = conn.register_script(_COMPACT)
        self._store_bundle = conn.register_script(_STORE_BUNDLE)
        self._write_packed = conn.register_script(_WRITE_PACKED)
        self._opened: OrderedDict[tuple[str, int], Unpacked] = OrderedDict()
        self._opened_lock = threading.Lock()

    # -- writing ---------------------------------------------------------------------------

    def append(
        self,
        game_id: str,
        base_version: int,
        entries: Sequence[StoredEntry],
        *,
        idempotency_key: str | None = None,
        request_fingerprint: str = "",
        meta_updates: Mapping[str, str] | None = None,
        token_check: tuple[str, int] | None = None,
        window: RateWindow | None = None,
        snapshot: str | None = None,
        before: Sequence[ScriptCall] = (),
        further: Sequence[tuple[str, str, int]] = (),
        meanwhile: Callable[[], None] | None = None,
    ) -> AppendResult:
        """Append ``entries`` (built on ``base_version``) atomically, in one round trip.

        Raises StaleVersion when the stream is not at ``base_version`` and IdempotencyConflict
        when the key was used for another fingerprint; returns the stored result (with
        ``replayed=True``) when it was used for the same one.

        In the same script: ``token_check`` (meta field, seat) must hold or NotThisSeat is raised
        before anything else; ``window`` counts the request (RateLimited above its limit);
        ``snapshot`` is kept under ``snap_key`` when the batch is appended. ``before`` runs in the
        same pipeline ahead of the script (the work list's mark, a key of another slot).

        ``further``: ``entries`` hold several batches (a worker's run of machine steps); each batch
        after the first is named by (idempotency key, fingerprint, its first seq), and its key is
        stored with its own result, as if it had been appended alone. The key, fingerprint and
        stored result of the call are the first batch's; a further key already in use appends
        nothing (IdempotencyConflict). The returned result spans every batch.

        ``meanwhile``: the caller's work that the append does not need, run once the script is on
        its way and before its answer is read (:meth:`_overlapped`), so Redis runs the script while
        this process does it; where the call cannot be split (a cluster, a pipeline with
        ``before``) it runs after the answer. It runs at most once, and not when sending failed.
        """
        last = entries[-1].seq if entries else base_version
        result = AppendResult(last, base_version + 1, last)
        ends = [start - 1 for _, _, start in further] + [last]
        first_result = AppendResult(ends[0], base_version + 1, ends[0])
        if window is not None and self._cluster:
            self._count_apart(window)  # a window of another slot: counted first, on its own node
            window = None  # (and not again by the script)
        field, seat = token_check if token_check is not None else ("", -1)
        argv: list[Any] = [base_version, idempotency_key or "", request_fingerprint,
                           canonical_json(first_result.to_json()), field, seat,
                           window.limit if window is not None else 0, window.ttl_s if window is not None else 0,
                           snapshot or ""]
        pairs = list((meta_updates or {}).items())
        argv.append(len(pairs))
        for name, value in pairs:
            argv += [name, value]
        argv.append(len(further))
        for (key, fp, start), end in zip(further, ends[1:], strict=True):
            argv += [key, fp, canonical_json(AppendResult(end, start, end).to_json())]
        for e in entries:
            argv += [f"{e.seq}-0", e.text if e.text is not None else canonical_json(e.entry), e.hash]
        keys = [events_key(game_id), idem_key(game_id), meta_key(game_id),
                window.key if window is not None else idem_key(game_id), snap_key(game_id)]
        answer = self._run(keys, argv, before, meanwhile)
        status, payload = _text(answer[0]), _text(answer[1])
        if window is not None and status != "auth":
            window.count = int(answer[2])
        if status == "ok":
            return result
        if status == "replay":  # the first batch's stored result
            return AppendResult.from_json(json.loads(payload), replayed=True)
        if status == "conflict":
            raise IdempotencyConflict(idempotency_key or "")
        if status == "expired":
            raise GameExpired(f"game {game_id} expired after a long time without a move")
        if status == "auth":
            raise NotThisSeat(f"the token is not seat {seat}'s")
        if status == "limited":
            raise RateLimited(int(answer[2]))
        tail = [self._decode(row[0], _pairs(row[1])) for row in answer[3]] if len(answer) > 3 else []
        raise StaleVersion(base_version, int(payload), tail)

    def _count_apart(self, window: RateWindow) -> None:
        """Count ``window`` outside the append script (a cluster script touches one slot only);
        RateLimited above its limit, before anything is appended."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.incr(window.key)
        pipe.expire(window.key, window.ttl_s)
        window.count = int(pipe.execute()[0])
        if window.count > window.limit:
            raise RateLimited(window.count)
        return None

    def _run(self, keys: list[str], argv: list[Any], before: Sequence[ScriptCall],
             meanwhile: Callable[[], None] | None = None) -> list[Any]:
        answer: list[Any]
        if not before and meanwhile is not None and self._split:
            return self._overlapped(keys, argv, meanwhile)
        answer = self._run_after(keys, argv, before) if before else self._append(keys=keys, args=argv)
        if meanwhile is not None:
            meanwhile()
        return answer

    def _overlapped(self, keys: list[str], argv: list[Any], meanwhile: Callable[[], None]) -> list[Any]:
        """The append script's EVALSHA as redis-py's ``execute_command`` makes it, in two halves
        with ``meanwhile`` between them: sent on a connection of the pool, then ``meanwhile`` runs
        while Redis runs the script, then the answer is read (always, so the connection stays in
        step, even when ``meanwhile`` raised).

        A connection that fails on the way out or back is dropped and the error raised, as the
        plain call does: no append is sent twice (:func:`core.connection.connect`), since a batch
        whose answer was lost may be stored, and deciding the command again on the game it changed
        could play it twice; the API answers 503 and the client repeats with its Idempotency-Key.
        A server that lost the script ran nothing: the plain call (``Script.__call__``) loads it
        and runs it."""
        from redis.exceptions import NoScriptError

        client: Any = self.conn  # (redis-py leaves these calls unannotated)
        pool = client.connection_pool
        connection = pool.get_connection()
        answer: list[Any] | None = None
        try:
            try:
                connection.send_command("EVALSHA", self._append.sha, len(keys), *keys, *argv)
            except BaseException:
                connection.disconnect()  # a command half sent leaves the connection out of step
                raise
            try:
                meanwhile()
            finally:
                try:
                    answer = client.parse_response(connection, "EVALSHA")
                except NoScriptError:
                    answer = None  # an error answer, read whole: the connection is in step
                except BaseException:
                    connection.disconnect()
                    raise
        finally:
            pool.release(connection)
        if answer is None:
            answer = self._append(keys=keys, args=argv)
        return answer

    def _run_after(self, keys: list[str], argv: list[Any], before: Sequence[ScriptCall]) -> list[Any]:
        """The append script after the ``before`` calls, in one pipeline (on a cluster, one by one)."""
        answer: list[Any]
        from redis.exceptions import NoScriptError

        if self._cluster:
            # A cluster pipeline runs no scripts, and its commands for other nodes would not keep
            # their order: the marks go first, each on its own node, then the append.
            for call in before:
                self.conn.eval(call.source, len(call.keys), *call.keys, *call.args)
            answer = self._append(keys=keys, args=argv)
            return answer
        pipe = self.conn.pipeline(transaction=False)
        for call in before:
            pipe.eval(call.source, len(call.keys), *call.keys, *call.args)
        pipe.evalsha(self._append.sha, len(keys), *keys, *argv)
        answers = pipe.execute(raise_on_error=False)
        for answer in answers[:-1]:
            if isinstance(answer, Exception):
                raise answer
        if isinstance(answers[-1], NoScriptError):  # a restarted or flushed server
            answer = self._append(keys=keys, args=argv)  # the marks ran first
            return answer
        if isinstance(answers[-1], Exception):
            raise answers[-1]
        answer = answers[-1]
        return answer

    def create(self, game_id: str, meta: Mapping[str, str], entries: Sequence[StoredEntry]) -> AppendResult:
        """Write a new game's meta hash and its first batch in one script call."""
        return self.append(game_id, 0, entries, meta_updates=meta)

    # -- reading ---------------------------------------------------------------------------

    def read(self, game_id: str, after: int = 0, until: int | None = None) -> list[StoredEntry]:
        """Entries with ``after < seq <= until`` (``until=None``: to the end), in order."""
        upper = "+" if until is None else f"{until}-0"
        if until is not None and until <= after:
            return []
        rows: list[tuple[bytes, dict[bytes, bytes]]] = self.conn.xrange(  # type: ignore[assignment]
            events_key(game_id), f"{after + 1}-0", upper)
        found = [self._decode(entry_id, fields) for entry_id, fields in rows]
        if found[:1] and found[0].seq == after + 1:
            return found
        # A gap before the first entry, or nothing in a bounded range: the stream may have been
        # trimmed to its tail by the compaction (a live stream never has either). Unbounded and
        # empty needs no look: a compacted stream keeps its last entry, so nothing is newer.
        if not found and until is None:
            return found
        opened = self._open(game_id)
        if opened is None:
            return found
        older = [StoredEntry(int(entry["seq"]), entry, digest) for entry, digest in opened.entries
                 if after < entry["seq"] and (until is None or entry["seq"] <= until)]
        return older + [e for e in found if e.seq > opened.version]

    def last(self, game_id: str) -> StoredEntry | None:
        rows: list[tuple[bytes, dict[bytes, bytes]]] = self.conn.xrevrange(  # type: ignore[assignment]
            events_key(game_id), "+", "-", count=1)
        return self._decode(*rows[0]) if rows else None

    def version(self, game_id: str) -> int:
        last = self.last(game_id)
        return last.seq if last else 0

    def last_hash(self, game_id: str) -> str:
        last = self.last(game_id)
        return last.hash if last else GENESIS_HASH

    def meta(self, game_id: str) -> dict[str, str] | None:
        raw: dict[bytes, bytes] = self.conn.hgetall(meta_key(game_id))  # type: ignore[assignment]
        if not raw:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}

    def meta_field(self, game_id: str, field: str) -> str | None:
        value: bytes | None = self.conn.hget(meta_key(game_id), field)  # type: ignore[assignment]
        return None if value is None else _text(value)

    def idempotent_result(self, game_id: str, key: str) -> tuple[str, AppendResult] | None:
        """(fingerprint, result) stored under ``key``, or None."""
        stored: bytes | None = self.conn.hget(idem_key(game_id), key)  # type: ignore[assignment]
        if stored is None:
            return None
        fp, _, result = _text(stored).partition("\n")
        return fp, AppendResult.from_json(json.loads(result), replayed=True)

    def snapshot_and_meta(self, game_id: str) -> tuple[dict[str, str] | None, str | None]:
        """The meta hash and the state snapshot, in one round trip (a cold load's first read)."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.hgetall(meta_key(game_id))
        pipe.get(snap_key(game_id))
        raw, snap = pipe.execute()
        meta = {_text(k): _text(v) for k, v in raw.items()} if raw else None
        return meta, None if snap is None else _text(snap)

    def stored_bundle(self, game_id: str) -> str | None:
        """The finished game's bundle as built: kept whole, or out of its packed form."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.get(bundle_key(game_id))
        pipe.get(packed_key(game_id))
        raw, packed = pipe.execute()
        if raw is not None:
            return _text(raw)
        opened = self._opened_from(game_id, packed) if packed is not None else None
        return None if opened is None else opened.text

    def store_bundle(self, game_id: str, text: str) -> bool:
        """Keep a finished game's bundle as long as the game's keys; the first one written wins
        (they are identical), and none once the game is compacted (its packed form holds it).
        True when this call wrote it (``text`` is then the bundle stored)."""
        written = self._store_bundle(keys=[meta_key(game_id), bundle_key(game_id)],
                                     args=[text.encode("utf-8"), PACKED_FIELD])
        return bool(written)

    def packed(self, game_id: str) -> bytes | None:
        """The packed form's bytes, written or swapped in (None before the compaction)."""
        raw: bytes | None = self.conn.get(packed_key(game_id))  # type: ignore[assignment]
        return raw

    def write_packed(self, game_id: str, packed: bytes, opened: Unpacked | None = None) -> bool:
        """The compaction's first step: the packed form, beside the whole stream (no reader uses
        it until :meth:`compact` swaps it in), kept as long as the meta hash; False (nothing
        written) when the game is gone. ``opened``: ``packed`` as the compaction opened it
        (``core.packed.pack_opened``, its text already rebuilt), kept in this process's cache of
        opened games, so a read of this process after the swap (a tournament's tick reading the
        bundle it records) does not rebuild the text again."""
        written = bool(self._write_packed(keys=[meta_key(game_id), packed_key(game_id)], args=[packed]))
        if written and opened is not None:
            self._keep_opened((game_id, zlib.crc32(packed)), opened)
        return written

    def compact(self, game_id: str, version: int) -> str:
        """Swap the packed form (written first, ending at ``version``) in for the stream, in one
        script: the stream is trimmed to its last entry; idempotency keys, whole bundle and tries
        go (the final snapshot and clocks stay); the meta gets ``packed``. Returns ``ok``, or why
        nothing changed: ``already`` (compacted before), ``live`` (not over), ``unpacked`` (no
        packed form was written), ``moved`` (the stream does not end at ``version``)."""
        keys = [events_key(game_id), meta_key(game_id), packed_key(game_id), idem_key(game_id), snap_key(game_id),
                bundle_key(game_id), f"hg:{{{game_id}}}:tries"]
        return _text(self._compact(keys=keys, args=[version, PACKED_FIELD]))

    def forget_opened(self) -> None:
        """Drop this process's opened packed games (a test or bench that reads as a cold process)."""
        with self._opened_lock:
            self._opened.clear()

    def _open(self, game_id: str) -> Unpacked | None:
        packed = self.packed(game_id)
        return None if packed is None else self._opened_from(game_id, packed)

    def _opened_from(self, game_id: str, data: bytes) -> Unpacked:
        """The packed form opened, from this process's small cache when the same bytes were
        opened before (a finished game never changes; the checksum guards a reused id)."""
        key = (game_id, zlib.crc32(data))
        with self._opened_lock:
            found = self._opened.get(key)
            if found is not None:
                self._opened.move_to_end(key)
                return found
        opened = unpack(data)
        self._keep_opened(key, opened)
        return opened

    def _keep_opened(self, key: tuple[str, int], opened: Unpacked) -> None:
        with self._opened_lock:
            self._opened[key] = opened
            self._opened.move_to_end(key)
            while len(self._opened) > UNPACKED_CACHE:
                self._opened.popitem(last=False)

    def exists(self, game_id: str) -> bool:
        return bool(self.conn.exists(meta_key(game_id)))

    def delete(self, game_ids: Iterable[str]) -> None:
        """Remove games entirely (tests and tooling only; never called by the service)."""
        ids = list(game_ids)
        keys = [f(g) for g in ids for f in (events_key, meta_key, idem_key, bundle_key, snap_key, packed_key)]
        keys += [f"hg:{{{g}}}:{name}" for g in ids for name in ("tries", "lease", "clock", "pending")]
        if keys:
            self.conn.delete(*keys)
            self.conn.zrem("hg:{sweep}:due", *ids)  # core.worklist.DUE_KEY (no import cycle)
            self.conn.zrem("hg:{live}:games", *ids)  # core.retention.LIVE_KEY
            self.conn.hdel("hg:{sweep}:gen", *ids)
            self.conn.zrem("hg:{sweep}:compact", *ids)  # core.retention.COMPACT_KEY

    @staticmethod
    def _decode(entry_id: bytes | str, fields: Mapping[Any, Any]) -> StoredEntry:
        entry = json.loads(_text(fields[b"entry"] if b"entry" in fields else fields["entry"]))
        digest = _text(fields[b"hash"] if b"hash" in fields else fields["hash"])
        return StoredEntry(_seq(entry_id), entry, digest)


def verify_chain(entries: Iterable[StoredEntry], prev_hash: str = GENESIS_HASH) -> str:
    """Recompute the hash chain; raise ValueError at the first bad link; return the last hash."""
    expected_seq = None
    for e in entries:
        if expected_seq is not None and e.seq != expected_seq:
            raise ValueError(f"seq {e.seq} follows {expected_seq - 1}")
        if e.entry.get("seq") != e.seq:
            raise ValueError(f"entry {e.seq} carries seq {e.entry.get('seq')}")
        prev_hash = entry_hash(prev_hash, e.entry)
        if prev_hash != e.hash:
            raise ValueError(f"hash mismatch at seq {e.seq}")
        expected_seq = e.seq + 1
    return prev_hash
