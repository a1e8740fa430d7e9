"""Verify an ``hourglass-replay/4`` (or ``/3``, ``/2``, ``/1``) bundle: the library behind the CLI and the HTTP endpoint.

``verify_stream(chunks)`` re-derives the whole game from the revealed seed and the commands alone
and reports the first line where the bundle and the re-run disagree; ``verify_bundle(data)`` does
the same for a bundle already in memory. The bundle is read line by line as it arrives
(``replays.lines``): memory holds one line and the game's state (and up to ``KNOWN`` commands and
actors it has read, by their text), never the bundle, and a bundle
that is wrong in its first line is refused without reading the rest. In file order it checks:
the header line (canonical JSON, its fields, a known format); for every batch, the events that
``setup``/``decide`` produce with ``Rng(seed, game_id, draw_counter(state))`` equal the stored
ones byte for byte, the hash chain and the state hash after the batch (format 1: every batch;
format 2 and later: the checkpoint batches, null on the others), in format 4 every seat's
view-chain head after the batch, re-derived from the seat's view of the re-derived events
(``core.viewchain``), and the heads one seat recorded during play (``Signing.heads``); and
finally the footer: the
``header_hash``, the recomputed result, the counts and the final hashes; last, given the
service's key set (``keys``), the format-3 signature (``core.signing``: a known key, valid when it
signed, over the bundle's exact bytes).

Which divergence is reported once the header has been read is the same as if the whole file were
checked first: after a divergence the rest is read without replaying it (``BundleLines.rest``),
and a byte that is not UTF-8, a last line without its newline, a missing footer or a footer whose
``header_hash`` does not match the header is reported instead (``sha256(seed) ==
seed_commitment`` and the game's name are checked after ``header_hash``). A caller bounds the
work with ``pace`` (called after every batch line) and with the chunks it hands over: either may
raise :class:`Interrupted`, which stops the verification and is raised to the caller.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core import table, viewchain
from core.signing import KeySet, SignatureProblem, check
from domain.canonical import GENESIS_HASH, canonical_json, entry_hash, entry_text_hash, json_hash
from domain.core import GameRules, Rejected
from domain.games import fold, for_engine, get_game
from domain.games import step as game_step
from domain.rng import Rng, valid_contribution
from replays.bundle import (
    BATCH_ENTRY_KEYS,
    FORMAT_1,
    FORMATS,
    HEADER_KEYS,
    SIGNED_FORMATS,
    VIEW_CHAIN_FORMATS,
    batch_keys,
    footer_keys,
    hashed_batch,
    header_keys,
    play_seed,
    signed_message,
    state_hash,
)
from replays.entries import ENTRY_KEYS, event_json
from replays.lines import MAX_LINE, BundleLines, Unreadable
from replays.statehash import StateHasher

SNIPPET = 240  # characters of context shown around a difference
CONTRIBUTED = (" (the set-up draws from the seed derived from the service's seed and the seats' contributions "
               "in line 1: a changed or omitted contribution changes every draw)")

if ENTRY_KEYS != ("seq", "type", "data", "actor", "time", "command", "meta"):  # _Replayer.entry spells them out
    raise ImportError("replays.entries.ENTRY_KEYS changed: update the hashed entry in replays.verify")


@dataclass(frozen=True)
class Divergence:
    line: int  # 1-based line of the bundle; len(lines) + 1 when a line is missing at the end
    what: str
    expected: str
    found: str


@dataclass(frozen=True)
class Report:
    ok: bool
    game: str | None = None
    game_id: str | None = None
    lines: int = 0
    batches: int = 0
    entries: int = 0
    final_hash: str | None = None
    result: dict[str, Any] | None = None
    divergence: Divergence | None = None
    warnings: tuple[str, ...] = field(default=())
    signed_by: str | None = None  # the key whose signature was checked against the key set given

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["warnings"] = list(self.warnings)
        return out

    def describe(self) -> str:
        if self.ok:
            signed = f", signed by key {self.signed_by}" if self.signed_by else ""
            return f"verified: {self.game} {self.game_id}, {self.batches} batches, final hash {self.final_hash}{signed}"
        d = self.divergence
        assert d is not None
        return f"line {d.line}: {d.what}\n  expected: {d.expected}\n  found:    {d.found}"


class _Diverged(Exception):
    def __init__(self, line: int, what: str, expected: Any, found: Any) -> None:
        super().__init__(what)
        self.divergence = Divergence(line, what, _show(expected), _show(found))


def _show(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)


def _excerpts(expected: str, found: str) -> tuple[str, str]:
    """Both strings cut around their first difference, so a report stays readable."""
    at = next((i for i, (a, b) in enumerate(zip(expected, found)) if a != b), min(len(expected), len(found)))
    start = max(0, at - SNIPPET // 2)

    def cut(s: str) -> str:
        return ("…" if start else "") + s[start:start + SNIPPET] + ("…" if len(s) > start + SNIPPET else "")

    return cut(expected), cut(found)


def _expect_equal(line: int, what: str, expected: Any, found: Any) -> None:
    if expected is None and found is None:
        return
    if type(expected) is type(found) and type(expected) in (str, int) and expected == found:
        return
    exp, fnd = _show(expected), _show(found)
    if exp != fnd:
        raise _Diverged(line, what, *_excerpts(exp, fnd))


def _same_scalar(a: Any, b: Any) -> bool:
    """Equal strings or equal ints, type for type (what _expect_equal takes at once)."""
    return type(a) is type(b) and type(a) in (str, int) and bool(a == b)


def _load(number: int, text: str) -> dict[str, Any]:
    """A line as a JSON object, not yet checked to be canonical."""
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise _Diverged(number, f"not JSON ({exc})", "a canonical JSON object", text[:SNIPPET]) from None
    if not isinstance(obj, dict):
        raise _Diverged(number, "not a JSON object", "a JSON object", text[:SNIPPET])
    return obj


def _expect_canonical(number: int, obj: dict[str, Any], text: str) -> None:
    _expect_equal(number, "line is not canonical JSON (sorted keys, no spaces)", canonical_json(obj), text)


def _parse(number: int, text: str) -> dict[str, Any]:
    obj = _load(number, text)
    _expect_canonical(number, obj, text)
    return obj


def _expect_keys(number: int, obj: dict[str, Any], kind: str, keys: frozenset[str]) -> None:
    _expect_equal(number, f"line kind (a {kind} line belongs here)", kind, str(obj.get("kind")))
    if obj.keys() != keys:  # JSON object keys are strings: equal sets are equal sorted lists
        _expect_equal(number, f"{kind} fields", sorted(keys), sorted(obj))


_DECODE = json.JSONDecoder().raw_decode  # one JSON value at a position of a line
_STRING: Callable[[str], str] = json.encoder.encode_basestring  # what canonical_json writes for a str
KNOWN = 512  # values remembered by their text per verification (actors, commands): memory stays bounded
_UNSEEN = object()


class _Mismatch(Exception):
    """The line's text is not the one :meth:`_Replayer.walk` expects there."""


