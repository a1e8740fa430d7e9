"""Signed tournament packages (format 2, issue 29): the manifest carries the service's signature,
which pins every member through its sha256. Given the key set, the verifier refuses a package
whose signature does not match, one signed by an unknown key or outside its key's validity, and
an unsigned one, naming manifest.json; the rules-1 golden package (format 1) keeps verifying
without keys. What the anchors settle by hand (tests/platform/test_tournament_tamper.py), a
signature settles once the key set is known."""
from __future__ import annotations

import io
import json
import zipfile
from functools import cache
from pathlib import Path

from core.signing import KeySet, Signer
from domain.canonical import canonical_json
from replays.tournament import FORMAT, MANIFEST, STREAM, _stream, build_package, verify_package, zip_members
from replays.tournament_cli import main as cli
from tests.platform.test_tournament_tamper import GOLDEN, renamed

SIGNED_AT = "2026-06-01T12:00:00.000Z"


@cache
def signer() -> Signer:
    return Signer.generate()


def keys() -> KeySet:
    return KeySet((signer().public(),))


def package(by: Signer | None = None, signed_at: str = SIGNED_AT, source: bytes | None = None) -> bytes:
    """The golden tournament rebuilt as a format-2 package, signed by ``by`` (default: our key)."""
    with zipfile.ZipFile(io.BytesIO(source or GOLDEN.read_bytes())) as archive:
        found = {name: archive.read(name) for name in archive.namelist()}
    games = [n for n in found if n.startswith("games/")]
    bundles = {int(n[len("games/"):].split("-", 1)[0]): found[n].decode() for n in games}
    return build_package(_stream(found[STREAM]), bundles, signer=by or signer(), signed_at=signed_at)


def manifest(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return json.loads(archive.read(MANIFEST))


def refused(data: bytes, trusted: KeySet | None, *words: str) -> None:
    report = verify_package(data, keys=trusted)
    assert not report.ok and report.where == MANIFEST, report.describe()
    for word in words:
        assert word in (report.problem or ""), report.describe()


def test_a_signed_package_verifies_against_the_keys() -> None:
    data = package()
    assert manifest(data)["format"] == FORMAT and manifest(data)["signature"]["key_id"] == signer().key_id
    report = verify_package(data, keys=keys())
    assert report.ok and report.signed_by == signer().key_id, report.describe()
    alone = verify_package(data)
    assert alone.ok and alone.signed_by is None and "not checked" in alone.warnings[0]


def test_a_changed_signature_is_refused() -> None:
    data = package()
    found = members_of(data)
    signed = json.loads(found[MANIFEST])
    value = signed["signature"]["value"]
    signed["signature"]["value"] = ("0" if value[0] != "0" else "1") + value[1:]
    found[MANIFEST] = (canonical_json(signed) + "\n").encode()
    refused(zip_members(list(found.items())), keys(), "does not match")


def test_a_consistent_rewrite_is_refused_by_the_signature() -> None:
    """The renamed tournament that only an anchor caught before: re-signed by a forger's key it
    verifies alone, against the service's keys it does not."""
    forgery = package(by=Signer.generate(), source=renamed())
    assert verify_package(forgery).ok
    refused(forgery, keys(), "not in the key set")


def test_a_key_outside_its_validity_is_refused() -> None:
    retired = KeySet((signer().public(not_after="2026-05-01T00:00:00.000Z"),))
    refused(package(), retired, "valid from the beginning until 2026-05-01T00:00:00.000Z")


def test_unsigned_packages_are_refused_when_keys_are_given_and_verify_without() -> None:
    assert verify_package(GOLDEN.read_bytes()).ok  # format 1, before packages were signed
    refused(GOLDEN.read_bytes(), keys(), "not signed")
    with zipfile.ZipFile(io.BytesIO(GOLDEN.read_bytes())) as archive:
        found = {name: archive.read(name) for name in archive.namelist()}
    games = [n for n in found if n.startswith("games/")]
    bundles = {int(n[len("games/"):].split("-", 1)[0]): found[n].decode() for n in games}
    unsigned = build_package(_stream(found[STREAM]), bundles)
    assert manifest(unsigned)["signature"] is None
    assert verify_package(unsigned).warnings[0] == "the package is not signed"
    refused(unsigned, keys(), "not signed")


def test_cli_verify_with_keys(tmp_path: Path) -> None:
    path, keyfile = tmp_path / "t.zip", tmp_path / "keys.json"
    path.write_bytes(package())
    keyfile.write_text(json.dumps(keys().to_json()), "utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert cli(["verify", str(path), "--quiet", "--keys", str(keyfile)], stdout=out, stderr=err) == 0
    assert f"signed by key {signer().key_id}" in out.getvalue()
    err = io.StringIO()
    assert cli(["verify", str(path), "--quiet", "--key", Signer.generate().raw_public.hex()], stdout=out, stderr=err) == 1
    assert err.getvalue().startswith(f"{MANIFEST}: signature")


def members_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}
