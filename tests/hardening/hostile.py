"""A hostile stranger with a short script, as issue 22 measured it: each finding as an attack on a
running hourglass server, from addresses of its own.

Every attack talks HTTP to a real server (``hourglass serve`` with its default settings) from its
own loopback source address (127.0.0.0/8 all reaches the server on 127.0.0.1), so each one is a
separate requester to the server's budgets, exactly as separate machines would be, without any
setting changed. An attack returns what the attacker got (status counts, what changed), never
asserts: ``tests/hardening/test_hostile_clients.py`` asserts, ``bench/hostile.py`` times a seat
holder's ``GET /state`` while each attack runs.
"""
from __future__ import annotations

import http.client
import itertools
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

_SOURCES = itertools.count(random.randrange(1 << 8, 1 << 23))  # another run on the same server: others


def fresh_source() -> str:
    """A loopback address no other attack of this run uses: a requester of its own."""
    n = next(_SOURCES)
    return f"127.{(n >> 16) & 255}.{(n >> 8) & 255}.{(n & 255) or 1}"


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


@dataclass
class Stranger:
    """One client machine: a keep-alive connection from its own source address."""

    base: str
    source: str = field(default_factory=fresh_source)
    token: str | None = None
    timeout_s: float = 30.0
    _conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            parts = urlsplit(self.base)
            self._conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80,
                                                    timeout=self.timeout_s, source_address=(self.source, 0))
        return self._conn

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             raw: bytes | None = None, token: str | None = None) -> Answer:
        sent = {"Accept": "application/json", **(headers or {})}
        bearer = token if token is not None else self.token
        if bearer:
            sent["Authorization"] = f"Bearer {bearer}"
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        for attempt in range(2):  # a keep-alive connection the server closed: once more, afresh
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=sent)
                response = conn.getresponse()
                payload = response.read()
                break
            except (http.client.HTTPException, ConnectionError, BrokenPipeError):
                self.close()
                if attempt:
                    raise
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            parsed: Any = json.loads(payload) if payload else None
        except ValueError:
            parsed = payload[:200]
        return Answer(response.status, parsed, {k.lower(): v for k, v in response.getheaders()})

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def whole_window(needed_s: float = 15.0, length_s: float = 60.0) -> None:
    """Wait, if need be, until the server's fixed request window has ``needed_s`` left, so a flood
    is counted in one window (the windows are aligned to multiples of their length)."""
    left = length_s - time.time() % length_s
    if left < needed_s:
        time.sleep(left + 0.05)


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def statuses(answers: list[Answer]) -> Counter[int]:
    return Counter(a.status for a in answers)


# --- the findings ---------------------------------------------------------------------------------


def sign_up(base: str, prefix: str = "hostile") -> tuple[Stranger, dict[str, Any]]:
    """A stranger with a fresh account (sign-up is open by default) and its key in hand."""
    who = Stranger(base)
    made = who.call("POST", "/api/v1/accounts", {"name": name(prefix)})
    assert made.status == 201, made.body
    who.token = made.body["key"]
    return who, made.body


def tournament_factory(base: str, tournaments: int = 6, bots: int = 12) -> dict[str, Any]:
    """Finding: "tournaments are an unlimited game factory" (25 of 896 games accepted in seconds).

    The stranger signs up, registers ``bots`` pull bots and posts round robins of all of them in
    2-player games (bots·(bots−1) games each), then one without any key."""
    who, account = sign_up(base, "factory")
    ids = []
    for _ in range(bots):
        bot = who.call("POST", "/api/v1/bots", {"name": name("fodder"), "kind": "pull"})
        ids.append(bot.body["id"])
    body = {"game": "artificium", "players_per_game": 2, "entrants": [{"bot_id": i} for i in ids],
            "deadline_s": 0.1, "parallel": 1}
    answers = [who.call("POST", "/api/v1/tournaments", body) for _ in range(tournaments)]
    anonymous = Stranger(base).call("POST", "/api/v1/tournaments", body)
    return {"account": account, "bots": ids, "answers": answers, "anonymous": anonymous,
            "games_each": bots * (bots - 1), "me": who.call("GET", "/api/v1/account").body}


