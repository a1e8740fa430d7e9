"""Signed bundles (format 3, issue 29): the verifier, given the service's key set, refuses a bundle
whose signature does not match, one signed by an unknown key and one signed outside its key's
validity, each reported at the footer line; older (unsigned) bundles keep verifying without keys."""
from __future__ import annotations

import io
import json
from functools import cache
from pathlib import Path

import pytest

from core.signing import KeyProblem, KeySet, Signer, load, rotate
from domain.canonical import canonical_json, json_hash
from replays.bundle import FORMAT, FORMAT_2, build_bundle
from replays.cli import main as cli
from replays.verify import Signing, verify_bundle
from tests.replays.replay_helpers import played

SIGNED_AT = "2026-06-01T12:00:00.000Z"


@cache
def signer() -> Signer:
    return Signer.generate()


@cache
def signed_text() -> str:
    game_id, meta, entries = played("classic", 2)
    return build_bundle(game_id, meta, entries, signer=signer(), signed_at=SIGNED_AT)


def keys() -> KeySet:
    return KeySet((signer().public(not_before="2026-01-01T00:00:00Z"),))


def objs(text: str) -> list[dict]:
    return [json.loads(line) for line in text.split("\n")[:-1]]


def dump(lines: list[dict]) -> str:
    return "".join(canonical_json(o) + "\n" for o in lines)


def refused(text: str, trusted: KeySet, *words: str) -> None:
    report = verify_bundle(text, signing=Signing(trusted))
    assert not report.ok and report.divergence is not None, report.describe()
    assert report.divergence.line == len(objs(text)) and report.divergence.what == "signature", report.describe()
    for word in words:
        assert word in report.divergence.found, report.describe()


def test_a_signed_bundle_verifies_against_the_key_set_and_names_its_key() -> None:
    footer = objs(signed_text())[-1]
    assert objs(signed_text())[0]["format"] == FORMAT
    assert footer["signature"]["key_id"] == signer().key_id and footer["signature"]["signed_at"] == SIGNED_AT
    report = verify_bundle(signed_text(), signing=Signing(keys()))
    assert report.ok and report.signed_by == signer().key_id and report.warnings == (), report.describe()
    assert f"signed by key {signer().key_id}" in report.describe()


def test_without_keys_the_signature_is_reported_unchecked() -> None:
    report = verify_bundle(signed_text())
    assert report.ok and report.signed_by is None
    assert report.warnings == (f"signature by key {signer().key_id} not checked: no key set given",)


def test_a_signature_that_does_not_match_is_refused() -> None:
    lines = objs(signed_text())
    value = lines[-1]["signature"]["value"]
    lines[-1]["signature"]["value"] = ("0" if value[0] != "0" else "1") + value[1:]
    refused(dump(lines), keys(), "does not match")


def test_a_consistent_forgery_verifies_alone_but_not_against_the_keys() -> None:
    """A forger renames a seat and re-hashes the footer: the game still replays, the signature
    (over the exact bytes) does not match any more."""
    lines = objs(signed_text())
    lines[0]["seats"][0]["name"] = "Mallory"
    lines[-1]["header_hash"] = json_hash(lines[0])
    forged = dump(lines)
    assert verify_bundle(forged).ok
    refused(forged, keys(), "does not match")


def test_a_bundle_signed_by_an_unknown_key_is_refused() -> None:
    game_id, meta, entries = played("classic", 2)
    other = Signer.generate()
    text = build_bundle(game_id, meta, entries, signer=other, signed_at=SIGNED_AT)
    assert verify_bundle(text, signing=Signing(KeySet((other.public(),)))).ok
    refused(text, keys(), other.key_id, "not in the key set")


def test_a_key_outside_its_validity_is_refused() -> None:
    retired = KeySet((signer().public(not_before="2026-01-01T00:00:00Z", not_after="2026-05-01T00:00:00Z"),))
    refused(signed_text(), retired, "valid from 2026-01-01T00:00:00Z until 2026-05-01T00:00:00Z")
    early = KeySet((signer().public(not_before="2026-07-01T00:00:00Z"),))
    refused(signed_text(), early, "until further notice")


def test_a_changed_signing_time_is_refused() -> None:
    """``signed_at`` is signed too: moving it inside another key's validity breaks the signature."""
    lines = objs(signed_text())
    lines[-1]["signature"]["signed_at"] = "2026-06-02T12:00:00.000Z"
    refused(dump(lines), keys(), "does not match")


def test_after_a_rotation_old_bundles_keep_verifying_and_the_old_key_may_not_sign_again() -> None:
    successor = Signer.generate()
    rotated = rotate(keys(), successor, "2026-09-01T00:00:00.000Z")
    assert [k.not_after for k in rotated.keys] == ["2026-09-01T00:00:00.000Z", None]
    assert verify_bundle(signed_text(), signing=Signing(rotated)).signed_by == signer().key_id
    game_id, meta, entries = played("classic", 2)
    late = build_bundle(game_id, meta, entries, signer=signer(), signed_at="2026-10-01T00:00:00.000Z")
    refused(late, rotated, "valid from")
    fresh = build_bundle(game_id, meta, entries, signer=successor, signed_at="2026-10-01T00:00:00.000Z")
    assert verify_bundle(fresh, signing=Signing(rotated)).signed_by == successor.key_id


