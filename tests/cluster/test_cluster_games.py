"""Games on a real 3-master Redis Cluster, the RQ queues on the plain test Redis.

A bot game runs to its end through ``hourglass worker`` processes (``workers.cli``, the forking
RQ worker) that take jobs from the plain server and append to the cluster; a human game is
played over HTTP through the real app (rate limits on, Idempotency-Key and If-Match used) with
the SYSTEM steps run by an in-process worker from the same queue. Both games' events must be on
the master that owns their hash tag, verify as a hash chain and as a replay bundle, and nothing
of a game may land on the plain server, nor anything of RQ on the cluster.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from core.connection import ClusterWithoutQueue, connect, is_cluster, plain_redis
from core.games import GameService
from core.store import EventStore, events_key, verify_chain
from replays.verify import verify_bundle
from service.app import create_app
from tests.cluster.conftest import Cluster
from workers import lanes
from workers.enqueue import enqueue_advance, queue

ROOT = Path(__file__).resolve().parents[2]
BOTS = [{"name": f"R{i}", "kind": "bot", "bot": "random"} for i in range(4)]


def _keys(node: redis.Redis, pattern: str) -> list[bytes]:
    return list(node.scan_iter(match=pattern, count=1000))


def assert_on_cluster(cluster: Cluster, cconn: redis.Redis, plain: redis.Redis, game_id: str) -> list[Any]:
    """The game's events are on the master that owns ``{<id>}`` and nowhere else; they chain."""
    owner = cluster.owner(events_key(game_id))
    for port in cluster.ports:
        on_node = _keys(cluster.node(port), f"hg:{{{game_id}}}:*")
        assert bool(on_node) == (port == owner), (port, owner, on_node)
    assert cluster.node(owner).xlen(events_key(game_id)) > 0
    assert not _keys(plain, f"hg:{{{game_id}}}:*"), "a game key landed on the queue server"
    entries = EventStore(cconn).read(game_id)
    verify_chain(entries)
    return entries


def assert_no_rq_on_cluster(cluster: Cluster, queue_name: str) -> None:
    for port in cluster.ports:
        assert not _keys(cluster.node(port), "rq:*"), f"RQ keys on cluster node {port}"


