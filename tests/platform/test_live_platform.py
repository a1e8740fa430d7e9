"""End to end through a real HTTP port, real Redis and real worker processes: bots from the client
library play whole games, push-call outcomes reach the bot's stream during the game, and a
6-entrant tournament (built-in, push and pull bots) survives a worker killed mid-way, ends with a
package that verifies, and whose every one-byte edit is caught."""
from __future__ import annotations

import io
import os
import random
import threading
import time
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from hourglass_client import ApiError, Bot, Client, Turn
from hourglass_client.bot import PushServer

from core.scoring import standings
from core.tournaments import fold
from core.worklist import DUE_KEY
from replays.tournament import verify_package
from tests.conftest import REDIS_URL, RUN_QUEUE
from tests.platform.conftest import unique
from tests.platform.stack import Stack, wait_for
from workers.lease import lease_key


class Eager(Bot):
    """Plays any game: the first move that does not pass, drawn by game and version."""

    def choose(self, turn: Turn) -> dict[str, Any]:
        eager = [m for m in turn.moves if "Pass" not in m["type"] and "Finish" not in m["type"]] or turn.moves
        return random.Random(f"{turn.game}:{turn.version}").choice(eager)


class Liar(Bot):
    def choose(self, turn: Turn) -> dict[str, Any]:
        return {"type": "NoSuchMove"}


class Silent(Bot):
    """Answers long after any tournament deadline of these tests: a bot that never answers in time."""

    def choose(self, turn: Turn) -> dict[str, Any]:
        time.sleep(1.5)
        return turn.moves[0]


SECRET = "k" * 48


@pytest.fixture(scope="module")
def push() -> Iterator[dict[str, PushServer]]:
    servers = {"eager": Eager().serve(SECRET), "eager2": Eager().serve(SECRET), "liar": Liar().serve(SECRET),
               "wrongkey": Eager().serve("w" * 48), "silent": Silent().serve(SECRET)}
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="module")
def stack(conn: redis.Redis, push: dict[str, PushServer]) -> Iterator[Stack]:
    hosts = ",".join(f"127.0.0.1:{s.httpd.server_address[1]}" for s in push.values())
    saved = os.environ.get("HOURGLASS_BOT_HOSTS")
    os.environ["HOURGLASS_BOT_HOSTS"] = hosts
    live = Stack(conn, REDIS_URL, RUN_QUEUE, {"HOURGLASS_BOT_HOSTS": hosts}).start(workers=2)
    yield live
    live.stop()
    if saved is None:
        os.environ.pop("HOURGLASS_BOT_HOSTS", None)
    else:
        os.environ["HOURGLASS_BOT_HOSTS"] = saved


@pytest.fixture
def api(stack: Stack, made: dict[str, list[str]]) -> Client:
    """A freshly signed-up account (over HTTP): it owns the test's bots and tournaments."""
    account = Client(stack.url).sign_up(unique("live"))
    made["accounts"].append(account["id"])
    return Client(stack.url, account["key"])


def register(api: Client, made: dict[str, list[str]], kind: str, server: PushServer | None = None) -> dict[str, Any]:
    bot = dict(api.register_bot(unique(kind), kind, **({"url": server.url, "secret": SECRET} if server else {})))
    made["bots"].append(bot["id"])
    return bot


def play_in_thread(bot: Bot, api: Client, registered: dict[str, Any], games: int) -> threading.Thread:
    thread = threading.Thread(target=bot.play, args=(api.with_token(registered["token"]), registered["id"]),
                              kwargs={"games": games}, daemon=True)
    thread.start()
    return thread


def test_a_pull_bot_and_a_push_bot_from_the_client_library_play_a_whole_game(
        api: Client, push: dict[str, PushServer], made: dict[str, list[str]]) -> None:
    puller = register(api, made, "pull")
    pusher = register(api, made, "http", push["eager"])
    player = play_in_thread(Eager(), api, puller, games=1)
    calls_before = push["eager"].calls
    game = api.create_game("artificium", [{"bot_id": puller["id"], "deadline_s": 20}, {"bot_id": pusher["id"]},
                                          {"name": "R", "kind": "bot", "bot": "random"}], seed="client-lib")
    made["games"].append(game["id"])
    player.join(timeout=180)
    summary = wait_for(lambda: (s := api.game(game["id"]))["status"] == "finished" and s, 60, "the game's end")
    assert not player.is_alive()
    entries = api.events(game["id"])["events"]
    by_seat = {seat: [e for e in entries if e["actor"] == seat] for seat in (0, 1)}
    assert by_seat[0] and by_seat[1] and summary["result"]["ranking"]
    pull_stream = api.with_token(puller["token"]).bot_events(puller["id"])["events"]
    kinds = [e["event"] for e in pull_stream]
    assert kinds[0] == "game_started" and kinds[-1] == "game_finished" and kinds.count("your_turn") >= 5
    push_stream = api.with_token(pusher["token"]).bot_events(pusher["id"])["events"]
    outcomes = [e["data"]["outcome"] for e in push_stream if e["event"] == "call"]
    assert outcomes and set(outcomes) == {"ok"} and push["eager"].calls - calls_before == len(outcomes)
    timed_out = [e for e in entries if e["actor"] == 0 and "Timeout" in e["type"]]
    assert not timed_out  # the pull bot answered every turn itself


