"""The contract every registered game keeps (domain.core.GamePlugin), checked the same way for all.

Over seeded playouts of each plugin (``playout.cases``: every edition with its fewest and most
players with random seats, starts a game's playouts seldom reach, such as Orléans seats owning
the Gunpowder Tower under rules 3, and the same with seats played by each of the game's own
bots, which reach positions random seats seldom do):

- determinism: the same seed gives the same events, whatever was asked of the state on the way;
- accepted ⇔ listed: every listed move is accepted, near misses are accepted exactly when listed,
  and seats not to act list nothing;
- warm = cold: the moves listed on the states a playout stepped through are, in content and
  order, those a fresh process lists on the same states folded from the events, and restored
  from their JSON; the built-in bots pick the same there;
- redaction: what a seat (or a spectator) sees of a state depends only on what it was shown of
  the events that led there;
- JSON: commands and events survive their codec, and a posted move with its seat is the command;
- timeouts: the default move of every seat to act is legal.

A game that fails here is not ready to register (docs/adding-a-game.md).
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from domain.canonical import canonical_json
from domain.core import SYSTEM, GameRules, RejectKind
from domain.games import fold, step
from domain.rng import Rng
from tests.contract.playout import (
    HIDDEN_EVERY,
    Case,
    accepted,
    cases,
    near_misses,
    playout,
    refusal,
    start,
)

ROOT = Path(__file__).resolve().parents[2]
CASES = cases()


def _json(value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(value))
    return out


class Checks:
    """The per-decision checks; counts what it saw so a test can tell it was not vacuous."""

    def __init__(self, players: int, hidden_every: int = HIDDEN_EVERY) -> None:
        self.players, self.hidden_every = players, hidden_every
        self.decisions = self.near_misses = self.hidden_groups = 0

    def __call__(self, plugin: GameRules, state: Any, actor: Any, moves: list[Any], command: Any,
                 seed: bytes, game_id: str) -> None:
        self.decisions += 1
        acting = plugin.to_act(state)
        # accepted <=> listed
        assert len(set(map(repr, moves))) == len(moves), "no move is listed twice"
        for move in moves:
            assert accepted(plugin, state, move, seed, game_id), f"listed but refused: {move}"
            assert plugin.command_from_json(_json(plugin.command_to_json(move))) == move, "a command's JSON"
        for near in near_misses(command, moves, self.players):
            self.near_misses += 1
            assert accepted(plugin, state, near, seed, game_id) == (near in moves), f"accepted != listed: {near}"
        for seat in range(self.players):
            if seat not in acting:
                assert plugin.legal_moves(state, seat) == [], f"seat {seat} is not to act but lists moves"
                if actor != SYSTEM and dataclasses.is_dataclass(command):  # its move, sent by the wrong seat
                    other = dataclasses.replace(command, seat=seat)  # type: ignore[type-var]
                    assert refusal(plugin, state, other, seed, game_id) is RejectKind.NOT_YOUR_TURN, other
        # timeouts
        for seat in acting:
            if seat != SYSTEM:
                assert plugin.default_move(state, seat) in plugin.legal_moves(state, seat), f"seat {seat}'s default"
        if actor != SYSTEM and getattr(command, "seat", None) == actor:
            assert plugin.command_from_json(_json(plugin.move_to_json(command)), actor) == command
        if self.decisions % self.hidden_every == 0:
            rng = Rng(seed, game_id, plugin.draw_counter(state))
            events, after = step(plugin, state, command, rng)
            assert plugin.decide(state, command, Rng(seed, game_id, plugin.draw_counter(state))) == events
            assert fold(plugin, events, state) == after, "step's state is the fold of its events"
            self.redaction(plugin, state, moves, seed, game_id)

    def redaction(self, plugin: GameRules, state: Any, moves: list[Any], seed: bytes, game_id: str) -> None:
        """Step the same state with several moves and draws; for each viewer, states reached through
        events that viewer sees alike must look alike to it."""
        outcomes = []
        for move in moves[:: max(1, len(moves) // 6)]:
            for salt in (b"", b"other draws"):
                rng = Rng(seed + salt, game_id, plugin.draw_counter(state))
                outcomes.append(step(plugin, state, move, rng))
        for viewer in [None, *range(self.players)]:
            groups: dict[str, list[dict[str, Any]]] = {}
            for events, after in outcomes:
                shown = json.dumps([plugin.event_view(e, viewer) for e in events], sort_keys=True)
                groups.setdefault(shown, []).append(_json(plugin.view(after, viewer)))
            for views in groups.values():
                self.hidden_groups += len(views) > 1
                assert all(v == views[0] for v in views), f"viewer {viewer} sees a difference it was not shown"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_contract_holds_over_a_random_playout(case: Case) -> None:
    checks = Checks(int(case.config["players"]))
    state, record = playout(case, checks)
    plugin = case.plugin
    assert plugin.is_finished(state) and plugin.result(state) is not None and checks.decisions > 0
    # determinism: the same game again, with nothing checked on the way, gives the same events
    again, record_again = playout(case, bots=False)
    assert record_again.events == record.events and again == state
    # the events survive their JSON and fold to the same state
    events = [plugin.event_from_json(_json(e)) for e in record.events]
    assert [plugin.event_to_json(e) for e in events] == record.events
    _, set_up, _, _, _ = start(case)
    assert fold(plugin, events) == state != set_up
    for viewer in [None, *range(int(case.config["players"]))]:
        for event in events:
            shown = plugin.event_view(event, viewer)
            json.dumps(shown)
            if plugin.public_event is not None and plugin.public_event(event):  # the view chains' shortcut
                assert canonical_json(shown) == canonical_json(plugin.event_to_json(event)), f"{event} is not public"
        json.dumps(plugin.view(state, viewer))
    # warm = cold, in a fresh process
    out = subprocess.run([sys.executable, "-m", "tests.contract.cold"], input=record.to_json(), capture_output=True,
                         text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == [], f"{case.id}: the warm and cold listings differ"
    assert record.listings and (record.picks or plugin.is_finished(state))


@pytest.mark.parametrize("plugin", sorted({c.plugin for c in CASES}, key=lambda p: p.engine_version),
                         ids=lambda p: p.engine_version)
def test_a_set_up_shows_each_viewer_only_what_its_events_showed(plugin: GameRules) -> None:
    """Set-ups dealt from different seeds that a viewer was shown alike look alike to it (decks
    and bags are dealt at set-up, and nothing of their order may show)."""
    edition, players = next(iter(plugin.editions.items()))
    config = plugin.config_from_json({"players": players[-1]} | ({"edition": edition} if edition else {}))
    dealt = []
    for i in range(24):
        events = plugin.setup(config, Rng(f"deal-{i}".encode(), "contract-deal", 0))
        dealt.append((events, fold(plugin, events)))
    compared = 0
    for viewer in [None, *range(players[-1])]:
        groups: dict[str, list[dict[str, Any]]] = {}
        for events, state in dealt:
            shown = json.dumps([plugin.event_view(e, viewer) for e in events], sort_keys=True)
            groups.setdefault(shown, []).append(_json(plugin.view(state, viewer)))
        for views in groups.values():
            compared += len(views) - 1
            assert all(v == views[0] for v in views), f"viewer {viewer} sees a difference it was not shown"
    if not compared:
        pytest.skip("every set-up shows a different public draw (e.g. a first tile turned up): nothing alike")


def test_every_registered_plugin_is_played() -> None:
    from domain.games import plugins

    assert {c.plugin.name for c in CASES} == {p.name for p in plugins()}
    assert any(c.label.startswith("tower") and c.plugin.engine_version == "orleans-3" for c in CASES)