def test_unsigned_and_older_bundles_are_refused_when_a_key_set_is_given() -> None:
    game_id, meta, entries = played("classic", 2)
    unsigned = build_bundle(game_id, meta, entries)
    assert objs(unsigned)[-1]["signature"] is None
    assert verify_bundle(unsigned).warnings == ("the bundle is not signed",)
    refused(unsigned, keys(), "no signature")
    older = build_bundle(game_id, meta, entries, fmt=FORMAT_2)
    assert verify_bundle(older).ok and verify_bundle(older).warnings == ()
    refused(older, keys(), "hourglass-replay/2 bundles carry none")
    lenient = verify_bundle(older, signing=Signing(keys(), unsigned_ok=True))  # the verify endpoint's choice
    assert lenient.ok and lenient.warnings == ("the bundle is not signed",)


def test_a_signature_cannot_be_stripped_by_relabelling_the_format() -> None:
    lines = objs(signed_text())
    lines[0]["format"] = FORMAT_2
    lines[-1]["header_hash"] = json_hash(lines[0])
    report = verify_bundle(dump(lines))
    assert not report.ok and report.divergence is not None and report.divergence.what == "header fields"
    del lines[0]["contributions"]  # format 3's other field
    lines[-1]["header_hash"] = json_hash(lines[0])
    report = verify_bundle(dump(lines))
    assert not report.ok and report.divergence is not None and report.divergence.what == "batch fields"
    for line in lines[1:-1]:
        del line["view_heads"]  # format 4's other field
    report = verify_bundle(dump(lines))
    assert not report.ok and report.divergence is not None and report.divergence.what == "footer fields"
    del lines[-1]["signature"]
    refused(dump(lines), keys(), "no signature")


def test_a_malformed_signature_object_is_named() -> None:
    lines = objs(signed_text())
    lines[-1]["signature"] = {"alg": "Ed25519", "key_id": signer().key_id}
    report = verify_bundle(dump(lines))
    assert not report.ok and report.divergence is not None and report.divergence.what == "signature fields"


# -- the CLI --------------------------------------------------------------------------------------


def test_cli_verify_with_keys_or_one_key(tmp_path: Path) -> None:
    bundle, keyfile = tmp_path / "game.jsonl", tmp_path / "keys.json"
    bundle.write_text(signed_text(), "utf-8")
    keyfile.write_text(json.dumps(keys().to_json()), "utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert cli(["verify", str(bundle), "--keys", str(keyfile)], stdout=out, stderr=err) == 0
    assert f"signed by key {signer().key_id}" in out.getvalue()
    assert cli(["verify", str(bundle), "--key", signer().raw_public.hex()], stdout=out, stderr=err) == 0
    err = io.StringIO()
    assert cli(["verify", str(bundle), "--key", Signer.generate().raw_public.hex()], stdout=out, stderr=err) == 1
    assert err.getvalue().startswith(f"line {len(objs(signed_text()))}: signature")
    err = io.StringIO()
    assert cli(["verify", str(bundle), "--key", "abcd"], stdout=out, stderr=err) == 2
    assert "32 raw bytes" in err.getvalue()


# -- keys from configuration ----------------------------------------------------------------------


def test_a_development_key_is_made_once_under_the_var_directory(tmp_path: Path) -> None:
    first_signer, first_set = load({}, tmp_path)
    pem = tmp_path / "signing" / "active.pem"
    assert pem.stat().st_mode & 0o777 == 0o600
    assert [k.key_id for k in first_set.keys] == [first_signer.key_id]
    assert first_set.keys[0].not_before is None and first_set.keys[0].not_after is None
    again = load({}, tmp_path)
    assert again[0].key_id == first_signer.key_id and again[1] == first_set


def test_a_configured_key_must_be_in_the_configured_set(tmp_path: Path) -> None:
    active, other = Signer.generate(), Signer.generate()
    (tmp_path / "active.pem").write_bytes(active.pem())
    (tmp_path / "keys.json").write_text(json.dumps(KeySet((other.public(),)).to_json()), "utf-8")
    env = {"HOURGLASS_SIGNING_KEY": str(tmp_path / "active.pem"), "HOURGLASS_SIGNING_KEYS": str(tmp_path / "keys.json")}
    with pytest.raises(KeyProblem, match="not in the published key set"):
        load(env, tmp_path)
    (tmp_path / "keys.json").write_text(json.dumps(rotate(KeySet((other.public(),)), active, SIGNED_AT).to_json()))
    signer_, published = load(env, tmp_path)
    assert signer_.key_id == active.key_id and [k.key_id for k in published.keys] == [other.key_id, active.key_id]


@pytest.mark.parametrize(("change", "problem"), [
    (lambda k: k.update(format="jwks"), "format"),
    (lambda k: k["keys"][0].update(public_key="00" * 31), "32 raw bytes"),
    (lambda k: k["keys"][0].update(key_id="0" * 16), "not the key's own id"),
    (lambda k: k["keys"][0].update(not_after="yesterday"), "not an ISO-8601 time"),
    (lambda k: k["keys"][0].update(not_before="2026-01-01T00:00:00"), "no time zone"),
    (lambda k: k["keys"].append(dict(k["keys"][0])), "twice"),
    (lambda k: k["keys"][0].update(alg="RS256"), "only Ed25519"),
])
def test_a_bad_key_set_is_refused_with_its_problem(change, problem: str) -> None:
    published = keys().to_json()
    change(published)
    with pytest.raises(KeyProblem, match=problem):
        KeySet.from_json(published)
