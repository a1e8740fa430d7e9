"""Games played through the real GameService on the shared Redis (random game ids, cleaned up)."""
from __future__ import annotations

import os
import random
from typing import Any

from core.games import GameService
from domain.core import SYSTEM
from tests.conftest import forget_games
from tests.replays.replay_helpers import pick

REDIS_URL = os.environ["HOURGLASS_TEST_REDIS_URL"]  # settled by tests/conftest.py


def create(service: GameService, edition: str = "classic", players: int = 2, seed: str = "redis-replay") -> str:
    body = {"game": "orleans", "edition": edition, "seed": seed,
            "seats": [{"name": f"Bot {i}", "kind": "bot", "bot": "greedy"} for i in range(players)]}
    return service.create(body)["id"]


def advance(service: GameService, game_id: str, chooser: random.Random, max_commands: int | None = None) -> int:
    """Apply greedy-bot moves (SYSTEM first); stop at the end or after ``max_commands``."""
    applied = 0
    while max_commands is None or applied < max_commands:
        game = service.load(game_id)
        if game.finished:
            break
        actor = SYSTEM if SYSTEM in game.to_act else min(game.to_act)
        command = pick(game.rules, game.state, actor, game.info.seed, game_id, game.version, chooser)
        service.apply(game_id, actor, command, expected_version=game.version)
        applied += 1
    return applied


def play_to_end(service: GameService, edition: str = "classic", players: int = 2, seed: str = "redis-replay") -> str:
    game_id = create(service, edition, players, seed)
    advance(service, game_id, random.Random(seed))
    return game_id


def cleanup(service: GameService, game_ids: list[Any]) -> None:
    forget_games(service.store.conn, game_ids)
