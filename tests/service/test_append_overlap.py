"""A POST move's views are worked out while Redis runs its append (``EventStore._overlapped``).

The append script is sent, the seats' views of the batch are worked out, then its answer is read;
a server that lost the script gets it again through redis-py's plain call, and the move's answer is
the same; a connection lost while the answer was on its way is a 503 with nothing sent twice, as on
the plain call.
Nothing here measures time.
"""
from __future__ import annotations

from typing import Any

import pytest
import redis
from redis.connection import Connection

from core.commands import _Step
from domain.core import SYSTEM
from service.app import create_app


@pytest.fixture
def app(conn: redis.Redis) -> Any:
    kw = conn.connection_pool.connection_kwargs
    url = f"redis://{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"
    return create_app({"REDIS": redis.Redis.from_url(url), "TESTING": True, "CLIENT_SEEDS": "any",
                       "RATE_LIMIT": 600, "ADVANCE": lambda game_id, version: None})


def _game(app: Any, created: list[str]) -> tuple[Any, str, dict[int, str]]:
    client = app.test_client()
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": f"P{i}"} for i in range(2)]}
    made = client.post("/api/v1/games", json=body).get_json()
    created.append(made["id"])
    return client, made["id"], {s["seat"]: s["token"] for s in made["seats"]}


def _ready(app: Any, game_id: str) -> tuple[int, dict[str, Any]]:
    """SYSTEM's steps appended as a worker would; the seat to act and a legal move of its."""
    svc = app.extensions["hourglass"]
    game = svc.load(game_id)
    while SYSTEM in game.to_act:
        game = svc.apply(game_id, SYSTEM, game.rules.default_move(game.state, SYSTEM),
                         expected_version=game.version).game
    seat = min(a for a in game.to_act if isinstance(a, int))
    return seat, game.rules.move_to_json(game.rules.legal_moves(game.state, seat)[0])


def _held(app: Any, created: list[str]) -> tuple[Any, str, int, str, dict[str, Any]]:
    """A game this process holds (a move posted through it), the seat to act, its token and a legal move."""
    client, game_id, tokens = _game(app, created)
    seat, move = _ready(app, game_id)
    _post(client, game_id, tokens[seat], move, "warm")
    seat, move = _ready(app, game_id)
    return client, game_id, seat, tokens[seat], move


def _post(client: Any, game_id: str, token: str, move: dict[str, Any], key: str) -> Any:
    return client.post(f"/api/v1/games/{game_id}/moves", json=move,
                       headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})


def test_the_views_are_worked_out_between_sending_the_append_and_reading_its_answer(
        app: Any, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    client, game_id, seat, token, move = _held(app, created)
    order: list[str] = []
    send, read, shown = Connection.send_packed_command, Connection.read_response, _Step.shown

    def sending(self: Connection, command: Any, check_health: bool = True) -> None:
        first = bytes(command[0] if isinstance(command, list) else command)
        order.append("send " + first[:60].split(b"\r\n")[2].decode())
        send(self, command, check_health)

    def reading(self: Connection, *args: Any, **kwargs: Any) -> Any:
        order.append("read")
        return read(self, *args, **kwargs)

    def showing(self: _Step) -> Any:
        order.append("views")
        return shown(self)

    monkeypatch.setattr(Connection, "send_packed_command", sending)
    monkeypatch.setattr(Connection, "read_response", reading)
    monkeypatch.setattr(_Step, "shown", showing)
    answer = _post(client, game_id, token, move, "k1")
    assert answer.status_code == 200, answer.get_json()
    assert order == ["send EVALSHA", "views", "read"], order
    assert answer.get_json()["view_head"] == app.extensions["hourglass"].load(game_id).view_head(seat)


def test_a_server_that_lost_the_script_gets_it_again(app: Any, created: list[str]) -> None:
    client, game_id, tokens = _game(app, created)
    store = app.extensions["hourglass"].store
    real = store._append.sha
    seat, move = _ready(app, game_id)
    store._append.sha = "0" * 40  # a sha the server does not know: as after a restart or SCRIPT FLUSH
    answer = _post(client, game_id, tokens[seat], move, "k1")
    assert answer.status_code == 200, answer.get_json()
    assert store._append.sha == real  # loaded again by redis-py's Script
    game = app.extensions["hourglass"].load(game_id)
    assert answer.get_json()["version"] == game.version
    assert answer.get_json()["view_head"] == game.view_head(seat)


def _losing_the_answer(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The first EVALSHA's answer is read and then lost, as if the connection broke on its way."""
    parse = redis.Redis.parse_response
    lost: list[Any] = []

    def losing(self: redis.Redis, connection: Any, command_name: Any, **options: Any) -> Any:
        answer = parse(self, connection, command_name, **options)
        if command_name == "EVALSHA" and not lost:
            lost.append(answer)
            raise redis.ConnectionError("lost on its way")
        return answer

    monkeypatch.setattr(redis.Redis, "parse_response", losing)
    return lost


def test_an_answer_lost_on_its_way_is_a_503_and_the_key_answers_the_repeat(
        app: Any, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The script ran but its answer was lost: nothing is sent again (the plain call retries
    nothing either); the client's repeat with its Idempotency-Key gets the stored result."""
    client, game_id, seat, token, move = _held(app, created)
    svc = app.extensions["hourglass"]
    lost = _losing_the_answer(monkeypatch)
    before = svc.load(game_id).version
    answer = _post(client, game_id, token, move, "k2")
    assert lost and answer.status_code == 503, answer.get_json()
    assert answer.mimetype == "application/problem+json"
    stored = svc.load(game_id).version
    assert stored > before  # the batch is stored, once
    again = _post(client, game_id, token, move, "k2")
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.get_json()["version"] == stored == svc.load(game_id).version


def test_an_answer_lost_without_a_key_is_not_decided_again(
        app: Any, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an Idempotency-Key a repeat would be a new move; the lost answer must not become
    one on its own: one batch stored, a 503 answered."""
    client, game_id, seat, token, move = _held(app, created)
    svc = app.extensions["hourglass"]
    lost = _losing_the_answer(monkeypatch)
    before = svc.load(game_id)
    answer = client.post(f"/api/v1/games/{game_id}/moves", json=move,
                         headers={"Authorization": f"Bearer {token}"})
    assert lost and answer.status_code == 503, answer.get_json()
    after = svc.load(game_id)
    commands = [e.entry["command"] for e in svc.entries(game_id, after=before.version) if e.entry["command"] is not None]
    assert after.version > before.version and len(commands) == 1, commands  # one batch: its first entry names the move
    assert commands[0]["type"] == move["type"]
