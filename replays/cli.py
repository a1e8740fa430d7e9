"""``hourglass replay export GAME_ID [--out FILE]``, ``hourglass replay verify FILE [--keys F | --key HEX]``
and ``hourglass replay compact [GAME_ID ...] [--over]``.

Compact packs finished games now (``replays.compaction``; what the workers' sweeper does within
seconds of a game's end), or with ``--over`` puts every finished or aborted game the lobby lists
on the sweeper's compaction list: the games that ended before compaction was deployed.

``main(argv, load=...)`` takes the arguments after ``hourglass replay`` (a leading "replay" is
accepted too, so ``python -m replays.cli replay verify F`` works). Export reads the game through
``load`` (game id -> (meta, entries)); by default the core's event store on ``REDIS_URL`` (or
the embedded server, see ``core.connection``) and signs it with the service's key
(``core.signing``). Verify checks the signature against a saved key set (``--keys``, the JSON
of ``GET /.well-known/hourglass-keys.json``) or one public key (``--key``, hex); without either
it reports the signature unchecked, and with either an unsigned bundle fails. ``--seat N --heads
FILE`` checks the view-chain heads seat N recorded during play against the bundle's chain. Exit codes: 0
success / "verified", 1 divergence, a game that cannot be exported or compacted, or an archive
that cannot take a bundle (one line on standard error, no traceback), 2 usage (or unusable keys
or archive settings).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from core.signing import KeyProblem, KeySet, can_check, service_keys
from replays.bundle import NotFinished, build_bundle
from replays.verify import Interrupted, RecordedHeads, Signing, verify_stream

if TYPE_CHECKING:  # export reads the store; verify runs offline without the server's packages
    from replays.source import Loader


def add_verify_arguments(verify: argparse.ArgumentParser) -> None:
    """The bundle and what it must prove (shared with ``hourglass-verify replay``)."""
    verify.add_argument("file", type=Path, help="bundle file, or - for standard input")
    trust = verify.add_mutually_exclusive_group()
    trust.add_argument("--keys", type=Path, metavar="FILE",
                       help="the service's key set (GET /.well-known/hourglass-keys.json): the bundle must be signed by one")
    trust.add_argument("--key", metavar="HEX", help="one Ed25519 public key (64 hex digits) the bundle must be signed by")
    verify.add_argument("--contribution", action="append", default=[], metavar="SEAT:HEX",
                        help="the entropy seat SEAT contributed (its client recorded it): the bundle must carry it")
    verify.add_argument("--seat", type=int, metavar="N", help="the seat whose recorded view-chain heads --heads holds")
    verify.add_argument("--heads", type=Path, metavar="FILE",
                        help='the view-chain heads seat N recorded during play, JSON {"version": "head", ...} '
                             "(the Python client writes it): each must be the bundle's")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hourglass replay", description="Export and verify replay bundles.")
    sub = parser.add_subparsers(dest="action", required=True)
    export = sub.add_parser("export", help="write a finished game's signed replay bundle")
    export.add_argument("game_id")
    export.add_argument("--out", type=Path, help="file to write (default: standard output)")
    add_verify_arguments(sub.add_parser("verify", help="re-derive a bundle from its seed and commands"))
    compact = sub.add_parser("compact", help="replace finished games' streams by their compressed bundles")
    compact.add_argument("game_ids", nargs="*", help="games to compact now")
    compact.add_argument("--over", action="store_true",
                         help="put every finished or aborted game on the sweeper's compaction list")
    return parser


Publisher = Callable[[str], str]  # game id -> the bundle text


def default_publisher() -> Publisher:
    """The bundle the service publishes (``replays.source.published_bundle``): the stored one, or
    built, signed and stored now."""
    from core.connection import get_redis
    from core.store import EventStore
    from replays.source import published_bundle

    store = EventStore(get_redis())
    return lambda game_id: published_bundle(store, game_id)


def signing_publisher(load: Loader) -> Publisher:
    """A bundle built from what ``load`` reads, signed with the service's key now."""
    from core.game import iso_time, utc_now

    def publish(game_id: str) -> str:
        meta, entries = load(game_id)
        now = iso_time(utc_now())
        return build_bundle(game_id, meta, entries, signer=service_keys()[0], signed_at=now)

    return publish


def export(game_id: str, out: Path | None, publish: Publisher, stdout: TextIO, stderr: TextIO) -> int:
    from replays.source import GameNotFound

    try:
        text = publish(game_id)
    except GameNotFound:
        print(f"unknown game {game_id}", file=stderr)
        return 1
    except NotFinished as exc:
        print(f"cannot export: {exc}", file=stderr)
        return 1
    if out is None:
        stdout.write(text)
    else:
        out.write_bytes(text.encode("utf-8"))
        print(f"wrote {out} ({len(text.encode('utf-8'))} bytes)", file=stderr)
    return 0


