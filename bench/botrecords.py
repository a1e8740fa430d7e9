"""What accountable tournaments cost: a seat record per game, the runner's bot records, a record read.

Three figures, each beside a baseline measured in the same run (never asserts timings):

1. **Seat records** (``replays.seatstats``, what the runner computes once per game and the
   package verifier once per bundle) against ``replays.verify.verify_bundle`` on the same
   bundle, for the golden Orléans bundles: as recorded (push and built-in seats: the entry meta
   only) and with seat 0 read as a pull bot (the turns need the game folded).
2. **The runner's record update** after a step (``core.botrecords.BotRecords.update``) for a
   synthetic rules-2 tournament of ``--entrants`` bot entrants and ``--games`` finished games: the
   first write of every bot, one more finished game, and a step that changed no bot's figures;
   Redis commands and milliseconds, against loading and folding the tournament's stream, which
   the runner does every step anyway.
3. **A record read** (``BotRecords.read``, what ``GET /api/v1/bots/{id}/record`` does) against the
   naive alternative: fold every tournament stream the bot is in.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/botrecords.py --entrants 64 --games 400
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core import callstats  # noqa: E402
from core.botrecords import BotRecords, finished_entries, keys  # noqa: E402
from core.connection import connect, redis_url  # noqa: E402
from core.ratings import RatingModel  # noqa: E402
from core.store import GENESIS_HASH, build_entries  # noqa: E402
from core.tournament_store import Loaded, TournamentStore  # noqa: E402
from core.tournaments import Settings, fold  # noqa: E402
from replays.seatstats import seat_stats  # noqa: E402
from replays.verify import verify_bundle  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"


def best_ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def as_pull(bundle: str) -> str:
    lines = bundle.split("\n")
    header = json.loads(lines[0])
    header["seats"][0] = {**header["seats"][0], "kind": "pull"}
    return "\n".join([json.dumps(header), *lines[1:]])


def seat_records(repeat: int) -> None:
    print(f"1. seat records per bundle (best of {repeat}), beside verify_bundle on the same bundle")
    for path in sorted(GOLDEN.glob("orleans-2-bundle-*.jsonl")):
        text = path.read_text(encoding="utf-8")
        pulled = as_pull(text)
        verify = best_ms(lambda text=text: verify_bundle(text), repeat)  # type: ignore[misc]
        meta = best_ms(lambda text=text: seat_stats(text), repeat)  # type: ignore[misc]
        pull = best_ms(lambda pulled=pulled: seat_stats(pulled), repeat)  # type: ignore[misc]
        print(f"   {path.name:40s} verify {verify:8.1f} ms | records {meta:6.1f} ms ({meta / verify:5.1%}) | "
              f"with a pull seat {pull:6.1f} ms ({pull / verify:5.1%})")


def synthetic(tid: str, entrants: int, games: int) -> list[dict[str, Any]]:
    model = RatingModel()
    settings = Settings(tid, "bench", "artificium", None, 2, "swiss", games, 1, 5.0, 4, (1.0, 0.0), "c" * 64, "e",
                        model.describe(), "2026-01-01T00:00:00.000Z", "bench", 2)
    events: list[dict[str, Any]] = [{"type": "TournamentCreated", "settings": settings.to_json()}]
    for n in range(entrants):
        events.append({"type": "EntrantRegistered", "entrant": n, "key": f"bot:b{tid}{n}", "name": f"b{n}",
                       "kind": "http", "bot_id": f"b{tid}{n}", "builtin": None, "mu": 25.0, "sigma": 25 / 3})
    for index in range(games):
        a, b = index % entrants, (index * 7 + 1) % entrants
        b = b if b != a else (a + 1) % entrants
        latencies = [float(5 + (index * s) % 90) for s in range(1, 16)]
        record = {"calls": 15, "ok": 14, "timeout": 1, "error": 0, "moves": 15,
                  "latency_ms": callstats.percentiles(latencies), "hist": callstats.histogram(latencies)}
        events += [{"type": "RoundPaired", "round": index, "games": [{"index": index, "seats": [a, b]}]},
                   {"type": "GameStarted", "index": index, "game_id": f"{tid}g{index:04d}", "seed_commitment": "c"},
                   {"type": "GameFinished", "index": index, "game_id": f"{tid}g{index:04d}", "bundle_sha256": "0" * 64,
                    "final_hash": "h", "departed": [], "ranking": [{"seat": 0, "rank": 1, "score": 1},
                                                                   {"seat": 1, "rank": 2, "score": 0}],
                    "records": [{"seat": 0, **record}, {"seat": 1, **record}]}]
    return events


def commands(conn: Any) -> int:
    return int(conn.info("stats")["total_commands_processed"])


def runner_updates(conn: Any, entrants: int, games: int) -> None:
    tid = "tbench" + uuid.uuid4().hex[:8]
    store = TournamentStore(conn)
    events = synthetic(tid, entrants, games + 1)
    cut = len(events) - 3  # the last game's three events come later
    entries = build_entries(0, GENESIS_HASH, events[:cut], actor="system", time="2026-01-01T00:00:00.000Z",
                            command={"type": "Bench"})
    store._write(tid, 0, entries, {})
    records = BotRecords(conn)
    try:
        def step(loaded: Loaded) -> tuple[float, int, int]:
            before, started = commands(conn), time.perf_counter()
            written = records.update(loaded.tournament, loaded.version, finished_entries(loaded.entries))
            return (time.perf_counter() - started) * 1000, commands(conn) - before - 1, written

        started = time.perf_counter()
        loaded = store.load(tid)
        load_ms = (time.perf_counter() - started) * 1000
        first = step(loaded)
        store.append(tid, loaded, events[cut:])
        loaded = store.load(tid)
        more = step(loaded)
        same = step(loaded)
        print(f"2. the runner's record update, {entrants} bot entrants, {games} finished games "
              f"(baseline: loading and folding the stream, {load_ms:.1f} ms, which every runner step does)")
        for what, (ms, spent, written) in (("first write", first), ("one more game", more), ("nothing new", same)):
            print(f"   {what:14s} {ms:8.1f} ms  {spent:5d} Redis commands  {written:3d} bots written")
        read_cost(conn, loaded, records, load_ms)
    finally:
        store.delete([tid])
        for n in range(entrants):
            conn.delete(*keys(f"b{tid}{n}").values())


def read_cost(conn: Any, loaded: Loaded, records: BotRecords, fold_ms: float) -> None:
    bot_id = loaded.tournament.entrants[0].bot_id or ""
    samples = []
    for _ in range(50):
        before, started = commands(conn), time.perf_counter()
        records.read(bot_id)
        samples.append(((time.perf_counter() - started) * 1000, commands(conn) - before - 1))
    ms = statistics.median(s[0] for s in samples)
    started = time.perf_counter()
    fold(e.data for e in loaded.entries)
    fold_only = (time.perf_counter() - started) * 1000
    print(f"3. a record read: {ms:.2f} ms median, {samples[0][1]} Redis commands, whatever the history; "
          f"baseline: one tournament's stream loaded {fold_ms:.1f} ms (its fold alone {fold_only:.1f} ms), "
          "once per tournament the bot is in")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=64)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    seat_records(args.repeat)
    runner_updates(connect(redis_url()), args.entrants, args.games)


if __name__ == "__main__":
    main()
