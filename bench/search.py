"""Search bot vs greedy (Orléans by default): win rate over fixed seeds with seat rotation, and speed.

Game i is played twice on seed "<seed>-i": once with ``search`` in seat i mod N and ``greedy`` in
every other seat, and once with ``greedy`` in every seat (the baseline: how often greedy wins from
that same seat on that same seed). Prints the search seat's wins with their 95% (Wilson) interval,
mean score, rank and lead against the baseline, then decisions per second of both bots, the CPU
time of a decision with a choice (on a shared machine the wall clock counts other processes' work
too), and the search's iterations per second, measured in the same run, with the load average.
Never asserts timings.

Turning a move-time budget into iterations (the search never reads a clock): a service that
allows T seconds per decision sets ``Budget(iterations=floor(T * r))`` with r the "iterations/s"
printed here on the serving machine (per game and player count; a searched decision runs every
iteration, a forced one none).

Usage: python bench/search.py [--game orleans] [--games 24] [--iterations 32] [--players 4]
                              [--edition classic] [--seed bench-search] [--jobs 1]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's packages, not an installed copy

from domain.bots import bot_rng, get_bot, search_artificium, search_orleans  # noqa: E402
from domain.bots.search import Budget, Search, SearchGame  # noqa: E402
from domain.core import SYSTEM  # noqa: E402
from domain.games import fold, get_game, step  # noqa: E402
from domain.rng import Rng  # noqa: E402

SEARCH_GAMES: dict[str, SearchGame] = {"orleans": search_orleans.GAME, "artificium": search_artificium.GAME}


@dataclass
class Clock:
    """Time and calls spent inside one seat's policy."""

    seconds: float = 0.0
    cpu: float = 0.0  # this process's CPU time: on a shared machine the honest cost of a decision
    decisions: int = 0
    iterations: int = 0
    searched: int = 0  # decisions with more than one legal move


@dataclass(frozen=True)
class Outcome:
    seat: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    clock: Clock

    @property
    def won(self) -> bool:
        return self.seat in self.winners

    @property
    def rank(self) -> int:
        return 1 + sum(1 for s in self.scores if s > self.scores[self.seat])

    @property
    def lead(self) -> int:
        return self.scores[self.seat] - max(s for i, s in enumerate(self.scores) if i != self.seat)


def timed_search(game: SearchGame, budget: Budget, clock: Clock) -> Callable[..., Any]:
    def choose(rules: Any, state: Any, seat: int, moves: list[Any], rng: Rng) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        search = Search(rules, game, seat, budget, rng)
        move = moves[0] if len(moves) == 1 else search.run(state, moves)
        clock.seconds += time.perf_counter() - started
        clock.cpu += time.process_time() - cpu
        clock.decisions += 1
        clock.searched += len(moves) > 1
        clock.iterations += search.iterations
        return move
    return choose


def timed_greedy(clock: Clock) -> Callable[..., Any]:
    def choose(rules: Any, state: Any, seat: int, moves: list[Any], rng: Rng) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        move = get_bot("greedy", rules.name)(rules, state, seat, moves, rng)
        clock.seconds += time.perf_counter() - started
        clock.cpu += time.process_time() - cpu
        clock.decisions += 1
        clock.searched += len(moves) > 1
        return move
    return choose


def play(rules: Any, config: Any, seed: bytes, game_id: str, policies: list[Callable[..., Any]]) -> Any:
    state, decisions = fold(rules, rules.setup(config, Rng(seed, game_id, 0))), 0
    while rules.result(state) is None:
        acting = rules.to_act(state)
        if SYSTEM in acting:
            move = rules.legal_moves(state, SYSTEM)[0]
        else:
            seat = min(acting)
            moves = rules.legal_moves(state, seat)
            move = policies[seat](rules, state, seat, moves, bot_rng(seed, game_id, seat, decisions))  # see selfplay
        state = step(rules, state, move, Rng(seed, game_id, rules.draw_counter(state)))[1]
        decisions += 1
    return rules.result(state)


