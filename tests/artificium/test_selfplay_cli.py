"""`hourglass selfplay --game artificium --players N ...`: the Orléans line shape; same seed, same line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["selfplay", *args]) == 0
    return capsys.readouterr().out.splitlines()


def shape(line: str) -> dict[str, type]:
    row: dict[str, Any] = json.loads(line)
    return {key: type(value) for key, value in row.items()}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_artificium_lines_have_the_orleans_shape_and_repeat_for_the_same_seed(
        capsys: pytest.CaptureFixture[str], players: int) -> None:
    args = ["--game", "artificium", "--players", str(players), "--games", "2", "--seed", "cli", "--bots", "greedy,random"]
    first, again = run(capsys, *args), run(capsys, *args)
    assert first == again and len(first) == 2 and first[0] != first[1]
    orleans = run(capsys, "--game", "orleans", "--edition", "classic", "--players", "2", "--games", "1", "--seed", "cli")
    assert shape(first[0]) == shape(orleans[0])
    row = json.loads(first[0])
    assert row["seed"] == "cli-0" and row["edition"] == "standard" and row["players"] == players
    assert row["rounds"] == 4 and len(row["scores"]) == players and row["winners"]
    assert run(capsys, *args[:-4], "--seed", "other", "--bots", "greedy,random")[0] != first[0]


def test_the_console_command_prints_the_same_line() -> None:
    args = ["--game", "artificium", "--players", "3", "--games", "1", "--seed", "console", "--bots", "random"]
    outs = [subprocess.run([sys.executable, "-m", "service.cli", "selfplay", *args], cwd=ROOT, check=True,
                           capture_output=True, text=True, timeout=120).stdout for _ in range(2)]
    assert outs[0] == outs[1] and json.loads(outs[0])["players"] == 3


@pytest.mark.parametrize("args,message", [
    (["--edition", "classic"], "edition must be 'standard'"),
    (["--players", "7"], "Artificium is for 2–6 players"),
    (["--bots", "smart"], "unknown bot 'smart'"),
])
def test_bad_arguments_are_one_line_not_a_traceback(capsys: pytest.CaptureFixture[str], args: list[str],
                                                     message: str) -> None:
    assert main(["selfplay", "--game", "artificium", *args]) == 2
    out = capsys.readouterr()
    assert out.out == "" and message in out.err and len(out.err.splitlines()) == 1
