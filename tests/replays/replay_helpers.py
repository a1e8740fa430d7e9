"""Play whole games in-process and store them the way the service does (no Redis needed).

``play(edition, players, seed)`` returns ``(game_id, meta, entries)`` with entries built by
``core.store.build_entries`` — the exact function the service appends with — so a bundle
built from them is what ``GET /replay`` would serve for the same game.
"""
from __future__ import annotations

import random
from functools import cache
from typing import Any

from core.store import build_entries
from domain.bots import bot_rng, get_bot
from domain.canonical import GENESIS_HASH, canonical_json, sha256_hex
from domain.core import SYSTEM, GameRules
from domain.games import fold, get_game
from domain.rng import Rng, seed_commitment, seed_from_text
from replays.bundle import build_bundle

MAX_COMMANDS = 20_000
TIME = "2025-01-01T00:00:00.000Z"


def choose_actor(to_act: frozenset[Any]) -> Any:
    return SYSTEM if SYSTEM in to_act else min(to_act)


def pick(rules: GameRules, state: Any, actor: Any, seed: bytes, game_id: str, version: int,
         chooser: random.Random) -> Any:
    """SYSTEM's one step; seats play domain.bots' greedy bot for Orléans (random bots hardly ever
    complete a place, so bags, actions and the map would stay untested), else a random move."""
    moves = rules.legal_moves(state, actor)
    if actor == SYSTEM:
        return moves[0]
    if rules.name == "orleans":
        return get_bot("greedy")(rules, state, actor, moves, bot_rng(seed, game_id, actor, version))
    return chooser.choice(moves)


def play(edition: str, players: int, seed: str, game_id: str | None = None) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A finished Orléans game between greedy bots."""
    game_id = game_id or "t" + sha256_hex(f"{edition}:{players}:{seed}".encode())[:15]
    return play_rules(get_game("orleans"), {"edition": edition, "players": players}, seed, game_id)


def play_rules(rules: GameRules, config_in: dict[str, Any], seed: str,
               game_id: str) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A finished game of ``rules`` between bots (see ``pick``); every entry chained as the store chains it."""
    seed_bytes = seed_from_text(seed)
    config_json = rules.config_to_json(rules.config_from_json(config_in))
    players = config_json["players"]
    events = [rules.event_to_json(e) for e in rules.setup(rules.config_from_json(config_json), Rng(seed_bytes, game_id, 0))]
    entries = build_entries(0, GENESIS_HASH, events, actor=SYSTEM, time=TIME,
                            command={"type": "CreateGame", "config": config_json})
    state = fold(rules, (rules.event_from_json(e) for e in events))
    chooser = random.Random(seed)
    for _ in range(MAX_COMMANDS):
        if rules.result(state) is not None:
            break
        actor = choose_actor(rules.to_act(state))
        command = pick(rules, state, actor, seed_bytes, game_id, entries[-1].seq, chooser)
        decided = rules.decide(state, command, Rng(seed_bytes, game_id, rules.draw_counter(state)))
        batch = build_entries(entries[-1].seq, entries[-1].hash, [rules.event_to_json(e) for e in decided],
                              actor=actor, time=TIME, command=rules.command_to_json(command))
        entries += batch
        state = fold(rules, decided, state)
    else:
        raise AssertionError(f"no result after {MAX_COMMANDS} commands")
    meta = {
        "game": rules.name,
        "engine_version": rules.engine_version,
        "config": config_json,
        "seats": [{"name": f"Bot {i}", "kind": "bot", "bot": "greedy"} for i in range(players)],
        "seed": seed_bytes.hex(),
        "seed_commitment": seed_commitment(seed_bytes),
        "created": TIME,
        "status": "finished",
    }
    return game_id, meta, [{**e.entry, "hash": e.hash} for e in entries]


def meta_as_stored(meta: dict[str, Any]) -> dict[str, str]:
    """The meta hash as the service writes it (structured fields as canonical JSON)."""
    return {k: canonical_json(v) if k in ("config", "seats") else v for k, v in meta.items()}


CONFIGS = [("classic", 2), ("classic", 3), ("classic", 4), ("2023", 2), ("2023", 3), ("2023", 4), ("2023", 5)]


@cache
def played(edition: str, players: int, seed: str = "replay-tests") -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """``play`` once per session per arguments (callers must not mutate the result)."""
    return play(edition, players, seed)


@cache
def bundle_text(edition: str, players: int, seed: str = "replay-tests") -> str:
    game_id, meta, entries = played(edition, players, seed)
    return build_bundle(game_id, meta, entries)


@cache
def toy_bundle() -> str:
    from tests.replays.replay_toy_game import TOY, toy_rules

    game_id, meta, entries = play_rules(TOY, {"players": 2}, "tamper", "toy-tamper")
    return build_bundle(game_id, meta, entries, rules_for=toy_rules)
