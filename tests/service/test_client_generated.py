"""A client generated from the live OpenAPI document plays a whole game (issue 13).

openapi-python-client generates a package from ``/openapi.json`` of a running server (a thread
here, with a worker thread that plays SYSTEM steps as ``hourglass worker`` would). The test then
plays a two-player Orléans game with typed calls only: the create request, the summary, the
moves (parsed into per-move models, posted back as they came), the views, the event pages, the
replay bundle and its verification; and a lobby round trip (an open seat, the listing, a join).
A seat's live stream, in both formats, is read through the generated operation to its ``end``,
each line parsed into the generated ``Stream*Line`` models.

NDJSON and SSE bodies are read as bytes: the generator is told so with ``content_type_overrides``
(docs/api.md says the same to client writers).
"""
from __future__ import annotations

import importlib
import io
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from core.games import GameService
from tests.conftest import forget_games
from workers.jobs import run_advance

GENERATOR = Path(sys.executable).parent / "openapi-python-client"
CONFIG = ("content_type_overrides:\n  application/x-ndjson: application/octet-stream\n"
          "  text/event-stream: application/octet-stream\n")
MAX_MOVES = 5_000
GENERATED = "generated_hourglass_api"
SERVED: dict[str, Any] = {}  # the app the server fixture serves (its stream hub counts subscribers)

pytestmark = pytest.mark.skipif(not GENERATOR.exists(), reason="needs openapi-python-client (the test extras)")


@pytest.fixture(scope="module")
def server(conn: redis.Redis) -> Iterator[tuple[str, GameService]]:
    from werkzeug.serving import make_server

    from service.app import create_app

    jobs: queue.Queue[str] = queue.Queue()
    app = create_app({"REDIS": conn, "RATE_LIMIT": 0, "ADVANCE": lambda game_id, version: jobs.put(game_id)})
    svc: GameService = app.extensions["hourglass"]
    SERVED["app"] = app

    def work() -> None:  # one worker, like `hourglass worker`: advance each game it is told about
        while (game_id := jobs.get()) != "":
            run_advance(svc, game_id)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}", svc
    httpd.shutdown()
    jobs.put("")
    worker.join(timeout=10)


@pytest.fixture(scope="module")
def api(server: tuple[str, GameService], tmp_path_factory: pytest.TempPathFactory) -> Any:
    base, _ = server
    out = tmp_path_factory.mktemp("generated")
    config = out / "config.yml"
    config.write_text(CONFIG)
    package = out / GENERATED  # not hourglass_client: that is our own client library (clients/python)
    env = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(GENERATOR), "generate", "--url", f"{base}/openapi.json", "--output-path", str(package),
                           "--meta", "none", "--config", str(config)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Unsupported content type" not in done.stdout and "will be omitted" not in done.stdout, done.stdout
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(GENERATED)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.startswith(GENERATED)]:
            del sys.modules[name]
        shutil.rmtree(out, ignore_errors=True)


def module(api: Any, name: str) -> Any:
    return importlib.import_module(f"{api.__name__}.{name}")


def op(api: Any, name: str) -> Any:
    """An operation's module, e.g. ``op(api, "games.create_game").sync(...)``."""
    return module(api, f"api.{name}")


def test_a_generated_client_plays_a_whole_orleans_game(api: Any, server: tuple[str, GameService],
                                                       conn: redis.Redis) -> None:
    base, _ = server
    m = module(api, "models")
    client = api.Client(base_url=base, raise_on_unexpected_status=True)
    body = m.CreateOrleansGame(game=m.CreateOrleansGameGame("orleans"), edition=m.CreateOrleansGameEdition("classic"),
                               seats=[m.SeatSpec(name="Ann"), m.SeatSpec(name="Bob")],
                               options=m.OrleansOptions(exclusion=False))
    created = op(api, "games.create_game").sync(client=client, body=body)
    assert isinstance(created, m.Created), created
    gid = created.id
    seats = [api.AuthenticatedClient(base_url=base, token=s.token, raise_on_unexpected_status=True)
             for s in created.seats]
    try:
        _play(api, m, gid, seats, client)
        summary = op(api, "games.get_game").sync(gid, client=client)
        assert summary.status.value == "finished" and isinstance(summary.result, m.OrleansResult)
        assert summary.seed is not None and len(summary.result.ranking) == 2
        _read_every_event(api, m, gid, seats[0])
        bundle = op(api, "replays.get_replay").sync(gid, client=client)
        report = op(api, "replays.verify_replay").sync(client=client, body=module(api, "types").File(
            payload=io.BytesIO(bundle.payload.read()), file_name="game.jsonl"))
        assert isinstance(report, m.VerifyReport) and report.ok, report
    finally:
        forget_games(conn, [gid])


