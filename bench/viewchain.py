"""What per-seat view hash chains (issue 29, ``core.viewchain``) cost, measured in one run.

For finished Orléans games between greedy bots (4 seats by default) it times, per batch, with
``time.process_time`` (this process's CPU):

- ``fold``: folding the batch's events and noting its head (what the serving path did before);
- ``fold+heads``: the same and every seat's view-chain head advanced over the seat's view of the
  batch's events (what it does now: ``core.repository.GameRepository.folded`` and
  ``core.commands`` after a decide);
- ``fold+state``: the design not taken, the fold and a chain over every seat's state view
  (``rules.view``, what ``GET .../state`` serves) after every batch;
- ``verify 3`` / ``verify 4``: verifying the game's bundle in format 3 and in format 4 (which
  re-derives every seat's view after every batch).

Prints medians over ``--repeat`` runs of each game, and the ratio to the baseline measured in the
same run. Never asserts timings. Usage: ``python bench/viewchain.py [--games 2] [--players 4]``.
"""
from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import (
    table,  # noqa: E402
    viewchain,  # noqa: E402
)
from domain.canonical import canonical_bytes  # noqa: E402
from domain.games import get_game  # noqa: E402
from replays.bundle import FORMAT, FORMAT_3, build_bundle  # noqa: E402
from replays.entries import event_json, split_batches  # noqa: E402
from replays.verify import verify_bundle  # noqa: E402
from tests.replays.replay_helpers import play  # noqa: E402


def cpu(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def fold_game(batches: list[list[dict]], seats: int, heads: str) -> None:
    rules = get_game("orleans")
    state, tbl, chain = None, table.EMPTY, viewchain.genesis_heads(seats)
    for batch in batches:
        state, tbl = table.fold(rules, (event_json(e) for e in batch), state, tbl)
        tbl = table.note(tbl, batch[0]["actor"], batch[0]["command"], batch[0].get("meta"))
        if heads == "events":
            chain = viewchain.advance_all(rules, chain, batch[-1]["seq"], [event_json(e) for e in batch])
        elif heads == "state":
            chain = tuple(hashlib.sha256(bytes.fromhex(h) + canonical_bytes(rules.view(state, s))).hexdigest()
                          for s, h in enumerate(chain))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows: dict[str, list[float]] = {"fold": [], "fold+heads": [], "fold+state": [], "verify 3": [], "verify 4": []}
    count = 0
    for n in range(args.games):
        game_id, meta, entries = play("classic", args.players, f"viewchain-bench-{n}")
        batches = split_batches(entries)
        count += len(batches)
        for name, heads in (("fold", ""), ("fold+heads", "events"), ("fold+state", "state")):
            rows[name].append(cpu(partial(fold_game, batches, args.players, heads), args.repeat))
        three, four = build_bundle(game_id, meta, entries, fmt=FORMAT_3), build_bundle(game_id, meta, entries, fmt=FORMAT)
        rows["verify 3"].append(cpu(partial(verify_bundle, three), args.repeat))
        rows["verify 4"].append(cpu(partial(verify_bundle, four), args.repeat))
        print(f"game {n}: {len(batches)} batches, bundle {len(three)} -> {len(four)} bytes (format 3 -> 4)")
    per = {k: sum(v) / count * 1e6 for k, v in rows.items()}
    print(f"{args.games} games, {args.players} seats, {count} batches; CPU per batch (median of {args.repeat}):")
    for name, base in (("fold", "fold"), ("fold+heads", "fold"), ("fold+state", "fold"), ("verify 3", "verify 3"),
                       ("verify 4", "verify 3")):
        print(f"  {name:<11} {per[name]:8.1f} us   x{per[name] / per[base]:.2f} of {base}")
    print(f"  heads alone {per['fold+heads'] - per['fold']:8.1f} us per batch "
          f"({(per['fold+heads'] - per['fold']) / args.players:.1f} us per seat)")


if __name__ == "__main__":
    main()
