"""``GET /api/v1/games/{id}/replay`` once Redis has let a finished game go: the archive's copy
(``replays.archive.ArchiveReads``, ``service.replay_api``), through the real Flask app, against
a directory, moto's S3 server and ``hourglass serve``. A stranger's made-up ids: malformed ones
never reach the archive, missing ones are remembered, reads draw on the caller's budgets and are
bounded per process; an unknown id is the same 404 with or without an archive."""
from __future__ import annotations

import io
import logging
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

import replays.compaction
from core.games import GameService
from replays.archive import ArchiveReads, DirectoryArchive, Forgotten, S3Archive, archive_from_env
from replays.cli import main as replay_cli
from replays.compaction import compact
from replays.verify import verify_bundle
from service import replay_api
from service.app import create_app
from tests.conftest import forget_games
from tests.hardening.conftest import free_port
from tests.replays.replay_redis import play_to_end
from tests.replays.s3server import serve_bucket, set_aws_env

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = (ROOT / "tests" / "golden" / "orleans-2-bundle-classic-4p.jsonl").read_text(encoding="utf-8")
GOLDEN_ID = "legacy-classic-4p"  # the game id in its header
API = "/api/v1/games"
SECRET = "archive-reads-secret-0123456789abcdefXYZ"  # must never appear in an answer or a log line


class Counting:
    """An archive that counts the reads that reach it (and may hold them until released)."""

    def __init__(self, inner: Any, hold: threading.Event | None = None) -> None:
        self.inner, self.hold, self.asked = inner, hold, []
        self.entered = threading.Event()

    def put(self, game_id: str, text: str) -> None:
        self.inner.put(game_id, text)

    def get(self, game_id: str) -> str | None:
        self.asked.append(game_id)
        self.entered.set()
        if self.hold is not None:
            assert self.hold.wait(30)
        return self.inner.get(game_id)  # type: ignore[no-any-return]


def _client(service: GameService, archive: Any, **config: Any) -> Any:
    app = create_app({"REDIS": service.store.conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0,
                      "ARCHIVE": archive, **config})
    return app.test_client()