def bearer_flood(base: str, requests: int = 400, path: str = "/api/v1/games") -> list[Answer]:
    """Finding: any ``Authorization: Bearer x`` header skipped the anonymous limit."""
    who = Stranger(base, token="x")
    whole_window()
    return [who.call("GET", path) for _ in range(requests)]


def seat_token_flood(base: str, requests: int = 700) -> tuple[list[Answer], Answer]:
    """Finding: each seat token had its own window (three tokens, three allowances). Returns the
    flood's answers and a seat holder's answer from another address afterwards."""
    who = Stranger(base)
    game = who.call("POST", "/api/v1/games", {"game": "orleans", "edition": "classic",
                                              "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}).body
    tokens = itertools.cycle([s["token"] for s in game["seats"]])
    whole_window()
    flood = [who.call("GET", f"/api/v1/games/{game['id']}/state", token=next(tokens)) for _ in range(requests)]
    elsewhere = Stranger(base).call("GET", f"/api/v1/games/{game['id']}/state", token=game["seats"][0]["token"])
    return flood, elsewhere


def empty_the_lobby(base: str, games: int = 10) -> dict[str, Any]:
    """Finding: join an open seat, then abort — 10 of 10 public open games emptied in 0.37 s."""
    creator = Stranger(base)
    made = []
    for _ in range(games):
        answer = creator.call("POST", "/api/v1/games", {"game": "orleans", "edition": "classic",
                                                        "seats": [{"name": "Host"}, {"kind": "open"}]})
        made.append(answer.body["id"])
    griefer = Stranger(base)
    started = time.monotonic()
    aborted = []
    for game_id in made:
        joined = griefer.call("POST", f"/api/v1/games/{game_id}/seats/1/join", {"name": "Grief"})
        if joined.status == 200:
            aborted.append(griefer.call("POST", f"/api/v1/games/{game_id}/abort", token=joined.body["token"]))
    seconds = time.monotonic() - started
    after = [creator.call("GET", f"/api/v1/games/{g}").body for g in made]
    listed = {g["id"] for g in Stranger(base).call("GET", "/api/v1/games?open=true&limit=100").body["games"]}
    return {"games": made, "aborts": aborted, "after": after, "listed": listed, "seconds": seconds}


def bot_stream_from_the_future(base: str) -> dict[str, Answer]:
    """Finding: a ``Last-Event-ID`` from the future made the bot stream skip everything after it."""
    who, _ = sign_up(base, "future")
    bot = who.call("POST", "/api/v1/bots", {"name": name("seer"), "kind": "pull"}).body
    as_bot = Stranger(base, token=bot["token"])
    future = "99999999999999-0"
    return {"stream": as_bot.call("GET", f"/api/v1/bots/{bot['id']}/events/stream",
                                  headers={"Last-Event-ID": future, "Accept": "text/event-stream"}),
            "pager": as_bot.call("GET", f"/api/v1/bots/{bot['id']}/events?after={future}")}


def seat_holder(base: str, interval_s: float = 0.12) -> Iterator[float]:
    """A seat holder of a game of its own, reading its state again and again, at most one read per
    ``interval_s`` (within its own allowance: 600 a minute): each item is one ``GET /state``'s
    latency in seconds (every answer must be a 200)."""
    who = Stranger(base)
    game = who.call("POST", "/api/v1/games", {"game": "orleans", "edition": "classic",
                                              "seats": [{"name": "Me"}, {"name": "You"}]}).body
    token = game["seats"][0]["token"]
    last = 0.0
    while True:
        time.sleep(max(0.0, last + interval_s - time.perf_counter()))
        started = last = time.perf_counter()
        answer = who.call("GET", f"/api/v1/games/{game['id']}/state", token=token)
        elapsed = time.perf_counter() - started
        if answer.status != 200:
            raise AssertionError(f"the seat holder got {answer.status}: {answer.body}")
        yield elapsed