def test_a_cluster_client_without_a_queue_server_is_refused(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOURGLASS_QUEUE_URL", raising=False)
    client = connect(cluster.url)
    assert is_cluster(client)
    with pytest.raises(ClusterWithoutQueue, match="HOURGLASS_QUEUE_URL"):
        plain_redis(client)


def test_bot_game_through_worker_processes(cluster: Cluster, cconn: redis.Redis, conn: redis.Redis,
                                           cluster_env: str) -> None:
    svc = GameService(cconn)
    game_id = svc.create({"game": "orleans", "edition": "classic", "seats": BOTS, "seed": "cluster-bots"})["id"]
    try:
        enqueue_advance(cconn, game_id, svc.load(game_id).version)
        assert queue(cconn).connection is plain_redis(cconn) and len(queue(cconn, cluster_env + "-now")) == 1
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        worker = [sys.executable, "-m", "workers.cli", "--burst", "--logging-level", "WARNING"]
        for _ in range(6):  # each job appends up to 500 batches, then queues the rest as a new job
            subprocess.run(worker, cwd=ROOT, env=env, check=True, timeout=120)
            if svc.load(game_id).finished:
                break
        game = svc.load(game_id)
        assert game.finished and game.result is not None
        entries = assert_on_cluster(cluster, cconn, conn, game_id)
        assert len(entries) == game.version > 500
        assert_no_rq_on_cluster(cluster, cluster_env)
    finally:
        svc.store.delete([game_id])


def _system_steps(plain: redis.Redis, name: str) -> None:
    SimpleWorker([queue(plain, name + lanes.queue_suffix(lane)) for lane in lanes.QUEUE_LANES], connection=plain,
                 serializer=JSONSerializer).work(burst=True, logging_level="WARNING")


def test_human_game_over_http(cluster: Cluster, cconn: redis.Redis, conn: redis.Redis, cluster_env: str) -> None:
    # the limits stay on (their windows are written on both servers) but far above one game's pace
    app = create_app({"REDIS": cconn, "TESTING": True, "ADVANCE": "rq", "CLIENT_SEEDS": "any",
                      "RATE_LIMIT": 100_000, "ANON_RATE_LIMIT": 100_000})
    client = app.test_client()
    svc: GameService = app.extensions["hourglass"]
    plain = plain_redis(cconn)
    assert plain is not cconn and not is_cluster(plain)
    body = {"game": "orleans", "edition": "classic", "seed": "cluster-humans",
            "seats": [{"name": "Ada"}, {"name": "Bo"}]}
    created = client.post("/api/v1/games", json=body)
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = {s["seat"]: s["token"] for s in created.get_json()["seats"]}
    rng = random.Random(7)
    try:
        posted = replayed = 0
        for _ in range(5_000):
            summary = client.get(f"/api/v1/games/{game_id}").get_json()
            if summary["status"] != "active":
                break
            humans = [a for a in summary["to_act"] if isinstance(a, int)]
            if not humans:  # SYSTEM to act: the web app has queued the job
                _system_steps(plain, cluster_env)
                continue
            seat = rng.choice(humans)
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            listed = client.get(f"/api/v1/games/{game_id}/moves", headers=auth).get_json()
            move = rng.choice(listed["moves"])
            headers = {**auth, "If-Match": str(listed["version"]), "Idempotency-Key": f"m{posted}"}
            answer = client.post(f"/api/v1/games/{game_id}/moves", json=move, headers=headers)
            assert answer.status_code == 200, answer.get_json()
            assert "RateLimit-Remaining" in answer.headers  # the token's window, on the cluster
            posted += 1
            if posted % 50 == 1:  # the same key again: the stored result, not a second move
                again = client.post(f"/api/v1/games/{game_id}/moves", json=move,
                                    headers={**auth, "Idempotency-Key": f"m{posted - 1}"})
                assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
                assert again.get_json()["version"] == answer.get_json()["version"]
                replayed += 1
        game = svc.load(game_id)
        assert game.finished, f"not over after {posted} moves"
        entries = assert_on_cluster(cluster, cconn, conn, game_id)
        events = client.get(f"/api/v1/games/{game_id}/events?after=0").get_json()
        assert len(events["events"]) == len(entries) == game.version
        state = client.get(f"/api/v1/games/{game_id}/state")
        assert state.status_code == 200 and state.headers["ETag"].strip('"W/') == str(game.version)
        bundle = client.get(f"/api/v1/games/{game_id}/replay")
        assert bundle.status_code == 200
        report = verify_bundle(bundle.get_data())
        assert report.ok, report.to_json()
        listing = client.get("/api/v1/games?player=ada").get_json()
        assert game_id in [g["id"] for g in listing["games"]]
        assert replayed >= 1
        assert_no_rq_on_cluster(cluster, cluster_env)
        windows = [k for port in cluster.ports for k in _keys(cluster.node(port), "hg:rl:*")]
        assert windows, "the requesters' windows live on the cluster (a move's counted apart from its append)"
    finally:
        svc.store.delete([game_id])


def test_a_master_down_is_a_503_and_the_game_goes_on_when_it_is_back(cluster: Cluster, cconn: redis.Redis,
                                                                     cluster_env: str) -> None:
    """A game whose master is down answers 503 UNAVAILABLE (never a 500); games on the other
    masters still play; once the node is back the same client serves the game again."""
    app = create_app({"REDIS": cconn, "TESTING": True, "ADVANCE": "off", "CLIENT_SEEDS": "any", "RATE_LIMIT": 0})
    client = app.test_client()
    svc: GameService = app.extensions["hourglass"]
    games: dict[int, str] = {}
    for i in range(200):  # one game on each master
        game_id = svc.create({"game": "orleans", "edition": "classic", "seats": BOTS[:2], "seed": f"down-{i}"})["id"]
        games.setdefault(cluster.owner(events_key(game_id)), game_id)
        if len(games) == len(cluster.ports):
            break
    down, other = cluster.ports[-1], cluster.ports[0]
    svc.repository.forget()  # a cold read: the event store must answer
    try:
        cluster.stop(down)
        answer = client.get(f"/api/v1/games/{games[down]}")
        assert answer.status_code == 503 and answer.get_json()["kind"] == "UNAVAILABLE", answer.get_json()
        assert client.get(f"/api/v1/games/{games[other]}").status_code == 200
    finally:
        cluster.start(down)
    for _ in range(50):  # the client re-reads the slot map after the error
        if client.get(f"/api/v1/games/{games[down]}").status_code == 200:
            break
    assert client.get(f"/api/v1/games/{games[down]}").status_code == 200
    svc.store.delete(list(games.values()))
