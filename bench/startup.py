"""Start-up benchmark: wall time of ``import service.wsgi`` (the app as gunicorn loads it) in a fresh
interpreter, beside importing flask + redis + rq + gevent in a fresh interpreter, measured in the same
run (issue 27: the app's own import should cost at most twice its libraries').

Each sample is one new process; the two commands alternate, so a busy machine slows both alike.
Our modules' bytecode is cached as an installed package's is (the libraries' wheels were compiled at
install): in a temporary ``PYTHONPYCACHEPREFIX`` written by a warm-up run, never in the checkout;
``--compile`` instead compiles our sources in every sample (``PYTHONDONTWRITEBYTECODE=1``, no cache,
as in a checkout run with that variable set). Prints the medians, their ratio, and the load average.
``--root`` times another checkout's code, e.g. main's, with this interpreter:

    REDIS_URL=redis://127.0.0.1:6379/0 python bench/startup.py [--samples 15] [--root /work/main]

Also prints which of the games' rules packages ``import service.wsgi`` left imported (none: a game
is imported when a request first needs it). Never asserts timings.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE = "import flask, redis, rq, gevent"
APP = "import service.wsgi"
PROBE = ("import sys, json; print(json.dumps(sorted(m for m in sys.modules "
         "if m.endswith('.game') and m.startswith('domain.'))))")


def sample(code: str, root: str, env: dict[str, str]) -> float:
    """Seconds for a fresh interpreter to run ``code`` and exit."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=15, help="fresh interpreters per command")
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="the checkout to import")
    parser.add_argument("--compile", action="store_true", help="no bytecode cache for our modules")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hourglass-pycache-") as cache:
        env = {**os.environ, "PYTHONPATH": args.root}
        if args.compile:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        sample(APP, args.root, env)  # the bytecode cache written, the OS's file cache warm for both
        sample(BASELINE, args.root, env)
        app, base, bare = [], [], []
        for _ in range(args.samples):
            app.append(sample(APP, args.root, env))
            base.append(sample(BASELINE, args.root, env))
            bare.append(sample("pass", args.root, env))
    games = json.loads(subprocess.run([sys.executable, "-c", f"{APP}; {PROBE}"], cwd=args.root, env=env,
                                      check=True, capture_output=True, text=True).stdout.splitlines()[-1])
    a, b, c = statistics.median(app), statistics.median(base), statistics.median(bare)
    cached = "our sources compiled in every sample" if args.compile else "bytecode cached"
    print(f"Start-up ({args.root}, {args.samples} fresh interpreters each, alternating, {cached}; medians)")
    print(f"  {APP:<40} {a * 1000:7.0f} ms")
    print(f"  {BASELINE:<40} {b * 1000:7.0f} ms   (baseline)")
    print(f"  {'python -c pass':<40} {c * 1000:7.0f} ms   (the interpreter alone)")
    print(f"  ratio app / baseline = {a / b:.2f}x; without the interpreter's own start "
          f"{(a - c) / (b - c):.2f}x")
    print(f"  games' rules imported by {APP}: {', '.join(games) or 'none'}")
    print(f"  load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
