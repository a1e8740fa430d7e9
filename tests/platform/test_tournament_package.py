"""Issue 26's first finding about audit packages, for the package this branch's verifier reads:
every manifest field is checked (a forger who re-zips with the project's own writer is caught),
and a broken hash chain is reported at its own line, not at the first line whose seq is a prefix
of it."""
from __future__ import annotations

import hashlib
import io
import json
import pathlib
import zipfile
from collections.abc import Callable
from typing import Any

import pytest

from domain.canonical import canonical_json
from replays.tournament import MANIFEST, STREAM, verify_package, zip_members

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "tournament-rules1-cathedral.zip"


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def repack(found: dict[str, bytes], manifest: dict[str, Any]) -> bytes:
    """What a forger writes: the members as given, the manifest's file list made to match them."""
    named = [n for n in found if n != MANIFEST]
    manifest["files"] = [{"path": n, "bytes": len(found[n]), "sha256": hashlib.sha256(found[n]).hexdigest()}
                         for n in named]
    return zip_members([(MANIFEST, (canonical_json(manifest) + "\n").encode()), *((n, found[n]) for n in named)])


@pytest.mark.parametrize("change, field", [
    (lambda m: m.update(name="a better name"), "name"),
    (lambda m: m.update(game="orleans"), "game"),
    (lambda m: m.update(edition="2023"), "edition"),
    (lambda m: m.update(sponsor="anyone"), "sponsor"),
    (lambda m: m.pop("name"), "name"),
])
def test_every_manifest_field_is_checked(change: Callable[[dict[str, Any]], Any], field: str) -> None:
    found = members(GOLDEN.read_bytes())
    manifest = json.loads(found[MANIFEST])
    change(manifest)
    report = verify_package(repack(found, manifest))
    assert not report.ok and report.where == MANIFEST and repr(field) in (report.problem or ""), report.describe()


def test_a_broken_hash_chain_is_named_at_its_own_line() -> None:
    found = members(GOLDEN.read_bytes())
    lines = found[STREAM].decode().split("\n")
    assert len(lines) > 13
    entry = json.loads(lines[11])  # line 12 (seq 12): "seq 1" is a prefix of its message
    entry["hash"] = "0" * 64
    lines[11] = canonical_json(entry)
    found[STREAM] = "\n".join(lines).encode()
    report = verify_package(repack(found, json.loads(found[MANIFEST])))
    assert not report.ok and report.where == f"{STREAM} line 12", report.describe()
    assert report.problem == "hash chain: hash mismatch at seq 12"


def test_the_untouched_package_still_verifies_after_a_repack() -> None:
    found = members(GOLDEN.read_bytes())
    assert repack(found, json.loads(found[MANIFEST])) == GOLDEN.read_bytes()
