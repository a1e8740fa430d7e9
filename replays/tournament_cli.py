"""``hourglass tournament verify PACKAGE`` and ``hourglass tournament export ID [--out FILE]``.

Verify re-checks an audit package offline (``replays.tournament``) with a progress bar over its
games and names the first member, line or game that does not verify; with ``--keys FILE`` (the
service's key set) or ``--key HEX`` the package must be signed by one of those keys. Exit codes: 0 verified,
1 not verified (or a tournament that cannot be exported), 2 usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from core.signing import KeyProblem, KeySet, can_check
from replays.tournament import ANCHORS, package_from_store, verify_package


def add_verify_arguments(verify: argparse.ArgumentParser) -> None:
    """The package, --quiet and one option per anchor (shared with ``hourglass-verify tournament``)."""
    verify.add_argument("package", type=Path)
    verify.add_argument("--quiet", action="store_true", help="no progress bar")
    for anchor in ANCHORS:
        verify.add_argument(f"--{anchor.replace('_', '-')}", dest=anchor, metavar="HEX",
                            help=f"the {anchor.replace('_', ' ')} you saw on the live service: the package must "
                                 "carry it (without one a package proves it is consistent, not whose it is)")
    trust = verify.add_mutually_exclusive_group()
    trust.add_argument("--keys", type=Path, metavar="FILE",
                       help="the service's key set (GET /.well-known/hourglass-keys.json): the package must be signed by one")
    trust.add_argument("--key", metavar="HEX", help="one Ed25519 public key (64 hex digits) the package must be signed by")


def anchors_of(ns: argparse.Namespace) -> dict[str, str]:
    return {a: getattr(ns, a) for a in ANCHORS if getattr(ns, a)}


def keys_of(ns: argparse.Namespace) -> KeySet | None:
    """The key set ``--keys FILE`` or ``--key HEX`` names (None: the signature is not required);
    raises OSError or KeyProblem for a file or key that cannot be used."""
    if ns.keys or ns.key:
        can_check()
    return KeySet.load(ns.keys) if ns.keys else KeySet.single(ns.key) if ns.key else None


def verify_command(ns: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``verify`` as both command lines run it: exit 2 when the keys cannot be used."""
    try:
        keys = keys_of(ns)
    except (OSError, KeyProblem) as exc:
        print(f"cannot use the keys: {exc}", file=stderr)
        return 2
    return verify(ns.package, ns.quiet, stdout, stderr, anchors_of(ns), keys)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hourglass tournament", description="Tournament audit packages.")
    sub = parser.add_subparsers(dest="action", required=True)
    add_verify_arguments(sub.add_parser("verify", help="re-verify a package: every game, the stream and the standings"))
    export = sub.add_parser("export", help="write a finished tournament's package")
    export.add_argument("tournament_id")
    export.add_argument("--out", type=Path, required=True)
    return parser


def verify(path: Path, quiet: bool, stdout: TextIO, stderr: TextIO, anchors: dict[str, str] | None = None,
           keys: KeySet | None = None) -> int:
    try:
        data = path.read_bytes()
    except OSError as exc:
        print(f"cannot read {path}: {exc.strerror}", file=stderr)
        return 1
    bar = tqdm(total=0, unit="game", desc="verifying", file=stderr, disable=quiet)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    report = verify_package(data, progress, anchors=anchors, keys=keys)
    bar.close()
    for warning in report.warnings:
        print(f"warning: {warning}", file=stderr)
    print(report.describe(), file=stdout if report.ok else stderr)
    return 0 if report.ok else 1


def export(tid: str, out: Path, stderr: TextIO) -> int:
    from core.connection import get_redis
    from core.tournament_store import TournamentNotFound

    try:
        data = package_from_store(get_redis(), tid)
    except (TournamentNotFound, ValueError) as exc:
        print(f"cannot export: {exc}", file=stderr)
        return 1
    out.write_bytes(data)
    print(f"wrote {out} ({len(data)} bytes)", file=stderr)
    return 0


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    ns = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    if ns.action == "verify":
        return verify_command(ns, stdout, stderr)
    return export(ns.tournament_id, ns.out, stderr)


if __name__ == "__main__":
    raise SystemExit(main())
