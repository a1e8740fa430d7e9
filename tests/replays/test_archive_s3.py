"""The S3-compatible archive (``replays.archive``), against a real S3 HTTP server: moto's server
mode on 127.0.0.1, started by this module. Compaction hands it the bundle ``GET /replay`` serves;
an unreachable bucket leaves the game whole in Redis; names come from game ids alone."""
from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.games import GameService
from core.retention import COMPACT_KEY, LiveGames
from core.store import PACKED_FIELD, events_key
from replays.archive import ArchiveError, DirectoryArchive, S3Archive, archive_from_env, archived_name
from replays.compaction import RETRY_S, compact, compact_due
from replays.verify import verify_bundle
from tests.conftest import forget_games
from tests.hardening.conftest import free_port
from tests.replays.replay_redis import create, play_to_end
from tests.replays.s3server import serve_bucket, set_aws_env
from workers.sweeper import sweep_once

moto_server = pytest.importorskip("moto.server")
API = "/api/v1/games"
SECRET = "archive-test-secret-0123456789abcdefXYZ"  # must never appear in a log line


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    yield from serve_bucket()


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """boto3's own settings, as an operator would give them (no profile or file of this machine)."""
    set_aws_env(monkeypatch, "AKIAARCHIVETEST", SECRET)


def _bucket(endpoint: str, name: str, prefix: str = "hourglass") -> S3Archive:
    archive = archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": f"s3://{name}/{prefix}/",
                                "HOURGLASS_ARCHIVE_S3_ENDPOINT": endpoint, "HOURGLASS_ARCHIVE_S3_REGION": "us-east-1"})
    assert isinstance(archive, S3Archive)
    archive.client.create_bucket(Bucket=name)
    return archive


def _objects(archive: S3Archive) -> list[str]:
    listed = archive.client.list_objects_v2(Bucket=archive.bucket)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def _forget(svc: GameService) -> None:
    svc.repository.forget()
    svc.store.forget_opened()


def _finished(service: GameService, seed: str) -> str:
    game_id = play_to_end(service, "classic", 2, seed=seed)
    service.created.append(game_id)  # type: ignore[attr-defined]
    return game_id


class _Only(LiveGames):
    """The real compaction list, but this pass sees only the named games (the test Redis may hold
    other finished games on it)."""

    def __init__(self, live: LiveGames, game_ids: list[str]) -> None:
        super().__init__(live.conn, live.retention)
        self.game_ids = game_ids

    def to_compact(self, limit: int = 100) -> list[str]:
        return self.game_ids[:limit]


def test_the_sweeper_archives_to_the_bucket_and_every_read_answers(
        service: GameService, client: Any, endpoint: str) -> None:
    archive = _bucket(endpoint, "hg-sweep")
    gid = _finished(service, "s3-sweep")
    bundle = client.get(f"{API}/{gid}/replay").get_data()
    assert service.store.conn.zscore(COMPACT_KEY, gid) is not None
    assert sweep_once(service, archive=archive)["compacted"] >= 1
    assert service.store.meta_field(gid, PACKED_FIELD) is not None and service.store.conn.xlen(events_key(gid)) == 1
    assert _objects(archive) == [f"hourglass/{gid}.hourglass-replay.jsonl"]
    stored = archive.client.get_object(Bucket="hg-sweep", Key=archive.key(gid))
    assert stored["Body"].read() == bundle and stored["ContentType"] == "application/x-ndjson"
    _forget(service)
    assert client.get(f"{API}/{gid}/replay").get_data() == bundle
    for path in (f"{API}/{gid}/state", f"{API}/{gid}/events", f"{API}/{gid}/states/3", f"{API}/{gid}/timeline",
                 f"/games/{gid}"):
        assert client.get(path).status_code == 200, path
    # Redis lets the game go (its TTL): the API no longer knows it; the bucket's copy verifies
    forget_games(service.store.conn, [gid])
    _forget(service)
    assert client.get(f"{API}/{gid}/replay").status_code == 404
    archived = archive.get(gid)
    assert archived is not None and archived.encode("utf-8") == bundle
    assert verify_bundle(archived).ok


def test_archiving_again_is_idempotent(service: GameService, client: Any, endpoint: str) -> None:
    archive = _bucket(endpoint, "hg-again")
    gid = _finished(service, "s3-again")
    text = client.get(f"{API}/{gid}/replay").get_data(as_text=True)
    archive.put(gid, text)  # a pass that died after the upload, before the swap
    assert compact(service.store, gid, archive).outcome == "ok"
    assert compact(service.store, gid, archive).outcome == "already"
    assert _objects(archive) == [archive.key(gid)] and archive.get(gid) == text
    assert archive.get("0123456789abcdef") is None


