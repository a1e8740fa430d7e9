"""In-process POST move benchmark: CPU time of one ``POST /api/v1/games/{id}/moves`` through the
Flask test client (no web server, no network but Redis), for comparing two checkouts of the code.

Plays 4-seat classic Orléans games with random legal moves chosen from the game the bench's own
GameService loads (untimed), with the rate limiter on as served (limits no run reaches), appends
SYSTEM steps as a worker would (untimed), and times only the POST with ``time.process_time``
(this process's CPU: the route, the core and the Redis client, not the Redis server). ``--root``
runs another checkout's code with this interpreter, e.g. main's:

    python bench/post_move.py --root /work/main --redis-url redis://127.0.0.1:6379/3 --rounds 5

``--direct`` times the WSGI call itself (``app(environ, start_response)``, the environ built
beforehand by werkzeug's ``EnvironBuilder``, untimed) instead of the test client's whole call,
whose own request building and response wrapping are about a sixth of the figure and as noisy as
the rest. ``--same-games`` draws game ids, tokens and seeds from a seeded generator, so every run
(of either checkout) plays the same games: under callgrind, the instructions of a run with
``--moves 220`` minus one with ``--moves 20`` (``--rounds 1``) are 200 moves' worth whatever the
machine's load, e.g.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/post_move.py \
        --direct --same-games --rounds 1 --moves 220

``--wall`` times each POST by the wall clock instead (``time.perf_counter``): the time a request
takes, Redis's run of the append script and the waits for it included, which the CPU figure leaves
out (work this process does while Redis runs the script shows only here).

Rounds alternate nothing: run it once per checkout in the same session, and compare medians.
Never asserts timings.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import random
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="the checkout to import")
    parser.add_argument("--moves", type=int, default=400, help="timed POSTs per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--direct", action="store_true", help="time the WSGI call, not the test client's")
    parser.add_argument("--same-games", action="store_true", help="seeded ids, tokens and seeds: the same games each run")
    parser.add_argument("--wall", action="store_true", help="time by the wall clock, not this process's CPU")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    if args.same_games:  # every token and seed the service draws (secrets' default: 32 bytes)
        seeded = random.Random(1)

        def same_bytes(n: int | None = None) -> bytes:
            return seeded.randbytes(32 if n is None else n)

        secrets.token_bytes = same_bytes  # type: ignore[assignment]
        secrets.token_hex = lambda n=None: same_bytes(n).hex()  # type: ignore[assignment]
        secrets.token_urlsafe = lambda n=None: base64.urlsafe_b64encode(same_bytes(n)).rstrip(b"=").decode()  # type: ignore[assignment]
    sys.path.insert(0, args.root)
    import redis
    from werkzeug.test import EnvironBuilder

    from core.store import EventStore
    from domain.core import SYSTEM
    from service.app import create_app

    conn = redis.Redis.from_url(args.redis_url)
    # the limiter on, as served (its window is counted inside the append script), with limits no run reaches
    huge = 10**9
    app = create_app({"REDIS": conn, "TESTING": True, "RATE_LIMIT": huge, "ANON_RATE_LIMIT": huge, "WORK_BUDGET": huge,
                      "MAX_LIVE_GAMES_PER_ADDRESS": huge, "MAX_LIVE_GAMES": huge,
                      "ADVANCE": lambda game_id, version: None})
    svc = app.extensions["hourglass"]
    client = app.test_client()
    rng = random.Random(7)
    games: list[str] = []

    def worker_steps(game_id: str) -> Any:
        game = svc.load(game_id)
        while not game.finished:
            if SYSTEM not in game.to_act:
                return game
            game = svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM),
                             expected_version=game.version, idempotency_key=f"advance:{game.version}").game
        return None

    def round_cpu(moves: int) -> list[float]:
        samples: list[float] = []
        while len(samples) < moves:
            response = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic",
                                                          "seats": [{"name": f"P{i}"} for i in range(4)]})
            assert response.status_code == 201, response.get_data(as_text=True)
            created = response.json
            assert created is not None
            games.append(created["id"])
            tokens = {s["seat"]: s["token"] for s in created["seats"]}
            path = f"/api/v1/games/{created['id']}/moves"
            while len(samples) < moves and (game := worker_steps(created["id"])) is not None:
                seat = min(a for a in game.to_act if a != SYSTEM)
                move = game.rules.move_to_json(rng.choice(game.rules.legal_moves(game.state, seat)))
                body = json.dumps(move)
                headers = {"Authorization": f"Bearer {tokens[seat]}", "Content-Type": "application/json"}
                if args.direct:
                    samples.append(direct_cpu(path, body, headers))
                    continue
                t = clock()
                response = client.post(path, data=body, headers=headers)
                samples.append(clock() - t)
                assert response.status_code == 200, response.get_data(as_text=True)
        return samples

    def direct_cpu(path: str, body: str, headers: dict[str, str]) -> float:
        environ = EnvironBuilder(path=path, method="POST", data=body, headers=list(headers.items()),
                                 environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_environ()
        status: list[str] = []

        def start_response(code: str, _headers: Any, _exc: Any = None) -> Any:
            status.append(code)

        t = clock()
        answer = b"".join(app(environ, start_response))
        spent = clock() - t
        assert status[0].startswith("200"), answer
        return spent

    try:
        round_cpu(50)  # warm imports and caches
        medians, means, lows = [], [], []
        for _ in range(args.rounds):
            samples = round_cpu(args.moves)
            medians.append(statistics.median(samples) * 1e6)
            means.append(statistics.fmean(samples) * 1e6)
            lows.append(sorted(samples)[len(samples) // 10] * 1e6)  # the 10th percentile: least disturbed
    finally:
        EventStore(conn).delete(games)
    measured = "wall time" if args.wall else "CPU"
    print(f"POST move, in-process {measured} per request ({args.root}, {args.rounds} rounds x {args.moves} moves)")
    print("  round means  (us): " + " ".join(f"{m:.0f}" for m in means))
    print("  round medians(us): " + " ".join(f"{m:.0f}" for m in medians))
    print(f"  median of round means {statistics.median(means):.0f} us, of round medians {statistics.median(medians):.0f} us, "
          f"of round 10th percentiles {statistics.median(lows):.0f} us (the least disturbed by a busy machine)")


if __name__ == "__main__":
    main()
