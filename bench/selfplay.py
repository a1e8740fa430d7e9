"""Self-play benchmark: random 4-player Orléans games on one core, and Artificium beside them.

Prints games per second, decisions per second and fold time per event, with the raw cost of
one rng draw (HMAC-SHA256) measured in the same run as the baseline, and the realistic floor of a
game: folding the same games' events and making the same number of rng draws (the game's own
draws plus one per bot decision), i.e. what a game costs with no rules checking and no move
listing at all. Greedy Orléans seats are measured beside the random ones (``--greedy-games``). Artificium is measured with
random seats and with greedy seats (greedy tries every legal move one ply ahead). Never asserts
timings.
Usage: python bench/selfplay.py [--games N] [--edition classic|2023] [--players N] [--engine orleans-2]
       [--artificium-players N] [--greedy-games N] [--repeat N]
(``--engine`` plays the rules a game recorded by that engine keeps, e.g. orleans-2: the same games
as before the orleans-3 rule fixes, to compare speed across that change.)

``--game cathedral`` instead measures the cooperative Cathedral of Orléans: the share of seeded
games the greedy team wins with 2, 3 and 4 seats, next to an all-random team on the same seeds
as the baseline, with the sections built, the time per game and per decision, and the game's floor
(fold + rng draws of the same games, measured right after), all in this process's CPU time
(``time.process_time``: the machine's load disturbs it far less than wall time); with ``--edition both``
it also prints the greedy team's win rate per edition over all seat counts with its 95% interval
(Wilson), the two editions in two processes, and whether the intervals overlap (``--engine
cathedral-2``: the tile tables before rules 3, as the baseline).
Usage: python bench/selfplay.py --game cathedral [--games N] [--edition standard|expert|both] [--engine cathedral-2]

``--game artificium`` measures the reconstructed economy (docs/artificium-data.md A§5) under each
rules version: every converter's margin at the prices (coins from buying its inputs and selling its
output), and over seeded games of ``--artificium-players`` greedy seats the bank's lowest count
(min and median over games), the share of games whose bank ran dry (rules 2) or below zero (rules
1, whose final sale is paid out of the bank) with its 95% interval, and the bonus tokens paid a game.
Usage: python bench/selfplay.py --game artificium [--games N] [--artificium-players N]

``--whole-process`` measures `hourglass selfplay` as a command: the same random games as a whole
process (``python -m service.cli selfplay``: interpreter start, imports, play, final hashes, printed
lines), next to the same lines made in-process in the same run, and the start-up alone (the imports
of one game against every game's). Prints games/s of each; the lines must be identical.
``--hourglass PATH`` times that console script instead (``PATH selfplay ...``, with no PYTHONPATH:
an installed copy, e.g. a non-editable install whose .pyc files were written at install, while
this environment's PYTHONDONTWRITEBYTECODE=1 would make ``python -m service.cli`` from a checkout
compile every source at each start, had ``make install`` not compiled them once).
Usage: python bench/selfplay.py --whole-process [--games N] [--players N] [--repeat N] [--hourglass PATH]
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's packages, not an installed copy

from domain.core import SYSTEM, GamePlugin  # noqa: E402
from domain.games import fold, get_game  # noqa: E402
from domain.rng import Rng  # noqa: E402
from domain.selfplay import Playthrough, lines, play  # noqa: E402

RULES = get_game("orleans")  # the plugins come from the one registry, domain/games.py
ARTIFICIUM = get_game("artificium")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--edition", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--engine", default=RULES.engine_version)
    parser.add_argument("--artificium-players", type=int, default=4)
    parser.add_argument("--greedy-games", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3,
                        help="play the random Orléans games (and measure the floor) this many times; the best counts")
    parser.add_argument("--game", default="orleans", choices=("orleans", "cathedral", "artificium"))
    parser.add_argument("--whole-process", action="store_true",
                        help="time `hourglass selfplay` as a process beside the same games in-process")
    parser.add_argument("--hourglass", default=None,
                        help="with --whole-process: time this installed console script, not this checkout")
    args = parser.parse_args()
    if args.whole_process:
        whole_process(args.game, args.players, args.games, args.repeat, args.hourglass)
        return
    if args.game == "cathedral":
        edition = "standard" if args.edition == "classic" else args.edition
        if edition == "both":
            cathedral_editions(args.games, args.engine if args.engine.startswith("cathedral") else None)
        else:
            cathedral(args.games, edition)
        return
    if args.game == "artificium":
        artificium_economy(args.artificium_players, args.games)
        return
    config = get_game("orleans", args.engine).config_from_json({"edition": args.edition, "players": args.players})

    elapsed = float("inf")
    for _ in range(max(1, args.repeat)):  # on a shared machine the best pass is the one least disturbed
        start = time.perf_counter()
        games = [play(RULES, config, f"bench-{i}".encode(), f"bench-{i}", ["random"]) for i in range(args.games)]
        elapsed = min(elapsed, time.perf_counter() - start)
    decisions = sum(g.decisions for g in games)
    events = [e for g in games for _, batch in g.batches for e in batch]

    start = time.perf_counter()
    for g in games:
        fold(RULES, (e for _, batch in g.batches for e in batch))
    fold_time = time.perf_counter() - start

    rng = Rng(b"baseline", "bench")
    start = time.perf_counter()
    for _ in range(100_000):
        rng.below(1000)
    draw_time = (time.perf_counter() - start) / 100_000

    floor = min(floor_per_game(games) for _ in range(max(1, args.repeat)))
    print(f"self-play ({args.edition}, {args.players} players, {args.engine} rules, random bots, {args.games} games,"
          f" best of {max(1, args.repeat)})")
    print(f"  games/s            {args.games / elapsed:10.2f}   ({elapsed / args.games * 1000:.2f} ms a game)")
    print(f"  floor games/s      {1 / floor:10.2f}   ({floor * 1000:.2f} ms a game: fold + rng draws only, same games)")
    print(f"  decisions/s        {decisions / elapsed:10.0f}   ({decisions / args.games:.0f} decisions per game)")
    print(f"  fold µs/event      {fold_time / len(events) * 1e6:10.2f}   ({len(events) / args.games:.0f} events per game)")
    greedy(config, args.greedy_games, args.players, args.edition)
    for bots in ("random", "greedy"):
        artificium(args.artificium_players, args.games, bots)
    print(f"  baseline: one rng draw (HMAC-SHA256) {draw_time * 1e6:.2f} µs")


def whole_process(game: str, players: int, count: int, repeat: int, script: str | None = None) -> None:
    """`hourglass selfplay` as a whole process against the same lines made in this process."""
    argv = ["--game", game, "--players", str(players), "--games", str(count), "--bots", "random"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout, not an installed copy
    installed = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}

    def run(*command: str, script: str | None = None) -> tuple[float, float, str]:
        """Wall seconds, CPU seconds (the child's user + system) and the printed lines: ``command``
        run by this interpreter on this checkout, or by the installed console script ``script``."""
        start, used = time.perf_counter(), _children_cpu()
        if script is None:
            done = subprocess.run([sys.executable, *command], env=env, cwd=ROOT, capture_output=True, text=True,
                                  check=True)
        else:
            done = subprocess.run([script, *command], env=installed, cwd="/", capture_output=True, text=True,
                                  check=True)
        return time.perf_counter() - start, _children_cpu() - used, done.stdout

    whole, startup_one, startup_all, inside = (float("inf"),) * 4
    whole_cpu, startup_cpu, inside_cpu = (float("inf"),) * 3
    printed = expected = ""
    for _ in range(max(1, repeat)):  # the best pass is the one least disturbed
        if script is None:
            elapsed, cpu, printed = run("-m", "service.cli", "selfplay", *argv)
        else:
            elapsed, cpu, printed = run("selfplay", *argv, script=script)
        whole, whole_cpu = min(whole, elapsed), min(whole_cpu, cpu)
        elapsed, cpu, _ = run("-c", f"from domain.selfplay import lines; from domain.games import get_game; "
                                    f"get_game({game!r})")
        startup_one, startup_cpu = min(startup_one, elapsed), min(startup_cpu, cpu)
        startup_all = min(startup_all, run("-c", "from domain.selfplay import lines; from domain.games import "
                                                 "plugins; plugins()")[0])
        start, used = time.perf_counter(), time.process_time()
        expected = "".join(f"{line}\n" for line in lines(argv))
        inside, inside_cpu = min(inside, time.perf_counter() - start), min(inside_cpu, time.process_time() - used)
    if printed != expected:
        raise SystemExit("the process printed other lines than the same games in-process")
    print(f"{script or 'hourglass'} selfplay --game {game} --players {players} --games {count} --bots random"
          f" (best of {max(1, repeat)}; wall clock, then CPU time: steadier on a shared machine)")
    print(f"  whole process games/s   {count / whole:8.2f}   ({whole:.2f} s, start-up included)"
          f"   CPU {count / whole_cpu:8.2f}   ({whole_cpu:.2f} s)")
    print(f"  in-process games/s      {count / inside:8.2f}   ({inside:.2f} s, same lines; baseline)"
          f"   CPU {count / inside_cpu:8.2f}   ({inside_cpu:.2f} s)")
    print(f"  start-up, {game} only  {startup_one:8.3f} s   (interpreter + self-play + one game)"
          f"   CPU {startup_cpu:.3f} s")
    print(f"  start-up, every game    {startup_all:8.3f} s   (interpreter + self-play + every game's package)")


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def final_result(rules: GamePlugin[Any, Any, Any, Any], state: Any) -> dict[str, Any]:
    """The result of a game ``play`` finished (never None: play stops only when the game is over)."""
    result = rules.result(state)
    assert result is not None, "play returned an unfinished game"
    return result


def floor_per_game(games: list[Playthrough], rules: GamePlugin[Any, Any, Any, Any] = RULES,
                   clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per game (on ``clock``) to fold each game's events and make as many rng draws as it
    made: its own draws (the state's counter) plus one per seat decision (the bot's pick)."""
    start = clock()
    for g in games:
        state = fold(rules, (e for _, batch in g.batches for e in batch))
        seat_decisions = sum(1 for command, _ in g.batches if command is not None and command.seat != SYSTEM)
        rng = Rng(g.seed, g.game_id)
        for _ in range(rules.draw_counter(state) + seat_decisions):
            rng.below(1000)
    return (clock() - start) / len(games)


def greedy(config: object, count: int, players: int, edition: str) -> None:
    """Orléans with every seat played by the greedy bot (one-ply lookahead through decide)."""
    if count <= 0:
        return
    start = time.perf_counter()
    games = [play(RULES, config, f"bench-{i}".encode(), f"bench-g-{i}", ["greedy"]) for i in range(count)]
    elapsed = time.perf_counter() - start
    decisions = sum(g.decisions for g in games)
    print(f"self-play ({edition}, {players} players, greedy bots, {count} games)")
    print(f"  games/s            {count / elapsed:10.2f}   ({elapsed / count * 1000:.2f} ms a game)")
    print(f"  decisions/s        {decisions / elapsed:10.0f}   ({decisions / count:.0f} decisions per game)")


def artificium(players: int, count: int, bots: str) -> None:
    """The same figures for Artificium with every seat played by ``bots``."""
    config = ARTIFICIUM.config_from_json({"players": players})
    start = time.perf_counter()
    games = [play(ARTIFICIUM, config, f"bench-{i}".encode(), f"bench-a-{i}", [bots]) for i in range(count)]
    elapsed = time.perf_counter() - start
    decisions = sum(g.decisions for g in games)
    events = sum(len(batch) for g in games for _, batch in g.batches)
    start = time.perf_counter()
    for g in games:
        fold(ARTIFICIUM, (e for _, batch in g.batches for e in batch))
    fold_time = time.perf_counter() - start
    print(f"self-play (artificium, {players} players, {bots} bots, {count} games)")
    print(f"  games/s            {count / elapsed:10.2f}")
    print(f"  decisions/s        {decisions / elapsed:10.0f}   ({decisions / count:.0f} decisions per game)")
    print(f"  fold µs/event      {fold_time / events * 1e6:10.2f}   ({events / count:.0f} events per game)")


def cathedral(games: int, edition: str) -> None:
    """Greedy and random teams on the same seeds: share of games won, sections built, s/game, ms
    per decision, and the game's floor (fold + rng draws of the same games) measured beside them."""
    CATHEDRAL = get_game("cathedral")
    print(f"The Cathedral of Orléans ({edition}), {games} seeded games per seat count")
    for players in (2, 3, 4):
        config = CATHEDRAL.config_from_json({"edition": edition, "players": players})
        for bot in ("greedy", "random"):
            start = time.process_time()
            played = [play(CATHEDRAL, config, f"cathedral-bench-{i}".encode(), f"cathedral-bench-{players}-{i}", [bot])
                      for i in range(games)]
            elapsed = time.process_time() - start
            results = [final_result(CATHEDRAL, g.state) for g in played]
            decisions = sum(g.decisions for g in played)
            floor = floor_per_game(played, CATHEDRAL, time.process_time)
            won = sum(r["outcome"] == "won" for r in results)
            built = sum(r["sections_built"] for r in results) / games
            label = f"{players} seats, {bot}" + (" (baseline)" if bot == "random" else "")
            print(f"  {label:26} won {won:3}/{games} = {won / games:5.0%}   sections {built:4.1f}/8"
                  f"   {elapsed / games:6.2f} s/game CPU  {elapsed / decisions * 1000:6.2f} ms/decision"
                  f"   floor {floor * 1000:6.2f} ms/game ({elapsed / games / floor:5.0f}x)")


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% (Wilson score) interval of a share ``successes / n``."""
    if n == 0:
        return 0.0, 1.0
    share = successes / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share(successes: int, n: int) -> str:
    low, high = wilson(successes, n)
    return f"{successes:3}/{n} = {successes / n:5.1%}  95% [{low:5.1%}, {high:5.1%}]"


def cathedral_editions(games: int, engine: str | None = None) -> None:
    """The greedy team's win rate per edition over ``games`` seeded games per seat count (2-4), the
    same seeds in both editions (docs/cathedral-data.md, the expert tuning), under the current rules
    or those ``engine`` recorded (cathedral-2: the tables before rules 3). The two editions are
    played in two processes side by side."""
    rules = get_game("cathedral", engine)
    print(f"The Cathedral of Orléans ({rules.engine_version} rules), greedy team, {games} seeded games per seat "
          f"count (2, 3, 4 seats)")
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(_cathedral_edition, [(rules.engine_version, e, games) for e in ("standard", "expert")]))
    for edition, won, sections in rows:
        print(f"  {edition:9} won {share(won, 3 * games)}   sections {sections / (3 * games):4.2f}/8")
    (_, won_s, _), (_, won_e, _) = rows
    low_s, _ = wilson(won_s, 3 * games)
    _, high_e = wilson(won_e, 3 * games)
    verdict = "do not overlap: expert is harder" if high_e < low_s else "overlap: not separated"
    print(f"  95% intervals {verdict}")


def _cathedral_edition(job: tuple[str, str, int]) -> tuple[str, int, int]:
    engine, edition, games = job
    rules = get_game("cathedral", engine)
    won, sections = 0, 0
    for players in (2, 3, 4):
        config = rules.config_from_json({"edition": edition, "players": players})
        for i in range(games):
            r = final_result(rules, play(rules, config, f"cathedral-bench-{i}".encode(), f"cathedral-bench-{players}-{i}",
                                  ["greedy"]).state)
            won += r["outcome"] == "won"
            sections += r["sections_built"]
    return edition, won, sections


def artificium_economy(players: int, games: int) -> None:
    """Converter margins and the bank's lowest count per Artificium rules version (A§5), read from
    the plugin: its reference (cards, token pool) and each version's views (prices, bank limit)."""
    current = int(ARTIFICIUM.engine_version.rsplit("-", 1)[1])
    cards = ARTIFICIUM.reference()["cards"] if ARTIFICIUM.reference else {}
    converters = {spec["name"]: spec for spec in cards.values() if spec["effect"] == "produce" and spec["takes"]}
    for version in range(1, current + 1):
        rules = get_game("artificium", f"artificium-{version}")
        config = rules.config_from_json({"players": players})
        start = fold(rules, rules.setup(config, Rng(b"economy", "economy")))
        view = rules.view(start, None)
        prices, limited = view["prices"], view["bank_limit"] is not None
        margins = {name: sum(prices[r]["sell"] for r in spec["gives"]) - sum(prices[r]["buy"] for r in spec["takes"])
                   - spec["coins"] for name, spec in converters.items()}
        free = sorted(name for name, m in margins.items() if m >= 0)
        print(f"artificium rules {version}: converter margins (coins from buying the inputs and selling the output)")
        print("  " + ", ".join(f"{name} {m:+d}" for name, m in margins.items()))
        print(f"  free (margin >= 0): {', '.join(free) if free else 'none'}")
        lows, bonus = [], 0
        for i in range(games):
            game = play(rules, config, f"economy-{i}".encode(), f"economy-{players}-{i}", ["greedy"])
            state, low = None, view["bank"]
            for _, batch in game.batches:
                for event in batch:
                    state = rules.evolve(state, event)
                    low = min(low, state.bank)
                    bonus += type(event).__name__ == "BonusCollected"
            lows.append(low)
        short = sum(low <= 0 for low in lows) if limited else sum(low < 0 for low in lows)
        what = "ran the bank dry (0)" if limited else "went below zero"
        print(f"  {players} greedy seats, {games} games: bank lowest min {min(lows)}, median {statistics.median(lows)};"
              f" bonus tokens a game {bonus / games:.1f}")
        print(f"  games that {what}: {share(short, games)}")


if __name__ == "__main__":
    main()
