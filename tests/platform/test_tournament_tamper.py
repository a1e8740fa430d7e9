"""Issue 26: an audit package with nothing outside the proof. Every kind of tampering -- a manifest
field changed, added or removed, a bundle byte, a stream event, the standings, the root, games
dropped, added, reordered or swapped -- fails verification, and the report names where.

Each case starts from the rules-1 Cathedral package in tests/golden and is written the way a forger
would: with the project's own zip writer, the manifest's file list re-hashed to match, and (the
``forger`` cases) the stream re-chained and the Merkle root recomputed as well. What the package
cannot prove alone -- whose tournament it is -- the anchors settle (last tests)."""
from __future__ import annotations

import hashlib
import io
import json
import pathlib
import zipfile
from collections.abc import Callable
from typing import Any

import pytest

from core.tournaments import merkle_root
from domain.canonical import GENESIS_HASH, canonical_json, entry_hash
from replays.tournament import MANIFEST, STANDINGS, STREAM, verify_package, zip_members

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "tournament-rules1-cathedral.zip"
Members = dict[str, bytes]


def members() -> Members:
    with zipfile.ZipFile(io.BytesIO(GOLDEN.read_bytes())) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def games(found: Members) -> list[str]:
    return [n for n in found if n.startswith("games/")]


def line(obj: Any) -> bytes:
    return (canonical_json(obj) + "\n").encode()


def manifest_of(found: Members) -> dict[str, Any]:
    return dict(json.loads(found[MANIFEST]))


def write(found: Members, manifest: dict[str, Any] | None = None, files: bool = True) -> bytes:
    """The forger's zip: members in the order given, the manifest's file list re-hashed (``files``)."""
    manifest = manifest_of(found) if manifest is None else manifest
    named = [n for n in found if n != MANIFEST]
    if files:
        manifest["files"] = [{"path": n, "bytes": len(found[n]), "sha256": hashlib.sha256(found[n]).hexdigest()}
                             for n in named]
    return zip_members([(MANIFEST, line(manifest)), *((n, found[n]) for n in named)])


def stream(found: Members) -> list[dict[str, Any]]:
    return [json.loads(x) for x in found[STREAM].decode().splitlines()]


def rechain(found: Members, entries: list[dict[str, Any]]) -> None:
    """The stream re-numbered and re-chained after a change, as a forger with the hash function does."""
    previous = GENESIS_HASH
    for seq, entry in enumerate(entries, start=1):
        entry.pop("hash", None)
        entry["seq"] = seq
        previous = entry_hash(previous, entry)
        entry["hash"] = previous
    found[STREAM] = b"".join(line(e) for e in entries)


def reroot(found: Members, in_stream: bool = True) -> dict[str, Any]:
    """Manifest bundles, root and final hash made to match the members; TournamentFinished's root
    too (``in_stream``), re-chained."""
    entries = stream(found)
    shas = [hashlib.sha256(found[n]).hexdigest() for n in games(found)]
    if in_stream:
        entries[-1]["data"]["merkle_root"] = merkle_root(shas)
        rechain(found, entries)
    manifest = manifest_of(found)
    manifest["bundles"] = [{**b, "sha256": hashlib.sha256(found[b["path"]]).hexdigest()}
                           for b in manifest["bundles"] if b["path"] in found]
    manifest["merkle_root"] = merkle_root(shas)
    manifest["stream_final_hash"] = stream(found)[-1]["hash"]
    return manifest


def at(entries: list[dict[str, Any]], kind: str, nth: int = 0) -> int:
    """0-based index of the nth entry of ``kind`` (its stream line is this + 1)."""
    return [i for i, e in enumerate(entries) if e["data"]["type"] == kind][nth]


def flip(data: bytes, needle: bytes, replacement: bytes) -> bytes:
    assert needle in data
    return data.replace(needle, replacement, 1)


# --- the tamperings: each returns the package's bytes and where the verifier must point -----------


