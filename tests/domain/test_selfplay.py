import json
import subprocess
import sys

from domain.selfplay import lines


def test_same_seed_gives_the_same_line():
    args = ["--edition", "classic", "--players", "3", "--games", "2", "--seed", "s1", "--bots", "random"]
    first, second = list(lines(args)), list(lines(args))
    assert first == second and len(first) == 2
    row = json.loads(first[0])
    assert set(row) == {"seed", "edition", "players", "rounds", "decisions", "events", "scores", "winners", "final_hash"}
    assert row["rounds"] == 18 and len(row["scores"]) == 3 and row["players"] == 3
    assert first[0] != first[1]


def test_other_seed_gives_another_game():
    a = json.loads(next(lines(["--players", "2", "--seed", "a"])))
    b = json.loads(next(lines(["--players", "2", "--seed", "b"])))
    assert a["final_hash"] != b["final_hash"]


def test_2023_five_players():
    row = json.loads(next(lines(["--edition", "2023", "--players", "5", "--seed", "x"])))
    assert row["edition"] == "2023" and len(row["scores"]) == 5


def test_console_script_prints_one_json_line_per_game():
    out = subprocess.run(
        [sys.executable, "-c", "from service.cli import main; raise SystemExit(main())",
         "selfplay", "--game", "orleans", "--edition", "classic", "--players", "2", "--games", "2",
         "--seed", "cli", "--bots", "random"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 2 and rows[0]["seed"] == "cli-0"
