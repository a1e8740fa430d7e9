"""``hourglass keys new`` rotates a fresh key into the key set; ``hourglass keys show`` prints the set
the configuration publishes (issue 29)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from core.signing import KeySet, Signer, load
from service.keys_cli import main


def test_new_keys_rotate_and_the_configured_pair_loads(tmp_path: Path) -> None:
    keys, first, second = tmp_path / "keys.json", tmp_path / "k1.pem", tmp_path / "k2.pem"
    out, err = io.StringIO(), io.StringIO()
    assert main(["new", "--keys", str(keys), "--out", str(first)], stdout=out, stderr=err) == 0
    assert main(["new", "--keys", str(keys), "--out", str(second)], stdout=out, stderr=err) == 0
    published = KeySet.load(keys)
    one, two = Signer.from_pem(first.read_bytes()), Signer.from_pem(second.read_bytes())
    assert [k.key_id for k in published.keys] == [one.key_id, two.key_id]
    assert published.keys[0].not_after == published.keys[1].not_before is not None and published.keys[1].not_after is None
    assert first.stat().st_mode & 0o777 == 0o600
    signer, loaded = load({"HOURGLASS_SIGNING_KEY": str(second), "HOURGLASS_SIGNING_KEYS": str(keys)}, tmp_path)
    assert signer.key_id == two.key_id and loaded == published
    assert "PRIVATE" not in keys.read_text()


def test_new_refuses_to_overwrite_a_key(tmp_path: Path) -> None:
    existing = tmp_path / "k.pem"
    existing.write_text("keep me")
    err = io.StringIO()
    assert main(["new", "--keys", str(tmp_path / "keys.json"), "--out", str(existing)], stdout=io.StringIO(),
                stderr=err) == 1
    assert existing.read_text() == "keep me" and "cannot make the key" in err.getvalue()
    assert not (tmp_path / "keys.json").exists()


def test_show_prints_the_published_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOURGLASS_VAR", str(tmp_path))
    monkeypatch.delenv("HOURGLASS_SIGNING_KEY", raising=False)
    out = io.StringIO()
    assert main(["show"], stdout=out, stderr=io.StringIO()) == 0
    shown = KeySet.from_json(json.loads(out.getvalue()))
    assert shown == KeySet.load(tmp_path / "signing" / "keys.json")
