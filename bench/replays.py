"""Replay benchmark: bundle size per game and verification time per game (prints, never asserts).

    .venv/bin/python bench/replays.py [--games 5] [--repeat 5]

Plays greedy-bot games in-process (the same entries the service stores), builds each bundle and
verifies it ``--repeat`` times; reports bytes, lines and batches per game, and the best and
median verification time, per edition and player count. Issue 5's target for a 4-player game
is < 200 ms (goal 50 ms; issue 14: <= 50 ms). Two baselines from the same run: folding the
game's events without deciding or hashing (how much of the time is the engine itself), and the
best verification time of the same game exported as ``hourglass-replay/1`` (a state hash after
every batch, where later formats hash checkpoints only). A third: the fold from JSON (the bundle's
batch lines parsed and their events decoded and folded, nothing checked), and verify's ratio to it
(issue 27: <= 3 for a 4-player game). The bundle verified is the one export writes, format 4 (every
seat's view-chain head after every batch, re-derived by the verifier as ``hourglass replay verify``
does); ``/3`` is the same game as format 3, without the view chains, for their share. Times are
CPU seconds of this process (a shared machine).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from domain.games import fold, get_game  # noqa: E402
from replays.bundle import FORMAT, FORMAT_1, FORMAT_3, build_bundle  # noqa: E402
from replays.verify import verify_bundle  # noqa: E402
from tests.replays.replay_helpers import play  # noqa: E402

CONFIGS = [("classic", 2), ("classic", 3), ("classic", 4), ("2023", 4), ("2023", 5)]


def timed(fn, repeat: int) -> list[float]:
    """CPU seconds of each of ``repeat`` calls (the machine is shared: wall time would count others)."""
    out = []
    for _ in range(repeat):
        started = time.process_time()
        fn()
        out.append(time.process_time() - started)
    return out


def fold_from_json(rules, data: bytes):
    """The floor of a verification: read the bundle's batch lines and fold their events, no checks."""
    state = None
    for line in data.decode("utf-8").splitlines()[1:-1]:
        state = fold(rules, [rules.event_from_json(e["data"]) for e in json.loads(line)["entries"]], state)
    return state


def bench(edition: str, players: int, games: int, repeat: int) -> dict[str, float]:
    rules = get_game("orleans")
    sizes, gz, lines, batches, build, best, median, folds, v1 = [], [], [], [], [], [], [], [], []
    json_folds: list[float] = []
    v3: list[float] = []
    for g in range(games):
        game_id, meta, entries = play(edition, players, f"bench-{g}")
        started = time.perf_counter()
        text = build_bundle(game_id, meta, entries)
        build.append(time.perf_counter() - started)
        data = text.encode("utf-8")
        report = verify_bundle(data)
        assert report.ok, report.describe()  # a broken bundle makes the figures meaningless
        times = timed(lambda data=data: verify_bundle(data), repeat)
        old = build_bundle(game_id, meta, entries, fmt=FORMAT_1).encode("utf-8")
        assert verify_bundle(old).ok
        v1.append(min(timed(lambda old=old: verify_bundle(old), repeat)))
        unviewed = build_bundle(game_id, meta, entries, fmt=FORMAT_3).encode("utf-8")
        assert verify_bundle(unviewed).ok
        v3.append(min(timed(lambda unviewed=unviewed: verify_bundle(unviewed), repeat)))
        events = [rules.event_from_json(e["data"]) for e in entries]
        folds.append(min(timed(lambda events=events: fold(rules, events), repeat)))
        json_folds.append(min(timed(lambda data=data: fold_from_json(rules, data), repeat)))
        sizes.append(len(data))
        gz.append(len(gzip.compress(data)))
        lines.append(text.count("\n"))
        batches.append(report.batches)
        best.append(min(times))
        median.append(statistics.median(times))
    return {"bytes": statistics.mean(sizes), "gzip": statistics.mean(gz), "lines": statistics.mean(lines),
            "batches": statistics.mean(batches), "build_ms": 1000 * statistics.mean(build),
            "verify_best_ms": 1000 * min(best), "verify_median_ms": 1000 * statistics.median(median),
            "fold_ms": 1000 * statistics.mean(folds), "verify_v1_ms": 1000 * min(v1),
            "json_fold_ms": 1000 * statistics.mean(json_folds),
            "ratio": statistics.mean(b / f for b, f in zip(best, json_folds)),
            "verify_v3_ms": 1000 * min(v3), "ratio_v3": statistics.mean(b / f for b, f in zip(v3, json_folds))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"replay bundles ({FORMAT}): {args.games} greedy-bot games per config, verify x{args.repeat};"
          " baselines: fold only, and the same games as hourglass-replay/1 and /3 (no view chains)")
    print(f"load average {os.getloadavg()[0]:.2f}; times are CPU; 'fold JSON': the batch lines parsed and folded, "
          "no check ('verify/fold JSON': the ratio per game, issue 27 asks <= 3 for a 4-player game)")
    print(f"{'config':<12}{'bytes':>10}{'gzip':>9}{'batches':>9}{'build ms':>10}"
          f"{'verify best':>13}{'verify p50':>12}{'fold only':>11}{'/1 best':>10}{'/3 best':>10}{'fold JSON':>11}"
          f"{'verify/fold JSON':>18}{'/3 / fold JSON':>16}")
    for edition, players in CONFIGS:
        r = bench(edition, players, args.games, args.repeat)
        print(f"{edition + ' ' + str(players) + 'p':<12}{r['bytes']:>10,.0f}{r['gzip']:>9,.0f}{r['batches']:>9.0f}"
              f"{r['build_ms']:>10.1f}{r['verify_best_ms']:>11.1f}ms{r['verify_median_ms']:>10.1f}ms{r['fold_ms']:>9.1f}ms"
              f"{r['verify_v1_ms']:>8.1f}ms{r['verify_v3_ms']:>8.1f}ms{r['json_fold_ms']:>9.1f}ms{r['ratio']:>17.2f}x"
              f"{r['ratio_v3']:>15.2f}x")


if __name__ == "__main__":
    main()