@pytest.mark.parametrize("server, outcome", [("liar", "illegal"), ("wrongkey", "bad_signature")])
def test_every_push_call_outcome_is_on_the_bots_stream_before_the_game_ends(
        api: Client, push: dict[str, PushServer], made: dict[str, list[str]], server: str, outcome: str) -> None:
    bot = register(api, made, "http", push[server])
    game = api.create_game("artificium", [{"bot_id": bot["id"], "deadline_s": 2},
                                          {"name": "R", "kind": "bot", "bot": "random"}], seed=f"outcome-{server}")
    made["games"].append(game["id"])
    wait_for(lambda: api.game(game["id"])["status"] == "finished", 120, "the game's end")
    stream = api.with_token(bot["token"]).bot_events(bot["id"])["events"]
    kinds = [e["event"] for e in stream]
    calls = [e["data"] for e in stream if e["event"] == "call"]
    assert calls and {c["outcome"] for c in calls} == {outcome}
    assert kinds.index("call") < kinds.index("game_finished")  # streamed while the game ran
    assert all(set(c) == {"game", "seat", "version", "outcome", "rtt_ms"} for c in calls)  # never the bot's answer
    defaults = [e for e in api.events(game["id"])["events"] if e["actor"] == 0]
    assert defaults  # the seat still played: its default moves


def where_games_stand(api: Client, stack: Stack, conn: redis.Redis, tid: str) -> str:
    """A tournament's games as the workers see them: version, who acts, lease, work list, queues."""
    lines = []
    for game in api.tournament(tid)["games"]:
        gid = game.get("game_id") or game.get("id")
        if not gid:
            lines.append(f"  {game}")
            continue
        summary = api.game(gid)
        lines.append(f"  {gid}: {summary['status']} v{summary.get('version')} to_act={summary.get('to_act')} "
                     f"lease={conn.pttl(lease_key(gid))} ms due={conn.zscore(DUE_KEY, gid)}")
    for name in (stack.queue, f"{stack.queue}-now", f"{stack.queue}-slow"):
        lines.append(f"  queue {name}: {conn.llen(f'rq:queue:{name}')} waiting")
    lines += [f"  {log.name}: {log.read_text()[-600:]!r}" for log in stack.logs if log.exists()]
    return "\n".join(lines)


def test_a_six_entrant_tournament_survives_a_killed_worker_and_its_package_verifies(
        api: Client, stack: Stack, conn: redis.Redis, push: dict[str, PushServer], made: dict[str, list[str]],
        tmp_path: Any) -> None:
    pullers = [register(api, made, "pull") for _ in range(2)]
    pushers = [register(api, made, "http", push[name]) for name in ("eager", "eager2")]
    players = [play_in_thread(Eager(), api, p, games=2) for p in pullers]
    entrants = [{"builtin": "random"}, {"builtin": "greedy"}, *({"bot_id": b["id"]} for b in pushers + pullers)]
    created = api.create_tournament(name="six", game="artificium", players_per_game=3, entrants=entrants,
                                    format="swiss", rounds=2, deadline_s=10, parallel=2)
    tid = created["id"]
    made["tournaments"].append(tid)
    assert created["status"] == "running" and created["seed"] is None and len(created["seed_commitment"]) == 64

    wait_for(lambda: any(g["status"] == "playing" for g in api.tournament(tid)["games"]), 60, "a game to start")
    victim = stack.workers[0]
    stack.kill_worker(victim)  # mid-tournament: its job (a game's advance, or a tick) dies with it
    stack.start_worker()

    final = wait_for(lambda: (t := api.tournament(tid))["status"] == "finished" and t, 420, "the tournament's end",
                     every=0.5, explain=lambda: where_games_stand(api, stack, conn, tid))
    for thread in players:
        thread.join(timeout=60)
    assert len(final["games"]) == 4 and all(g["status"] == "finished" for g in final["games"])
    assert sorted(r["games"] for r in final["standings"]) == [2] * 6
    folded = fold(e["data"] for e in api.tournament_events(tid)["events"])
    assert final["standings"] == standings(folded)  # the table is a fold of the stream
    board = api.leaderboard("artificium")
    keys = {row["key"] for row in board["entries"]}
    assert {f"bot:{b['id']}" for b in pushers + pullers} <= keys and "builtin:greedy" in keys

    package = api.tournament_package(tid)
    report = verify_package(package)
    assert report.ok, report.describe()
    assert report.games == 4 and report.merkle_root == final["merkle_root"]
    (tmp_path / "package.zip").write_bytes(package)
    check_one_byte_edits(package)


