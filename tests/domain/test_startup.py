"""Light start-up (issue 27): the registry imports a game's package only when that game is used,
and `hourglass selfplay` prints exactly the lines it printed before it did."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from domain.selfplay import lines

ROOT = Path(__file__).resolve().parents[2]

# `hourglass selfplay --game orleans --players 4 --games 3 --bots random` on main before the
# registry became lazy (seeds hourglass-0..2): the lines, final_hash included, must not change.
# (The final hashes were renewed once for Orléans rules 5: the state's config records rules_version 5;
# every other figure is the same.)
BEFORE = [
    {"decisions": 781,
     "edition": "classic",
     "events": 1008,
     "final_hash": "1397cce2b8ffc533b2619b005530dc99e3c07f22cbffe182efa6da7a533bf81a",
     "players": 4,
     "rounds": 18,
     "scores": [1, 0, 3, 3],
     "seed": "hourglass-0",
     "winners": [2, 3]},
    {"decisions": 885,
     "edition": "classic",
     "events": 1097,
     "final_hash": "120234ee4023ad70d1b35d7506ba048ae91e0426ec68f8bc4b98f82493538701",
     "players": 4,
     "rounds": 18,
     "scores": [0, 0, 0, 0],
     "seed": "hourglass-1",
     "winners": [0, 1, 2, 3]},
    {"decisions": 797,
     "edition": "classic",
     "events": 1005,
     "final_hash": "5b965467436f934747d5f3f42aea04143c518ea8974702e182e7d1f039431fd9",
     "players": 4,
     "rounds": 18,
     "scores": [0, 0, 0, 0],
     "seed": "hourglass-2",
     "winners": [0, 1, 2, 3]},
]


def _modules_after(code: str, prefixes: tuple[str, ...] = ("domain.",)) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` whose names start with one of ``prefixes``."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})
    return set(json.loads(done.stdout.splitlines()[-1]))


def _games(modules: set[str]) -> set[str]:
    return {m.split(".")[1] for m in modules if m.split(".")[1] in {"orleans", "artificium", "cathedral", "toy"}}


def test_game_names_import_no_game() -> None:
    modules = _modules_after("from domain.games import game_names\nassert game_names() == "
                             "('artificium', 'cathedral', 'orleans')")
    assert _games(modules) == set()


def test_get_game_imports_that_game_alone() -> None:
    modules = _modules_after("from domain.games import get_game\nget_game('orleans')")
    assert "domain.orleans" in modules
    assert "domain.artificium" not in modules
    assert _games(modules) == {"orleans"}


def test_selfplay_of_one_game_imports_that_game_alone() -> None:
    code = ("from service.cli import main\nimport contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['selfplay', '--game', 'artificium', '--players', '3', '--games', '1', '--bots', 'greedy'])")
    assert _games(_modules_after(code)) == {"artificium"}


def test_selfplay_of_random_seats_imports_none_of_the_games_own_bots() -> None:
    code = ("from service.cli import main\nimport contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['selfplay', '--game', 'orleans', '--players', '4', '--games', '1', '--bots', 'random'])")
    bots = {m for m in _modules_after(code) if m.startswith("domain.bots.")}
    assert bots == {"domain.bots.random_bot"}


def test_selfplay_imports_nothing_serve_needs() -> None:
    code = ("from service.cli import main\nimport contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['selfplay', '--game', 'orleans', '--players', '4', '--games', '1', '--bots', 'random'])")
    serve_only = ("subprocess", "threading", "tempfile", "signal", "workers", "core", "adapters", "service.")
    assert {m for m in _modules_after(code, serve_only) if m != "service.cli"} == set()


def test_selfplay_leaves_the_collector_as_it_found_it() -> None:
    import contextlib
    import gc
    import io

    from service.cli import main

    before = gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()
    with contextlib.redirect_stdout(io.StringIO()):
        main(["selfplay", "--game", "orleans", "--players", "2", "--games", "1", "--bots", "random"])
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before


def test_selfplay_hash_is_the_hash_of_the_whole_log_however_often_its_events_recur() -> None:
    from domain.canonical import json_hash
    from domain.games import get_game
    from domain.selfplay import event_log_hash, play

    rules = get_game("orleans")
    config = rules.config_from_json({"players": 3})
    for i in range(2):  # the second game meets events the first one encoded
        game = play(rules, config, f"hash-{i}".encode(), f"hash-{i}", ["random"])
        whole = json_hash([rules.event_to_json(e) for _, events in game.batches for e in events])
        assert event_log_hash(rules, game) == whole


def test_by_reference_unpickles_a_plugin_importing_only_its_game() -> None:
    code = ("import pickle\nfrom domain.games import get_game\n"
            "data = pickle.dumps(get_game('cathedral'))\nimport sys\n"
            "assert pickle.loads(data) is get_game('cathedral')")
    assert _games(_modules_after(code)) == {"cathedral"}


def test_plugins_still_imports_every_game() -> None:
    assert _games(_modules_after("from domain.games import plugins\nplugins()")) == {
        "orleans", "artificium", "cathedral", "toy"}


def test_selfplay_lines_are_unchanged() -> None:
    printed = list(lines(["--game", "orleans", "--players", "4", "--games", "3", "--bots", "random"]))
    assert printed == [json.dumps(row, sort_keys=True) for row in BEFORE]


def test_unknown_game_and_bot_still_say_what_is_known() -> None:
    from domain.bots import get_bot
    from domain.core import Rejected
    from domain.games import get_game

    with pytest.raises(Rejected, match="known: artificium, cathedral, orleans"):
        get_game("chess")
    with pytest.raises(KeyError, match="unknown bot 'nobody'"):
        get_bot("nobody", "orleans")
    with pytest.raises(KeyError, match="does not play cathedral; bots for cathedral: greedy, random"):
        get_bot("search", "cathedral")
