"""The tournament audit package: build it, and verify it offline.

A package (``hourglass-tournament/2``; ``/1`` before packages were signed) is an uncompressed zip
written byte-for-byte reproducibly (fixed member order, dates and modes), holding:

- ``manifest.json``: format, tournament id, game, every other member's path, size and sha256,
  the bundles in game order and the Merkle root over the bundles' sha256 (``core.tournaments``);
  format 2 adds the service's ``signature`` over the manifest (:func:`sign_manifest`), which pins
  every member through its sha256;
- ``tournament.jsonl``: the tournament's stream, one stored entry per line with its chain hash;
- ``standings.json``: the final standings;
- ``games/<index>-<game id>.jsonl``: the ``hourglass-replay/4`` (before: ``/3``, ``/2``) bundle of every game that ended
  (finished, or called off: aborted, its result null); skipped games have none.

:func:`verify_package` checks, cheapest first, so a tampered byte is named quickly: the zip and the
manifest (every member's hash and size, no member missing or extra, the container bytes equal to a
fresh build of the same members); given the service's key set, the manifest's signature; the
stream's canonical lines and hash chain; the stream as a tournament (seed commitment, every pairing
and rating update re-derived with the same rules and rating model, every game started, ended, called
off or skipped only where the fold allows it, a cancellation or an owner's withdrawal only while the
tournament runs, a withdrawal for absence exactly after the game that shows the forfeit, the Merkle
root and the standings); then every game bundle, re-run by ``replays.verify`` with the game seed
derived from the revealed tournament seed, its seats (entrants and their names), result, departures
and (tournament rules 2) each seat's record (``replays.seatstats``) compared with the stream's.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from core.ratings import RatingModel
from core.scoring import ratings_due, standings
from core.seats import Player, policy_of
from core.signing import KeySet, SignatureProblem, Signer, check
from core.store import StoredEntry
from core.tournaments import (
    NotAllowedNow,
    Settings,
    Tournament,
    TournamentGame,
    absences_due,
    cancellation,
    evolve,
    finish_due,
    game_seed,
    may_start,
    merkle_root,
    next_round,
    withdrawal,
)
from domain.canonical import GENESIS_HASH, canonical_json, entry_hash
from replays.seatstats import seat_stats
from replays.verify import Signing, verify_bundle

if TYPE_CHECKING:  # only package_from_store needs a server; the verifier runs offline without redis
    import redis

FORMAT_1 = "hourglass-tournament/1"
FORMAT = "hourglass-tournament/2"  # the manifest carries the service's signature
FORMATS = (FORMAT_1, FORMAT)
SIGNATURE_CONTEXT = b"hourglass-tournament signature\n"
MANIFEST = "manifest.json"
STREAM = "tournament.jsonl"
STANDINGS = "standings.json"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
RATING_TOLERANCE = 1e-9  # openskill is float arithmetic: equal to the last few ulps across platforms


def bundle_path(index: int, game_id: str) -> str:
    return f"games/{index:04d}-{game_id}.jsonl"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _line(obj: Any) -> bytes:
    return (canonical_json(obj) + "\n").encode("utf-8")


def zip_members(members: Sequence[tuple[str, bytes]]) -> bytes:
    """The reproducible container: the same members always give the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for path, data in members:
            info = zipfile.ZipInfo(path, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return out.getvalue()


def signed_message(unsigned_manifest: Mapping[str, Any]) -> bytes:
    """What a package's signature signs: a fixed context and the sha256 of the manifest's line with
    ``signature.value`` left out (the manifest pins every other member by its sha256)."""
    return SIGNATURE_CONTEXT + hashlib.sha256(_line(unsigned_manifest)).digest()


def sign_manifest(manifest: dict[str, Any], signer: Signer, signed_at: str) -> None:
    manifest["signature"] = signer.stamp(signed_at)
    manifest["signature"] = {**manifest["signature"], "value": signer.sign(signed_message(manifest))}


def build_package(entries: Sequence[StoredEntry], bundles: Mapping[int, str], signer: Signer | None = None,
                  signed_at: str | None = None, fmt: str = FORMAT) -> bytes:
    """The package of a finished tournament from its stream entries and each game's bundle text;
    signed by ``signer`` at ``signed_at`` when one is given (format 2), else its signature is null."""
    state = _fold([e.data for e in entries])
    if not state.finished or state.final_standings is None:
        raise ValueError(f"tournament {state.settings.tournament_id} is not finished")
    stream = b"".join(_line({**e.entry, "hash": e.hash}) for e in entries)
    members: list[tuple[str, bytes]] = [(STREAM, stream),
                                        (STANDINGS, _line({"standings": list(state.final_standings)}))]
    for game in state.bundled():
        assert game.game_id is not None
        members.append((bundle_path(game.index, game.game_id), bundles[game.index].encode("utf-8")))
    manifest = _manifest(state, entries[-1].hash, members, fmt)
    if signer is not None:
        if fmt == FORMAT_1 or signed_at is None:
            raise ValueError("a signed package is format 2 and needs the time of signing")
        sign_manifest(manifest, signer, signed_at)
    return zip_members([(MANIFEST, _line(manifest)), *members])


def _manifest(state: Tournament, final_hash: str, members: Sequence[tuple[str, bytes]],
              fmt: str = FORMAT) -> dict[str, Any]:
    """The manifest of a package of ``state`` with these members (all but the manifest), in order."""
    data_of = dict(members)
    listed = [{"index": g.index, "game_id": g.game_id, "path": bundle_path(g.index, g.game_id or ""),
               "sha256": _sha(data_of.get(bundle_path(g.index, g.game_id or ""), b""))} for g in state.bundled()]
    s = state.settings
    signature = {"signature": None} if fmt == FORMAT else {}  # filled in by sign_manifest
    return {"format": fmt, "tournament": s.tournament_id, "name": s.name, "game": s.game, "edition": s.edition,
            "files": [{"path": p, "bytes": len(d), "sha256": _sha(d)} for p, d in members],
            "bundles": listed, "merkle_root": merkle_root([str(b["sha256"]) for b in listed]),
            "stream_final_hash": final_hash, **signature}


def _fold(events: Iterable[Mapping[str, Any]]) -> Tournament:
    state: Tournament | None = None
    for event in events:
        state = evolve(state, event)
    assert state is not None
    return state


# --- verification ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PackageReport:
    ok: bool
    tournament: str | None = None
    games: int = 0
    merkle_root: str | None = None
    where: str | None = None  # the first member (and line) or game that does not verify
    problem: str | None = None
    warnings: tuple[str, ...] = field(default=())
    signed_by: str | None = None  # the key whose signature was checked against the key set given

    def describe(self) -> str:
        if self.ok:
            signed = f", signed by key {self.signed_by}" if self.signed_by else ""
            return f"verified: tournament {self.tournament}, {self.games} games, Merkle root {self.merkle_root}{signed}"
        return f"{self.where}: {self.problem}"


class _Failed(Exception):
    def __init__(self, where: str, problem: str) -> None:
        super().__init__(problem)
        self.where, self.problem = where, problem


Progress = Callable[[int, int], None]


ANCHORS = ("seed_commitment", "merkle_root", "stream_final_hash")


def verify_package(data: bytes, progress: Progress | None = None, model: RatingModel | None = None,
                   anchors: Mapping[str, str] | None = None, keys: KeySet | None = None) -> PackageReport:
    """Verify a package's bytes; never raises for bad input. ``progress(done, total)`` after each game.

    ``anchors``: hashes known from outside the package (any of :data:`ANCHORS`, hex), which it
    must carry: without one (or ``keys``) a package proves that it is consistent, not whose it is.
    ``keys``: the service's key set; the manifest must be signed by one of its keys, valid when
    it signed, and so must every signed game bundle in it."""
    context: dict[str, Any] = {}
    unknown = set(anchors or {}) - set(ANCHORS)
    if unknown:
        raise ValueError(f"unknown anchors {sorted(unknown)}; known: {', '.join(ANCHORS)}")
    try:
        return _verify(data, progress or (lambda done, total: None), model or RatingModel(), context,
                       dict(anchors or {}), keys)
    except _Failed as exc:
        return PackageReport(False, context.get("tournament"), where=exc.where, problem=exc.problem)
    except Exception as exc:  # a forged member can drive the fold into shapes it never writes
        return PackageReport(False, context.get("tournament"), where=context.get("at", "package"),
                             problem=f"cannot be read: {type(exc).__name__}: {str(exc)[:200]}")


def _verify(data: bytes, progress: Progress, model: RatingModel, context: dict[str, Any],
            anchors: Mapping[str, str], keys: KeySet | None) -> PackageReport:
    members, manifest = _container(data)
    context["tournament"] = manifest.get("tournament")
    signed_by, warnings = _check_signature(manifest, keys)
    entries = _stream(members[STREAM])
    state, replay_warnings = _replay_stream(entries, model, context, members)
    warnings += replay_warnings
    s = state.settings
    _check_layout(members, state, entries)
    fmt = manifest["format"]
    expected = _manifest(state, entries[-1].hash, [(n, members[n]) for n in list(members)[1:]], fmt)
    _check_manifest(manifest, {**expected, **({"signature": manifest.get("signature")} if fmt == FORMAT else {})})
    expected_standings = _line({"standings": list(state.final_standings or ())})
    if members[STANDINGS] != expected_standings:
        raise _Failed(STANDINGS, "differs from the standings the stream's TournamentFinished event records")
    _check_anchors(anchors, state, entries[-1].hash)
    seed = bytes.fromhex(state.seed or "")
    registered_at = {e.data["entrant"]: number for number, e in enumerate(entries, start=1)
                     if e.data.get("type") == "EntrantRegistered"}
    bundled = state.bundled()
    for done, game in enumerate(bundled, start=1):
        assert game.game_id is not None
        path = bundle_path(game.index, game.game_id)
        context["at"] = path
        _check_game(path, members[path], game, seed, s, Signing(keys, unsigned_ok=True))
        _check_seating(path, members[path], game, state, registered_at)
        progress(done, len(bundled))
    return PackageReport(True, s.tournament_id, len(bundled), state.merkle_root, warnings=tuple(warnings),
                         signed_by=signed_by)


SIGNATURE_KEYS = ["alg", "key_id", "signed_at", "value"]


def _check_signature(manifest: Mapping[str, Any], keys: KeySet | None) -> tuple[str | None, list[str]]:
    """The manifest's signature: the key that made it (when ``keys`` were given to check it
    against) and any warnings."""
    signature = manifest.get("signature") if manifest["format"] == FORMAT else None
    if signature is None:
        if keys is not None:
            raise _Failed(MANIFEST, "not signed, but a key set was given: the package must be signed by one of its keys")
        return None, ["the package is not signed"] if manifest["format"] == FORMAT else []
    if not isinstance(signature, dict) or sorted(signature) != SIGNATURE_KEYS:
        raise _Failed(MANIFEST, f"its signature is not an object with the fields {', '.join(SIGNATURE_KEYS)}")
    if keys is None:
        return None, [f"signature by key {signature['key_id']} not checked: no key set given"]
    unsigned = {**manifest, "signature": {k: v for k, v in signature.items() if k != "value"}}
    try:
        return check(keys, signature, signed_message(unsigned)).key_id, []
    except SignatureProblem as exc:
        raise _Failed(MANIFEST, f"signature: {exc}") from None


def _ended_at(entries: Sequence[StoredEntry]) -> dict[int, int]:
    """The stream line of each game's GameFinished or GameCalledOff, by game index."""
    return {e.data["index"]: number for number, e in enumerate(entries, start=1)
            if e.data.get("type") in ("GameFinished", "GameCalledOff")}


def _check_layout(members: Mapping[str, bytes], state: Tournament, entries: Sequence[StoredEntry]) -> None:
    """The members after the manifest are the stream, the standings and one bundle per game that
    ended, in game order, each the bundle whose sha256 the stream records: no game dropped, added,
    reordered or swapped."""
    names = list(members)[1:]
    lines = _ended_at(entries)
    expected = [STREAM, STANDINGS, *(bundle_path(g.index, g.game_id or "") for g in state.bundled())]
    for path in expected:
        if path not in names:
            index = int(path[len("games/"):].split("-", 1)[0])
            raise _Failed(path, f"missing: the stream records game {index} ending ({STREAM} line {lines[index]})")
    for path in names:
        if path not in expected:
            raise _Failed(path, "a member no game of the stream has (a package holds the stream, the standings "
                                "and the bundle of every game that ended)")
    if list(names) != expected:
        at = next(i for i, (a, b) in enumerate(zip(names, expected)) if a != b)
        raise _Failed(names[at], f"out of order: member {at + 2} of the package is {expected[at]} "
                                 "(the stream, the standings, then the bundles in game order)")
    for game in state.bundled():
        path = bundle_path(game.index, game.game_id or "")
        if _sha(members[path]) != game.bundle_sha256:
            raise _Failed(path, f"its sha256 is not the one the stream records for game {game.index} "
                                f"({STREAM} line {lines[game.index]})")


def _check_anchors(anchors: Mapping[str, str], state: Tournament, final_hash: str) -> None:
    """What the package cannot prove by itself: that it is the tournament somebody saw. Each anchor
    (taken from the live service before the package was made) pins the package to it."""
    have = {"seed_commitment": (state.settings.seed_commitment, f"{STREAM} line 1"),
            "merkle_root": (state.merkle_root, MANIFEST), "stream_final_hash": (final_hash, MANIFEST)}
    for name, value in anchors.items():
        found, where = have[name]
        if value.lower() != found:
            raise _Failed(where, f"its {name} {found} is not the {value.lower()} you expected: "
                                 "a package of another tournament, or a forgery re-hashed throughout")


def _container(data: bytes) -> tuple[dict[str, bytes], dict[str, Any]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            members = {name: _member(archive, name) for name in names}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, ValueError, OSError) as exc:
        raise _Failed("package", f"not a readable zip archive ({exc})") from None
    if len(set(names)) != len(names) or not names or names[0] != MANIFEST:
        raise _Failed("package", f"the first member must be {MANIFEST}, each member once")
    raw = members[MANIFEST]
    try:
        manifest = json.loads(raw)
    except ValueError:
        raise _Failed(MANIFEST, "not JSON") from None
    if not isinstance(manifest, dict) or raw != _line(manifest):
        raise _Failed(MANIFEST, "not one canonical JSON object line")
    if manifest.get("format") not in FORMATS:
        raise _Failed(MANIFEST, f"format is {manifest.get('format')!r}, not one of {', '.join(FORMATS)}")
    listed = manifest.get("files")
    if not isinstance(listed, list) or [f.get("path") for f in listed] != names[1:]:
        raise _Failed(MANIFEST, "its file list is not the package's members, in order")
    for item in listed:
        body = members[item["path"]]
        if len(body) != item.get("bytes") or _sha(body) != item.get("sha256"):
            raise _Failed(item["path"], "its sha256 or size differs from the manifest")
    for required in (STREAM, STANDINGS):
        if required not in members:
            raise _Failed("package", f"{required} is missing")
    rebuilt = zip_members([(name, members[name]) for name in names])
    if rebuilt != data:
        at = next((i for i, (a, b) in enumerate(zip(rebuilt, data)) if a != b), min(len(rebuilt), len(data)))
        raise _Failed("package", f"the zip container differs from its reproducible layout at byte {at} "
                                 "(every member verifies; the archive's own bytes were changed)")
    return members, manifest


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return archive.read(name)
    except zipfile.BadZipFile as exc:
        raise _Failed(name, f"its bytes were changed ({exc})") from None


def _stream(raw: bytes) -> list[StoredEntry]:
    entries = []
    text = raw.decode("utf-8", errors="strict") if raw else ""
    lines = text.split("\n")
    if not text or lines[-1] != "":
        raise _Failed(STREAM, "empty, or the last line is not terminated")
    for number, line in enumerate(lines[:-1], start=1):
        try:
            obj = json.loads(line)
        except ValueError:
            raise _Failed(f"{STREAM} line {number}", "not JSON") from None
        if not isinstance(obj, dict) or canonical_json(obj) != line or "hash" not in obj:
            raise _Failed(f"{STREAM} line {number}", "not a canonical stored entry")
        digest = obj.pop("hash")
        entries.append(StoredEntry(obj.get("seq", -1), obj, digest))
    previous = GENESIS_HASH
    for number, entry in enumerate(entries, start=1):  # line n holds seq n
        if entry.seq != number:
            raise _Failed(f"{STREAM} line {number}", f"hash chain: seq {entry.seq} where {number} belongs")
        previous = entry_hash(previous, entry.entry)
        if previous != entry.hash:
            raise _Failed(f"{STREAM} line {number}", f"hash chain: hash mismatch at seq {number}")
    return entries


ENTRY_FIELDS = frozenset({"actor", "command", "data", "hash", "meta", "seq", "time", "type"})
EVENT_FIELDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {  # event -> (required, optional) fields
    "TournamentCreated": (frozenset({"settings"}), frozenset()),
    "EntrantRegistered": (frozenset({"entrant", "key", "name", "kind", "bot_id", "builtin", "mu", "sigma"}),
                          frozenset()),
    "RoundPaired": (frozenset({"round", "games"}), frozenset({"byes"})),
    "GameStarted": (frozenset({"index", "game_id", "seed_commitment"}), frozenset()),
    "GameFinished": (frozenset({"index", "game_id", "ranking", "bundle_sha256", "final_hash"}),
                     frozenset({"departed", "records", "outcome"})),
    "GameCalledOff": (frozenset({"index", "game_id", "bundle_sha256", "final_hash"}), frozenset()),
    "GameSkipped": (frozenset({"index", "withdrawn"}), frozenset()),
    "RatingsUpdated": (frozenset({"index", "ratings"}), frozenset()),
    "EntrantWithdrawn": (frozenset({"entrant", "by", "reason"}), frozenset({"game"})),
    "TournamentCancelled": (frozenset({"by"}), frozenset({"reason"})),
    "TournamentFinished": (frozenset({"seed", "merkle_root", "standings"}), frozenset()),
}


def _check_fields(where: str, entry: StoredEntry) -> None:
    """An entry and its event hold the fields the runner writes, no other: nothing in the stream
    escapes the checks below."""
    extra = set(entry.entry) - ENTRY_FIELDS
    if extra or not isinstance(entry.data, dict) or entry.entry.get("type") != entry.data.get("type"):
        raise _Failed(where, f"not a tournament entry (fields {sorted(extra)}, or its type is not its event's)")
    kind = str(entry.data.get("type"))
    if kind not in EVENT_FIELDS:
        raise _Failed(where, f"an event type {kind!r} that a tournament does not have")
    required, optional = EVENT_FIELDS[kind]
    fields = set(entry.data) - {"type"}
    if not required <= fields or fields - required - optional:
        raise _Failed(where, f"{kind} with fields {sorted(fields)}; it has {sorted(required)}"
                             + (f" and may have {sorted(optional)}" if optional else ""))
    if kind == "TournamentCreated":
        settings = entry.data["settings"]
        if not isinstance(settings, dict) or canonical_json(Settings.from_json(settings).to_json()) != \
                canonical_json(settings):
            raise _Failed(where, "its settings hold fields a tournament does not have")


def _replay_stream(entries: Sequence[StoredEntry], model: RatingModel, context: dict[str, Any],
                   members: Mapping[str, bytes] | None = None) -> tuple[Tournament, list[str]]:
    """Fold the stream, re-deriving every pairing, rating update, withdrawal for absence, skipped
    game, cancellation and the final event."""
    state: Tournament | None = None
    warnings: list[str] = []
    pending_ratings: list[dict[str, Any]] = []
    owed: list[dict[str, Any]] = []  # the absences the last GameFinished shows, due next
    for number, entry in enumerate(entries, start=1):
        where = f"{STREAM} line {number}"
        context["at"] = where
        _check_fields(where, entry)
        event = entry.data
        kind = event.get("type")
        if kind == "TournamentCreated":
            if state is not None:
                raise _Failed(where, "a second TournamentCreated")
            described = event["settings"]["rating_model"]
            if described.get("name") != model.describe()["name"]:
                raise _Failed(where, f"rated with {described.get('name')}, which this verifier does not have")
            if described != model.describe():
                warnings.append(f"rated with {described}, verified with {model.describe()}")
        elif state is None:
            raise _Failed(where, "the stream does not start with TournamentCreated")
        elif owed:
            _expect(where, "the withdrawal of an entrant that forfeited a game", owed.pop(0), event)
        elif kind == "RoundPaired":
            _expect(where, "pairing", next_round(state), event)
        elif kind == "RatingsUpdated":
            if not pending_ratings:
                pending_ratings = ratings_due(model, state)
            if not pending_ratings:
                raise _Failed(where, "a rating update before its game finished")
            _expect_ratings(where, pending_ratings.pop(0), event)
        elif kind == "TournamentFinished":
            _check_finish(where, state, event)
        else:
            _check_step(where, state, event)
            if kind == "GameFinished" and members is not None:
                _check_claim(where, state, event, members)
        state = evolve(state, event)
        if kind == "GameFinished":
            owed = absences_due(state, event["index"])
    if owed:
        raise _Failed(STREAM, "an entrant that forfeited a game was not withdrawn as absent")
    if state is None or not state.finished:
        raise _Failed(STREAM, "the tournament did not finish (no TournamentFinished)")
    return state, warnings


def _check_claim(where: str, state: Tournament, event: Mapping[str, Any], members: Mapping[str, bytes]) -> None:
    """A GameFinished says what its own bundle (the one its sha256 names) ends with: its ranking,
    departures and (rules 3) outcome. Checked here, so a changed result is named at its own line;
    the bundle itself is re-played later."""
    path = bundle_path(event["index"], str(event.get("game_id")))
    data = members.get(path)
    if data is None or _sha(data) != event.get("bundle_sha256"):
        return  # the member check names it
    try:
        footer = json.loads(data.rstrip(b"\n").rsplit(b"\n", 1)[-1])
        result = footer["result"]
        ranking = [{"seat": r["seat"], "rank": r["rank"], "score": r.get("score")} for r in result["ranking"]]
    except (ValueError, KeyError, TypeError):
        return  # an unreadable bundle: replays.verify names it
    if canonical_json(ranking) != canonical_json(event.get("ranking")):
        raise _Failed(where, f"its ranking is not the result its bundle {path} ends with")
    if state.settings.accountable and canonical_json(result.get("departed") or []) != \
            canonical_json(event.get("departed")):
        raise _Failed(where, f"its departures are not the ones its bundle {path} ends with")
    if event.get("outcome") != (result.get("outcome") if state.settings.teams else None):
        raise _Failed(where, f"its outcome is not the one its bundle {path} ends with")


def _game_at(where: str, state: Tournament, event: Mapping[str, Any]) -> TournamentGame:
    index = event.get("index")
    if not isinstance(index, int) or not 0 <= index < len(state.games):
        raise _Failed(where, f"no game {index!r} was paired")
    return state.games[index]


def _check_step(where: str, state: Tournament, event: Mapping[str, Any]) -> None:
    """A game starting, ending, called off or skipped, a withdrawal or a cancellation: allowed here?"""
    kind = event.get("type")
    try:
        if kind == "TournamentCancelled":
            _expect(where, "cancellation", cancellation(state, str(event.get("by")), event.get("reason")), event)
        elif kind == "EntrantWithdrawn":
            if event.get("reason") != "owner":
                raise _Failed(where, "a withdrawal for absence that no forfeited game shows")
            _expect(where, "withdrawal", withdrawal(state, event.get("entrant", -1), str(event.get("by")), "owner"),
                    event)
    except NotAllowedNow as exc:
        raise _Failed(where, f"{kind} is not allowed here: {exc}") from None
    if kind not in ("GameStarted", "GameFinished", "GameCalledOff", "GameSkipped"):
        return
    game = _game_at(where, state, event)
    if kind == "GameStarted":
        if not may_start(state, game) or event.get("game_id") != state.game_id(game.index):
            raise _Failed(where, f"game {game.index} may not start here (or not under this id)")
    elif kind == "GameSkipped":
        withdrawn = [n for n in game.seats if n in state.withdrawn]
        if game.started or game.done or state.cancelled is not None or event.get("withdrawn") != withdrawn or \
                not withdrawn:
            raise _Failed(where, f"game {game.index} is not one to skip: no entrant in it withdrew before it started")
    elif not game.started or game.done or event.get("game_id") != game.game_id:
        raise _Failed(where, f"game {game.index} is not in play, so it cannot end here")
    elif kind == "GameFinished" and state.settings.accountable and not {"departed", "records"} <= set(event):
        raise _Failed(where, "a game's departures and seat records are missing (tournament rules 2 record them)")


def _expect(where: str, what: str, expected: Any, found: Any) -> None:
    if canonical_json(expected) != canonical_json(found):
        raise _Failed(where, f"{what} differs from the one the rules derive: expected {canonical_json(expected)[:200]}")


def _expect_ratings(where: str, expected: dict[str, Any], found: Mapping[str, Any]) -> None:
    same = (expected["index"] == found.get("index") and set(expected["ratings"]) == set(found.get("ratings", {}))
            and all(isinstance(pair, list) and len(pair) == 2 for pair in found["ratings"].values())
            and all(math.isclose(a, b, rel_tol=0, abs_tol=RATING_TOLERANCE)
                    for k, pair in expected["ratings"].items() for a, b in zip(pair, found["ratings"][k])))
    if not same:
        raise _Failed(where, f"rating update differs from openskill's: expected {canonical_json(expected)[:200]}")


def _check_finish(where: str, state: Tournament, event: Mapping[str, Any]) -> None:
    seed = event.get("seed")
    try:
        commitment = _sha(bytes.fromhex(seed)) if isinstance(seed, str) else ""
    except ValueError:
        commitment = ""
    if commitment != state.settings.seed_commitment:
        raise _Failed(where, "sha256 of the revealed seed is not the seed commitment")
    if not finish_due(state):
        raise _Failed(where, "the tournament finished with games unplayed or unrated")
    _expect(where, "Merkle root", merkle_root([g.bundle_sha256 or "" for g in state.bundled()]),
            event.get("merkle_root"))
    _expect(where, "standings", standings(state), event.get("standings"))


def _check_manifest(found: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    """Every byte of the manifest is what the stream and the members make it: no field changed,
    added or removed (its name, game and edition included)."""
    for key in sorted(set(found) | set(expected)):
        if key not in expected:
            raise _Failed(MANIFEST, f"has a field {key!r} that a package does not have")
        if key not in found:
            raise _Failed(MANIFEST, f"lacks its {key!r} field")
        if canonical_json(found.get(key)) != canonical_json(expected[key]):
            raise _Failed(MANIFEST, f"its {key!r} differs from the tournament's: expected "
                                    f"{canonical_json(expected[key])[:120]}")


def _builtin(kind: object) -> bool:
    policy = policy_of(kind)
    return policy is not None and policy.played_by is Player.BUILTIN


def _check_seating(path: str, data: bytes, game: TournamentGame, state: Tournament,
                   registered_at: Mapping[int, int]) -> None:
    """The bundle's seats are the entrants the pairing put there, in that order, under the names the
    stream registered them with (a game seats a bot under its name, and a bot is never renamed), so
    standings that rename an entrant cannot stand beside bundles that keep the old name."""
    seats = json.loads(data.split(b"\n", 1)[0]).get("seats") or []
    expected = [state.entrants[n] for n in game.seats]
    same = len(seats) == len(expected) and all(
        (seat.get("bot_id") == e.bot_id) if e.bot_id else (seat.get("bot") == e.builtin and _builtin(seat.get("kind")))
        for seat, e in zip(seats, expected))
    if not same:
        raise _Failed(f"{path} line 1", "the game's seats are not the entrants its pairing names")
    for number, (seat, e) in enumerate(zip(seats, expected)):
        if seat.get("name") != e.name:
            raise _Failed(f"{path} line 1", f"seat {number} is named {seat.get('name')!r}, but the stream registers "
                                            f"entrant {e.number} as {e.name!r} ({STREAM} line "
                                            f"{registered_at.get(e.number, '?')})")


def _check_header(path: str, data: bytes, s: Settings) -> None:
    """The bundle is a game of the tournament's kind: its game, edition, engine and player count."""
    try:
        header = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return  # not JSON: replays.verify names it
    if not isinstance(header, dict):
        return
    for key, expected in (("game", s.game), ("edition", s.edition), ("engine_version", s.engine_version),
                          ("players", s.players_per_game)):
        if key == "edition" and expected is None:
            continue
        if header.get(key) != expected:
            raise _Failed(f"{path} line 1", f"its {key} {header.get(key)!r} is not the tournament's {expected!r}")


def _check_game(path: str, data: bytes, game: TournamentGame, tournament_seed: bytes, s: Settings,
                signing: Signing) -> None:
    _check_header(path, data, s)
    report = verify_bundle(data, signing=signing)
    if not report.ok:
        assert report.divergence is not None
        d = report.divergence
        raise _Failed(f"{path} line {d.line}", f"{d.what} (expected {d.expected[:120]}, found {d.found[:120]})")
    header = json.loads(data.split(b"\n", 1)[0])
    if header.get("game_id") != game.game_id:
        raise _Failed(f"{path} line 1", "the bundle is of another game")
    if report.final_hash != game.final_hash:
        raise _Failed(f"{path} line {report.lines}", "the game's final chain hash differs from the stream's")
    if header.get("seed") != game_seed(tournament_seed, s.tournament_id, game.index).hex():
        raise _Failed(f"{path} line 1", "the game's seed is not the one derived from the tournament's seed")
    if header.get("seed_commitment") != game.seed_commitment:
        raise _Failed(f"{path} line 1", "seed commitment differs from the stream's GameStarted")
    if game.void == "called_off":
        if report.result is not None:
            raise _Failed(path, "the stream calls the game off, but the game was played to a result")
        return
    if report.result is None:
        raise _Failed(path, "the game was aborted, but the stream records a result")
    ranking = [{"seat": r["seat"], "rank": r["rank"], "score": r.get("score")} for r in report.result["ranking"]]
    if canonical_json(ranking) != canonical_json(list(game.ranking or ())):
        raise _Failed(path, "the game's result differs from the stream's GameFinished ranking")
    if game.outcome != (report.result.get("outcome") if s.teams else None):  # rules 3: a team's result
        raise _Failed(path, "the game's outcome differs from the stream's GameFinished")
    if game.records is not None:  # tournament rules 2: departures and each seat's calls, from the bundle
        if canonical_json(report.result.get("departed") or []) != canonical_json(list(game.departed)):
            raise _Failed(path, "the game's departures differ from the stream's GameFinished")
        if canonical_json(seat_stats(data)) != canonical_json(list(game.records)):
            raise _Failed(path, "the seats' records (calls, outcomes, latencies, moves) differ from the "
                                "stream's GameFinished")


def package_from_store(conn: redis.Redis, tid: str) -> bytes:
    """The package of a finished tournament read from Redis (cached under ``hg:t:{<id>}:package``).

    Raises ``core.tournament_store.TournamentNotFound``, or ValueError while it is not finished.
    """
    from core.game import iso_time, utc_now
    from core.signing import service_keys
    from core.store import EventStore
    from core.tournament_store import TournamentStore

    key = f"hg:t:{{{tid}}}:package"
    cached = cast("bytes | None", conn.get(key))  # redis-py types a sync reply as Awaitable | Any
    if cached is not None:
        return bytes(cached)
    loaded = TournamentStore(conn).load(tid)
    if not loaded.tournament.finished:
        raise ValueError(f"tournament {tid} is still running; its package is made at the end")
    games = EventStore(conn)
    bundles = {}
    for game in loaded.tournament.bundled():
        text = games.stored_bundle(game.game_id or "")
        if text is None:
            raise ValueError(f"the bundle of game {game.game_id} is not stored yet")
        bundles[game.index] = text
    now = iso_time(utc_now())
    data = build_package(loaded.entries, bundles, signer=service_keys()[0], signed_at=now)
    conn.set(key, data)
    return data
