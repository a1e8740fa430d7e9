"""Issue 26: the TypeScript starter (clients/typescript) for bot authors who do not write Python.

It is compiled (tsc, strict) from its committed sources and types into a temporary directory; its
own Node tests (node --test: the SSE/NDJSON framing and the Retry-After retries) pass; and the
starter bot, run as its README says, signs up, registers a pull bot, follows the bot's SSE stream
and plays a whole game of each game against a built-in bot through a live stack (HTTP server and
worker processes). Played by a seat token, it follows the game's NDJSON stream to the end instead.
Without node or the starter's packages (``make install-test`` runs npm ci) these tests skip.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from hourglass_client import Client

from core.accounts import Accounts
from core.bots import BotRegistry
from tests.conftest import REDIS_URL, RUN_QUEUE, forget_games
from tests.platform.conftest import unique
from tests.platform.stack import ROOT, Stack

STARTER = ROOT / "clients" / "typescript"
MODULES = STARTER / "node_modules"
pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (MODULES / ".bin" / "tsc").exists() or not (MODULES / "openapi-fetch").exists(),
    reason="needs node and clients/typescript's packages (make install-test runs npm ci --prefix clients/typescript)")


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The starter compiled into a directory of its own (the checkout's build/ is left alone): the
    directory holding package.json, node_modules (a link) and build/."""
    out = tmp_path_factory.mktemp("tsclient")
    shutil.copy(STARTER / "package.json", out / "package.json")  # "type": "module" for the compiled files
    (out / "node_modules").symlink_to(MODULES, target_is_directory=True)
    done = subprocess.run([str(MODULES / ".bin" / "tsc"), "-p", str(STARTER), "--outDir", str(out / "build")],
                          capture_output=True, text=True, timeout=300, cwd=out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


PUSH_PORT = free_port()  # the push starter's port: the allow-list names host *and* port


@pytest.fixture(scope="module")
def stack(conn: redis.Redis) -> Iterator[Stack]:
    hosts = f"127.0.0.1:{PUSH_PORT}"
    saved = os.environ.get("HOURGLASS_BOT_HOSTS")
    os.environ["HOURGLASS_BOT_HOSTS"] = hosts  # the in-process web app checks a new game's push seat against it
    live = Stack(conn, REDIS_URL, RUN_QUEUE, {"HOURGLASS_BOT_HOSTS": hosts}).start(workers=1)
    try:
        yield live
    finally:
        live.stop()
        if saved is None:
            os.environ.pop("HOURGLASS_BOT_HOSTS", None)
        else:
            os.environ["HOURGLASS_BOT_HOSTS"] = saved


def node(build: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", *args], capture_output=True, text=True, timeout=timeout, cwd=build)


def forget_what_the_starter_made(conn: redis.Redis, stdout: str) -> None:
    BotRegistry(conn).delete(re.findall(r"registered (?:pull|push) bot \S+ \((\w+)\)", stdout))
    forget_games(conn, re.findall(r"created game (\w+)", stdout))
    registry = Accounts(conn)
    registry.delete([registry.find(name).account_id for name in re.findall(r"signed up account (\S+);", stdout)])


def test_the_starters_own_node_tests_pass(build: Path) -> None:
    done = node(build, "--test", "build/", timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.M)
    failed = re.search(r"^# fail (\d+)$", done.stdout, re.M)
    assert passed is not None and int(passed.group(1)) >= 21 and failed is not None and failed.group(1) == "0", done.stdout


def test_the_starter_type_checks_against_types_generated_from_the_live_document(
        stack: Stack, tmp_path: Path) -> None:
    """The committed src/api.d.ts may lag the API; the starter must still compile (strict) against
    what ``npm run generate`` writes from the running server's /openapi.json now."""
    shutil.copy(STARTER / "package.json", tmp_path / "package.json")
    shutil.copy(STARTER / "tsconfig.json", tmp_path / "tsconfig.json")
    shutil.copytree(STARTER / "src", tmp_path / "src")
    (tmp_path / "node_modules").symlink_to(MODULES, target_is_directory=True)
    (tmp_path / "src" / "api.d.ts").unlink()
    for command in ([str(MODULES / ".bin" / "openapi-typescript"), "-o", "src/api.d.ts", f"{stack.url}/openapi.json"],
                    [str(MODULES / ".bin" / "tsc"), "-p", ".", "--noEmit"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "streamBotEvents" in (tmp_path / "src" / "api.d.ts").read_text()


@pytest.mark.parametrize("game", ["orleans", "artificium", "cathedral"])
def test_the_typescript_starter_plays_a_whole_game_of_each_game_against_a_built_in(
        build: Path, stack: Stack, conn: redis.Redis, game: str) -> None:
    done = node(build, "build/starter.js", "--server", stack.url, "--game", game, "--players", "2",
                "--opponent", "greedy", "--deadline", "20")
    try:
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        assert "finished: rank" in done.stdout and f"{stack.url}/games/" in done.stdout, done.stdout
        if game == "cathedral":  # the shared outcome, not a rank that reads like a win after a loss
            assert re.search(r"everyone (won|lost) together", done.stdout), done.stdout
        [gid] = re.findall(r"created game (\w+)", done.stdout)
        [key] = re.findall(r"export HOURGLASS_KEY=\.\.\.\): (\S+)", done.stdout)
        summary = Client(stack.url, key).game(gid)
        assert summary["status"] == "finished" and summary["game"] == game
        moves = [e for e in Client(stack.url).events(gid, 0)["events"] if e["actor"] == 0]
        assert moves, "the TypeScript bot's seat made no move"
        assert all(m["actor"] == 0 for m in moves)
    finally:
        forget_what_the_starter_made(conn, done.stdout)


@pytest.mark.parametrize("game", ["orleans", "artificium", "cathedral"])
def test_the_typescript_push_starter_is_called_for_every_move_of_a_whole_game(
        build: Path, stack: Stack, conn: redis.Redis, game: str) -> None:
    """Push mode: the starter serves its ``choose`` on the allow-listed port, registers an http bot
    with a secret of its own, and the worker calls it, signed, for every decision of a whole game
    against a built-in, and no call is refused."""
    done = node(build, "build/starter.js", "--mode", "push", "--port", str(PUSH_PORT), "--server", stack.url,
                "--game", game, "--players", "2", "--opponent", "greedy", "--deadline", "10")
    try:
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        assert f"at http://127.0.0.1:{PUSH_PORT}/move" in done.stdout, done.stdout
        answered = re.search(r"(\d+) calls answered, (\d+) refused", done.stdout)
        assert answered is not None and int(answered.group(1)) > 0 and answered.group(2) == "0", done.stdout
        [gid] = re.findall(r"created game (\w+)", done.stdout)
        [key] = re.findall(r"export HOURGLASS_KEY=\.\.\.\): (\S+)", done.stdout)
        summary = Client(stack.url, key).game(gid)
        assert summary["status"] == "finished" and summary["game"] == game
        ours = [e for e in Client(stack.url).events(gid, 0)["events"] if e["actor"] == 0]
        assert ours, "the push bot's seat made no move"
    finally:
        forget_what_the_starter_made(conn, done.stdout)


def test_the_starter_plays_a_seat_by_its_token_from_the_games_ndjson_stream(
        build: Path, stack: Stack, conn: redis.Redis, made: dict[str, list[str]]) -> None:
    account = Client(stack.url).sign_up(unique("tsseat"))
    made["accounts"].append(account["id"])
    api = Client(stack.url, account["key"])
    created = api.create_game("cathedral", [{"name": "Ts"}, {"name": "greedy-1", "kind": "bot", "bot": "greedy"}])
    made["games"].append(created["id"])
    token = next(s["token"] for s in created["seats"] if s["seat"] == 0)
    done = node(build, "build/starter.js", "--server", stack.url, "--game-id", created["id"], "--token", token)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    played = re.search(r"played (\d+) moves in game \w+ as seat 0", done.stdout)
    assert played is not None and int(played.group(1)) > 0, done.stdout
    assert api.game(created["id"])["status"] == "finished"
    assert re.search(r"everyone (won|lost) together", done.stdout), done.stdout


def test_a_stranger_with_a_made_up_token_gets_a_problem_not_a_stream(
        build: Path, stack: Stack, made: dict[str, list[str]]) -> None:
    """The abuse case: a script with a made-up token for a real game is refused with a 401 problem
    (the token is checked before the stream takes one of the caller's open-stream slots, so it
    draws on no budget), and the starter says so and exits non-zero instead of hanging."""
    account = Client(stack.url).sign_up(unique("tsstranger"))
    made["accounts"].append(account["id"])
    created = Client(stack.url, account["key"]).create_game("cathedral", [{"name": "Waiting"}, {"name": "Other"}])
    made["games"].append(created["id"])
    done = node(build, "build/starter.js", "--server", stack.url, "--game-id", created["id"], "--token", "made-up",
                timeout=60)
    assert done.returncode == 2 and "HTTP 401" in done.stderr, done.stdout + done.stderr
    assert "Waiting" not in done.stdout + done.stderr
