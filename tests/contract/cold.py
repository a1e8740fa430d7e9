"""The cold side of the warm/cold comparison, run in a fresh process by tests/contract/test_contract.py.

Reads a playout ``Record`` (JSON) on stdin, folds its events from nothing with ``evolve`` alone,
and at each recorded decision lists every actor's moves twice: on the folded state, and on a copy
restored from the state's JSON (as a snapshot restores one, core/snapshots.py). It also asks each
recorded bot again. Prints a JSON list of every difference from what the warm playout recorded
(empty: none), at most ``LIMIT`` of them.

Usage: python -m tests.contract.cold < record.json
"""
from __future__ import annotations

import json
import sys
from typing import Any

from domain import codec
from domain.bots import bot_rng, get_bot
from domain.games import for_engine, plugins
from tests.contract.playout import actor_of

LIMIT = 20


def compare(record: dict[str, Any]) -> list[str]:
    plugin = for_engine(next(p for p in plugins() if p.name == record["game"]), record["engine_version"])
    assert plugin.engine_version == record["engine_version"]
    seed, game_id = record["seed"].encode(), record["game_id"]
    events = [plugin.event_from_json(e) for e in record["events"]]
    listings: dict[int, dict[str, Any]] = dict(record["listings"])
    picks: dict[int, list[tuple[int, str, Any]]] = {}
    for n, seat, bot, pick in record["picks"]:
        picks.setdefault(n, []).append((seat, bot, pick))
    problems: list[str] = []
    state = None
    for n in range(len(events) + 1):
        if n in listings or n in picks:
            restored = codec.from_json(plugin.state_type, json.loads(json.dumps(plugin.state_to_json(state))))
            if restored != state:
                problems.append(f"after {n} events: the state does not survive its JSON")
            for key, warm in listings.get(n, {}).items():
                for label, cold_state in (("folded", state), ("restored", restored)):
                    cold = [plugin.command_to_json(m) for m in plugin.legal_moves(cold_state, actor_of(key))]
                    if cold != warm:
                        same = sorted(map(json.dumps, cold)) == sorted(map(json.dumps, warm))
                        problems.append(f"after {n} events, {key}: {label} lists "
                                        f"{'the same moves in another order' if same else 'other moves'}")
            for seat, bot, pick in picks.get(n, []):
                moves = plugin.legal_moves(state, seat)
                cold_pick = get_bot(bot, plugin.name)(plugin, state, seat, moves, bot_rng(seed, game_id, seat, n))
                if plugin.command_to_json(cold_pick) != pick:
                    problems.append(f"after {n} events: bot {bot} for seat {seat} picks "
                                    f"{plugin.command_to_json(cold_pick)}, warm picked {pick}")
            if len(problems) >= LIMIT:
                break
        if n < len(events):
            state = plugin.evolve(state, events[n])
    return problems[:LIMIT]


if __name__ == "__main__":
    json.dump(compare(json.load(sys.stdin)), sys.stdout)