def _play(api: Any, m: Any, gid: str, seats: list[Any], client: Any, at_least: tuple[int, int] = (50, 5)) -> None:
    """Random listed moves of the seats to act until the game ends (at least ``at_least`` moves
    and move types)."""
    chooser = random.Random(13)
    made = 0
    types: set[str] = set()
    deadline = time.monotonic() + 240
    while made < MAX_MOVES and time.monotonic() < deadline:
        summary = op(api, "games.get_game").sync(gid, client=client)
        if summary.status.value == "finished":
            assert made >= at_least[0] and len(types) >= at_least[1], (made, types)
            return
        humans = [a for a in summary.to_act if isinstance(a, int)]
        if not humans:
            time.sleep(0.01)  # SYSTEM is to act: the worker thread takes it
            continue
        seat = seats[humans[0]]
        listed = op(api, "moves.list_moves").sync(gid, client=seat)
        assert isinstance(listed, m.Moves) and listed.moves, listed
        move = chooser.choice(listed.moves)
        types.add(type(move).__name__)
        posted = op(api, "moves.post_move").sync(gid, client=seat, body=move, if_match=str(listed.version),
                                      idempotency_key=f"move-{listed.version}")
        assert isinstance(posted, m.MoveResult), (move, posted)
        made += 1
        if made % 40 == 0:
            view = op(api, "state.get_state").sync(gid, client=seat)
            assert isinstance(view.view, m.OrleansView) and view.view.you == humans[0]
    raise AssertionError(f"the game did not finish after {made} moves")


def _read_every_event(api: Any, m: Any, gid: str, seat: Any) -> None:
    after, seen = 0, 0
    while True:
        page = op(api, "events.list_events").sync(gid, client=seat, after=after, limit=200)
        assert isinstance(page, m.Events)
        seen += len(page.events)
        if page.next_ is None:
            break
        after = page.next_
    assert seen == page.version


def test_a_generated_client_joins_an_open_seat_from_the_lobby(api: Any, server: tuple[str, GameService],
                                                              conn: redis.Redis) -> None:
    base, _ = server
    m = module(api, "models")
    client = api.Client(base_url=base, raise_on_unexpected_status=True)
    name = f"gen-{random.randrange(10**9)}"
    body = m.CreateArtificiumGame(game=m.CreateArtificiumGameGame("artificium"),
                                  edition=m.CreateArtificiumGameEdition("standard"),
                                  seats=[m.SeatSpec(name=name), m.SeatSpec(kind=m.SeatSpecKind("open"))])
    created = op(api, "games.create_game").sync(client=client, body=body)
    try:
        assert created.status == "open"
        found = op(api, "lobby.list_games").sync(client=client, player=name, open_=True)
        assert [g.id for g in found.games] == [created.id] and found.games[0].open_seats == [1]
        joined = op(api, "seats.join_seat").sync(created.id, 1, client=client, body=m.Join(name="Bea"))
        assert isinstance(joined, m.SeatToken) and joined.status.value == "active"
        bea = api.AuthenticatedClient(base_url=base, token=joined.token, raise_on_unexpected_status=True)
        view = op(api, "state.get_state").sync(created.id, client=bea)
        assert isinstance(view.view, m.ArtificiumView) and view.seat == 1 and view.view.seats[1].hand is not None
        taken = op(api, "seats.join_seat").sync_detailed(created.id, 1, client=client, body=m.Join(name="Cy"))
        assert taken.status_code == 409 and isinstance(taken.parsed, m.Problem) and taken.parsed.kind == "SEAT_TAKEN"
    finally:
        forget_games(conn, [created.id])


def test_problems_parse_as_problems(api: Any, server: tuple[str, GameService]) -> None:
    base, _ = server
    m = module(api, "models")
    client = api.Client(base_url=base)
    missing = op(api, "games.get_game").sync_detailed("0000000000000000", client=client)
    assert missing.status_code == 404 and isinstance(missing.parsed, m.Problem) and missing.parsed.kind == "NOT_FOUND"
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.content  # the raw body is there too


def test_a_generated_client_uses_both_schemes_an_account_key_and_a_seat_token(
        api: Any, server: tuple[str, GameService], conn: redis.Redis) -> None:
    """Issue 22: the document declares the account scheme beside the seat scheme, and a client
    generated from it uses both: it signs up, creates a game and registers a bot with the account
    key, lists the account's games and events, and plays a seat with the seat's token."""
    from core.accounts import Accounts

    base, _ = server
    m = module(api, "models")
    anonymous = api.Client(base_url=base, raise_on_unexpected_status=True)
    signed = op(api, "accounts.sign_up").sync(client=anonymous, body=m.Signup(name=f"gen-{random.randrange(10**9)}"))
    assert isinstance(signed, m.SignedUp) and signed.key.startswith("hga_")
    account = api.AuthenticatedClient(base_url=base, token=signed.key, raise_on_unexpected_status=True)
    bot_id = game_id = None
    try:
        me = op(api, "accounts.get_account").sync(client=account)
        assert isinstance(me, m.AccountView) and me.name == signed.name and "play" in me.scopes
        bot = op(api, "bots.register_bot").sync(client=account, body=m.BotRegister(name=f"gb-{random.randrange(10**9)}",
                                                                                    kind=m.BotRegisterKind("pull")))
        bot_id = bot.id
        assert isinstance(bot, m.BotCreated) and bot.owner == signed.id and bot.token.startswith("hgb_")
        body = m.CreateArtificiumGame(game=m.CreateArtificiumGameGame("artificium"),
                                      edition=m.CreateArtificiumGameEdition("standard"),
                                      seats=[m.SeatSpec(name="Me"), m.SeatSpec(bot_id=bot.id)])
        created = op(api, "games.create_game").sync(client=account, body=body)
        game_id = created.id
        mine = op(api, "accounts.list_account_games").sync(client=account)
        assert isinstance(mine, m.AccountGames) and [(g.id, g.seat) for g in mine.games] == [(game_id, 0)]
        events = op(api, "accounts.list_account_events").sync(client=account)
        assert isinstance(events, m.BotEvents) and events.events[0].event == "game_started"
        seat = api.AuthenticatedClient(base_url=base, token=created.seats[0].token, raise_on_unexpected_status=True)
        view = op(api, "state.get_state").sync(game_id, client=seat)
        assert isinstance(view.view, m.ArtificiumView) and view.seat == 0
        refused = op(api, "bots.register_bot").sync_detailed(client=seat, body=m.BotRegister(
            name="nope-seat", kind=m.BotRegisterKind("pull")))
        assert refused.status_code == 401 and isinstance(refused.parsed, m.Problem)
    finally:
        if game_id:
            forget_games(conn, [game_id])
        if bot_id:
            from core.bots import BotRegistry

            BotRegistry(conn).delete([bot_id])
        Accounts(conn).delete([signed.id])