def one_game(args: tuple[str, str | None, int, str, int, int]) -> tuple[Outcome, Outcome]:
    """(search in the rotating seat, greedy everywhere) on one seed."""
    name, edition, players, seed_text, index, iterations = args
    rules = get_game(name)
    config = rules.config_from_json({"players": players, **({"edition": edition} if edition else {})})
    seat = index % players
    seed, game_id = f"{seed_text}-{index}".encode(), f"{seed_text}-{index}"
    outcomes = []
    for searching in (True, False):
        own, others = Clock(), Clock()
        policies = [timed_greedy(others) for _ in range(players)]
        budget = Budget(iterations=iterations)
        policies[seat] = timed_search(SEARCH_GAMES[name], budget, own) if searching else timed_greedy(own)
        result = play(rules, config, seed, game_id, policies)
        outcomes.append(Outcome(seat, tuple(result["scores"]), tuple(result["winners"]), own))
    return outcomes[0], outcomes[1]


def report(name: str, outcomes: list[Outcome]) -> None:
    n = len(outcomes)
    wins = sum(o.won for o in outcomes)
    shared = sum(o.won and len(o.winners) > 1 for o in outcomes)
    low, high = wilson(wins, n)
    print(f"  {name:<22} wins {wins:3d}/{n} ({100 * wins / n:5.1f}%, 95% [{100 * low:4.1f}, {100 * high:4.1f}], {shared} shared)"
          f"  mean score {statistics.mean(o.scores[o.seat] for o in outcomes):6.1f}"
          f"  mean rank {statistics.mean(o.rank for o in outcomes):4.2f}"
          f"  mean lead {statistics.mean(o.lead for o in outcomes):+6.1f}")


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% (Wilson score) interval of a share ``successes / n``."""
    if n == 0:
        return 0.0, 1.0
    share = successes / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def speed(name: str, clocks: list[Clock]) -> None:
    seconds = sum(c.seconds for c in clocks)
    cpu = sum(c.cpu for c in clocks)
    decisions = sum(c.decisions for c in clocks)
    searched = sum(c.searched for c in clocks)
    iterations = sum(c.iterations for c in clocks)
    line = (f"  {name:<22} decisions/s {decisions / seconds:9.1f}   ({decisions / len(clocks):.0f} per game,"
            f" {searched / len(clocks):.0f} with a choice)   CPU {1000 * cpu / max(1, searched):7.2f} ms"
            f" per decision with a choice")
    if iterations:
        line += f"   iterations/s {iterations / seconds:7.1f} (CPU {iterations / cpu:7.1f})"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="orleans", choices=sorted(SEARCH_GAMES))
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--iterations", type=int, default=Budget().iterations)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--edition", default=None, help="the game's edition (default: the game's default)")
    parser.add_argument("--seed", default="bench-search")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    args = parser.parse_args()

    tasks = [(args.game, args.edition, args.players, args.seed, i, args.iterations) for i in range(args.games)]
    started = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            pairs = list(pool.map(one_game, tasks))
    else:
        pairs = [one_game(t) for t in tasks]
    elapsed = time.perf_counter() - started
    searched, baseline = [p[0] for p in pairs], [p[1] for p in pairs]

    print(f"search ({args.iterations} iterations) vs greedy: {args.game} {args.edition or ''}, {args.players} players, "
          f"{args.games} seeds '{args.seed}-i', search in seat i mod {args.players}")
    report("search vs 3 greedy" if args.players == 4 else "search vs greedy", searched)
    report("baseline: greedy", baseline)
    print(f"  (an even share is {100 / args.players:.1f}%)")
    speed("search", [o.clock for o in searched])
    speed("baseline: greedy", [o.clock for o in baseline])
    print(f"  wall time {elapsed:.0f} s with {args.jobs} job(s); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