def test_a_silent_push_bot_ends_below_every_bot_that_played_and_a_cancelled_tournament_ends(
        api: Client, push: dict[str, PushServer], made: dict[str, list[str]]) -> None:
    """Issue 23 through real workers: a push bot that never answers in time shows only timeouts in
    the standings and its public record and ends last; then an organiser cancels a tournament
    whose game waits on an idle pull bot, and it ends with that game called off."""
    silent = register(api, made, "http", push["silent"])
    eager = register(api, made, "http", push["eager"])
    tid = api.create_tournament(name="accountable", game="artificium", players_per_game=2, deadline_s=0.2,
                                parallel=2, entrants=[{"bot_id": silent["id"]}, {"bot_id": eager["id"]},
                                                      {"builtin": "random"}])["id"]
    made["tournaments"].append(tid)
    final = wait_for(lambda: (t := api.tournament(tid))["status"] == "finished" and t, 300, "the tournament's end",
                     every=0.5)
    last = final["standings"][-1]
    assert last["key"] == f"bot:{silent['id']}" and last["absent"] and last["points"] == 0
    assert last["calls"] > 0 and last["timeout"] == last["calls"] and last["ok"] == 0
    assert all(row["ok"] == row["calls"] for row in final["standings"][:-1])
    record = api.bot_record(silent["id"])
    assert record["tournaments"][0]["place"] == 3 and record["overall"]["timeout"] == last["calls"]
    assert verify_package(api.tournament_package(tid)).ok

    idle = register(api, made, "pull")  # nobody plays it: its game waits for it
    second = api.create_tournament(name="cancelled", game="artificium", players_per_game=2, deadline_s=60,
                                   parallel=1, entrants=[{"bot_id": idle["id"]}, {"builtin": "greedy"}])["id"]
    made["tournaments"].append(second)
    wait_for(lambda: any(g["status"] == "playing" for g in api.tournament(second)["games"]), 60, "a game to start")
    assert api.cancel_tournament(second, "the venue closed")["status"] == "cancelled"
    over = wait_for(lambda: (t := api.tournament(second))["seed"] and t, 60, "the cancelled tournament's end")
    assert sorted(g["status"] for g in over["games"]) == ["called_off", "not_played"]
    assert over["cancelled"] == {"by": api.account()["id"], "reason": "the venue closed"}
    report = verify_package(api.tournament_package(second))
    assert report.ok and report.games == 1, report.describe()


