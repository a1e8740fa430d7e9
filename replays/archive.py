"""Where a finished game's bundle goes before Redis lets it go: a directory or an S3-compatible bucket.

Both are off by default and take the same thing at the same time: :func:`replays.compaction.compact`
offers every compacted game's published bundle (the bytes ``GET /replay`` serves) before the swap,
so a bundle the archive did not take stays whole in Redis, and the game stays on the compaction
list for a later pass. Re-archiving writes the same bytes under the same name again.

- ``HOURGLASS_ARCHIVE_DIR``: a directory; each bundle is a file ``<game id>.hourglass-replay.jsonl``,
  written under a temporary name and renamed, so a reader never sees half a bundle.
- ``HOURGLASS_ARCHIVE_S3_URL``: ``s3://bucket`` or ``s3://bucket/prefix``; each bundle is the object
  ``<prefix>/<game id>.hourglass-replay.jsonl`` (one ``PutObject``, never visible half written).
  ``HOURGLASS_ARCHIVE_S3_ENDPOINT`` names an S3-compatible server (MinIO, Ceph, R2, ...; path-style
  addressing then), ``HOURGLASS_ARCHIVE_S3_REGION`` its region; credentials and attempts come
  from boto3's own settings (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_PROFILE``,
  ``AWS_MAX_ATTEMPTS``, ...); standard retry mode, 5 s to connect, 30 s to read. boto3 is the
  optional extra ``hourglass[s3]``, imported only when a bucket is configured.

Names come from game ids alone, and an id that is not a plain token (:data:`GAME_ID`) is refused
before any path or key is made of it. Only compaction writes, and only games that are over.

The web process reads back through :class:`ArchiveReads` (``GET /replay`` of a game Redis has let
go): an id that is not a plain token never reaches the archive, an id the archive did not have is
remembered for ``MISSING_TTL_S`` (at most ``MISSING_MAX`` ids), and at most
``HOURGLASS_ARCHIVE_READS`` reads (4; 0: none) run at once per process; one more is :class:`ArchiveBusy`.
"""
from __future__ import annotations

import os
import re
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

ARCHIVE_ENV = "HOURGLASS_ARCHIVE_DIR"
S3_URL_ENV = "HOURGLASS_ARCHIVE_S3_URL"
S3_ENDPOINT_ENV = "HOURGLASS_ARCHIVE_S3_ENDPOINT"
S3_REGION_ENV = "HOURGLASS_ARCHIVE_S3_REGION"
READS_ENV = "HOURGLASS_ARCHIVE_READS"
READS = 4  # archive reads at once per web process: a slow bucket holds this many greenlets, not all
MISSING_TTL_S = 600.0  # how long a process trusts "not in the archive" (archives only gain bundles)
MISSING_MAX = 10_000  # ids remembered as missing, the least recently asked for forgotten first
SUFFIX = ".hourglass-replay.jsonl"
CONTENT_TYPE = "application/x-ndjson"  # as GET /replay serves the bundle
# What the service makes ids of (token_hex, tournament ids, rematch hashes), with room to spare;
# no dot, slash or backslash, so a name is never a path outside the archive's own place.
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")  # S3's bucket naming rules


class ArchiveError(Exception):
    """The archive could not take or give back a bundle (unreachable, refused). The message names
    the place and the kind of failure, never credentials."""


class Archive(Protocol):
    def put(self, game_id: str, text: str) -> None: ...

    def get(self, game_id: str) -> str | None: ...


def archived_name(game_id: str) -> str:
    """``<game id>.hourglass-replay.jsonl``; ``ValueError`` for an id that is not a plain token."""
    if not GAME_ID.fullmatch(game_id):
        raise ValueError(f"not a game id: {game_id[:40]!r}")
    return game_id + SUFFIX


@dataclass(frozen=True)
class DirectoryArchive:
    """Bundles as files in one directory (created when missing)."""

    path: Path

    def name(self, game_id: str) -> Path:
        return self.path / archived_name(game_id)

    def put(self, game_id: str, text: str) -> None:
        target = self.name(game_id)
        try:
            self._write(target, text)
        except OSError as exc:
            raise ArchiveError(f"could not put {target}: {exc.strerror or type(exc).__name__}") from exc

    def _write(self, target: Path, text: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=f".{target.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                out.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, game_id: str) -> str | None:
        try:
            return self.name(game_id).read_bytes().decode("utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ArchiveError(f"could not get {self.name(game_id)}: {exc.strerror or type(exc).__name__}") from exc


@dataclass(frozen=True)
class S3Archive:
    """Bundles as objects in an S3-compatible bucket, through boto3."""

    client: Any  # a boto3 S3 client (botocore builds its methods at run time: no static type)
    bucket: str
    prefix: str = ""  # "" or ending in "/"

    def key(self, game_id: str) -> str:
        return self.prefix + archived_name(game_id)

    def where(self, game_id: str) -> str:
        return f"s3://{self.bucket}/{self.key(game_id)}"

    def put(self, game_id: str, text: str) -> None:
        key = self.key(game_id)
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=text.encode("utf-8"), ContentType=CONTENT_TYPE)
        except _boto_errors() as exc:
            raise _failed("put", self.where(game_id), exc) from None

    def get(self, game_id: str) -> str | None:
        key = self.key(game_id)
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=key)
            body: bytes = answer["Body"].read()
        except _boto_errors() as exc:
            if _code(exc) in ("NoSuchKey", "404"):
                return None
            raise _failed("get", self.where(game_id), exc) from None
        return body.decode("utf-8")


