"""Self-play: whole games in-process with bot seats. Pure; the CLI prints the lines."""
from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.bots import Policy, bot_rng, get_bot
from domain.canonical import json_hash
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
    """Play one game to the end; seat i is played by ``bots[i % len(bots)]``."""
    game = Playthrough(game_id, seed, config)
    setup = rules.setup(config, Rng(seed, game_id, 0))
    game.state = fold(rules, setup)
    game.batches.append((None, setup))
    game.events = len(setup)
    seats = [Seat(get_bot(bots[i % len(bots)], rules.name), bot_rng(seed, game_id, i, 0)) for i in range(config.players)]
    is_finished, draw_counter, decide_step = rules.is_finished, rules.draw_counter, stepper(rules)
    rng = Rng(seed, game_id)  # one counter over the game's draws, set to the state's before each step
    while not is_finished(game.state):
        if game.decisions >= max_decisions:
            raise RuntimeError(f"{game_id}: no end after {max_decisions} decisions")
        command = next_command(rules, game, seats)
        rng.counter = draw_counter(game.state)
        events, game.state = decide_step(game.state, command, rng)
        game.batches.append((command, events))
        game.events += len(events)
        game.decisions += 1
    return game


@dataclass(frozen=True, slots=True)
class Seat:
    """A bot seat: its policy and its draws (``bot_rng``, moved to the game's event count before
    each decision: the same draws as a fresh ``bot_rng`` per decision, without keying one)."""

    policy: Policy
    rng: Rng


def next_command(rules: Any, game: Playthrough, seats: Sequence[Seat]) -> Any:
    state = game.state
    acting = rules.to_act(state)
    if SYSTEM in acting:
        return rules.legal_moves(state, SYSTEM)[0]
    seat = min(acting)
    bot = seats[seat]
    bot.rng.counter = game.events
    return bot.policy(rules, state, seat, rules.legal_moves(state, seat), bot.rng)


def event_log_hash(rules: Any, game: Playthrough) -> str:
    return json_hash([rules.event_to_json(e) for _, events in game.batches for e in events])


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
