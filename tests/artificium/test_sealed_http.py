"""Sealed commits over HTTP: nobody learns a seat's card before the reveal, whatever the order.

Two games with the same seed and the same game id (so the same draws), each in its own Redis
database behind its own app, are played identically up to a step of card play; then seat X seals
a different card in each. Until the last seat has committed, everything any other seat or
a spectator can obtain — summary, state, moves, the event page and the SSE stream, time travel,
the timeline, the replay endpoint, their own commit responses and the 4xx bodies of bad posts,
including one that reuses X's Idempotency-Key — must be identical in the two games (after
removing the game id and wall-clock times). X's own view differs, which shows the probe can see a
sealed card when it is there. Repeated with X committing first, second and third of four.
"""
from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core.games import GameService
from domain.artificium.data import Card
from service.app import create_app
from tests.artificium.conftest import API, auth
from tests.conftest import forget_games
from workers import jobs

SEATS = [{"name": f"P{i}"} for i in range(4)]
SEED = "artificium-sealed"
X = 2
KEY = "x-sealed-commit"


@pytest.fixture
def twins(conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, GameService]]]:
    """Two apps, each on its own Redis database, that give their games the same id."""
    game_id = uuid.uuid4().hex[:16]
    token_hex = secrets.token_hex
    monkeypatch.setattr(secrets, "token_hex", lambda n=None: game_id if n == 8 else token_hex(n))
    settings = conn.connection_pool.connection_kwargs
    other = redis.Redis(**{**settings, "db": int(settings.get("db", 0)) + 1})
    apps = [create_app({"REDIS": c, "TESTING": True, "CLIENT_SEEDS": "any", "SSE_HEARTBEAT": 0.2,
                        "RATE_LIMIT": 0, "ADVANCE": "off"}) for c in (conn, other)]
    yield [(a.test_client(), a.extensions["hourglass"]) for a in apps]
    for c in (conn, other):
        forget_games(c, [game_id])


def new_game(client: Any, svc: GameService) -> tuple[str, dict[int, str]]:
    """A 4-seat game at step 1 of card play: every seat passed the market."""
    r = client.post(API, json={"game": "artificium", "seats": SEATS, "seed": SEED})
    assert r.status_code == 201
    gid, tokens = r.json["id"], {s["seat"]: s["token"] for s in r.json["seats"]}
    jobs.run_advance(svc, gid)
    while (summary := client.get(f"{API}/{gid}").json)["phase"] == "market":
        seat = summary["to_act"][0]
        assert client.post(f"{API}/{gid}/moves", json={"type": "PassMarket"}, headers=auth(tokens[seat])).status_code == 200
    assert summary["phase"] == "commit" and summary["to_act"] == [0, 1, 2, 3]
    return gid, tokens


def hand(client: Any, gid: str, token: str, seat: int) -> list[str]:
    hand_: list[str] = client.get(f"{API}/{gid}/state", headers=auth(token)).json["view"]["seats"][seat]["hand"]
    return hand_


def scrub(value: Any, gid: str) -> Any:
    """The response without what differs between any two games: the id and wall-clock times."""
    text = json.dumps(value, sort_keys=True).replace(gid, "GAME")
    return _drop_times(json.loads(text))


def _drop_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_times(v) for k, v in value.items() if k not in ("time", "created", "opens_ms")}
    if isinstance(value, list):
        return [_drop_times(v) for v in value]
    return value


def response(r: Any) -> dict[str, Any]:
    body = r.get_data(as_text=True)
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        parsed = body
    return {"status": r.status_code, "etag": r.headers.get("ETag"), "type": r.content_type, "body": parsed}


def sse(client: Any, gid: str, headers: dict[str, str], version: int) -> list[Any]:
    """The stream's messages up to ``version`` (it stays open while the game runs)."""
    stream = client.get(f"{API}/{gid}/events/stream?after=0", headers=headers, buffered=False)
    out: list[Any] = []
    for message in _messages(stream):
        if "id" in message:
            out.append({"id": message["id"], "data": json.loads(message["data"])})
            if int(message["id"]) == version:
                break
    stream.close()
    return out


def _messages(stream: Any) -> Iterator[dict[str, str]]:
    buffer, heartbeats = "", 0
    for chunk in stream.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            message = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line and line[0] != ":")
            heartbeats += block.startswith(": heartbeat")
            assert heartbeats < 20, "the stream went quiet before reaching the current version"
            yield message