def _address() -> dict[str, str]:
    """A client address of the test's own, so no other test's traffic has spent its budgets."""
    return {"REMOTE_ADDR": f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"}


@pytest.fixture()
def folder(tmp_path: Path) -> Counting:
    archive = Counting(DirectoryArchive(tmp_path / "bundles"))
    archive.put(GOLDEN_ID, GOLDEN)
    return archive


def test_an_expired_game_is_served_from_the_archive_as_it_was(service: GameService, tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path / "bundles")
    client = _client(service, archive)
    gid = play_to_end(service, "classic", 2, seed=f"reads-{uuid.uuid4().hex[:8]}")
    service.created.append(gid)  # type: ignore[attr-defined]
    live = client.get(f"{API}/{gid}/replay")
    assert compact(service.store, gid, archive).outcome == "ok"
    forget_games(service.store.conn, [gid])  # Redis lets it go (its TTL)
    service.repository.forget()
    service.store.forget_opened()
    served = client.get(f"{API}/{gid}/replay")
    assert served.status_code == 200 and served.get_data() == live.get_data()
    for header in ("Content-Type", "Content-Disposition", "Cache-Control"):
        assert served.headers[header] == live.headers[header], header
    assert verify_bundle(served.get_data(as_text=True)).ok
    # the bundle is the record: the live reads of an expired game stay 404 (never a 500)
    for path in (f"{API}/{gid}", f"{API}/{gid}/state", f"{API}/{gid}/events", f"{API}/{gid}/timeline",
                 f"/games/{gid}"):
        assert client.get(path).status_code == 404, path


def test_an_unknown_id_is_the_same_404_with_or_without_an_archive(service: GameService, folder: Counting) -> None:
    without, with_archive = _client(service, None), _client(service, folder)
    for game_id in ("0123456789abcdef", "a.b", "x" * 200, "-leading-dash"):
        plain, archived = without.get(f"{API}/{game_id}/replay"), with_archive.get(f"{API}/{game_id}/replay")
        assert (archived.status_code, archived.get_data(), archived.headers["Content-Type"]) == \
            (plain.status_code, plain.get_data(), plain.headers["Content-Type"]) == \
            (404, plain.get_data(), "application/problem+json"), game_id
    assert folder.asked == ["0123456789abcdef"]  # the malformed ids never reached it
    assert with_archive.get(f"{API}/{GOLDEN_ID}/replay").get_data(as_text=True) == GOLDEN


def test_a_missing_id_is_asked_of_the_archive_once(service: GameService, folder: Counting) -> None:
    client = _client(service, folder)
    for _ in range(5):
        assert client.get(f"{API}/made-up-id/replay").status_code == 404
    assert folder.asked == ["made-up-id"]


def test_the_viewer_404_page_links_an_archived_games_replay(service: GameService, folder: Counting) -> None:
    """A person's 404 page for a game Redis let go says its record is available and links the
    replay; it asks the archive as the replay route does (an id it lacks once), a script's 404 never."""
    client, page = _client(service, folder), {"Accept": "text/html"}
    archived = client.get(f"/games/{GOLDEN_ID}", headers=page)
    assert archived.status_code == 404 and archived.mimetype == "text/html"
    assert f'<a href="{API}/{GOLDEN_ID}/replay">' in archived.get_data(as_text=True)
    for _ in range(3):
        unknown = client.get("/games/made-up-id", headers=page)
        assert unknown.status_code == 404 and 'data-testid="archived"' not in unknown.get_data(as_text=True)
    assert client.get(f"{API}/made-up-id/replay").status_code == 404
    program = client.get(f"/games/{GOLDEN_ID}")  # Accept: */*: the problem, as before
    assert program.status_code == 404 and program.json["kind"] == "NOT_FOUND"
    assert folder.asked == [GOLDEN_ID, "made-up-id"]


def test_the_missing_ids_are_bounded_and_expire() -> None:
    now = [0.0]
    missing = Forgotten(3, 10.0, clock=lambda: now[0])
    for key in "abcd":
        missing.add(key)
    assert len(missing) == 3 and "a" not in missing and all(k in missing for k in "bcd")
    now[0] = 10.0
    assert "b" not in missing and len(missing) == 2
    empty = Forgotten(1, 1.0)
    assert ArchiveReads(DirectoryArchive(Path("unused")), missing=empty).missing is empty


def test_archive_reads_draw_on_the_callers_budgets(service: GameService, folder: Counting,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_api, "ARCHIVE_READ_COST", 1.0)
    client = _client(service, folder, RATE_LIMIT=600, ANON_RATE_LIMIT=5, WORK_BUDGET=2)
    stranger = _address()
    answers = [client.get(f"{API}/made-up-{n}/replay", environ_base=stranger) for n in range(3)]
    assert [a.status_code for a in answers] == [404, 404, 429]
    assert answers[2].json["kind"] == "WORK_BUDGET"
    assert answers[2].headers["Retry-After"] and folder.asked == ["made-up-0", "made-up-1"]
    assert answers[1].headers["RateLimit-Remaining"] == "3"  # every request counts its window too
    assert client.get(f"{API}/made-up-0/replay", environ_base=stranger).status_code == 404  # remembered: free
    assert client.get(f"{API}/{GOLDEN_ID}/replay", environ_base=stranger).status_code == 429
    refused = client.get(f"{API}/made-up-9/replay", environ_base=stranger)
    assert refused.status_code == 429 and refused.json["kind"] == "RATE_LIMITED"  # the window is spent
    assert folder.asked == ["made-up-0", "made-up-1"]


def test_reads_past_the_process_bound_are_503(service: GameService, folder: Counting,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_api, "ARCHIVE_READ_COST", 1.0)
    release = threading.Event()
    slow = Counting(folder, hold=release)
    client, caller = _client(service, slow, ARCHIVE_READS=1, RATE_LIMIT=600, WORK_BUDGET=2), _address()
    first: list[Any] = []
    reader = threading.Thread(target=lambda: first.append(client.get(f"{API}/{GOLDEN_ID}/replay", environ_base=caller)))
    reader.start()
    try:
        assert slow.entered.wait(30)
        busy = client.get(f"{API}/another-id/replay", environ_base=caller)
        assert busy.status_code == 503 and busy.json["kind"] == "ARCHIVE_BUSY" and busy.headers["Retry-After"]
        assert busy.headers["Content-Type"] == "application/problem+json"
    finally:
        release.set()
        reader.join(30)
    assert first[0].status_code == 200 and first[0].get_data(as_text=True) == GOLDEN
    assert slow.asked == [GOLDEN_ID]
    # the busy answer gave its unit back: the caller's second unit pays for this read
    assert client.get(f"{API}/another-id/replay", environ_base=caller).status_code == 404
    assert client.get(f"{API}/a-third-id/replay", environ_base=caller).json["kind"] == "WORK_BUDGET"
    assert slow.asked == [GOLDEN_ID, "another-id"]


# --- an S3-compatible bucket (moto's server) -------------------------------------------------------

@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    yield from serve_bucket()


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    set_aws_env(monkeypatch, "AKIAARCHIVEREADS", SECRET)


def _s3(endpoint: str, bucket: str) -> S3Archive:
    archive = archive_from_env({"HOURGLASS_ARCHIVE_S3_URL": f"s3://{bucket}/old",
                                "HOURGLASS_ARCHIVE_S3_ENDPOINT": endpoint, "HOURGLASS_ARCHIVE_S3_REGION": "us-east-1"})
    assert isinstance(archive, S3Archive)
    return archive


def test_the_bucket_serves_back_and_a_failing_one_is_503_without_secrets(
        service: GameService, endpoint: str, caplog: pytest.LogCaptureFixture) -> None:
    bucket = _s3(endpoint, "hg-reads")
    bucket.client.create_bucket(Bucket="hg-reads")
    bucket.put(GOLDEN_ID, GOLDEN)
    client, plain = _client(service, bucket), _client(service, None)
    served = client.get(f"{API}/{GOLDEN_ID}/replay")
    assert served.status_code == 200 and served.get_data(as_text=True) == GOLDEN
    assert served.headers["Content-Type"].startswith("application/x-ndjson")
    missing, unknown = client.get(f"{API}/0123456789abcdef/replay"), plain.get(f"{API}/0123456789abcdef/replay")
    assert missing.status_code == 404 and missing.get_data() == unknown.get_data()
    down = _client(service, _s3(f"http://127.0.0.1:{free_port()}", "hg-down"))
    nowhere = _client(service, S3Archive(bucket.client, "hg-no-such-bucket"))
    with caplog.at_level(logging.DEBUG):  # botocore's own debug lines too
        for app_client, kind in ((down, "EndpointConnectionError"), (nowhere, "NoSuchBucket")):
            failed = app_client.get(f"{API}/{GOLDEN_ID}/replay")
            assert failed.status_code == 503 and failed.json["kind"] == "ARCHIVE_UNAVAILABLE" and failed.headers["Retry-After"]
            assert kind not in failed.get_data(as_text=True) and "hg-" not in failed.get_data(as_text=True)
            assert any(kind in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
    assert SECRET not in caplog.text and "Could not connect" not in "".join(
        r.getMessage() for r in caplog.records if r.name.startswith("hourglass"))


def test_the_settings_choose_the_archive_the_workers_write(service: GameService, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    DirectoryArchive(tmp_path).put(GOLDEN_ID, GOLDEN)
    monkeypatch.setenv("HOURGLASS_ARCHIVE_DIR", str(tmp_path))
    client = create_app({"REDIS": service.store.conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0}).test_client()
    assert client.get(f"{API}/{GOLDEN_ID}/replay").get_data(as_text=True) == GOLDEN
    monkeypatch.setenv("HOURGLASS_ARCHIVE_READS", "0")  # the workers archive, the web does not read back
    client = create_app({"REDIS": service.store.conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0}).test_client()
    assert client.get(f"{API}/{GOLDEN_ID}/replay").status_code == 404
    monkeypatch.setenv("HOURGLASS_ARCHIVE_READS", "2")
    monkeypatch.setenv("HOURGLASS_ARCHIVE_S3_URL", "s3://bucket")  # both: refused, logged, served without
    client = create_app({"REDIS": service.store.conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0}).test_client()
    assert client.get(f"{API}/{GOLDEN_ID}/replay").status_code == 404


# --- hourglass replay compact ----------------------------------------------------------------------

def test_the_cli_makes_one_archive_and_a_failing_one_is_a_message(
        service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games = [play_to_end(service, "classic", 2, seed=f"reads-cli-{n}-{uuid.uuid4().hex[:6]}") for n in range(2)]
    service.created.extend(games)  # type: ignore[attr-defined]
    (tmp_path / "taken").write_text("a file where the directory should be")
    monkeypatch.setenv("HOURGLASS_ARCHIVE_DIR", str(tmp_path / "taken"))
    said, errors = io.StringIO(), io.StringIO()
    assert replay_cli(["compact", *games], stdout=said, stderr=errors, conn=service.store.conn) == 1
    assert errors.getvalue().startswith(f"{games[0]}: not compacted, the archive could not take its bundle (could not put ")
    assert errors.getvalue().endswith("1 more not tried\n") and "Traceback" not in errors.getvalue()
    made: list[Any] = []
    real = replays.compaction.archive_from_env
    monkeypatch.setattr(replays.compaction, "archive_from_env", lambda: made.append(1) or real())
    monkeypatch.setenv("HOURGLASS_ARCHIVE_DIR", str(tmp_path / "bundles"))
    assert replay_cli(["compact", *games], stdout=said, stderr=errors, conn=service.store.conn) == 0
    assert made == [1] and sorted(p.name for p in (tmp_path / "bundles").iterdir()) == \
        sorted(f"{g}.hourglass-replay.jsonl" for g in games)
    monkeypatch.setenv("HOURGLASS_ARCHIVE_S3_URL", "s3://bucket")
    errors = io.StringIO()
    assert replay_cli(["compact", games[0]], stdout=said, stderr=errors, conn=service.store.conn) == 2
    assert errors.getvalue().startswith("cannot use the archive: ")


# --- hourglass serve ------------------------------------------------------------------------------

def test_hourglass_serve_answers_from_the_archive_directory(tmp_path: Path) -> None:
    from tests.hardening.conftest import PATIENCE_S, serving

    DirectoryArchive(tmp_path / "bundles").put(GOLDEN_ID, GOLDEN)
    with serving(tmp_path, {"HOURGLASS_ARCHIVE_DIR": str(tmp_path / "bundles")}) as up:
        served = requests.get(f"{up.base}{API}/{GOLDEN_ID}/replay", timeout=PATIENCE_S)
        assert served.status_code == 200 and served.content == GOLDEN.encode("utf-8")
        assert served.headers["Content-Disposition"] == f'attachment; filename="{GOLDEN_ID}.hourglass-replay.jsonl"'
        unknown = requests.get(f"{up.base}{API}/0123456789abcdef/replay", timeout=PATIENCE_S)
        assert unknown.status_code == 404 and unknown.headers["Content-Type"] == "application/problem+json"
        assert "archive" not in unknown.text.lower()


GREENLETS = """
from gevent import monkey
monkey.patch_all()
import gevent
from replays.archive import ArchiveBusy, ArchiveReads

class Slow:
    def get(self, game_id):
        gevent.sleep(0.2)  # a bucket's answer on its way: other greenlets run meanwhile
        return "bundle"

reads = ArchiveReads(Slow(), at_once=2)

def read(game_id):
    try:
        return reads.get(game_id)
    except ArchiveBusy:
        return "busy"

jobs = [gevent.spawn(read, f"game-{n}") for n in range(5)]
gevent.joinall(jobs, timeout=10)
print(sorted(job.value for job in jobs), reads.get("game-9"))
"""


def test_the_read_slots_are_a_gevent_workers_greenlets() -> None:
    done = subprocess.run([sys.executable, "-c", GREENLETS], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['bundle',", "'bundle',", "'busy',", "'busy',", "'busy']", "bundle"]