def manifest_field(key: str, value: Any) -> Callable[[], tuple[bytes, str, str]]:
    def tamper() -> tuple[bytes, str, str]:
        found = members()
        manifest = manifest_of(found)
        manifest[key] = value
        return write(found, manifest, files=key != "files"), MANIFEST, "" if key in ("files", "format") else key
    return tamper


def manifest_without(key: str) -> Callable[[], tuple[bytes, str, str]]:
    def tamper() -> tuple[bytes, str, str]:
        found = members()
        manifest = manifest_of(found)
        del manifest[key]
        return write(found, manifest, files=key != "files"), MANIFEST, "" if key in ("files", "format") else key
    return tamper


def nested_field(list_key: str) -> tuple[bytes, str, str]:
    found = members()
    manifest = manifest_of(found)
    if list_key == "files":
        manifest = {**manifest, "files": [*manifest["files"]]}
        write(found, manifest)  # fills the file list, then one entry gains a field
        manifest["files"][0] = {**manifest["files"][0], "note": "x"}
        return write(found, manifest, files=False), MANIFEST, ""
    manifest[list_key] = [{**manifest[list_key][0], "note": "x"}, *manifest[list_key][1:]]
    return write(found, manifest), MANIFEST, list_key


def bundle_byte_raw() -> tuple[bytes, str, str]:
    found = members()
    name = games(found)[1]
    found[name] = flip(found[name], b'"seat":0', b'"seat":1')
    return write(found, manifest_of(found), files=False), name, "manifest"


def bundle_byte_rehashed() -> tuple[bytes, str, str]:
    found = members()
    name = games(found)[1]
    found[name] = flip(found[name], b'"seat":0', b'"seat":1')
    return write(found, manifest_of(found)), name, f"{STREAM} line 10"


def bundle_byte_forger() -> tuple[bytes, str, str]:
    """Bundle changed, the stream's GameFinished sha256 changed to match, re-chained, root recomputed."""
    found = members()
    name = games(found)[1]
    found[name] = flip(found[name], b'"rounds_played":', b'"rounds_played":1')
    entries = stream(found)
    entries[at(entries, "GameFinished", 1)]["data"]["bundle_sha256"] = hashlib.sha256(found[name]).hexdigest()
    rechain(found, entries)
    return write(found, reroot(found)), f"{name} line", ""


def bundle_of_another_game_kind() -> tuple[bytes, str, str]:
    """A bundle whose header claims another edition, hashes and root made to match throughout."""
    found = members()
    name = games(found)[0]
    found[name] = flip(found[name], b'"edition":"standard","engine_version"', b'"edition":"other","engine_version"')
    entries = stream(found)
    entries[at(entries, "GameFinished", 0)]["data"]["bundle_sha256"] = hashlib.sha256(found[name]).hexdigest()
    rechain(found, entries)
    return write(found, reroot(found)), f"{name} line 1", "edition"


def stream_event_raw() -> tuple[bytes, str, str]:
    found = members()
    entries = stream(found)
    i = at(entries, "RatingsUpdated", 1)
    entries[i]["data"]["ratings"]["2"][0] = 26.0
    found[STREAM] = b"".join(line(e) for e in entries)
    return write(found), f"{STREAM} line {i + 1}", "hash chain"


def stream_event_forger(kind: str, change: Callable[[dict[str, Any]], None], nth: int = 0,
                        where: str | None = None) -> Callable[[], tuple[bytes, str, str]]:
    def tamper() -> tuple[bytes, str, str]:
        found = members()
        entries = stream(found)
        i = at(entries, kind, nth)
        change(entries[i]["data"])
        rechain(found, entries)
        return write(found, reroot(found)), where or f"{STREAM} line {i + 1}", ""
    return tamper


def stream_line_dropped() -> tuple[bytes, str, str]:
    found = members()
    entries = stream(found)
    i = at(entries, "GameStarted", 1)
    del entries[i]
    rechain(found, entries)
    return write(found, reroot(found)), f"{STREAM} line {i + 2}", "not in play"


