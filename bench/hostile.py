"""Hostile strangers against ``hourglass serve``: what each attack of issue 22 gets, and what it
costs a seat holder elsewhere.

    python bench/hostile.py [--url http://127.0.0.1:8000] [--samples 200] [--scale 1]

Without ``--url`` it starts ``hourglass serve`` with its default settings on a private
redis-server (needs the binary) and stops both at the end. A seat holder (a game of its own, its
own address) reads ``GET /state`` over and over: first alone (the baseline, measured in the same
run), then while each attack of ``tests/hardening/hostile.py`` runs from addresses of its own.
Prints, per attack, what the attacker got (status counts) and the seat holder's p50/p99 next to
the baseline and their ratio (issue 22's target: within 2x). Never asserts timings.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hardening import hostile  # noqa: E402
from tests.live import free_port, wait_until_serving  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sample(holder: Iterator[float], stop: threading.Event, limit: int) -> list[float]:
    found: list[float] = []
    while not stop.is_set() and len(found) < limit:
        found.append(next(holder))
    return found


def during(holder: Iterator[float], attack: Callable[[], Any], samples: int) -> tuple[Any, list[float]]:
    """Run ``attack`` in a thread while the seat holder samples (at least a few samples, then until
    the attack ends or ``samples`` are in)."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = attack()
        except Exception as exc:  # the attack's own failure is part of the report
            outcome["value"] = f"{type(exc).__name__}: {exc}"
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    latencies = sample(holder, done, samples)
    thread.join()
    return outcome.get("value"), latencies


def summary(value: Any) -> str:
    if isinstance(value, tuple):
        value = value[0]
    if isinstance(value, list):
        return " ".join(f"{code}x{n}" for code, n in sorted(Counter(a.status for a in value).items()))
    if isinstance(value, dict) and "answers" in value:
        return " ".join(str(a.status) for a in value["answers"]) + f" (anonymous {value['anonymous'].status})"
    if isinstance(value, dict) and "aborts" in value:
        still = sum(g["status"] == "open" for g in value["after"])
        return f"{len(value['aborts'])} join+abort, {still} of {len(value['games'])} games still open"
    if isinstance(value, dict):
        return " ".join(f"{k}:{a.status}" for k, a in value.items())
    return str(value)


def attacks(base: str, scale: int) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("Bearer x flood", lambda: hostile.bearer_flood(base, 300 + 300 * scale)),
        ("3 seat tokens, 1 address", lambda: hostile.seat_token_flood(base, 600 + 300 * scale)),
        ("join + abort the lobby", lambda: hostile.empty_the_lobby(base, 10 * scale)),
        ("bot stream from the future", lambda: hostile.bot_stream_from_the_future(base)),
        ("tournament factory", lambda: hostile.tournament_factory(base, tournaments=4 + 4 * scale)),
    ]


def serve() -> tuple[str, Callable[[], None]]:
    if shutil.which("redis-server") is None:
        sys.exit("bench/hostile.py: needs redis-server on PATH (or --url of a running server)")
    directory = tempfile.mkdtemp(prefix="hostile-bench-")
    redis_port, port = free_port(), free_port()
    redis_proc = subprocess.Popen(["redis-server", "--port", str(redis_port), "--save", "", "--appendonly", "no",
                                   "--dir", directory], stdout=subprocess.DEVNULL, start_new_session=True)
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0", "HOURGLASS_VAR": directory}
    log = open(Path(directory) / "serve.log", "wb")  # noqa: SIM115 (kept open for the child's life)
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    wait_until_serving(base, proc)

    def stop() -> None:
        for child in (proc, redis_proc):
            child.terminate()
            child.wait(timeout=30)
        shutil.rmtree(directory, ignore_errors=True)

    return base, stop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start hourglass serve on a private Redis)")
    parser.add_argument("--samples", type=int, default=200, help="seat-holder reads for the baseline")
    parser.add_argument("--scale", type=int, default=1, help="multiply the attacks' sizes")
    args = parser.parse_args()
    base, stop = (args.url, lambda: None) if args.url else serve()
    try:
        holder = hostile.seat_holder(base)
        for _ in range(20):  # warm up: the process caches, the connection
            next(holder)
        idle = [next(holder) for _ in range(args.samples)]
        p50, p99 = percentile(idle, 0.5), percentile(idle, 0.99)
        print(f"seat holder GET /state alone: p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms "
              f"({len(idle)} reads; the baseline)")
        print(f"{'attack':<28} {'what the attacker got':<46} {'p50 ms':>8} {'p99 ms':>8} {'p50 x':>6} {'p99 x':>6}")
        for label, attack in attacks(base, args.scale):
            outcome, latencies = during(holder, attack, args.samples * 10)
            if not latencies:
                latencies = [next(holder)]
            a50, a99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
            print(f"{label:<28} {summary(outcome)[:46]:<46} {a50 * 1000:8.2f} {a99 * 1000:8.2f} "
                  f"{a50 / p50:6.2f} {a99 / p99:6.2f}   ({len(latencies)} reads, "
                  f"mean {statistics.fmean(latencies) * 1000:.2f} ms)")
    finally:
        stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
