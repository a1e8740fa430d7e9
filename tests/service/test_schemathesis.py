"""Schemathesis against the live OpenAPI document of the server as shipped: every check, 0 failures
(issues 13 and 15).

``hourglass serve --no-worker`` (gunicorn, the shipped worker class) runs on a free loopback port
with rate limits off, holding one Orléans game; Schemathesis runs as its CLI with ``--checks all``
(server errors, status codes, content types, headers, response schemas, negative and positive
data, auth, SSE events...) through its examples, coverage, fuzzing and stateful phases, bounded by
``--max-examples`` (``HOURGLASS_ST_EXAMPLES``; ``make chaos`` runs more) and a fixed seed.

The operations whose rejections the rules decide (a schema-valid move the game refuses, a config
outside a game's player counts, an opaque cursor this server never handed out, a Last-Event-ID
past the game) may answer 422 or 400 to schema-valid data: that is the config below, per
operation, as Schemathesis documents for rules a schema cannot express. A move body is any game's
``Move``; the game in the path decides which union applies, so another game's move whose type
name this game also uses (the Cathedral's ``Travel`` or ``PlaceFollower`` posted to an Orléans
game) is malformed for this game: 400, like any body that does not match its move. Games the run
creates are deleted afterwards.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from core.accounts import ALL_KEY as ACCOUNTS
from core.accounts import Accounts
from core.games import GameService
from core.lobby import PREFIX
from tests.conftest import REDIS_URL, forget_games
from tests.live import free_port, wait_until_serving

ST = Path(sys.executable).parent / "st"
HERE = Path(__file__).parent
ROOT = HERE.parents[1]
MAX_EXAMPLES = int(os.environ.get("HOURGLASS_ST_EXAMPLES", "10"))
SEED = int(os.environ.get("HOURGLASS_ST_SEED", "20260413"))
CONFIG = """
[parameters]
game_id = "{game_id}"
seat = 1

[[operations]]
include-operation-id = ["postMove"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "412", "422", "429",
                                                     "5xx"]

[[operations]]
include-operation-id = ["createGame", "resign", "abort", "leave", "claim", "joinSeat", "registerBot", "createTournament",
                        "rotateBotSecret", "signUp", "updateBot", "deleteBot", "rotateBotToken", "createKey",
                        "grantAccount", "disableAccount", "enableAccount"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]

[[operations]]
include-operation-id = ["getAccount", "listKeys", "revokeKey", "rotateKey", "listAccountGames", "listAccountEvents",
                        "streamAccountEvents", "listAccounts", "createInvite", "getBot", "listBotEvents",
                        "streamBotEvents"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]  # a ladder or challenge named in the path that does not exist, or needs another key
include-operation-id = ["getLadder", "getLadderHistory", "enterLadder", "leaveLadder", "createChallenge", "getChallenge",
                        "acceptChallenge", "declineChallenge", "setChallengePolicy", "getChallengePolicy"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]

[[operations]]  # seat entropy: the served game is not seeding (404), a token of no contributing seat (401)
include-operation-id = ["contributeEntropy", "getSeeding"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "404", "409", "429", "5xx"]

[[operations]]
include-operation-id = ["listGames", "listEvents", "streamEvents"]  # a resume or page past the game: 400
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
"""

pytestmark = pytest.mark.skipif(not ST.exists(), reason="needs schemathesis (the test extras)")


@pytest.fixture
def served(conn: redis.Redis, tmp_path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    svc = GameService(conn, client_seeds="any")
    game = svc.create({"game": "orleans", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    before = {m.decode() for m in conn.zrange(f"{PREFIX}:all", 0, -1)}
    accounts_before = {m.decode() for m in conn.zrange(ACCOUNTS, 0, -1)}
    port = free_port()
    env = {**os.environ, "REDIS_URL": REDIS_URL, "HOURGLASS_RATE_LIMIT": "0", "HOURGLASS_ADVANCE": "off",
           "HOURGLASS_SSE_HEARTBEAT": "0.2"}
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--no-worker", "--port", str(port),
                             "--workers", "1"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, proc)
        yield base, game
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
        log.close()
        made = {m.decode() for m in conn.zrange(f"{PREFIX}:all", 0, -1)} - before | {game["id"]}
        forget_games(conn, made)
        for key in conn.scan_iter(f"{PREFIX}:*", count=1000):
            conn.zrem(key, *made)
        Accounts(conn).delete({m.decode() for m in conn.zrange(ACCOUNTS, 0, -1)} - accounts_before)


def test_schemathesis_finds_nothing(served: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    base, game = served
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG.format(game_id=game["id"]))
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [str(ST), "--config-file", str(config), "--no-color", "run", f"{base}/openapi.json", "--checks", "all",
         "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--workers", "1", "--request-timeout", "10",
         "-H", f"Authorization: Bearer {game['seats'][0]['token']}"],
        capture_output=True, text=True, env=env, timeout=900, cwd=tmp_path)
    report = done.stdout + done.stderr
    artifacts = HERE.parent / "artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "schemathesis.txt").write_text(report)
    summary = re.search(r"Test cases:\s*\n\s*(\d+) generated", report)
    assert summary is not None and int(summary.group(1)) > 300, report[-3000:]
    assert done.returncode == 0, report[-6000:]