def compact(game_ids: Sequence[str], over: bool, conn: Any, stdout: TextIO, stderr: TextIO) -> int:
    """Compact ``game_ids`` now (a line each) and, with ``over``, queue every game that is over;
    1 when a game could not be compacted (unknown, not over, appended to meanwhile) or the archive
    could not take its bundle (the rest are not tried: they would fail alike); 2 for unusable
    archive settings."""
    from core.retention import LiveGames
    from core.store import EventStore
    from replays.compaction import ArchiveError, archive_from_env, queue_over
    from replays.compaction import compact as compact_game

    try:
        archive = archive_from_env() if game_ids else None  # one for the command (one boto3 client)
    except ValueError as exc:
        print(f"cannot use the archive: {exc}", file=stderr)
        return 2
    store, failed = EventStore(conn), 0
    for n, game_id in enumerate(game_ids):
        try:
            done = compact_game(store, game_id, archive)
        except ArchiveError as exc:  # its message names the object and the failure's kind, no secrets
            print(f"{game_id}: not compacted, the archive could not take its bundle ({exc}); "
                  f"{len(game_ids) - n - 1} more not tried", file=stderr)
            return 1
        if done.outcome == "ok":
            print(f"{game_id}: compacted, bundle {done.bundle_bytes} bytes -> {done.packed_bytes} bytes", file=stdout)
        elif done.outcome == "already":
            print(f"{game_id}: compacted already", file=stdout)
        else:
            failed += 1
            print(f"{game_id}: not compacted ({done.outcome})", file=stderr)
    if over:
        print(f"{queue_over(store, LiveGames(conn))} finished game(s) put on the compaction list", file=stdout)
    elif not game_ids:
        print("name games to compact, or --over", file=stderr)
        return 2
    return 1 if failed else 0


CHUNK = 1 << 20  # bytes read at a time: the bundle streams through the verifier, never whole in memory


class _ReadFailed(Interrupted):
    """The file could not be read to its end (a read error is no divergence of the bundle)."""


def _chunks(source: BinaryIO) -> Iterator[bytes]:
    while True:
        try:
            chunk = source.read(CHUNK)
        except OSError as exc:
            raise _ReadFailed(exc.strerror or str(exc)) from None
        if not chunk:
            return
        yield chunk


def _trusted(keys: Path | None, key: str | None) -> KeySet | None:
    if keys is not None or key is not None:
        can_check()
    if keys is not None:
        return KeySet.load(keys)
    return KeySet.single(key) if key is not None else None


def _contributions(given: Sequence[str]) -> dict[int, str]:
    out = {}
    for item in given:
        seat, _, value = item.partition(":")
        if not seat.isdigit() or not value:
            raise ValueError(f"--contribution {item!r}: write SEAT:HEX, e.g. 1:9f3a")
        out[int(seat)] = value
    return out


def _recorded(seat: int | None, heads: Path | None) -> RecordedHeads | None:
    """``--seat N --heads FILE``: the heads seat N recorded, version -> head."""
    if seat is None and heads is None:
        return None
    if seat is None or heads is None:
        raise ValueError("--seat and --heads go together")
    data = json.loads(heads.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and k.isascii() and k.isdigit() and isinstance(v, str) for k, v in data.items()):
        raise ValueError(f'{heads}: expected a JSON object {{"version": "head", ...}}')
    return RecordedHeads(seat, {int(k): v for k, v in data.items()})


def verify(file: Path, stdout: TextIO, stderr: TextIO, keys: Path | None = None, key: str | None = None,
           contributions: Sequence[str] = (), seat: int | None = None, heads: Path | None = None) -> int:
    """The same streaming verification as ``POST /api/v1/replays/verify``, without its budgets;
    given ``keys`` (a key set file) or ``key`` (hex), the bundle must be signed by one of them."""
    try:
        trusted = _trusted(keys, key)
        known = _contributions(contributions)
    except (OSError, KeyProblem) as exc:
        print(f"cannot use the keys: {exc}", file=stderr)
        return 2
    except ValueError as exc:
        print(exc, file=stderr)
        return 2
    try:
        recorded = _recorded(seat, heads)
    except OSError as exc:
        print(f"cannot read the recorded heads: {exc}", file=stderr)
        return 2
    except ValueError as exc:
        print(f"cannot use the recorded heads: {exc}", file=stderr)
        return 2
    try:
        with ExitStack() as stack:
            source = sys.stdin.buffer if str(file) == "-" else stack.enter_context(file.open("rb"))
            report = verify_stream(_chunks(source), signing=Signing(trusted, contributions=known, heads=recorded))
    except OSError as exc:
        print(f"cannot read {file}: {exc.strerror}", file=stderr)
        return 1
    except _ReadFailed as exc:
        print(f"cannot read {file}: {exc}", file=stderr)
        return 1
    for warning in report.warnings:
        print(f"warning: {warning}", file=stderr)
    print(report.describe(), file=stdout if report.ok else stderr)
    return 0 if report.ok else 1


def main(argv: Sequence[str] | None = None, load: Loader | None = None, publish: Publisher | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None, conn: Any = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["replay"]:
        args = args[1:]
    ns = _parser().parse_args(args)
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    if ns.action == "export":
        if publish is None:
            publish = signing_publisher(load) if load is not None else default_publisher()
        return export(ns.game_id, ns.out, publish, stdout, stderr)
    if ns.action == "compact":
        from core.connection import get_redis

        return compact(ns.game_ids, ns.over, conn or get_redis(), stdout, stderr)
    return verify(ns.file, stdout, stderr, ns.keys, ns.key, ns.contribution, ns.seat, ns.heads)


if __name__ == "__main__":
    raise SystemExit(main())
