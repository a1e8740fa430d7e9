"""What signing costs (issue 29): building and verifying a signed bundle next to an unsigned one
of the same game, in the same run (prints, never asserts).

    .venv/bin/python bench/signing.py [--games 3] [--repeat 5]

Plays greedy-bot Orléans games in-process (classic, 4 players), then for each: the bundle built
unsigned and signed (Ed25519 over the sha256 of the bundle), and verified without a key set (the
signature is not checked) and with one (one more pass of sha256 over the bytes and one Ed25519
verification). Also the seed derivation of a game with seat contributions. Best of ``--repeat``.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.signing import KeySet, Signer  # noqa: E402
from domain.rng import derive_seed  # noqa: E402
from replays.bundle import build_bundle  # noqa: E402
from replays.verify import Signing, verify_bundle  # noqa: E402
from tests.replays.replay_helpers import play  # noqa: E402

AT = "2026-11-27T00:00:00.000Z"


def best(fn: Callable[[], object], repeat: int) -> float:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return min(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    signer = Signer.generate()
    keys = KeySet((signer.public(),))
    rows: dict[str, list[float]] = {k: [] for k in ("build", "build_signed", "verify", "verify_keys", "bytes")}
    for g in range(args.games):
        game_id, meta, entries = play("classic", 4, f"sign-{g}")
        unsigned = build_bundle(game_id, meta, entries)
        signed = build_bundle(game_id, meta, entries, signer=signer, signed_at=AT)
        assert verify_bundle(signed, signing=Signing(keys)).signed_by == signer.key_id
        data = signed.encode("utf-8")
        rows["bytes"].append(len(data))
        rows["build"].append(best(partial(build_bundle, game_id, meta, entries), args.repeat))
        rows["build_signed"].append(best(partial(build_bundle, game_id, meta, entries, signer=signer, signed_at=AT),
                                         args.repeat))
        rows["verify"].append(best(partial(verify_bundle, data), args.repeat))
        rows["verify_keys"].append(best(partial(verify_bundle, data, signing=Signing(keys)), args.repeat))
        assert len(unsigned) < len(signed)
    ms = {k: 1000 * statistics.mean(v) for k, v in rows.items() if k != "bytes"}
    print(f"classic 4p, {args.games} games, best of {args.repeat}; bundle ~{statistics.mean(rows['bytes']) / 1000:.0f} kB")
    print(f"{'':<28}{'baseline ms':>12}{'signed ms':>11}{'ratio':>8}")
    print(f"{'build (unsigned -> signed)':<28}{ms['build']:>12.1f}{ms['build_signed']:>11.1f}"
          f"{ms['build_signed'] / ms['build']:>8.3f}")
    print(f"{'verify (no keys -> keys)':<28}{ms['verify']:>12.1f}{ms['verify_keys']:>11.1f}"
          f"{ms['verify_keys'] / ms['verify']:>8.3f}")
    contributions = ["ab" * 32, None, "cd" * 32, "ef" * 32]
    derive = best(lambda: [derive_seed(b"s" * 32, contributions) for _ in range(1000)], args.repeat)
    print(f"derive_seed (4 seats): {derive * 1000:.1f} us each")


if __name__ == "__main__":
    main()