def test_an_unreachable_bucket_keeps_the_game_in_redis_and_logs_no_secret(
        service: GameService, client: Any, endpoint: str, caplog: pytest.LogCaptureFixture) -> None:
    down = archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": "s3://hg-down/p",
                             "HOURGLASS_ARCHIVE_S3_ENDPOINT": f"http://127.0.0.1:{free_port()}",
                             "HOURGLASS_ARCHIVE_S3_REGION": "us-east-1"})
    missing = S3Archive(_bucket(endpoint, "hg-up").client, "hg-no-such-bucket")
    first, second = _finished(service, "s3-down-1"), _finished(service, "s3-down-2")
    bundle = client.get(f"{API}/{first}/replay").get_data()
    length = service.store.conn.xlen(events_key(first))
    live = _Only(service.live, [first, second])
    with caplog.at_level(logging.DEBUG):  # botocore's own debug lines too
        assert down is not None and compact_due(service.store, live, archive=down) == 0
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and first in errors[0].getMessage()  # the pass stopped at the first game
    assert "EndpointConnectionError" in errors[0].getMessage() and "s3://hg-down/p/" in errors[0].getMessage()
    assert SECRET not in caplog.text and errors[0].exc_info is None
    for gid in (first, second):  # whole in Redis, still on the list, both put off
        assert service.store.meta_field(gid, PACKED_FIELD) is None
        assert (service.store.conn.zscore(COMPACT_KEY, gid) or 0) > (time.time() + RETRY_S - 60) * 1000
    assert service.store.conn.xlen(events_key(first)) == length
    assert client.get(f"{API}/{first}/replay").get_data() == bundle
    with pytest.raises(ArchiveError, match="NoSuchBucket") as refused:
        compact(service.store, second, missing)
    assert SECRET not in str(refused.value) and service.store.meta_field(second, PACKED_FIELD) is None
    # the bucket is back: the next pass archives both
    up = _bucket(endpoint, "hg-back")
    assert compact_due(service.store, live, archive=up) == 2
    assert _objects(up) == sorted(up.key(g) for g in (first, second))
    assert up.get(first) == bundle.decode("utf-8")


def test_names_come_from_game_ids_alone(service: GameService, client: Any, endpoint: str, tmp_path: Path) -> None:
    archive = _bucket(endpoint, "hg-abuse")
    folder = DirectoryArchive(tmp_path / "bundles")
    for bad in ("../x", "a/b", "a\\b", "", ".hidden", "a.b", "x" * 200, "..", "a\nb", "%2e%2e"):
        for call in (archived_name, archive.key, folder.name, archive.get, folder.get):
            with pytest.raises(ValueError):
                call(bad)
        with pytest.raises(ValueError):
            archive.put(bad, "text")
    assert archived_name("t0123abcdg0004") == "t0123abcdg0004.hourglass-replay.jsonl"
    # a stranger's requests never write to the archive: no route names it, a live game is not compacted
    live_id = create(service, "classic", 2, seed="s3-live")
    service.created.append(live_id)  # type: ignore[attr-defined]
    assert compact(service.store, live_id, archive).outcome == "live"
    for path in (f"{API}/..%2F..%2Fx/replay", f"{API}/{live_id}/replay", f"{API}/{live_id}%2F..%2Fx/replay"):
        assert client.get(path).status_code in (404, 409, 422), path
    assert not any("archive" in rule.rule for rule in client.application.url_map.iter_rules())
    assert _objects(archive) == [] and not folder.path.exists()


def test_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert archive_from_env({}) is None
    assert archive_from_env({"HOURGLASS_ARCHIVE_DIR": str(tmp_path)}) == DirectoryArchive(tmp_path)
    built = archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": "s3://bucket.one", "HOURGLASS_ARCHIVE_S3_REGION": "eu-west-1"})
    assert isinstance(built, S3Archive) and (built.bucket, built.prefix) == ("bucket.one", "")
    assert built.client.meta.region_name == "eu-west-1"
    for url in ("https://bucket/x", "s3://", "s3://Bad_Bucket/x", "s3://b/x?versionId=1", "bucket/x"):
        with pytest.raises(ValueError, match="HOURGLASS_ARCHIVE_S3_URL"):
            archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": url})
    with monkeypatch.context() as patch, pytest.raises(ValueError, match=r"pip install 'hourglass\[s3\]'"):
        patch.setitem(sys.modules, "boto3", None)  # as if the extra were not installed
        archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": "s3://bucket"})
    with pytest.raises(ValueError, match="not both"):
        archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": "s3://bucket", "HOURGLASS_ARCHIVE_DIR": str(tmp_path)})


def test_a_directory_that_cannot_take_the_bundle_fails_alike(service: GameService, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file where the directory should be")
    folder = DirectoryArchive(tmp_path / "taken")
    gid = _finished(service, "s3-folder")
    with pytest.raises(ArchiveError, match="could not put"):
        compact(service.store, gid, folder)
    assert service.store.meta_field(gid, PACKED_FIELD) is None
    with pytest.raises(ArchiveError, match="could not get"):
        folder.get(gid)
    assert compact(service.store, gid, DirectoryArchive(tmp_path / "bundles")).outcome == "ok"
