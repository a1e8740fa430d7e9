"""The chaos run: randomised operations against a live service while workers and Redis are killed.

Everything runs on loopback: a durable private redis-server (append-only, fsync always), ``hourglass
serve --no-worker`` (gunicorn, 2 processes) and two ``hourglass worker`` processes. ``ops``
operations are drawn from a seeded rng and run by ``threads`` client threads:

- ``move``: a human seat posts one of its legal moves, with or without If-Match and with or
  without an Idempotency-Key; a lost answer (503, reset) is retried with the same key, or, without
  one, counted as an unknown attempt;
- ``drop``: the same move sent on a raw socket that is closed before the answer, then retried
  with its key until answered;
- ``race``: two threads post the same move with the same key at once;
- ``job``: a duplicate ``advance`` job, or one for an old version, or a late clock ``timeout``;
- ``create`` (human and bot seats, or bots only) and ``read`` (every read endpoint, as a seat or
  a spectator, checked for other seats' tokens).

Faults interleave: a worker and its whole process tree SIGKILLed (a fresh one started), and
Redis SIGKILLed and started again from its append-only file. At the end, once every game has
settled, every stream is checked: seqs 1..n, the hash chain, one result per Idempotency-Key, every
acknowledged move exactly once at the seqs it was acknowledged with, and no human batch that no
request can account for. :class:`Report` holds the counts.
"""
from __future__ import annotations

import json
import random
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import redis
import requests
from rq import Queue
from rq.serializers import JSONSerializer

from core.games import GameService
from core.store import EventStore, verify_chain
from tests.hardening.conftest import PATIENCE_S, Children, RedisServer, free_port, wait_until
from workers.enqueue import enqueue_advance
from workers.policy import next_actor

HUMANS = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Robo", "kind": "bot", "bot": "random"}]
BOTS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "R2", "kind": "bot", "bot": "greedy"}]
LIVE_GAMES = 10  # human games kept going (a finished one is replaced)
BOT_GAMES = 2  # bot-only games at most at once: each is ~500 worker steps
WEIGHTS = {"move": 50, "drop": 8, "race": 5, "job": 8, "create": 4, "read": 25}


@dataclass
class Ack:
    game: str
    seat: int
    key: str | None
    command: dict[str, Any]
    first: int
    last: int


@dataclass
class Report:
    operations: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    leaks: int = 0
    recoveries: list[tuple[str, float]] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    unknown: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)  # key-less, outcome lost
    key_results: dict[str, set[tuple[int, int]]] = field(default_factory=dict)
    games_checked: int = 0
    events_checked: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def fail(self, text: str) -> None:
        with self.lock:
            self.failures.append(text)

    def lines(self) -> list[str]:
        recover = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.recoveries) or "none"
        return [f"chaos: {sum(self.operations.values())} operations ({dict(sorted(self.operations.items()))})",
                f"chaos: HTTP statuses {dict(sorted(self.statuses.items()))}",
                f"chaos: {len(self.acks)} acknowledged moves, {len(self.unknown)} key-less attempts with a lost answer",
                f"chaos: {self.games_checked} games, {self.events_checked} events checked (seqs, hash chain, exactly once)",
                f"chaos: failures {len(self.failures)}, leaks {self.leaks}",
                f"chaos: time to recover: {recover}"]