def check_one_byte_edits(package: bytes) -> None:
    """A byte changed anywhere (every member's first, middle and last byte, and bytes of the zip's own
    headers and directory) is named by the verifier."""
    positions = set(random.Random(12).sample(range(len(package)), 40))
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        for info in archive.infolist():
            start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
            positions |= {info.header_offset + 10, start, start + info.file_size // 2, start + info.file_size - 1}
    positions.add(len(package) - 5)  # the end-of-central-directory record
    for position in sorted(positions):
        tampered = bytearray(package)
        tampered[position] ^= 0x01
        report = verify_package(bytes(tampered))
        assert not report.ok and report.where, f"an edit at byte {position} went unnoticed"



def test_the_bot_stream_resumes_after_any_event_without_gaps_or_repeats(
        api: Client, made: dict[str, list[str]]) -> None:
    bot = register(api, made, "pull")
    me = api.with_token(bot["token"])
    game = api.create_game("artificium", [{"bot_id": bot["id"], "deadline_s": 0.5},
                                          {"name": "R", "kind": "bot", "bot": "random"}], seed="resume")
    made["games"].append(game["id"])
    first = next(iter(me.follow_bot(bot["id"])))  # a fresh connection starts with a snapshot
    assert first.event == "resync" and game["id"] in first.data["games"]
    wait_for(lambda: api.game(game["id"])["status"] == "finished", 120, "the game's end (every turn timed out)")
    truth = me.bot_events(bot["id"])["events"]
    assert [e["event"] for e in truth][0] == "game_started" and truth[-1]["event"] == "game_finished"
    for cut in (0, len(truth) // 2, len(truth) - 2):
        resumed = []
        for event in me.follow(f"/api/v1/bots/{bot['id']}/events/stream", truth[cut]["id"]):
            resumed.append({"id": event.id, "event": event.event, "data": event.data})
            if event.id == truth[-1]["id"]:
                break
        assert resumed == truth[cut + 1:]
    turns = [e["data"] for e in truth if e["event"] == "your_turn"]
    assert turns and all(t["deadline_ms"] is not None for t in turns)


@pytest.mark.parametrize("script, extra", [("orleans_bot.py", ["--players", "2"]), ("artificium_bot.py", []),
                                           ("any_game_bot.py", ["--game", "artificium", "--players", "2"]),
                                           ("any_game_bot.py", ["--game", "cathedral", "--players", "2"])])
def test_each_starter_bot_plays_a_game_in_one_command_against_a_running_server(
        stack: Stack, conn: redis.Redis, script: str, extra: list[str]) -> None:
    import re
    import subprocess
    import sys

    from core.accounts import Accounts
    from core.bots import BotRegistry
    from tests.conftest import forget_games
    from tests.platform.stack import ROOT

    done = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--server", stack.url, "--deadline", "20",
                           *extra], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "finished: rank" in done.stdout and "/games/" in done.stdout
    if "cathedral" in extra:  # the shared outcome, not a rank that reads like a win after a loss
        assert "everyone won together" in done.stdout or "everyone lost together" in done.stdout, done.stdout
    # what the starter made is deleted: its bot, its games, the account it signed up
    BotRegistry(conn).delete(re.findall(r"registered \w+ bot \S+ \((\w+)\)", done.stdout))
    forget_games(conn, re.findall(r"created game (\w+)", done.stdout))  # and their lobby entries
    registry = Accounts(conn)
    registry.delete([registry.find(name).account_id for name in re.findall(r"signed up account (\S+);", done.stdout)])


def test_an_account_plays_three_games_at_once_from_one_stream_without_polling(
        stack: Stack, api: Client, made: dict[str, list[str]]) -> None:
    """Issue 22 ("your turn anywhere"): one account, three live games, one event stream. The client
    reads a game only when its stream says it is the account's turn there, and never asks anything
    else: every GET it makes follows a ``your_turn`` event, one each."""
    games = []
    for _ in range(3):
        game = api.create_game("artificium", [{"name": "Me"}, {"name": "R", "kind": "bot", "bot": "random"}])
        made["games"].append(game["id"])
        games.append(game["id"])
    reads: list[str] = []
    refused: list[int] = []
    finished: set[str] = set()
    turns = 0

    def take_turn(game_id: str, seat: int) -> None:
        # the account is told once per prompt: while the seat still owes a move, a refused post (a bot's
        # move landed between the read and the post, e.g. in Artificium's simultaneous discards) reads again
        for _ in range(50):
            moves = api.moves(game_id)
            reads.append(game_id)
            if moves["seat"] != seat or not moves["moves"]:
                return
            try:
                api.post_move(game_id, random.Random(turns).choice(moves["moves"]), if_match=moves["version"])
                return
            except ApiError as exc:
                if exc.status not in (412, 422):
                    raise
                refused.append(exc.status)
        raise AssertionError(f"game {game_id} moved on under 50 reads in a row")

    def play() -> None:
        nonlocal turns
        for event in api.follow_account():
            if event.event == "your_turn" and event.data["game"] in games:
                turns += 1
                take_turn(event.data["game"], event.data["seat"])
            elif event.event == "game_finished" and event.data["game"] in games:
                finished.add(event.data["game"])
                if finished == set(games):
                    break

    player = threading.Thread(target=play, daemon=True)
    player.start()
    player.join(timeout=300)  # a generous cap: the three games end in seconds when nothing is lost
    assert finished == set(games), f"after 300 s only {sorted(finished)} of {games} ended; {turns} turns told"
    assert turns >= 3 and len(reads) == turns + len(refused)  # a read follows a notification or a refusal: no polling
    for game_id in games:
        summary = api.game(game_id)
        assert summary["status"] == "finished" and summary["result"]["ranking"]
    listed = {g["id"]: g for g in api.account_games()}
    assert set(games) <= set(listed) and all(listed[g]["status"] == "finished" for g in games)
