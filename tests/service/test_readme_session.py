"""The README's curl session runs as written against a live `hourglass serve` (web + worker).

The shell block under "A complete curl session" is extracted verbatim; only the host line is
pointed at this test's port. It runs under ``set -euo pipefail`` and every curl that must
succeed uses ``--fail-with-body``, so any step that answers an error fails the test.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from conftest import REDIS_URL

from tests.conftest import delete_queue, forget_games
from tests.live import PATIENCE_S, free_port, wait_until_serving

ROOT = Path(__file__).parents[2]
HOST_LINE = "H=http://127.0.0.1:8000/api/v1"


def readme_session() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## A complete curl session", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None and HOST_LINE in block.group(1)
    return block.group(1)


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    port, queue = free_port(), f"readme-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "REDIS_URL": REDIS_URL, "HOURGLASS_QUEUE": queue}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "1",
                             "--threads", "4"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, proc)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
        delete_queue(redis.Redis.from_url(REDIS_URL), queue)


@pytest.mark.skipif(shutil.which("curl") is None, reason="the README session needs curl")
def test_the_readme_curl_session_runs_as_written(served: str, conn: redis.Redis) -> None:
    script = "set -euo pipefail\n" + readme_session().replace(HOST_LINE, f"H={served}/api/v1")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=PATIENCE_S)
    created = json.loads(done.stdout.splitlines()[0]) if done.stdout else {}
    try:
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert created["game"] == "orleans" and len(created["seed_commitment"]) == 64
        assert '"events":[' in done.stdout and '"version":' in done.stdout
        assert "event: " in done.stdout or "data: " in done.stdout  # the stream printed events
        assert '"reason": "resignation"' in done.stdout and "\ntrue\n" in done.stdout  # resigned; verified
        last_two = done.stdout.splitlines()[-2:]  # the rematch, created then claimed
        assert '"created":true' in last_two[0] and '"created":false' in last_two[1] and '"status":"active"' in last_two[1]
    finally:
        ids = set(re.findall(r'"id":"([0-9a-f]{16})"', done.stdout))
        if created.get("id"):
            forget_games(conn, ids | {created["id"]})
            jobs = list(conn.scan_iter(f"rq:*{created['id']}*", count=1000))
            if jobs:
                conn.delete(*jobs)
