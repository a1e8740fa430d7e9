"""What archiving a finished game's bundle costs the compacting worker (issue 27, the archive hook).

    .venv/bin/python bench/archive.py [--rounds 30] [--players 4]

Builds one finished Orléans game's bundle offline (greedy bots, ``tests.replays.replay_helpers``),
then, interleaved round by round, times in this process (CPU and wall, per bundle):

- **baseline**: what compaction pays anyway for that game, ``core.packed.pack`` (zlib 9 and the
  byte-for-byte proof), and the directory archive's ``put`` (a file written and renamed);
- **s3**: ``replays.archive.S3Archive.put`` through boto3 to moto's S3 server, started as a
  separate process on 127.0.0.1 (so its CPU is not counted here), and ``get`` of the same object.

Also the one-off price of building the S3 client (importing boto3), paid once per worker that has
``HOURGLASS_ARCHIVE_S3_URL``, and whether ``import service.wsgi`` loads boto3 (it must not). Prints
min and median; never asserts a figure. Needs the test extra (boto3, moto[server]).
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.packed import pack  # noqa: E402
from replays.archive import DirectoryArchive, S3Archive, s3_archive  # noqa: E402
from tests.replays.replay_helpers import bundle_text  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int, timeout_s: float = 30.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"moto server did not listen on {port}")


@contextmanager
def moto_endpoint() -> Iterator[str]:
    """moto's S3 server as its own process on a free loopback port (its endpoint URL), stopped
    after; boto3 gets placeholder credentials unless the environment has its own."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    try:
        wait_for(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def row(name: str, samples: list[tuple[float, float]]) -> str:
    cpu, wall = [s[0] for s in samples], [s[1] for s in samples]
    return (f"{name:<28} cpu min {min(cpu):7.2f} med {statistics.median(cpu):7.2f} ms   "
            f"wall min {min(wall):7.2f} med {statistics.median(wall):7.2f} ms")


def wsgi_loads_boto3() -> bool:
    code = "import sys, service.wsgi; print(any(m.split('.')[0] in ('boto3', 'botocore') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    return out.stdout.strip().endswith("True")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    text = bundle_text("classic", args.players, seed="bench-archive")
    print(f"bundle: {len(text.encode('utf-8')):,} bytes ({args.players}-player Orléans, greedy)")
    with moto_endpoint() as endpoint:
        build = timed(lambda: s3_archive("s3://hg-bench/p", endpoint, "us-east-1"))
        s3 = s3_archive("s3://hg-bench/p", endpoint, "us-east-1")
        s3.client.create_bucket(Bucket="hg-bench")
        with tempfile.TemporaryDirectory() as tmp:
            run(text, DirectoryArchive(Path(tmp)), s3, args.rounds)
        print(f"S3 client built (boto3 imported) once per worker: cpu {build[0]:.0f} ms, wall {build[1]:.0f} ms")
        print(f"import service.wsgi loads boto3: {wsgi_loads_boto3()}")


def actions(text: str, folder: DirectoryArchive, s3: S3Archive, game_id: str) -> list[Callable[[], object]]:
    return [lambda: pack(text), lambda: folder.put(game_id, text), lambda: s3.put(game_id, text), lambda: s3.get(game_id)]


def run(text: str, folder: DirectoryArchive, s3: S3Archive, rounds: int) -> None:
    names = ("baseline: pack (compaction)", "baseline: directory put", "s3 put", "s3 get")
    samples: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    s3.put("warmup", text)  # the first request opens the connection
    for i in range(rounds):
        for name, action in zip(names, actions(text, folder, s3, f"g{i:04d}")):
            samples[name].append(timed(action))
    for name in names:
        print(row(name, samples[name]))


if __name__ == "__main__":
    main()
