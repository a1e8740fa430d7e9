"""``hourglass`` command-line mistakes: one clear line on stderr and exit code 2, no traceback."""
from __future__ import annotations

import json

import pytest

from service.cli import main


@pytest.mark.parametrize("argv, message", [
    (["selfplay", "--game", "orleans", "--edition", "classic", "--players", "5"],
     "orleans: the classic edition is for 2–4 players"),
    (["selfplay", "--players", "3", "--bots", "random,foo"], "unknown bot 'foo' for orleans; known: "),
    (["selfplay", "--game", "chess"], "unknown game 'chess'; known: "),
    (["selfplay", "--games", "0"], "--games must be at least 1"),
    (["selfplay", "--edition", "1999"], "orleans: edition must be"),
    (["launch"], "unknown command 'launch'"),
])
def test_a_mistake_is_one_line_and_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_argparse_mistakes_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["selfplay", "--players", "four"])
    assert stop.value.code == 2 and "invalid int value: 'four'" in capsys.readouterr().err


def test_good_arguments_still_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--players", "2", "--seed", "cli", "--bots", "random"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["players"] == 2 and row["seed"] == "cli-0"


def test_a_bot_that_does_not_play_the_game_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--game", "cathedral", "--players", "2", "--bots", "search"]) == 2
    assert "unknown bot 'search' for cathedral; known: greedy, random" in capsys.readouterr().err


def test_the_stream_process_priority_is_checked_before_anything_starts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--stream-nice`` and ``HOURGLASS_STREAM_NICE`` take 0-19 (what a process may lower its
    own priority by without privileges); anything else is refused before Redis or a child starts."""
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--stream-nice", "25"])
    assert stop.value.code == 2 and "argument --stream-nice: 25 is outside 0-19" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--stream-nice", "5", "--no-stream-hub"])
    assert stop.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
    monkeypatch.setenv("HOURGLASS_STREAM_NICE", "-5")
    assert main(["serve"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "hourglass: HOURGLASS_STREAM_NICE: -5 is outside 0-19\n"