class _Walk:
    """A line's text read from left to right against the text it must have."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0  # how far the text has been read

    def expect(self, piece: str) -> None:
        if not self.text.startswith(piece, self.at):
            raise _Mismatch
        self.at += len(piece)

    def took(self, piece: str) -> bool:
        """Whether ``piece`` is here, read past it if so."""
        if self.text.startswith(piece, self.at):
            self.at += len(piece)
            return True
        return False

    def value(self, hint: tuple[Any, str] | None = None) -> tuple[Any, str]:
        """The JSON value that starts here and its text, which must be the value's canonical JSON
        (``hint``: a value and its text read before, taken again without parsing when that text
        is here: what follows must still be the rest of the line's canonical text)."""
        if hint is not None and self.text.startswith(hint[1], self.at):
            self.at += len(hint[1])
            return hint
        value, end = _DECODE(self.text, self.at)
        piece = canonical_json(value)
        if end - self.at != len(piece):
            raise _Mismatch
        self.expect(piece)
        return value, piece

    def known(self, follow: str, memo: dict[str, Any]) -> tuple[Any, str]:
        """:meth:`value`, looked up in ``memo`` by its text up to ``follow`` (what must come
        next) and parsed only when not there; ``memo`` keeps up to ``KNOWN`` of them."""
        end = self.text.find(follow, self.at)
        if end >= 0:
            piece = self.text[self.at:end]
            value = memo.get(piece, _UNSEEN)
            if value is not _UNSEEN:
                self.at = end
                return value, piece
        value, piece = self.value()
        if len(memo) < KNOWN:
            memo[piece] = value
        return value, piece

    def skip(self, length: int) -> int:
        """Pass over ``length`` characters the caller checks later; where they start."""
        start = self.at
        self.at += length
        return start


Planned = tuple[list[dict[str, Any]], Any, table.Table, list[Any] | None]  # see _Replayer.expected_events


class _Replayer:
    """Walks the bundle line by line, keeping the re-derived state, chain and counters."""

    def __init__(self, header: dict[str, Any], rules: GameRules, seed: bytes,
                 recorded: RecordedHeads | None = None) -> None:
        self.header = header
        self.rules = rules
        self.seed = seed
        self.game_id: str = header["game_id"]
        self.state: Any = None
        self.table = table.EMPTY
        self.seats = len(header["seats"]) if isinstance(header.get("seats"), list) else 0
        self.format: str = header["format"]
        self.hasher = StateHasher(rules)
        self.last_state_hash = ""
        self.chain = GENESIS_HASH
        self.seq = 0
        self.entries = 0
        self.view_heads = viewchain.genesis_heads(self.seats)
        self.recorded = recorded
        self.unchecked = sorted(recorded.heads) if recorded is not None else []  # recorded versions not yet reached
        self.meta: tuple[Any, str] = (None, "null")  # the last entry's meta and time as walked, and their texts
        self.time: tuple[Any, str] | None = None
        self.known: dict[str, dict[str, Any]] = {"actor": {}, "command": {}}  # _Walk.known's memos
        self.decoded: dict[str, Any] = {}  # a command's text -> the command decoded, up to KNOWN of them

    def expected_events(self, number: int, index: int, command: Any, text: str | None = None) -> Planned:
        """The events (as stored JSON) the engine produces for this batch's command, the game's
        state and the table after them, and the events themselves when the game decided them
        (``text``: the command's canonical JSON, by which a command decoded before is found)."""
        rules = self.rules
        try:
            if index == 0:
                contributions = self.header.get("contributions")
                contributed = {"contributions": contributions} if contributions is not None else {}
                _expect_equal(number, "setup command (its config and the seats' contributions are the header's)",
                              {"type": "CreateGame", "config": self.header["config"], **contributed}, command)
                events = rules.setup(rules.config_from_json(self.header["config"]), Rng(self.seed, self.game_id, 0))
                stored = [rules.event_to_json(e) for e in events]
                return stored, fold(rules, events, self.state), self.table, events
            if not isinstance(command, dict):
                raise _Diverged(number, "command", "a command object", command)
            decoded = self.decoded.get(text) if text is not None else None
            if decoded is None:
                decoded = table.command_from_json(command) or rules.command_from_json(command)
                if text is not None and len(self.decoded) < KNOWN:
                    self.decoded[text] = decoded
            rng = Rng(self.seed, self.game_id, rules.draw_counter(self.state))
            if not isinstance(decoded, table.TABLE_COMMANDS) and table.status(rules, self.state, self.table) == "active":
                # table.step's own path for a game command once its guard passes, keeping the
                # decided events: the view chain need not decode them from their JSON again
                decided, after = game_step(rules, self.state, decoded, rng)
                return [rules.event_to_json(e) for e in decided], after, self.table, decided
            return (*table.step(rules, self.state, self.table, decoded, rng, self.seats), None)
        except Rejected as exc:
            raise _Diverged(number,
                            "the engine rejects this command", "an accepted command", f"{exc}: {_show(command)}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise _Diverged(number,
                            "the engine cannot read this command", "a valid command", f"{exc!r}: {_show(command)}") from None

    def line(self, number: int, index: int, text: str) -> None:
        """Batch line ``number``: read once against the text the engine's batch must have
        (:meth:`walk`); when that fails, the line is parsed and the checks in their order name
        the first fault."""
        if self.walk(number, index, text):
            return
        line = _load(number, text)
        _expect_canonical(number, line, text)
        self.batch(number, index, line)

    def walk(self, number: int, index: int, text: str) -> bool:
        """Accept batch line ``number`` when its text is, character for character, the canonical
        JSON of the batch the engine re-derives; else False, with nothing changed.

        The line is read from left to right (``_Walk``): what the engine derives (the batch
        number, every event, seq and type, the chain hash, the state hash, the view-chain heads)
        must be there as the engine's text; what the bundle alone records (the actor, the
        command, each entry's time and meta) is parsed where it stands and must be its own
        canonical JSON. The whole line equal to a canonical encoding means it parses to an object
        every ordered check accepts, so a line refused here is one they refuse too (or a
        verifier without this walk accepts, which the ordered path then does). Anything else, an
        error included, is left to the ordered checks, which re-derive the batch."""
        try:
            walk = _Walk(text)
            walk.expect('{"actor":')
            actor, actor_text = walk.known(',"batch":', self.known["actor"])
            walk.expect(f',"batch":{index},"chain_hash":')
            chain_at = walk.skip(66)  # the chain hash's text: known once the entries are read
            walk.expect(',"command":')
            command, command_text = walk.known(',"entries":[', self.known["command"])
            expected, after, tbl, decided = self.expected_events(number, index, command, command_text)
            if not expected:  # a batch has entries: left to the ordered checks to say so
                return False
            texts = [canonical_json(event) for event in expected]
            walk.expect(',"entries":[')
            chain, seq, meta, hints = self.entries_walked(walk, actor_text, command_text, expected, texts)
            hashed = self.hasher(after) if hashed_batch(self.format, index) else None
            walk.expect('],"kind":"batch","state_hash":' + ("null" if hashed is None else f'"{hashed}"'))
            heads = self.view_heads
            if self.format in VIEW_CHAIN_FORMATS:
                heads = viewchain.advance_all(self.rules, heads, seq, expected, decided, encoded=texts)
                walk.expect(',"view_heads":[' + ",".join(f'"{head}"' for head in heads) + "]")
            walk.expect("}")
            if walk.at != len(text) or not text.startswith(f'"{chain}"', chain_at):
                return False
            noted = table.note(tbl, actor, command, meta if isinstance(meta, dict) else None)
        except Exception:
            return False
        self.state, self.table, self.chain, self.seq, self.view_heads = after, noted, chain, seq, heads
        self.entries += len(expected)
        self.meta, self.time = hints
        if hashed is not None:
            self.last_state_hash = hashed
        self.recorded_heads(number)
        return True

    def entries_walked(self, walk: _Walk, actor_text: str, command_text: str, expected: list[dict[str, Any]],
                       texts: list[str]) -> tuple[str, int, Any, tuple[tuple[Any, str], tuple[Any, str] | None]]:
        """:meth:`walk` over a batch's entries: the chain hash and seq after them, the first
        entry's meta, and the last entry's meta and time with their texts (the next line's hints)."""
        chain, seq, meta, time, first = self.chain, self.seq, self.meta, self.time, None
        for position, (event, event_text) in enumerate(zip(expected, texts)):
            seq += 1
            opening = ('{"actor":' if position == 0 else ',{"actor":') + actor_text + ',"data":' + event_text
            seq_text = f',"seq":{seq},"time":'
            type_text = ',"type":' + _STRING(str(event.get("type"))) + "}"
            if time is None or not walk.took(f'{opening},"meta":{meta[1]}{seq_text}{time[1]}{type_text}'):
                walk.expect(opening + ',"meta":')  # a time or meta other than the entry before's
                meta = walk.value(meta)
                walk.expect(seq_text)
                time = walk.value(time)
                walk.expect(type_text)
            if position == 0:
                first = meta[0]
            chain = entry_text_hash(chain, (  # the hashed entry: ENTRY_KEYS in sorted order
                f'{{"actor":{actor_text},"command":{command_text if position == 0 else "null"},'
                f'"data":{event_text},"meta":{meta[1]},"seq":{seq},"time":{time[1]}{type_text}'))
        return chain, seq, first, (meta, time)

    def batch(self, number: int, index: int, line: dict[str, Any]) -> None:
        """Check batch line ``number`` (a canonical object), in the order that names its first fault."""
        _expect_keys(number, line, "batch", batch_keys(self.format))
        _expect_equal(number, "batch number", index, line["batch"])
        stored = line["entries"]
        if not isinstance(stored, list) or not stored:
            raise _Diverged(number, "entries", "a non-empty list", stored)
        expected, after, tbl, decided = self.expected_events(number, index, line["command"])
        _expect_equal(number, "number of events", len(expected), len(stored))
        # one comparison of the whole batch; entry by entry only to locate a difference
        same = canonical_json(expected) == canonical_json(
            [e.get("data") if isinstance(e, dict) else e for e in stored])
        try:
            for position, (event, entry) in enumerate(zip(expected, stored)):
                self.entry(number, position, line, event, entry, check_event=not same)
        except _Diverged as exc:
            if index == 0 and self.header.get("contributions") is not None and "event" in exc.divergence.what:
                exc.divergence = replace(exc.divergence, what=exc.divergence.what + CONTRIBUTED)
            raise
        head = stored[0] if isinstance(stored[0], dict) else {}
        meta = head.get("meta") if isinstance(head.get("meta"), dict) else None
        self.state, self.table = after, table.note(tbl, line["actor"], line["command"], meta)  # who played
        _expect_equal(number, "chain hash after the batch", self.chain, line["chain_hash"])
        if hashed_batch(self.format, index):
            self.last_state_hash = self.hasher(self.state)
            _expect_equal(number, "state hash after the batch", self.last_state_hash, line["state_hash"])
        else:
            _expect_equal(number, "state hash after the batch (null between checkpoints)", None, line["state_hash"])
        if self.format in VIEW_CHAIN_FORMATS:
            self.view_chain(number, index, expected, line["view_heads"], decided)

    def view_chain(self, number: int, index: int, events: list[dict[str, Any]], found: Any,
                   decided: list[Any] | None = None) -> None:
        """Every seat's view-chain head after the batch: re-derived from the seat's view of the
        re-derived events (``core.viewchain``), then the heads a seat recorded (``--heads``)."""
        self.view_heads = viewchain.advance_all(self.rules, self.view_heads, self.seq, events, decided)
        if not isinstance(found, list) or len(found) != self.seats:
            raise _Diverged(number, f"view heads after batch {index} (one per seat)", f"a list of {self.seats}", found)
        for seat, (expected, head) in enumerate(zip(self.view_heads, found)):
            if type(head) is not str or head != expected:  # the message only for a head that may differ
                _expect_equal(number, f"view-chain head of seat {seat} after batch {index} (version {self.seq})",
                              expected, head)
        self.recorded_heads(number)

    def recorded_heads(self, number: int) -> None:
        """The heads a seat recorded (``--heads``) for the versions up to this batch's."""
        while self.recorded is not None and self.unchecked and self.unchecked[0] <= self.seq:
            version = self.unchecked.pop(0)
            seat = self.recorded.seat
            what = f"view-chain head of seat {seat} at version {version} (the one the seat recorded)"
            if version != self.seq:
                raise _Diverged(number, what, f"a version that ends a batch (this batch ends at {self.seq})",
                                self.recorded.heads[version])
            _expect_equal(number, what, self.view_heads[seat], self.recorded.heads[version])

    def entry(self, number: int, position: int, line: dict[str, Any], event: dict[str, Any], entry: object,
              check_event: bool) -> None:
        if not isinstance(entry, dict):
            raise _Diverged(number, f"entry {position + 1}", "an entry object", entry)
        if entry.keys() != BATCH_ENTRY_KEYS:
            _expect_equal(number, f"entry {position + 1} fields", sorted(BATCH_ENTRY_KEYS), sorted(entry))
        self.seq += 1
        seq, actor, data = entry["seq"], entry["actor"], entry["data"]
        if type(seq) is not int or seq != self.seq:  # the checks' common case without a message built
            _expect_equal(number, f"entry {position + 1} seq", self.seq, seq)
        if not _same_scalar(line["actor"], actor):
            _expect_equal(number, f"entry {position + 1} actor", line["actor"], actor)
        if not isinstance(data, dict):
            raise _Diverged(number, f"entry {position + 1} event", event, data)
        kind = str(data.get("type"))
        if type(entry["type"]) is not str or kind != entry["type"]:
            _expect_equal(number, f"entry {position + 1} type", kind, entry["type"])
        if check_event:
            _expect_equal(number, f"entry {position + 1} (seq {self.seq}) event", event, event_json(entry))
        full = {"seq": seq, "type": entry["type"], "data": data, "actor": actor,
                "time": entry["time"], "command": line["command"] if position == 0 else None, "meta": entry["meta"]}
        self.chain = entry_hash(self.chain, full)  # ENTRY_KEYS, spelt out (checked at import)
        self.entries += 1

    def footer(self, number: int, line: dict[str, Any], batches: int) -> dict[str, Any] | None:
        _expect_keys(number, line, "footer", footer_keys(self.format))
        status = table.status(self.rules, self.state, self.table)
        if status not in ("finished", "aborted"):
            raise _Diverged(number, "the game is not over after the last batch", "finished or aborted", status)
        result = table.result(self.rules, self.state, self.table)  # None for an aborted game
        _expect_equal(number, "result", result, line["result"])
        _expect_equal(number, "batch count", batches, line["batches"])
        _expect_equal(number, "entry count", self.entries, line["entries"])
        _expect_equal(number, "version", self.seq, line["version"])
        final_state_hash = state_hash(self.rules, self.state)  # the plain definition, no memo
        _expect_equal(number, "final state hash", final_state_hash, line["final_state_hash"])
        if self.format == FORMAT_1:  # format 2 hashes the last batch only when it is a checkpoint
            _expect_equal(number, "final state hash (the last batch's state hash)", final_state_hash,
                          self.last_state_hash)
        _expect_equal(number, "final chain hash", self.chain, line["final_hash"])
        if self.unchecked and self.recorded is not None:
            version = self.unchecked[0]
            raise _Diverged(number, f"view-chain head of seat {self.recorded.seat} at version {version} "
                            "(the one the seat recorded)", f"a version of the game (it ends at {self.seq})",
                            self.recorded.heads[version])
        return result


def _seed(header: dict[str, Any]) -> bytes:
    seed, commitment = header["seed"], header["seed_commitment"]
    try:
        raw = bytes.fromhex(seed) if isinstance(seed, str) else b""
    except ValueError:
        raise _Diverged(1, "seed is not hex", "hex digits", seed) from None
    _expect_equal(1, "seed commitment: sha256(seed)", hashlib.sha256(raw).hexdigest(), commitment)
    _contributions(header)
    return raw


def _contributions(header: dict[str, Any]) -> None:
    """Format 3: ``contributions`` is null, or one lower-case hex string (1-64 bytes) or null per seat."""
    found = header.get("contributions")
    if found is None:
        return
    seats = header["seats"] if isinstance(header["seats"], list) else []
    if not isinstance(found, list) or len(found) != len(seats):
        raise _Diverged(1, "contributions (one per seat, in seat order)", f"a list of {len(seats)}", found)
    for seat, value in enumerate(found):
        if value is not None and not valid_contribution(value):
            raise _Diverged(1, f"contribution of seat {seat}", "null or lower-case hex of 1 to 64 bytes", value)


def _check_known(header: dict[str, Any], known: Mapping[int, str]) -> None:
    """A seat's own record of what it contributed (``--contribution SEAT:HEX``) against the bundle."""
    found = header.get("contributions")
    for seat, value in sorted(known.items()):
        have = found[seat] if isinstance(found, list) and 0 <= seat < len(found) else None
        _expect_equal(1, f"contribution of seat {seat} (the one the seat recorded)", value.lower(),
                      "no contribution" if have is None else have)


def _check_recorded(header: dict[str, Any], recorded: RecordedHeads | None) -> None:
    """Recorded heads need a bundle with view chains and a seat the game has."""
    if recorded is None:
        return
    if header["format"] not in VIEW_CHAIN_FORMATS:
        raise _Diverged(1, f"view-chain heads of seat {recorded.seat} (the ones the seat recorded)",
                        f"a bundle with view chains ({', '.join(VIEW_CHAIN_FORMATS)})", f"format {header['format']}")
    seats = len(header["seats"]) if isinstance(header["seats"], list) else 0
    if not 0 <= recorded.seat < seats:
        raise _Diverged(1, "seat of the recorded view-chain heads", f"a seat from 0 to {seats - 1}",
                        str(recorded.seat))


def _rules(header: dict[str, Any], rules_for: Callable[[str], GameRules]) -> GameRules:
    """The game's rules as the engine named in the header played them (older rule sets stay
    reachable: see ``domain.games.for_engine``)."""
    try:
        rules = rules_for(str(header["game"]))
    except Rejected as exc:
        raise _Diverged(1, "unknown game", "a game this engine knows", exc.message) from None
    return for_engine(rules, str(header["engine_version"]))


class Interrupted(Exception):
    """Raised by a caller's ``pace`` or chunk source to stop a verification (a budget ran out, the
    body is too large, the client is too slow); ``verify_stream`` raises it on, with no report."""


Pace = Callable[[int], None]  # called with the number of each batch line once it is checked


def _unpaced(number: int) -> None:
    return None


def _header(lines: BundleLines) -> dict[str, Any]:
    """Line 1: a canonical JSON object with the header's fields and a known format."""
    header = _parse(1, lines.next_line() or "")
    fmt = header.get("format")
    _expect_keys(1, header, "header", header_keys(fmt) if isinstance(fmt, str) and fmt in FORMATS else HEADER_KEYS)
    if header["format"] not in FORMATS:
        _expect_equal(1, "format", " or ".join(FORMATS), str(header["format"]))
    return header


def _footer_line(count: int, last: str | None, header: dict[str, Any]) -> dict[str, Any]:
    """The last of ``count`` lines as the footer that belongs to ``header``."""
    footer = _parse(count, last) if count > 1 and last is not None else {}
    if footer.get("kind") != "footer":
        raise _Diverged(count + 1, "missing footer (truncated bundle?)", "a footer line", "end of file")
    _expect_equal(1, "header (footer.header_hash)", footer.get("header_hash"), json_hash(header))
    return footer


@dataclass(frozen=True)
class RecordedHeads:
    """The view-chain heads one seat recorded during play (version -> head, as the service sent them)."""

    seat: int
    heads: Mapping[int, str]


@dataclass(frozen=True)
class Signing:
    """What to check against knowledge from outside the bundle: its signature against ``keys``
    (None: report it unchecked; ``unsigned_ok``: a bundle without one, formats 1 and 2 or
    unsigned, still verifies with a warning instead of being refused, as the verify endpoint
    does), and ``contributions`` a seat recorded when it contributed entropy (seat -> hex)."""

    keys: KeySet | None = None
    unsigned_ok: bool = False
    contributions: Mapping[int, str] = field(default_factory=dict)  # seat -> the hex it knows it contributed
    heads: RecordedHeads | None = None  # view-chain heads a seat recorded: the bundle's chain must have them


SIGNATURE_KEYS = ["alg", "key_id", "signed_at", "value"]


def _signature(number: int, header: dict[str, Any], footer: dict[str, Any], digest: Any, signing: Signing,
               errors: str) -> tuple[str | None, tuple[str, ...]]:
    """Check the footer's signature (``digest`` holds every line before the footer): the key that
    signed, when it was checked, and any warnings."""
    fmt = header["format"]
    signature = footer.get("signature") if fmt in SIGNED_FORMATS else None
    if signature is None:
        if signing.keys is not None and not signing.unsigned_ok:
            found = "no signature" if fmt in SIGNED_FORMATS else f"no signature ({fmt} bundles carry none)"
            raise _Diverged(number, "signature", "a bundle signed by a key of the key set", found)
        return None, (("the bundle is not signed",) if fmt in SIGNED_FORMATS or signing.keys is not None else ())
    if not isinstance(signature, dict) or sorted(signature) != SIGNATURE_KEYS:
        raise _Diverged(number, "signature fields", SIGNATURE_KEYS, sorted(signature) if isinstance(signature, dict)
                        else signature)
    unsigned = {**footer, "signature": {k: v for k, v in signature.items() if k != "value"}}
    digest.update((canonical_json(unsigned) + "\n").encode("utf-8", errors))
    if signing.keys is None:
        return None, (f"signature by key {signature['key_id']} not checked: no key set given",)
    try:
        key = check(signing.keys, signature, signed_message(digest.digest()))
    except SignatureProblem as exc:
        raise _Diverged(number, "signature", "a signature by a key of the key set, valid when it signed",
                        str(exc)) from None
    return key.key_id, ()


def _replay(lines: BundleLines, header: dict[str, Any], rules_for: Callable[[str], GameRules],
            progress: dict[str, Any], pace: Pace, signing: Signing, digest: Any) -> Report:
    seed = play_seed(header, _seed(header))
    _check_known(header, signing.contributions)
    rules = _rules(header, rules_for)
    _check_recorded(header, signing.heads)
    replayer = _Replayer(header, rules, seed, signing.heads)
    batches, pending = 0, lines.next_line()
    raw = lines.raw
    while pending is not None:
        following = lines.next_line()  # one line ahead: the last line is the footer
        if following is None:
            break
        number = batches + 2
        progress["line"] = number
        replayer.line(number, batches, pending)
        digest.update(raw)  # the line's bytes as read: its text encoded again, with its newline
        pace(number)
        batches, pending, raw = batches + 1, following, lines.raw
    count = progress["lines"] = lines.count
    footer = _footer_line(count, pending, header)
    if batches == 0:
        raise _Diverged(2, "no batches", "the setup batch", "the footer")
    progress["line"] = count
    result = replayer.footer(count, footer, batches)
    signed_by, warnings = _signature(count, header, footer, digest, signing, lines.errors)
    if header["engine_version"] != rules.engine_version:
        warnings += (f"bundle written by engine {header['engine_version']}, verified with {rules.engine_version}",)
    return Report(True, header["game"], header["game_id"], count, batches, replayer.entries,
                  replayer.chain, result, None, warnings, signed_by)


def _check(lines: BundleLines, rules_for: Callable[[str], GameRules], progress: dict[str, Any], pace: Pace,
           signing: Signing) -> Report:
    header = _header(lines)
    digest = hashlib.sha256(((lines.last or "") + "\n").encode("utf-8", lines.errors))  # the exact bytes, for the signature
    progress.update(game=header.get("game"), game_id=header.get("game_id"))
    try:
        return _replay(lines, header, rules_for, progress, pace, signing, digest)
    except (Unreadable, Interrupted):
        raise
    except Exception:  # the whole file's faults outrank this one: read the rest to find them
        count, last = lines.rest()
        progress["lines"] = count
        _footer_line(count, last, header)
        raise


def verify_stream(chunks: Iterable[bytes], rules_for: Callable[[str], GameRules] = get_game,
                  pace: Pace = _unpaced, max_line: int = MAX_LINE, errors: str = "strict",
                  signing: Signing | None = None) -> Report:
    """Verify a bundle read from ``chunks`` (bytes, any sizes), as far as needed and no further.

    Never raises for bad input, the report says what is wrong; raises :class:`Interrupted` when
    ``pace`` or ``chunks`` does. ``signing``: the key set to check the signature against
    (default: none, the signature is reported unchecked).
    """
    lines = BundleLines(chunks, max_line, errors)
    progress: dict[str, Any] = {}
    try:
        return _check(lines, rules_for, progress, pace, signing or Signing())
    except Interrupted:
        raise
    except Unreadable as exc:
        return Report(False, divergence=Divergence(exc.line, exc.what, exc.expected, exc.found))
    except _Diverged as exc:
        divergence = exc.divergence
    except Exception as exc:  # a forged line can drive the engine into states it never produces
        divergence = Divergence(progress.get("line", 1), "the engine failed while replaying this line",
                                "a line the engine can replay", repr(exc)[:SNIPPET])
    return Report(False, progress.get("game"), progress.get("game_id"), progress.get("lines", 0),
                  divergence=divergence)


def verify_bundle(data: bytes | str, rules_for: Callable[[str], GameRules] = get_game,
                  signing: Signing | None = None) -> Report:
    """Verify a bundle's text or bytes; never raises for bad input, the report says what is wrong."""
    if isinstance(data, str):  # already text: passed through as it is, never refused as UTF-8
        return verify_stream((data.encode("utf-8", "surrogatepass"),), rules_for, errors="surrogatepass",
                             signing=signing)
    return verify_stream((data,), rules_for, signing=signing)