class Chaos:
    def __init__(self, redis_server: RedisServer, children: Children, *, ops: int, seed: int, threads: int = 8,
                 faults: list[tuple[float, str]] | None = None) -> None:
        self.redis, self.children = redis_server, children
        self.ops, self.threads = ops, threads
        self.rng = random.Random(seed)
        self.faults = sorted(faults if faults is not None else [(0.3, "worker"), (0.6, "redis")])
        self.report = Report()
        self.conn = redis.Redis.from_url(redis_server.url, socket_timeout=5, socket_connect_timeout=2)
        self.svc = GameService(self.conn)
        self.games: dict[str, dict[int, str]] = {}  # game id -> human seat tokens
        self.bot_games: set[str] = set()
        self.games_lock = threading.Lock()
        self.started = 0
        self.local = threading.local()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workers: list[Any] = []

    # -- processes ---------------------------------------------------------------------------

    def start(self) -> None:
        env = {"REDIS_URL": self.redis.url, "HOURGLASS_RATE_LIMIT": "0", "HOURGLASS_SWEEP_S": "1",
               "HOURGLASS_CLIENT_SEEDS": "bots-only"}
        self.env = env
        self.children.hourglass("web", "serve", "--no-worker", "--port", str(self.port), "--workers", "2", env=env)
        self.workers = [self.children.hourglass(f"worker-{i}", "worker", env=env) for i in range(2)]
        wait_until(self._api_up, PATIENCE_S, 0.2, "the web to answer")

    def _api_up(self) -> bool:
        try:
            return requests.get(f"{self.base}/api/v1/games/0000000000000000", timeout=3).status_code == 404
        except requests.RequestException:
            return False

    def session(self) -> requests.Session:
        if not hasattr(self.local, "session"):
            self.local.session = requests.Session()
        return self.local.session  # type: ignore[no-any-return]

    # -- the run -----------------------------------------------------------------------------

    def run(self) -> Report:
        self.start()
        for _ in range(LIVE_GAMES):
            self.create(self.rng, bots_only=False)
        fault_thread = threading.Thread(target=self._fault_loop, daemon=True)
        fault_thread.start()
        seeds = [self.rng.random() for _ in range(self.ops)]
        with ThreadPoolExecutor(self.threads) as pool:
            list(pool.map(self._one, seeds))
        fault_thread.join(timeout=120)
        self.settle()
        self.check()
        return self.report

    def _one(self, seed: float) -> None:
        rng = random.Random(seed)
        with self.report.lock:
            self.started += 1
        name = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
        with self.report.lock:
            self.report.operations[name] += 1
        try:
            getattr(self, name)(rng)
        except (requests.RequestException, OSError, redis.RedisError):
            pass  # a fault in progress; what matters is what the store holds at the end
        except Exception as exc:  # a bug in the chaos run or in the service's answers
            self.report.fail(f"{name}: {type(exc).__name__}: {exc}")

    # -- operations ---------------------------------------------------------------------------

    def http(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        response = self.session().request(method, self.base + path, timeout=PATIENCE_S, **kwargs)
        with self.report.lock:
            self.report.statuses[response.status_code] += 1
        if response.status_code >= 500 and response.status_code != 503:
            self.report.fail(f"{method} {path}: {response.status_code} {response.text[:200]}")
        return response

    def create(self, rng: random.Random, bots_only: bool | None = None) -> None:
        """A new game while the population is below its size (a bounded load), else a read."""
        bots = rng.random() < 0.3 if bots_only is None else bots_only
        if bots_only is None and not self._room(bots):
            return self.read(rng)
        body = {"game": "orleans", "edition": rng.choice(["classic", "2023"]), "seats": BOTS if bots else HUMANS}
        response = self.http("POST", "/api/v1/games", json=body)
        if response.status_code == 201:
            tokens = {s["seat"]: s["token"] for s in response.json()["seats"] if "token" in s}
            with self.games_lock:
                if bots:
                    self.bot_games.add(response.json()["id"])
                else:
                    self.games[response.json()["id"]] = tokens
        return None

    def _room(self, bots: bool) -> bool:
        if not bots:
            with self.games_lock:
                return len(self.games) < LIVE_GAMES
        with self.games_lock:
            running = list(self.bot_games)
        for game_id in running:
            if self._safe(lambda g=game_id: self.svc.store.meta_field(g, "status")) != "active":
                with self.games_lock:
                    self.bot_games.discard(game_id)
        with self.games_lock:
            return len(self.bot_games) < BOT_GAMES

    def _human_game(self, rng: random.Random) -> tuple[str, int, str] | None:
        with self.games_lock:
            choices = [(g, s, t) for g, tokens in self.games.items() for s, t in tokens.items()]
        return rng.choice(choices) if choices else None

    def _pick_move(self, rng: random.Random) -> tuple[str, int, str, dict[str, Any], int] | None:
        """A legal move of a human seat to act in a random game (tries every human seat of it)."""
        picked = self._human_game(rng)
        if picked is None:
            return None
        game_id = picked[0]
        with self.games_lock:
            seats = sorted(self.games.get(game_id, {}).items())
        rng.shuffle(seats)
        for seat, token in seats:
            listed = self.http("GET", f"/api/v1/games/{game_id}/moves", headers={"Authorization": f"Bearer {token}"})
            if listed.status_code != 200:
                return None
            body = listed.json()
            if body["moves"]:
                return game_id, seat, token, rng.choice(body["moves"]), body["version"]
        self._maybe_replace(game_id)
        return None

    def _maybe_replace(self, game_id: str) -> None:
        summary = self.http("GET", f"/api/v1/games/{game_id}")
        if summary.status_code == 200 and summary.json()["status"] != "active":
            with self.games_lock:
                if self.games.pop(game_id, None) is not None:
                    self.create(random.Random(game_id), bots_only=False)

    def move(self, rng: random.Random, drop: bool = False) -> None:
        picked = self._pick_move(rng)
        if picked is None:
            return
        game_id, seat, token, move, version = picked
        key = f"chaos-{uuid.uuid4().hex}" if drop or rng.random() < 0.6 else None
        headers = {"Authorization": f"Bearer {token}", **({"Idempotency-Key": key} if key else {}),
                   **({"If-Match": str(version)} if rng.random() < 0.5 else {})}
        if drop:
            self._send_and_drop(game_id, headers, move, rng)
        self._post_until_answered(game_id, seat, key, move, headers, tries=6 if key else 1)

    def drop(self, rng: random.Random) -> None:
        self.move(rng, drop=True)

    def _send_and_drop(self, game_id: str, headers: dict[str, str], move: dict[str, Any], rng: random.Random) -> None:
        body = json.dumps(move).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        raw = (f"POST /api/v1/games/{game_id}/moves HTTP/1.1\r\nHost: chaos\r\n{head}Content-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            sock.sendall(raw)
            time.sleep(rng.random() * 0.02)  # sometimes before the answer, sometimes after it was written

    def _post_until_answered(self, game_id: str, seat: int, key: str | None, move: dict[str, Any],
                             headers: dict[str, str], tries: int) -> None:
        for attempt in range(tries):
            try:
                response = self.http("POST", f"/api/v1/games/{game_id}/moves", json=move, headers=headers)
            except requests.RequestException:
                response = None
            if response is not None and response.status_code != 503:
                self._record(game_id, seat, key, move, response)
                return
            time.sleep(0.2 * (attempt + 1))
        if key is None:
            with self.report.lock:
                self.report.unknown.append((game_id, seat, {**move, "seat": seat}))

    def _record(self, game_id: str, seat: int, key: str | None, move: dict[str, Any], response: requests.Response) -> None:
        if response.status_code != 200:
            if response.status_code not in (409, 412, 422):
                self.report.fail(f"move {move} on {game_id}: {response.status_code} {response.text[:200]}")
            return
        seqs = [e["seq"] for e in response.json()["events"]]
        ack = Ack(game_id, seat, key, {**move, "seat": seat}, min(seqs), max(seqs))
        with self.report.lock:
            self.report.acks.append(ack)
            if key is not None:
                self.report.key_results.setdefault(key, set()).add((ack.first, ack.last))

    def race(self, rng: random.Random) -> None:
        picked = self._pick_move(rng)
        if picked is None:
            return
        game_id, seat, token, move, _ = picked
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"race-{uuid.uuid4().hex}"}
        racers = [threading.Thread(target=self._post_until_answered, args=(game_id, seat, headers["Idempotency-Key"],
                                                                            move, headers, 6)) for _ in range(2)]
        for r in racers:
            r.start()
        for r in racers:
            r.join()

    def job(self, rng: random.Random) -> None:
        with self.games_lock:
            game_ids = list(self.games)
        if not game_ids:
            return
        game_id = rng.choice(game_ids)
        queue = Queue("hourglass", connection=self.conn, serializer=JSONSerializer)
        kind = rng.choice(["duplicate", "old", "timeout"])
        if kind == "duplicate":
            queue.enqueue("workers.jobs.advance", game_id, job_id=f"chaos-{uuid.uuid4().hex}")
        elif kind == "old":
            enqueue_advance(self.conn, game_id, rng.randint(1, 5))
        else:
            queue.enqueue("workers.jobs.timeout", game_id, rng.randint(0, 1), rng.randint(1, 50))

    def read(self, rng: random.Random) -> None:
        picked = self._human_game(rng)
        if picked is None:
            return
        game_id, seat, token = picked
        headers = {"Authorization": f"Bearer {token}"} if rng.random() < 0.7 else {}
        path = rng.choice(["", "/state", "/moves", "/events?after=0", "/states/1"])
        response = self.http("GET", f"/api/v1/games/{game_id}{path}", headers=headers)
        with self.games_lock:
            others = [t for g, tokens in self.games.items() for s, t in tokens.items() if t != token]
        if any(t in response.text for t in others):
            with self.report.lock:
                self.report.leaks += 1

    # -- faults ------------------------------------------------------------------------------

    def _fault_loop(self) -> None:
        for fraction, fault in self.faults:
            wait_until(lambda f=fraction: self.started >= f * self.ops, 1800, 0.05, "the fault's turn")
            try:
                self.kill_worker() if fault == "worker" else self.kill_redis()
            except AssertionError as exc:  # did not recover in time: a failure, and on to the next fault
                self.report.fail(f"{fault} kill: {exc}")

    def kill_worker(self) -> None:
        leased = [g for g in self._live_games() if self._safe(lambda g=g: self.conn.exists(f"hg:{{{g}}}:lease"))]
        at = {g: self._safe(lambda g=g: self.svc.store.version(g)) or 0 for g in leased}
        victim = self.workers.pop(0)
        killed = time.monotonic()
        Children.kill_tree(victim)
        self.workers.append(self.children.hourglass(f"worker-{uuid.uuid4().hex[:6]}", "worker", env=self.env))
        wait_until(lambda: all(self._moved_on(g, v) for g, v in at.items()), 120, 0.2, "games of the killed worker")
        self.report.recoveries.append((f"worker kill ({len(at)} games mid-job)", time.monotonic() - killed))

    def kill_redis(self) -> None:
        self.redis.kill()
        time.sleep(1.5)
        self.redis.start()
        back = time.monotonic()
        wait_until(self._api_up, PATIENCE_S, 0.1, "the API after Redis came back")
        self.report.recoveries.append(("Redis kill: API answers again", time.monotonic() - back))
        canary = self._safe(lambda: self.svc.create({"game": "orleans", "edition": "classic", "seats": BOTS}))
        if canary:  # at the front of the queue: this measures the workers coming back, not the backlog
            Queue("hourglass", connection=self.conn, serializer=JSONSerializer).enqueue(
                "workers.jobs.advance", canary["id"], job_id=f"canary-{uuid.uuid4().hex}", at_front=True)
            wait_until(lambda: (self._safe(lambda: self.svc.store.version(canary["id"])) or 0) > 1, 120, 0.2,
                       "a worker to play again after Redis came back")
            self.report.recoveries.append(("Redis kill: workers play again", time.monotonic() - back))

    def _moved_on(self, game_id: str, version: int) -> bool:
        game = self._safe(lambda: self.svc.load(game_id))
        if game is None:
            return False
        return bool(game.version > version or next_actor(game.rules, game.state, game.info.seats) is None)

    @staticmethod
    def _safe(call: Callable[[], Any]) -> Any:
        try:
            return call()
        except (redis.RedisError, OSError):
            return None

    def _live_games(self) -> list[str]:
        keys = self._safe(lambda: list(self.conn.scan_iter("hg:{*}:events", count=1000))) or []
        return [k.decode().split("{", 1)[1].split("}", 1)[0] for k in keys]

    # -- the end -----------------------------------------------------------------------------

    def settle(self) -> None:
        """Every game played as far as machines can take it (bots, SYSTEM), by the workers alone."""
        def settled() -> bool:
            for game_id in self._live_games():
                game = self.svc.load(game_id)
                if not self.svc.flags(game_id)["stuck"] and next_actor(game.rules, game.state, game.info.seats) is not None:
                    return False
            return True

        try:
            wait_until(settled, 180, 0.5, "every game to settle")
        except AssertionError as exc:
            self.report.fail(str(exc))

    def check(self) -> None:
        store = EventStore(self.conn)
        by_range: dict[tuple[str, int], list[Ack]] = {}
        for ack in self.report.acks:
            by_range.setdefault((ack.game, ack.first), []).append(ack)
        for key, results in self.report.key_results.items():
            if len(results) != 1:
                self.report.fail(f"Idempotency-Key {key} answered with different results {sorted(results)}")
        unknown = Counter((g, json.dumps(c, sort_keys=True)) for g, _, c in self.report.unknown)
        for game_id in self._live_games():
            self._check_game(store, game_id, by_range, unknown)
        for (game_id, first), acks in by_range.items():
            keys = {a.key for a in acks}
            if len(acks) > 1 and (None in keys or len(keys) > 1):
                self.report.fail(f"{game_id}: seq {first} acknowledged to {len(acks)} different requests")

    def _check_game(self, store: EventStore, game_id: str, by_range: dict[tuple[str, int], list[Ack]],
                    unknown: Counter[tuple[str, str]]) -> None:
        entries = store.read(game_id)
        self.report.games_checked += 1
        self.report.events_checked += len(entries)
        if [e.seq for e in entries] != list(range(1, len(entries) + 1)):
            self.report.fail(f"{game_id}: seqs are not 1..{len(entries)}")
        try:
            verify_chain(entries)
        except ValueError as exc:
            self.report.fail(f"{game_id}: hash chain: {exc}")
        seen = {e.seq: e for e in entries}
        for (gid, first), acks in by_range.items():
            if gid != game_id:
                continue
            entry = seen.get(first)
            if entry is None or entry.actor != acks[0].seat or entry.command != acks[0].command:
                self.report.fail(f"{game_id}: acknowledged move at seq {first} is not in the stream as acknowledged")
        for e in entries:
            if e.command is None or not isinstance(e.actor, int) or (game_id, e.seq) in by_range:
                continue
            if e.command.get("type") == "ApplyTimeout" or self._is_machine(game_id, e.actor):
                continue
            text = json.dumps(e.command, sort_keys=True)
            if unknown[(game_id, text)] > 0:  # a key-less request whose answer was lost: applied once
                unknown[(game_id, text)] -= 1
            else:
                self.report.fail(f"{game_id}: human batch at seq {e.seq} answers no request ({text})")

    def _is_machine(self, game_id: str, seat: int) -> bool:
        return self.svc.load(game_id).info.seat_kind(seat) != "human"
