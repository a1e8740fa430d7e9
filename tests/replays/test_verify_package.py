"""``hourglass-verify`` installs on its own (issue 26): ``pip install ./clients/verify`` into a fresh
virtual environment pulls only openskill, tqdm and cryptography (with cffi and pycparser), and the
installed command verifies a real replay
bundle and a real tournament audit package with no network (a new network namespace where the
machine allows one) and without the repository on its path -- and still refuses a tampered one.

The sources are copied to a scratch directory first (domain/, replays/, core/ and clients/verify/),
so the build leaves nothing in the work tree and cannot reach anything else of the repository."""
from __future__ import annotations

import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
PACKAGE = GOLDEN / "tournament-rules1-cathedral.zip"
BUNDLES = ("orleans-3-bundle-classic-3p.jsonl", "orleans-2-bundle-2023-3p.jsonl")
SOURCES = ("domain", "replays", "core", "clients/verify")
# What an auditor's environment holds afterwards: the verifier and its dependencies (cryptography
# for the Ed25519 signatures, which brings cffi and pycparser), plus the installer every fresh venv brings.
EXPECTED = {"hourglass-verify", "openskill", "tqdm", "cryptography", "cffi", "pycparser"}
INSTALLER = {"pip", "setuptools", "wheel"}


def _offline() -> list[str]:
    """A prefix that runs a command in a network namespace of its own, where the machine allows one."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-n"]
    return []


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    base = tmp_path_factory.mktemp("verify-standalone")
    src = base / "src"
    for name in SOURCES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(src / "clients" / "verify")],
                          capture_output=True, text=True, env=env, cwd=base, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv


def _run(venv: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([*_offline(), str(venv / "bin" / "hourglass-verify"), *args], capture_output=True, text=True,
                          env=env, cwd=venv, timeout=300, check=False)


def test_the_installed_set_is_the_verifier_and_its_few_dependencies(installed: pathlib.Path) -> None:
    listed = subprocess.run([str(installed / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                            capture_output=True, text=True, check=True, timeout=120)
    names = {row["name"].lower() for row in json.loads(listed.stdout)}
    assert names - INSTALLER == EXPECTED, names


def test_the_installed_modules_do_not_import_the_server(installed: pathlib.Path) -> None:
    probe = ("import sys, replays.offline, replays.tournament, replays.verify; "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'flask', 'redis', 'rq', 'marshmallow', 'service', "
             "'workers', 'requests', 'httpx'}))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(installed / "bin" / "python"), "-c", probe], capture_output=True, text=True, env=env,
                          cwd=installed, timeout=120, check=True)
    assert done.stdout.strip() == "[]"


def test_it_verifies_a_tournament_package_offline(installed: pathlib.Path) -> None:
    done = _run(installed, "tournament", str(PACKAGE), "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("verified: tournament t3945623a29b12f, 4 games"), done.stdout


@pytest.mark.parametrize("bundle", BUNDLES)
def test_it_verifies_a_replay_bundle_offline(installed: pathlib.Path, bundle: str) -> None:
    done = _run(installed, "replay", str(GOLDEN / bundle))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("verified"), done.stdout


def test_it_checks_a_signed_bundle_against_the_services_key_set_offline(
        installed: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """Issue 29: a bundle the service signed verifies against its published key set, offline, and
    fails against a key set that does not hold the signing key."""
    from core.signing import KeySet, Signer
    from replays.bundle import build_bundle
    from tests.replays.replay_helpers import played

    signer, stranger = Signer.generate(), Signer.generate()
    game_id, meta, entries = played("classic", 2)
    bundle = tmp_path / "signed.jsonl"
    bundle.write_text(build_bundle(game_id, meta, entries, signer=signer, signed_at="2026-06-01T12:00:00.000Z"))
    for name, who in (("ours.json", signer), ("theirs.json", stranger)):
        (tmp_path / name).write_text(json.dumps(KeySet((who.public(not_before="2026-01-01T00:00:00Z"),)).to_json()))
    done = _run(installed, "replay", str(bundle), "--keys", str(tmp_path / "ours.json"))
    assert done.returncode == 0 and f"signed by key {signer.key_id}" in done.stdout, done.stdout + done.stderr
    refused = _run(installed, "replay", str(bundle), "--keys", str(tmp_path / "theirs.json"))
    assert refused.returncode == 1 and "signature" in refused.stderr, refused.stdout + refused.stderr


def test_it_refuses_a_tampered_package_and_names_the_member(installed: pathlib.Path, tmp_path: pathlib.Path) -> None:
    with zipfile.ZipFile(PACKAGE) as archive:
        found = {name: archive.read(name) for name in archive.namelist()}
    first = next(n for n in found if n.startswith("games/"))
    found[first] = found[first].replace(b'"seat":1', b'"seat":2', 1)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in found.items():
            archive.writestr(name, data)
    tampered = tmp_path / "tampered.zip"
    tampered.write_bytes(out.getvalue())
    done = _run(installed, "tournament", str(tampered), "--quiet")
    assert done.returncode == 1
    assert first in done.stderr, done.stderr


def test_usage_errors_exit_2(installed: pathlib.Path) -> None:
    assert _run(installed, "export", "t1").returncode == 2
