"""``hourglass-verify``: the offline verifier of replay bundles and tournament audit packages.

The same checks as ``hourglass replay verify`` and ``hourglass tournament verify``, behind a command
that installs on its own (``pip install ./clients/verify``): it needs ``domain/`` (the rules),
``replays/`` and the few pure modules of ``core/`` that scoring and ratings live in, with openskill
and tqdm as its only dependencies. Nothing here reads Redis or the network. Exit codes: 0 verified,
1 not verified (or unreadable), 2 usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from replays import cli, tournament_cli


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hourglass-verify",
                                     description="Verify hourglass replay bundles and tournament audit packages offline.")
    sub = parser.add_subparsers(dest="kind", required=True)
    cli.add_verify_arguments(sub.add_parser("replay", help="re-derive a replay bundle from its seed and commands"))
    tournament_cli.add_verify_arguments(
        sub.add_parser("tournament", help="re-verify an audit package: every game, the stream and the standings"))
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    ns = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    if ns.kind == "replay":
        return cli.verify(ns.file, stdout, stderr, ns.keys, ns.key, ns.contribution, ns.seat, ns.heads)
    return tournament_cli.verify_command(ns, stdout, stderr)


if __name__ == "__main__":
    raise SystemExit(main())
