"""What recording a settled ladder game in its bots' records costs, now that each bot's write is an
idempotent script (``core.ladder``: it scans the bot's kept games for the game id before appending).

Measured against the baseline of the same run: the plain pipeline of RPUSH/LTRIM per bot that the
record step was before (not idempotent: a retry appended the game twice), on the same bots with
their game lists full (``KEPT_GAMES`` rows each, the worst case of the scan). Prints the median
milliseconds per recorded game (2 seats) for both, and for a retry that finds the game already there.
Never asserts timings. Keys are written under unique bot ids and deleted at the end.

    REDIS_URL=redis://127.0.0.1:6379/6 .venv/bin/python bench/ladder_records.py --games 300
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.bots import bot_key  # noqa: E402
from core.connection import connect, redis_url  # noqa: E402
from core.ladder import KEPT_GAMES, KEPT_POINTS, LadderStore, bot_games_key, bot_history_key  # noqa: E402
from domain.canonical import canonical_json  # noqa: E402


def shown(game_id: str, bots: list[str]) -> dict[str, Any]:
    point = {"mu": 25.0, "sigma": 8.0, "ordinal": 1.0}
    seats = [{"seat": i, "bot_id": b, "name": f"bot{i}", "rank": i + 1, "score": 10 - i, "before": point,
              "after": point, "calls": 40, "ok": 40, "timeout": 0, "error": 0, "moves": 40, "timeouts": 0,
              "defaults": 0, "latency_ms": {"p50": 3.0, "p95": 9.0}} for i, b in enumerate(bots)]
    return {"ladder": "bench-2", "game_id": game_id, "rated": True, "of": 2, "finished": "2026-11-28T00:00:00.000Z",
            "seats": seats}


def baseline(conn: Any, record: dict[str, Any]) -> None:
    """The record step before: one non-transactional pipeline, appending whatever it is given."""
    pipe = conn.pipeline(transaction=False)
    for row in record["seats"]:
        pipe.rpush(bot_games_key(row["bot_id"]), canonical_json({**row, "game_id": record["game_id"]}))
        pipe.ltrim(bot_games_key(row["bot_id"]), -KEPT_GAMES, -1)
        pipe.rpush(bot_history_key(row["bot_id"]), canonical_json({"game_id": record["game_id"], **row["after"]}))
        pipe.ltrim(bot_history_key(row["bot_id"]), -KEPT_POINTS, -1)
    pipe.execute()


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games recorded per variant")
    args = parser.parse_args()
    conn = connect(redis_url())
    store = LadderStore(conn)
    bots = [f"bench{uuid.uuid4().hex[:12]}" for _ in range(2)]
    old_bots = [f"bench{uuid.uuid4().hex[:12]}" for _ in range(2)]
    for b in bots + old_bots:
        conn.hset(bot_key(b), "name", b)  # the script records only bots that exist
    try:
        for i in range(KEPT_GAMES):  # lists full before timing: the scan's worst case
            store._per_bot(shown(f"fill{i}", bots))
            baseline(conn, shown(f"fill{i}", old_bots))
        new, old, again = [], [], []
        for i in range(args.games):
            record = shown(f"g{i:06d}{uuid.uuid4().hex[:6]}", bots)
            started = time.perf_counter()
            store._per_bot(record)
            new.append(time.perf_counter() - started)
            started = time.perf_counter()
            store._per_bot(record)  # a retry: finds it, appends nothing
            again.append(time.perf_counter() - started)
            record = shown(record["game_id"], old_bots)
            started = time.perf_counter()
            baseline(conn, record)
            old.append(time.perf_counter() - started)
        assert all(conn.llen(bot_games_key(b)) == KEPT_GAMES for b in bots)
        print(f"record one 2-seat ladder game, lists full ({KEPT_GAMES} games per bot), {args.games} games, median:")
        print(f"  baseline: pipeline RPUSH/LTRIM (not idempotent)   {median_ms(old):7.3f} ms")
        print(f"  now: idempotent script per bot                   {median_ms(new):7.3f} ms  "
              f"({median_ms(new) / median_ms(old):.2f}x baseline)")
        print(f"  now, a retry that finds the game recorded        {median_ms(again):7.3f} ms  "
              f"({median_ms(again) / median_ms(old):.2f}x baseline)")
    finally:
        for b in bots + old_bots:
            conn.delete(bot_key(b), bot_games_key(b), bot_history_key(b))


if __name__ == "__main__":
    main()