def standings_file() -> tuple[bytes, str, str]:
    found = members()
    table = json.loads(found[STANDINGS])
    table["standings"][0]["points"] += 1
    found[STANDINGS] = line(table)
    return write(found), STANDINGS, ""


def game_dropped(in_stream: bool) -> Callable[[], tuple[bytes, str, str]]:
    def tamper() -> tuple[bytes, str, str]:
        found = members()
        name = games(found)[-1]
        del found[name]
        if in_stream:  # the root recomputed in TournamentFinished: that root is the rules' no more
            return write(found, reroot(found)), f"{STREAM} line 20", "Merkle root"
        return write(found, reroot(found, in_stream=False)), name, "missing"
    return tamper


def game_added() -> tuple[bytes, str, str]:
    found = members()
    extra = games(found)[-1].replace("0003-", "0004-").replace("g0003", "g0004")
    found[extra] = found[games(found)[-1]]
    return write(found, reroot(found, in_stream=False)), extra, "no game"


def games_reordered() -> tuple[bytes, str, str]:
    found = members()
    first, second = games(found)[:2]
    order = [MANIFEST, STREAM, STANDINGS, second, first, *games(found)[2:]]
    found = {n: found[n] for n in order}
    return write(found), second, "out of order"


def games_swapped() -> tuple[bytes, str, str]:
    """Two bundles' contents exchanged under their names (each is a real game of the tournament)."""
    found = members()
    first, second = games(found)[:2]
    found[first], found[second] = found[second], found[first]
    return write(found, reroot(found, in_stream=False)), first, "sha256"


def container_byte() -> tuple[bytes, str, str]:
    data = bytearray(GOLDEN.read_bytes())
    data[10] ^= 0x01  # the first member's modification time: every member still reads
    return bytes(data), "package", "reproducible layout"


def stream_root_forger() -> tuple[bytes, str, str]:
    """TournamentFinished's root changed, the stream re-chained, the manifest made to agree."""
    found = members()
    entries = stream(found)
    entries[-1]["data"]["merkle_root"] = "0" * 64
    rechain(found, entries)
    manifest = manifest_of(found)
    manifest.update(merkle_root="0" * 64, stream_final_hash=stream(found)[-1]["hash"])
    return write(found, manifest), f"{STREAM} line 20", "Merkle root"


def _set_rating(d: dict[str, Any]) -> None:
    d["ratings"]["2"][0] = 26.0


def _swap_seats(d: dict[str, Any]) -> None:
    d["games"][0]["seats"] = [1, 0]


def _rank(d: dict[str, Any]) -> None:
    d["ranking"][0]["rank"] = 2


def _standings(d: dict[str, Any]) -> None:
    d["standings"][0]["points"] += 1


def _seed(d: dict[str, Any]) -> None:
    d["seed"] = "11" * 32


def entrant_renamed() -> tuple[bytes, str, str]:
    """An entrant renamed in its registration and in both standings (the stream's and the file), all
    re-chained and re-hashed, while the bundles keep the name the bot played under."""
    found = members()
    entries = stream(found)
    i = at(entries, "EntrantRegistered", 2)
    registered = entries[i]
    old, new = registered["data"]["name"], "a forged name"
    registered["data"]["name"] = new
    for row in entries[-1]["data"]["standings"]:
        row["name"] = new if row["name"] == old else row["name"]
    rechain(found, entries)
    table = json.loads(found[STANDINGS])
    table["standings"] = entries[-1]["data"]["standings"]
    found[STANDINGS] = line(table)
    first = next(n for n in games(found) if f'"name":"{old}"'.encode() in found[n].split(b"\n", 1)[0])
    return write(found, reroot(found)), f"{first} line 1", f"entrant 2 as 'a forged name' ({STREAM} line {i + 1})"