def observe(client: Any, gid: str, viewer: int | None, tokens: dict[int, str], x_card: str) -> dict[str, Any]:
    """Everything ``viewer`` (None: a spectator) can obtain about the game right now.

    The probing posts never change the game: a seat still to commit only posts moves it cannot
    make; X's card under X's Idempotency-Key is posted by seats that have committed already.
    """
    headers = auth(tokens[viewer]) if viewer is not None else {}
    summary = client.get(f"{API}/{gid}").json
    version, waiting = summary["version"], viewer in summary["to_act"]
    seen: dict[str, Any] = {}
    for name, path in (("summary", ""), ("state", "/state"), ("moves", "/moves"), ("events", "/events"),
                       ("recent", f"/events?after={version - 2}"), ("past", f"/states/{version}"),
                       ("timeline", "/timeline"), ("replay", "/replay")):
        seen[name] = response(client.get(f"{API}/{gid}{path}", headers=headers))
    seen["stream"] = sse(client, gid, headers, version)
    held = set(hand(client, gid, tokens[viewer], viewer)) if viewer is not None else set()
    posts = {
        "garbage": {"type": "Nope"},
        "wrong_phase": {"type": "ResolveCard"},
        "not_held": {"type": "CommitCard", "card": next(c.value for c in Card if c.value not in held)},
    }
    if not waiting:
        posts["x_card"] = {"type": "CommitCard", "card": x_card}
    for name, move in posts.items():
        extra = {"Idempotency-Key": KEY} if name == "x_card" else {}
        seen[f"post_{name}"] = response(client.post(f"{API}/{gid}/moves", json=move, headers={**headers, **extra}))
    seen["stale"] = response(client.post(f"{API}/{gid}/moves", json={"type": "Nope"},
                                         headers={**headers, "If-Match": "1"}))
    after = client.get(f"{API}/{gid}").json["version"]
    assert after == version, f"a probe of viewer {viewer} changed the game"
    text = json.dumps(seen)
    assert SEED not in text and SEED.encode().hex() not in text, "the seed stays secret until the end"
    assert not any(token in text for seat, token in tokens.items() if seat != viewer), "another seat's token"
    return scrub(seen, gid)


@pytest.mark.parametrize("x_position", [0, 1, 2])
def test_no_seat_spectator_or_error_body_learns_a_sealed_card(twins: list[tuple[Any, GameService]],
                                                             x_position: int) -> None:
    games = [(client, *new_game(client, svc)) for client, svc in twins]
    x_hand = hand(games[0][0], games[0][1], games[0][2][X], X)
    assert [hand(c, g, t[X], X) for c, g, t in games] == [x_hand, x_hand], "same seed and id, same hands"
    assert len(set(x_hand)) >= 2, "the seed must give X two kinds of card to choose from"
    x_cards = [x_hand[0], next(c for c in x_hand if c != x_hand[0])]

    others = [s for s in range(4) if s != X]
    order = others[:x_position] + [X] + others[x_position:]
    committed: list[int] = []
    for seat in order[:-1]:  # the last commitment reveals every card: that one is allowed to differ
        answers = []
        for (client, gid, tokens), x_card in zip(games, x_cards):
            card = x_card if seat == X else hand(client, gid, tokens[seat], seat)[0]
            extra = {"Idempotency-Key": KEY} if seat == X else {}
            r = client.post(f"{API}/{gid}/moves", json={"type": "CommitCard", "card": card},
                            headers={**auth(tokens[seat]), **extra})
            assert r.status_code == 200, r.json
            answers.append(scrub(response(r), gid))
        if seat != X:
            assert answers[0] == answers[1], f"seat {seat}'s own commit response depends on X's card"
        committed.append(seat)
        if X not in committed:
            continue
        for viewer in [None, *others]:
            seen = [observe(client, gid, viewer, tokens, x_cards[0]) for client, gid, tokens in games]
            assert seen[0] == seen[1], f"viewer {viewer} can tell X's sealed card (order {order}, after {committed})"
        own = [observe(client, gid, X, tokens, x_cards[0]) for client, gid, tokens in games]
        assert own[0]["state"] != own[1]["state"], "X sees its own sealed card: the probe can tell them apart"

    last = order[-1]
    for client, gid, tokens in games:
        card = hand(client, gid, tokens[last], last)[0]
        r = client.post(f"{API}/{gid}/moves", json={"type": "CommitCard", "card": card}, headers=auth(tokens[last]))
        revealed = [e["data"] for e in r.json["events"] if e["type"] == "CardsRevealed"]
        assert len(revealed) == 1 and revealed[0]["cards"][revealed[0]["order"].index(X)] in x_cards
