"""The platform around games on a Redis Cluster: a tournament (its stream, the runner's keys and
the leaderboard's WATCH/MULTI on the cluster) and the bot registry (on the plain server). The
tournament is played in this process as tests/platform/test_tournament_core.py plays one."""
from __future__ import annotations

import redis

from core.bots import bot_key, token_sha256
from core.connection import plain_redis
from core.games import GameService
from core.leaderboard import Leaderboard, board_key
from core.tournament_store import TournamentStore, events_key
from replays.tournament import package_from_store, verify_package
from tests.cluster.conftest import Cluster
from tests.platform.test_tournament_core import run_in_process


def test_a_tournament_runs_on_the_cluster_and_its_package_verifies(cluster: Cluster, cconn: redis.Redis,
                                                                  cluster_env: str) -> None:
    svc, store, board = GameService(cconn), TournamentStore(cconn), Leaderboard(cconn)
    spec = {"game": "artificium", "players_per_game": 2, "format": "round_robin", "parallel": 2,
            "entrants": [{"builtin": "random"}, {"builtin": "greedy", "name": "Greedy"}]}
    tid = store.create(spec, svc.bots, board)["id"]
    games: list[str] = []
    try:
        t = run_in_process(cconn, tid)
        games = [g.game_id for g in t.games if g.game_id]
        assert len(games) == 2 and all(g.finished for g in t.games)
        owner = cluster.owner(events_key(tid))
        assert cluster.node(owner).xlen(events_key(tid)) == len(store.entries(tid))
        report = verify_package(package_from_store(cconn, tid))  # built from the cluster's streams
        assert report.ok and report.games == 2, report.describe()
        assert board.apply(t) is False  # applied once, by the runner, in one MULTI on the cluster
        rows = {row["key"]: row for row in board.entries("artificium", t.settings.edition)}
        assert rows["builtin:greedy"]["tournaments"] >= 1
        assert cluster.node(cluster.owner(board_key("artificium", t.settings.edition))).exists(
            board_key("artificium", t.settings.edition))
    finally:
        store.delete([tid])
        svc.store.delete(games)


def test_the_bot_registry_lives_on_the_plain_server(cluster: Cluster, cconn: redis.Redis, cluster_env: str) -> None:
    svc = GameService(cconn)
    made = svc.bots.register("ClusterPullBot", "pull")
    bot_id = made["id"]
    try:
        assert svc.bots.bot_for_token(made["token"]) == bot_id
        plain = plain_redis(cconn)
        assert plain.exists(bot_key(bot_id))
        assert plain.hget("hg:bots:tokens", token_sha256(made["token"])) == bot_id.encode()
        assert plain.hget("hg:bots:names", "clusterpullbot") == bot_id.encode()
        for key in (bot_key(bot_id), "hg:bots:names", "hg:bots:tokens", "hg:bots:all"):
            assert not cluster.node(cluster.owner(key)).exists(key), key
        svc.feed.publish(bot_id, "hello", {"n": 1})
        assert plain.xlen(f"{bot_key(bot_id)}:events") == 1
    finally:
        svc.bots.delete([bot_id])
    assert not plain_redis(cconn).exists(bot_key(bot_id), f"{bot_key(bot_id)}:events")
