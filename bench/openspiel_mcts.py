"""OpenSpiel's MCTS bot, through adapters/openspiel.py, against the built-in bots.

For each game, the same seeded games are played twice: once with ``openspiel-mcts`` in the
test seat and the built-in opponents (``--opponents``, default greedy) in the others, and once
with the built-in ``greedy`` bot in that seat instead, as the baseline of the same run. The test
seat moves round the table from game to game. Prints, per game and bot in the test seat: games
won (competitive: ranked first, ties shared; the Cathedral: the team's wins), the mean payoff
(adapters/_game.py ``Match.returns``) and the test seat's decisions per second.

The MCTS bot searches the true state (hidden cards, sealed choices and future draws known:
docs/research.md, "Search bots and hidden information"), with random rollouts. Never asserts
timings. Needs the research extra (``pip install -e '.[research]'``).

Usage: python bench/openspiel_mcts.py [--games N] [--players N] [--simulations N]
       [--game orleans,artificium,cathedral] [--opponents greedy|random]
"""
from __future__ import annotations

import argparse
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's packages, not an installed copy

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402

from adapters.openspiel import register  # noqa: E402
from domain.bots import bot_rng, get_bot  # noqa: E402


@dataclass
class Tally:
    games: int = 0
    wins: float = 0.0
    payoff: float = 0.0
    decisions: int = 0
    seconds: float = 0.0


def play(game: str, players: int, seed: int, seat: int, tested: str, opponents: str,
         simulations: int) -> tuple[float, float, int, float]:
    """One game; returns the test seat's (win share, payoff, decisions, seconds deciding)."""
    loaded = pyspiel.load_game(f"python_hourglass_{game}", {"players": players, "seed": seed})
    state = loaded.new_initial_state()
    rng = np.random.RandomState(zlib.crc32(f"{seed}:{seat}".encode()))
    searcher = mcts.MCTSBot(loaded, uct_c=2.0, max_simulations=simulations,
                            evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                            random_state=rng, solve=False)
    decisions, seconds = 0, 0.0
    while not state.is_terminal():
        player = state.current_player()
        started = time.process_time()
        if player == seat and tested == "openspiel-mcts":
            action = searcher.step(state)
        else:
            action = builtin(state, player, tested if player == seat else opponents, seed)
        if player == seat:
            seconds += time.process_time() - started
            decisions += 1
        state.apply_action(action)
    returns = state.returns()
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    won = (1.0 if best > 0 else 0.0) if game == "cathedral" else (1 / len(winners) if seat in winners else 0.0)
    return won, returns[seat], decisions, seconds


def builtin(state: object, seat: int, name: str, seed: int) -> int:
    """The built-in bot's choice, as the index of its move in the seat's legal moves."""
    match = state.match  # type: ignore[attr-defined]
    moves = match.moves(seat)
    policy = get_bot(name, match.spec.name)
    command = policy(match.rules, match.state, seat, moves, bot_rng(str(seed).encode(), match.game_id, seat, match.decisions))
    return moves.index(command)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--simulations", type=int, default=20)
    parser.add_argument("--game", default="cathedral,artificium,orleans")
    parser.add_argument("--opponents", default="greedy")
    args = parser.parse_args()
    register()
    print(f"openspiel-mcts ({args.simulations} simulations, random rollouts) vs built-in {args.opponents},"
          f" {args.players} seats, {args.games} games per row; baseline: built-in greedy in the same seat, same seeds")
    print(f"{'game':<11} {'test seat':<15} {'won':>6} {'mean payoff':>12} {'decisions/s':>12} {'decisions':>10}")
    for game in args.game.split(","):
        for tested in ("openspiel-mcts", "greedy"):
            tally = Tally()
            for i in range(args.games):
                won, payoff, decisions, seconds = play(game, args.players, i, i % args.players, tested,
                                                       args.opponents, args.simulations)
                tally.games += 1
                tally.wins += won
                tally.payoff += payoff
                tally.decisions += decisions
                tally.seconds += seconds
            rate = tally.decisions / tally.seconds if tally.seconds else float("inf")
            print(f"{game:<11} {tested:<15} {tally.wins:>4.1f}/{tally.games} {tally.payoff / tally.games:>12.2f}"
                  f" {rate:>12.1f} {tally.decisions:>10}", flush=True)


if __name__ == "__main__":
    main()
