"""``hourglass keys new --keys FILE --out PEM``: make a signing key and rotate it into the key set.

Writes a new Ed25519 private key to ``--out`` (PEM, mode 0600; refused if the file exists) and
adds its public key to the key set ``--keys`` (``hourglass-keys/1``; created when missing) with
``not_before`` now; every key of the set still open gets ``not_after`` now and stays in the set,
so what it signed keeps verifying (``core.signing.rotate``). Then point ``HOURGLASS_SIGNING_KEY``
at the new file, ``HOURGLASS_SIGNING_KEYS`` at the set, and restart every process. ``hourglass
keys show`` prints the key set the configuration gives (what ``/.well-known/hourglass-keys.json``
serves). Exit codes: 0 done, 1 a file problem, 2 usage.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from core.game import iso_time, utc_now
from core.signing import KeyProblem, KeySet, Signer, rotate, service_keys, write_private


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hourglass keys", description="The service's signing keys.")
    sub = parser.add_subparsers(dest="action", required=True)
    new = sub.add_parser("new", help="make a signing key and rotate it into the key set")
    new.add_argument("--keys", type=Path, required=True, help="the key set file (created when missing)")
    new.add_argument("--out", type=Path, required=True, help="where to write the new private key (PEM)")
    sub.add_parser("show", help="print the key set this configuration publishes")
    return parser


def new_key(keys_path: Path, out: Path, now: str, stdout: TextIO, stderr: TextIO) -> int:
    try:
        current = KeySet.load(keys_path) if keys_path.exists() else KeySet(())
        signer = Signer.generate()
        write_private(out, signer.pem())
    except (OSError, KeyProblem) as exc:
        print(f"cannot make the key: {exc}", file=stderr)
        return 1
    updated = rotate(current, signer, now)
    keys_path.write_text(json.dumps(updated.to_json(), indent=1) + "\n", "utf-8")
    print(f"key {signer.key_id} written to {out}, valid from {now}; {keys_path} lists {len(updated.keys)} keys",
          file=stdout)
    return 0


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    ns = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    now = iso_time(utc_now())
    if ns.action == "new":
        return new_key(ns.keys, ns.out, now, stdout, stderr)
    try:
        print(json.dumps(service_keys()[1].to_json(), indent=1), file=stdout)
    except (OSError, KeyProblem) as exc:
        print(f"cannot read the keys: {exc}", file=stderr)
        return 1
    return 0
