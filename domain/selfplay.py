"""Self-play: whole games in-process with bot seats. Pure; the CLI prints the lines."""
from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.bots import bot_rng, get_bot
from domain.canonical import canonical_json, sha256_hex
from domain.core import SYSTEM
from domain.games import fold, get_game, stepper
from domain.rng import Rng, seed_from_text


@dataclass
class Playthrough:
    """A finished game: every command with the events it caused."""

    game_id: str
    seed: bytes
    config: Any
    state: Any = None
    batches: list[tuple[Any, list[Any]]] = field(default_factory=list)
    events: int = 0
    decisions: int = 0


def play(rules: Any, config: Any, seed: bytes, game_id: str, bots: Sequence[str],
         max_decisions: int = 200_000) -> Playthrough:
    """Play one game to the end; seat i is played by ``bots[i % len(bots)]``.

    The system takes its one legal step; a seat's bot picks among its legal moves with its own
    draws (``bot_rng``, moved to the game's event count before each decision: the same draws as a
    fresh ``bot_rng`` per decision, without keying one). The loop keeps its counters in locals and
    stores them in the Playthrough at the end: it is the whole cost of self-play besides the rules.
    """
    game = Playthrough(game_id, seed, config)
    setup = rules.setup(config, Rng(seed, game_id, 0))
    state = fold(rules, setup)
    batches = game.batches
    batches.append((None, setup))
    events = len(setup)
    policies = [get_bot(bots[i % len(bots)], rules.name) for i in range(config.players)]
    bot_rngs = [bot_rng(seed, game_id, i, 0) for i in range(config.players)]
    is_finished, draw_counter, decide_step = rules.is_finished, rules.draw_counter, stepper(rules)
    to_act, legal_moves = rules.to_act, rules.legal_moves
    rng = Rng(seed, game_id)  # one counter over the game's draws, set to the state's before each step
    decisions = 0
    while not is_finished(state):
        if decisions >= max_decisions:
            raise RuntimeError(f"{game_id}: no end after {max_decisions} decisions")
        acting = to_act(state)
        if SYSTEM in acting:
            command = legal_moves(state, SYSTEM)[0]
        else:
            seat = min(acting)
            seat_rng = bot_rngs[seat]
            seat_rng.counter = events
            command = policies[seat](rules, state, seat, legal_moves(state, seat), seat_rng)
        rng.counter = draw_counter(state)
        caused, state = decide_step(state, command, rng)
        batches.append((command, caused))
        events += len(caused)
        decisions += 1
    game.state, game.events, game.decisions = state, events, decisions
    return game


class EncodedEvents:
    """Each event object's canonical JSON, encoded once per object and kept with the object itself:
    an entry holds its event alive, so no other object can take its id while the entry exists.
    Orléans builds the events that recur (a placement, a pass, a phase) as one shared object per
    value, so most of a game's events were already encoded by an earlier game of the process.
    Bounded: emptied when it holds ``limit`` entries."""

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = limit
        self.texts: dict[int, tuple[Any, str]] = {}

    def text(self, rules: Any, event: Any) -> str:
        entry = self.texts.get(id(event))
        if entry is not None and entry[0] is event:
            return entry[1]
        if len(self.texts) >= self.limit:
            self.texts.clear()
        text = canonical_json(rules.event_to_json(event))
        self.texts[id(event)] = (event, text)
        return text


_ENCODED: dict[str, EncodedEvents] = {}  # per game name: one game's codec encodes its events


def event_log_hash(rules: Any, game: Playthrough) -> str:
    """sha256 of the canonical JSON of the game's events as one list (``json_hash`` of their JSON):
    built from each event's own canonical JSON (a list's is its items' joined by commas, the same
    bytes), each event object encoded once (``EncodedEvents``)."""
    encoded = _ENCODED.get(rules.name)
    if encoded is None:
        encoded = _ENCODED[rules.name] = EncodedEvents()
    text = encoded.text
    parts = [text(rules, event) for _, events in game.batches for event in events]
    return sha256_hex(f"[{','.join(parts)}]".encode())


def summary_line(rules: Any, game: Playthrough, seed_text: str) -> dict[str, Any]:
    result = rules.result(game.state)
    return {
        "seed": seed_text,
        "edition": game.config.edition.value,
        "players": game.config.players,
        "rounds": rules.summary(game.state)["round"],
        "decisions": game.decisions,
        "events": game.events,
        "scores": result["scores"],
        "winners": result["winners"],
        "final_hash": event_log_hash(rules, game),
    }


def run(game: str, edition: str | None, players: int, games: int, seed: str,
        bots: Sequence[str]) -> Iterator[dict[str, Any]]:
    rules = get_game(game)
    config = rules.config_from_json({"players": players, **({"edition": edition} if edition else {})})
    for i in range(games):
        seed_text = f"{seed}-{i}"
        played = play(rules, config, seed_from_text(seed_text), f"selfplay-{seed_text}", bots)
        yield summary_line(rules, played, seed_text)


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="hourglass selfplay")
    parser.add_argument("--game", default="orleans")
    parser.add_argument("--edition", default=None, help="the game's edition (default: the game's default)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", default="hourglass")
    parser.add_argument("--bots", default="random", help="comma-separated bot names, one per seat (cycled)")
    return parser


def lines(argv: Sequence[str] | None = None) -> Iterator[str]:
    """The JSON lines `hourglass selfplay` prints (the caller does the printing)."""
    args = build_parser().parse_args(argv)
    for line in run(args.game, args.edition, args.players, args.games, args.seed, args.bots.split(",")):
        yield json.dumps(line, sort_keys=True)
