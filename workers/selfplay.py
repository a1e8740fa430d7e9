"""In-process self-play: the same decisions as ``workers.jobs.advance``, without Redis or RQ.

Used as the reference a worker-driven game must equal (same seed, same game id → same commands,
same result) and as the baseline in ``bench/workers.py``.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.seats import SeatSpec
from domain.core import GameRules
from domain.games import fold, step
from domain.rng import Rng
from workers.policy import decide_builtin, next_actor


@dataclass
class SelfPlay:
    state: Any
    version: int
    commands: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)  # (actor, command JSON)
    move_seconds: list[float] = field(default_factory=list)  # wall time per batch


def play(rules: GameRules, config_json: Mapping[str, Any], seed: bytes, game_id: str,
         seats: Sequence[Mapping[str, Any]], max_batches: int = 100_000) -> SelfPlay:
    """Play a game whose every seat is a built-in bot, from set-up to the end (``seats`` as a game's
    create request gives them: ``{"kind": "bot", "bot": ...}``)."""
    specs = [SeatSpec.from_json({"name": f"Seat {i}", **s}) for i, s in enumerate(seats)]
    config = rules.config_from_json(dict(config_json))
    events = rules.setup(config, Rng(seed, game_id, 0))
    game = SelfPlay(fold(rules, events), len(events))
    for _ in range(max_batches):
        started = time.perf_counter()
        actor = next_actor(rules, game.state, specs)
        if actor is None:
            break
        decision = decide_builtin(rules, game.state, actor, specs, seed, game_id, game.version)
        rng = Rng(seed, game_id, rules.draw_counter(game.state))
        events, game.state = step(rules, game.state, decision.command, rng)
        game.version += len(events)
        game.commands.append((actor, rules.command_to_json(decision.command)))
        game.move_seconds.append(time.perf_counter() - started)
    return game
