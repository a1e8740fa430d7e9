"""What ``GET /api/v1/games/{id}/replay`` costs when it reads the archive (issue 27, the read path).

    REDIS_URL=redis://127.0.0.1:6379/N .venv/bin/python bench/archive_reads.py [--rounds 30] [--players 2]

Plays one finished Orléans game into the Redis of ``REDIS_URL`` (greedy bots), compacts it into a
directory and into a bucket of moto's S3 server (a separate process on 127.0.0.1, so its CPU is
not counted), then times, interleaved round by round, one request through the real Flask app's
test client (``RATE_LIMIT=0``: no budget is charged), CPU and wall in this process:

- **baseline**: the game still in Redis (compacted), and a made-up id without an archive (404);
- the same game once Redis let it go, from the directory and from the bucket (200);
- a made-up id the archive does not hold: a new one each round (the read reaches the archive,
  404), and one already asked (remembered, 404).

Deletes the game at the end. Prints min and median; never asserts a figure. Needs boto3 and
moto[server] (the test extra).
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.archive import moto_endpoint, row, timed  # noqa: E402
from core.connection import get_redis  # noqa: E402
from core.games import GameService  # noqa: E402
from replays.archive import DirectoryArchive, s3_archive  # noqa: E402
from replays.compaction import compact  # noqa: E402
from service.app import create_app  # noqa: E402
from tests.conftest import forget_games  # noqa: E402
from tests.replays.replay_redis import play_to_end  # noqa: E402

API = "/api/v1/games"


def client(conn: Any, archive: Any) -> Any:
    return create_app({"REDIS": conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0, "ARCHIVE": archive}).test_client()


def get(app_client: Any, path: str, status: int) -> Callable[[], object]:
    def action() -> object:
        answer = app_client.get(path)
        assert answer.status_code == status, (path, answer.status_code)
        return answer.get_data()
    return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    conn = get_redis()
    service = GameService(conn)
    game_id = play_to_end(service, "classic", args.players, seed=f"bench-reads-{random.random()}")
    try:
        with moto_endpoint() as endpoint:
            bucket = s3_archive("s3://hg-bench-reads/p", endpoint, "us-east-1")
            bucket.client.create_bucket(Bucket="hg-bench-reads")
            with tempfile.TemporaryDirectory() as tmp:
                folder = DirectoryArchive(Path(tmp))
                assert compact(service.store, game_id, folder).outcome == "ok"
                text = folder.get(game_id)
                assert text is not None
                bucket.put(game_id, text)
                print(f"bundle: {len(text.encode('utf-8')):,} bytes ({args.players}-player Orléans, greedy)")
                run(conn, game_id, folder, bucket, args.rounds)
    finally:
        forget_games(conn, [game_id])


def run(conn: Any, game_id: str, folder: DirectoryArchive, bucket: Any, rounds: int) -> None:
    plain, on_folder, on_bucket = client(conn, None), client(conn, folder), client(conn, bucket)
    replay = f"{API}/{game_id}/replay"
    live = [("baseline: in Redis (compacted)", get(plain, replay, 200)),
            ("baseline: made-up id, no archive", get(plain, f"{API}/made-up/replay", 404))]
    for warm in (on_folder, on_bucket):  # the first read opens the connection
        warm.get(f"{API}/made-up/replay")
    samples: dict[str, list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for name, action in live:
            samples.setdefault(name, []).append(timed(action))
    forget_games(conn, [game_id])  # Redis lets the game go
    gone = [("directory: the game", get(on_folder, replay, 200)),
            ("s3: the game", get(on_bucket, replay, 200)),
            ("directory: made-up id, remembered", get(on_folder, f"{API}/made-up/replay", 404)),
            ("s3: made-up id, remembered", get(on_bucket, f"{API}/made-up/replay", 404))]
    for i in range(rounds):
        for name, action in [*gone, ("directory: made-up id, new", get(on_folder, f"{API}/new-{i}/replay", 404)),
                             ("s3: made-up id, new", get(on_bucket, f"{API}/new-{i}/replay", 404))]:
            samples.setdefault(name, []).append(timed(action))
    for name, found in samples.items():
        print(row(name, found))


if __name__ == "__main__":
    main()
