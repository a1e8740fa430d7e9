"""The API behind a real gunicorn (threaded workers, 2 processes) on a free loopback port."""
from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import REDIS_URL, run_worker

from service.cli import gunicorn_command
from tests.live import PATIENCE_S, free_port, wait_until_serving

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    command = gunicorn_command("127.0.0.1", port, workers=2, threads=8)
    command[-1] = "toy_wsgi:app"
    command[-1:-1] = ["--pythonpath", f"{ROOT},{ROOT / 'tests' / 'service'}"]
    env = {**os.environ, "REDIS_URL": REDIS_URL, "HOURGLASS_SSE_HEARTBEAT": "0.2"}
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, proc)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_live_game_concurrency_and_retry(server: str, svc: Any, created: list[str]) -> None:
    game = requests.post(f"{server}/api/v1/games", json={"game": "toy", "edition": "classic", "options": {"rounds": 1},
                                                          "seats": [{"name": "A"}, {"name": "B"}]}, timeout=PATIENCE_S)
    assert game.status_code == 201
    gid, (t0, t1) = game.json()["id"], [s["token"] for s in game.json()["seats"]]
    created.append(gid)
    results: list[int] = []
    barrier = threading.Barrier(8)

    def post() -> None:
        barrier.wait()
        r = requests.post(f"{server}/api/v1/games/{gid}/moves", json={"type": "Bid", "bid": 2},
                          headers={"Authorization": f"Bearer {t0}", "If-Match": '"2"'}, timeout=PATIENCE_S)
        results.append(r.status_code)

    threads = [threading.Thread(target=post) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200] + [412] * 7

    headers = {"Authorization": f"Bearer {t1}", "Idempotency-Key": "live-1"}
    move = {"type": "Bid", "bid": 3}
    first = requests.post(f"{server}/api/v1/games/{gid}/moves", json=move, headers=headers, timeout=PATIENCE_S)
    again = requests.post(f"{server}/api/v1/games/{gid}/moves", json=move, headers=headers, timeout=PATIENCE_S)
    assert first.status_code == again.status_code == 200 and first.content == again.content

    run_worker(svc, gid)
    summary = requests.get(f"{server}/api/v1/games/{gid}", timeout=PATIENCE_S).json()
    assert summary["status"] == "finished" and summary["result"]["winners"] == [1]

    with requests.get(f"{server}/api/v1/games/{gid}/events/stream", headers={"Last-Event-ID": "2"},
                      stream=True, timeout=PATIENCE_S) as stream:
        text = "".join(chunk for chunk in stream.iter_content(chunk_size=None, decode_unicode=True))
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert ids == list(range(3, summary["version"] + 1)) and "event: end" in text

    bad = requests.post(f"{server}/api/v1/games/{gid}/moves", data="{", headers={"Content-Type": "application/json",
                        "Authorization": f"Bearer {t0}"}, timeout=PATIENCE_S)
    assert bad.status_code == 400 and bad.headers["Content-Type"] == "application/problem+json"