def _boto_errors() -> tuple[type[Exception], ...]:
    """What boto3 raises for a bucket that cannot be reached or refuses (a bug of ours is no outage)."""
    from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

    return BotoCoreError, ClientError


def _code(exc: Exception) -> str:
    """The S3 error code of a botocore ``ClientError`` ("" for any other exception)."""
    response: Any = getattr(exc, "response", None)
    return str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""


def _failed(verb: str, where: str, exc: Exception) -> ArchiveError:
    """An :class:`ArchiveError` naming the object and the failure's kind (an S3 error code, or the
    exception's class: ``EndpointConnectionError``, ``NoCredentialsError``...), not its text, which
    is the only part that could carry a signed request's details; the cause is not chained."""
    kind = _code(exc) or type(exc).__name__
    return ArchiveError(f"could not {verb} {where}: {kind}")


def s3_archive(url: str, endpoint: str | None = None, region: str | None = None) -> S3Archive:
    """An :class:`S3Archive` for ``s3://bucket[/prefix]``; ``ValueError`` for another URL, or
    when boto3 is not installed."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not BUCKET.fullmatch(parts.netloc) or parts.query or parts.fragment:
        raise ValueError(f"{S3_URL_ENV} must be s3://bucket or s3://bucket/prefix, not {url!r}")
    prefix = parts.path.strip("/")
    try:  # the extra hourglass[s3]: only a worker with a bucket pays for importing it
        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]
    except ImportError:
        raise ValueError(f"{S3_URL_ENV} needs boto3: pip install 'hourglass[s3]'") from None

    config = Config(connect_timeout=5, read_timeout=30, retries={"mode": "standard"},
                    s3={"addressing_style": "path"} if endpoint else None)
    client = boto3.client("s3", endpoint_url=endpoint, region_name=region, config=config)
    return S3Archive(client, parts.netloc, prefix + "/" if prefix else "")


def archive_from_env(env: Mapping[str, str] | None = None) -> Archive | None:
    """The archive the settings name (``HOURGLASS_ARCHIVE_DIR`` or ``HOURGLASS_ARCHIVE_S3_URL``),
    or None; ``ValueError`` when both are set or the URL is not an ``s3://`` one."""
    settings = os.environ if env is None else env
    where, url = settings.get(ARCHIVE_ENV, "").strip(), settings.get(S3_URL_ENV, "").strip()
    if where and url:
        raise ValueError(f"set {ARCHIVE_ENV} or {S3_URL_ENV}, not both")
    if url:
        return s3_archive(url, settings.get(S3_ENDPOINT_ENV, "").strip() or None,
                          settings.get(S3_REGION_ENV, "").strip() or None)
    return DirectoryArchive(Path(where)) if where else None


class ArchiveBusy(Exception):
    """This process already reads as many bundles from the archive as it may at once."""


class Forgotten:
    """A bounded set of keys that expire: at most ``size``, each for ``ttl_s`` seconds, the least
    recently added dropped first. (cachetools' ``TTLCache`` does this; it is not a dependency, and
    this is all of it that the read path needs.) Thread- and greenlet-safe."""

    def __init__(self, size: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.ttl_s, self.clock = size, ttl_s, clock
        self.until: OrderedDict[str, float] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, key: str) -> None:
        with self.lock:
            self.until[key] = self.clock() + self.ttl_s
            self.until.move_to_end(key)
            while len(self.until) > self.size:
                self.until.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        with self.lock:
            until = self.until.get(key)
            if until is not None and until <= self.clock():
                del self.until[key]
                return False
            return until is not None

    def __len__(self) -> int:
        return len(self.until)


class ArchiveReads:
    """One process's reads from an archive: ids checked, misses remembered, reads at once bounded."""

    def __init__(self, archive: Archive, at_once: int = READS, missing: Forgotten | None = None) -> None:
        self.archive = archive
        # made on a request (service.replay_api), after gunicorn's gevent worker patched threading: a greenlet's
        self.slots = threading.BoundedSemaphore(at_once)
        self.missing = Forgotten(MISSING_MAX, MISSING_TTL_S) if missing is None else missing

    def may_hold(self, game_id: str) -> bool:
        """False for an id no archive holds: not a plain token, or missing when last asked."""
        return GAME_ID.fullmatch(game_id) is not None and game_id not in self.missing

    def get(self, game_id: str) -> str | None:
        """The archived bundle, or None; :class:`ArchiveBusy` when every read slot is taken,
        :class:`ArchiveError` when the archive fails."""
        if not self.may_hold(game_id):
            return None
        if not self.slots.acquire(blocking=False):
            raise ArchiveBusy("every archive read slot of this process is taken")
        try:
            text = self.archive.get(game_id)
        finally:
            self.slots.release()
        if text is None:
            self.missing.add(game_id)
        return text


def reads_from_env(env: Mapping[str, str] | None = None) -> ArchiveReads | None:
    """:class:`ArchiveReads` over the archive the settings name, with ``HOURGLASS_ARCHIVE_READS``
    reads at once (None: no archive, or 0 reads: the workers archive, the web does not read back).
    ``ValueError`` as :func:`archive_from_env`, or for reads that are not a whole number."""
    settings = os.environ if env is None else env
    at_once = settings.get(READS_ENV, "").strip() or str(READS)
    if not at_once.isdigit():
        raise ValueError(f"{READS_ENV} must be a whole number, not {at_once!r}")
    archive = archive_from_env(settings)
    return ArchiveReads(archive, int(at_once)) if archive is not None and int(at_once) > 0 else None
