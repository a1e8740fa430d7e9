"""Helpers for tests that start real servers as child processes: a free port, and a bounded
wait until the server answers HTTP (a busy CI machine may accept connections well before the
app has loaded, so read timeouts are waited out too, not only refused connections)."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import requests

START_TIMEOUT_S = 60.0
# The cap on one exchange with a server that a test started, or on a wait for something it does.
# Generous: under load (load average 10-20) a gunicorn worker started again after a crash spends
# 5.6-7.7 s importing the app before it answers. A wait returns as soon as its answer or event
# comes, so a healthy run never spends it; only a server that never answers does.
PATIENCE_S = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_serving(base: str, proc: subprocess.Popen[bytes], path: str = "/openapi.json",
                       timeout: float = START_TIMEOUT_S) -> None:
    """Return once ``base + path`` answers; fail if ``proc`` exits or ``timeout`` passes first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            requests.get(f"{base}{path}", timeout=2)
            return
        except requests.RequestException:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited with code {proc.returncode} before answering") from None
            if time.monotonic() > deadline:
                raise AssertionError(f"{base} did not answer within {timeout:.0f} s") from None
            time.sleep(0.1)


def open_sockets(pid: int) -> int:
    """How many sockets process ``pid`` holds (Linux /proc); a descriptor closed while they are
    counted is skipped."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except FileNotFoundError:
            continue
    return count
