"""Shared by the ladder tests: ladders are named by game and player count, so each test starts and
ends with none, and the games the matchmaker started are forgotten with them."""
from __future__ import annotations

import redis

from core.ladder import LADDERS_KEY
from tests.conftest import forget_games


def wipe_ladders(conn: redis.Redis) -> None:
    games: list[str] = []
    for key in conn.scan_iter(match="hg:ladder:*", count=1000):
        if key.endswith((b":live", b":game")):
            games += [g.decode() for g in conn.hkeys(key)]
    forget_games(conn, games)
    keys = list(conn.scan_iter(match="hg:ladder:*", count=1000)) + list(conn.scan_iter(match="hg:{ladder}*"))
    if keys:
        conn.delete(*keys)
    conn.delete(LADDERS_KEY)