def test_a_generated_client_reads_a_live_stream_to_its_end(api: Any, server: tuple[str, GameService],
                                                           conn: redis.Redis) -> None:
    """Issue 25: the stream operation, generated from the document, reads a seat's live stream in
    both formats while the game is played; every line parses into its generated model: first the
    snapshot (the seat's moves, as listMoves says), then the events after it, the seat's moves
    lines, and the end."""
    import httpx

    base, _ = server
    m = module(api, "models")
    client = api.Client(base_url=base, raise_on_unexpected_status=True)
    body = m.CreateToyGame(game=m.CreateToyGameGame("toy"), edition=m.CreateToyGameEdition("classic"),
                           seats=[m.SeatSpec(name="Ann"), m.SeatSpec(name="Bob")], options=m.ToyOptions(rounds=2))
    created = op(api, "games.create_game").sync(client=client, body=body)
    gid = created.id
    seats = [api.AuthenticatedClient(base_url=base, token=s.token, raise_on_unexpected_status=True,
                                     timeout=httpx.Timeout(120.0)) for s in created.seats]
    hub = SERVED["app"].extensions
    before = hub["hourglass.streams"].subscribers() if "hourglass.streams" in hub else 0
    formats = {"sse": seats[1], "ndjson": seats[1].with_headers({"Accept": "application/x-ndjson"})}
    bodies: dict[str, bytes] = {}

    def read(form: str) -> None:
        bodies[form] = op(api, "events.stream_events").sync_detailed(gid, client=formats[form]).content

    readers = [threading.Thread(target=read, args=(form,), daemon=True) for form in formats]
    try:
        for reader in readers:
            reader.start()
        deadline = time.monotonic() + 60
        while "hourglass.streams" not in hub or hub["hourglass.streams"].subscribers() < before + 2:
            assert time.monotonic() < deadline, "the streams did not open"
            time.sleep(0.01)
        _play(api, m, gid, seats, client, at_least=(4, 1))
        for reader in readers:
            reader.join(60)
        assert set(bodies) == set(formats), "a stream did not reach its end"
        version = op(api, "games.get_game").sync(gid, client=client).version
        lines = [json.loads(line) for line in bodies["ndjson"].decode().splitlines() if line]
        parsed = [LINE_MODELS[line["kind"]](m).from_dict(line) for line in lines]
        assert isinstance(parsed[0], m.StreamSnapshotLine) and isinstance(parsed[-1], m.StreamEndLine)
        assert parsed[0].seat == 1 and parsed[0].moves and parsed[-1].version == version
        assert [p.seq for p in parsed if isinstance(p, m.StreamEventLine)] == list(range(parsed[0].version + 1, version + 1))
        assert any(isinstance(p, m.StreamMovesLine) and p.moves for p in parsed[1:])
        messages = [block for block in bodies["sse"].decode().split("\n\n") if "data: " in block]
        assert messages[0].startswith("event: snapshot\n") and messages[-1].startswith("event: end\n")
        events = [json.loads(b.split("data: ", 1)[1]) for b in messages if b.startswith("id: ")]
        assert [e["seq"] for e in events] == [p.seq for p in parsed if isinstance(p, m.StreamEventLine)]
        assert all(isinstance(m.Event.from_dict(e), m.Event) for e in events)
    finally:
        forget_games(conn, [gid])


LINE_MODELS = {kind: (lambda m, name=name: getattr(m, name)) for kind, name in (
    ("snapshot", "StreamSnapshotLine"), ("event", "StreamEventLine"), ("clocks", "StreamClocksLine"),
    ("moves", "StreamMovesLine"), ("end", "StreamEndLine"), ("resync", "StreamResyncLine"))}