CASES: dict[str, Callable[[], tuple[bytes, str, str]]] = {
    **{f"manifest {k} changed": manifest_field(k, v) for k, v in {
        "format": "hourglass-tournament/2", "tournament": "tforged", "name": "a better name", "game": "orleans",
        "edition": "2023", "merkle_root": "0" * 64, "stream_final_hash": "0" * 64,
        "bundles": [], "files": []}.items()},
    "manifest field added": manifest_field("sponsor", "anyone"),
    **{f"manifest {k} removed": manifest_without(k) for k in (
        "format", "tournament", "name", "game", "edition", "files", "bundles", "merkle_root", "stream_final_hash")},
    "manifest bundle entry field added": lambda: nested_field("bundles"),
    "manifest file entry field added": lambda: nested_field("files"),
    "bundle byte, not re-hashed": bundle_byte_raw,
    "bundle byte, manifest re-hashed": bundle_byte_rehashed,
    "bundle byte, stream re-chained and root recomputed": bundle_byte_forger,
    "bundle of another edition, re-hashed throughout": bundle_of_another_game_kind,
    "stream event, not re-chained": stream_event_raw,
    "rating update, re-chained": stream_event_forger("RatingsUpdated", _set_rating, 1),
    "pairing, re-chained": stream_event_forger("RoundPaired", _swap_seats, 0),
    "game result, re-chained": stream_event_forger(
        "GameFinished", _rank, 0),
    "standings in the stream, re-chained": stream_event_forger("TournamentFinished", _standings),
    "root in the stream, re-chained": stream_root_forger,
    "revealed seed, re-chained": stream_event_forger("TournamentFinished", _seed),
    "stream line dropped, re-chained": stream_line_dropped,
    "standings file": standings_file,
    "entrant renamed in the stream and the standings, re-chained": entrant_renamed,
    "game dropped": game_dropped(False),
    "game dropped, root recomputed in the stream": game_dropped(True),
    "game added": game_added,
    "games reordered": games_reordered,
    "games swapped": games_swapped,
    "zip container byte": container_byte,
}


def test_the_untouched_package_verifies_and_rewrites_to_itself() -> None:
    assert verify_package(GOLDEN.read_bytes()).ok
    assert write(members()) == GOLDEN.read_bytes()


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_tampering_fails_at_its_location(case: str) -> None:
    data, where, says = CASES[case]()
    report = verify_package(data)
    assert not report.ok, case
    assert (report.where or "").startswith(where), report.describe()
    assert says in (report.problem or "") or says in (report.where or ""), report.describe()


def renamed() -> bytes:
    """A whole re-hashed rewrite the package cannot refute alone: the tournament renamed in its stream."""
    found = members()
    entries = stream(found)
    entries[0]["data"]["settings"]["name"] = "a forged name"
    rechain(found, entries)
    manifest = reroot(found)
    manifest["name"] = "a forged name"
    return write(found, manifest)


def test_a_consistent_rewrite_is_caught_only_by_an_anchor() -> None:
    original = manifest_of(members())
    forged = renamed()
    assert verify_package(forged).ok  # consistent in itself: what docs/tournaments.md says it cannot prove
    report = verify_package(forged, anchors={"stream_final_hash": original["stream_final_hash"]})
    assert not report.ok and report.where == MANIFEST and "stream_final_hash" in (report.problem or "")
    assert verify_package(GOLDEN.read_bytes(), anchors={"stream_final_hash": original["stream_final_hash"],
                                                        "merkle_root": original["merkle_root"]}).ok


def test_the_seed_commitment_anchor_pins_the_seed() -> None:
    entries = stream(members())
    commitment = entries[0]["data"]["settings"]["seed_commitment"]
    assert verify_package(GOLDEN.read_bytes(), anchors={"seed_commitment": commitment.upper()}).ok
    report = verify_package(GOLDEN.read_bytes(), anchors={"seed_commitment": "ab" * 32})
    assert not report.ok and report.where == f"{STREAM} line 1"
    with pytest.raises(ValueError):
        verify_package(GOLDEN.read_bytes(), anchors={"sponsor": "x"})
