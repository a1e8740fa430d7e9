"""The leak test: every endpoint, as every seat, a spectator and a forged token, for every
registered game (``domain.games.game_names()``, so games added later are covered).

A game with two human seats and an HTTP seat is played a few dozen moves through the API (the
SYSTEM steps and the HTTP seat by the worker code). At checkpoints every endpoint is read as each
caller, and:

- no response before the end carries the seed (hex or text), a seat token, a token digest or the
  HTTP seat's secret; a forged token gets a 401 problem and nothing else;
- ``/state`` is exactly the domain's view for the caller, and no seat's view of another seat's
  entry (``view["seats"][o]``) shows more than the spectator's view of it;
- ``/events``, the SSE stream and ``/states/{v}`` give each caller its own redaction, and no seat
  sees an event exactly as another seat privately sees it.
"""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core import seats as seat_rules
from core.games import GameService
from service.app import create_app
from tests.conftest import package_games
from workers import forfeits, jobs

CHECKPOINTS = 4
MOVES_BETWEEN = 8
FORGED = "forged-token-0000000000000000000000"
# Games whose hidden information is hidden from everyone alike (The Cathedral's bags and face-down
# stacks): no seat holds a secret of its own. tests/cathedral/test_hidden.py changes every hidden
# pile and checks that no view changes.
NOTHING_PRIVATE = {"cathedral"}


@pytest.fixture
def client(conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv(seat_rules.HOSTS_ENV, "127.0.0.1:9")  # the discard port: the HTTP seat's calls fail fast
    monkeypatch.setenv(jobs.DEADLINE_ENV, "0.2")
    monkeypatch.setenv(forfeits.FORFEIT_ENV, "0")  # this test is about every call's outcome, not forfeits
    return create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0,
                       "SSE_HEARTBEAT": 0.05}).test_client()


def create_game(client: Any, name: str) -> dict[str, Any]:
    seats = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Http", "kind": "http", "url": "http://127.0.0.1:9/move"}]
    for edition in ("classic", "2023", "standard"):
        response = client.post("/api/v1/games", json={"game": name, "edition": edition, "seats": seats})
        if response.status_code == 201:
            return dict(response.json)
    raise AssertionError(f"{name}: no edition accepted two humans and an http seat")


def secrets_of(svc: GameService, created: dict[str, Any]) -> list[str]:
    """What must never show up before the end: seed, tokens and their digests, the seat secret."""
    info = svc.load(created["id"]).info
    tokens = [s["token"] for s in created["seats"] if "token" in s]
    meta = svc.store.meta(created["id"]) or {}
    digests = [k.split(":", 1)[1] for k in meta if k.startswith("token:")]
    return [info.seed.hex(), *tokens, *digests, *[s["secret"] for s in created["seats"] if "secret" in s]]


def sse_frames(client: Any, path: str, headers: dict[str, str], count: int) -> list[dict[str, Any]]:
    stream = client.get(path, headers=headers, buffered=False)
    assert stream.status_code == 200
    frames, buffer = [], ""
    for chunk in stream.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            data = [line[6:] for line in block.split("\n") if line.startswith("data: ")]
            if any(line.startswith("id: ") for line in block.split("\n")):
                frames.append(json.loads(data[0]))
        if len(frames) >= count or "heartbeat" in buffer:
            break
    stream.close()
    return frames


def first_line(client: Any, path: str, headers: dict[str, str]) -> str:
    """The first line of an NDJSON stream (it stays open while the game runs)."""
    stream = client.get(path, headers=headers, buffered=False)
    assert stream.status_code == 200
    buffer = ""
    for chunk in stream.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        if "\n" in buffer:
            break
    stream.close()
    return buffer.split("\n", 1)[0]


def responses(client: Any, game_id: str, version: int, headers: dict[str, str]) -> Iterator[tuple[str, Any]]:
    base = f"/api/v1/games/{game_id}"
    for path in ("", "/state", "/moves", "/events?after=0", f"/states/{version}", "/replay"):
        yield path, client.get(base + path, headers=headers)
    yield "POST /moves", client.post(base + "/moves", json={"type": "NoSuchMove"}, headers=headers)


def leaves_of_other_seats(view: dict[str, Any], spectator: dict[str, Any], viewer: int) -> list[int]:
    """Seats whose entry in ``viewer``'s view differs from the spectator's view of it."""
    return [o for o, entry in enumerate(view.get("seats", [])) if o != viewer and entry != spectator["seats"][o]]


def check(client: Any, svc: GameService, created: dict[str, Any], forbidden: list[str]) -> int:
    """Read every endpoint as every caller; the number of responses read."""
    game = svc.load(created["id"])
    rules, state, read = game.rules, game.state, 0
    if game.finished:  # the end reveals the seed; tokens and secrets stay secret for ever
        forbidden = [f for f in forbidden if f != game.info.seed.hex()]
    humans = {s["seat"]: s["token"] for s in created["seats"] if "token" in s}
    callers: list[tuple[int | None, dict[str, str]]] = [(None, {})] + [
        (seat, {"Authorization": f"Bearer {token}"}) for seat, token in humans.items()]
    spectator = rules.view(state, None)
    entries = svc.entries(game.game_id)
    private = {seat: {e.seq: rules.event_view(rules.event_from_json(e.data), seat) for e in entries}
               for seat in range(len(game.info.seats))}
    public = {e.seq: rules.event_view(rules.event_from_json(e.data), None) for e in entries}
    for seat, headers in callers:
        for path, response in responses(client, game.game_id, game.version, headers):
            read += 1
            text = response.get_data(as_text=True)
            assert response.status_code < 500, (path, text[:200])
            assert not [f for f in forbidden if f in text], f"{rules.name} {path} as seat {seat} leaks a secret"
            if path == "/state":
                assert response.json["view"] == rules.view(state, seat)
                assert not leaves_of_other_seats(response.json["view"], spectator, seat if seat is not None else -1)
            if path == "/events?after=0":
                events = response.json["events"]
                for event in events:
                    shown, seq = event["data"], event["seq"]
                    own = public[seq] if seat is None else private[seat][seq]
                    assert shown == own, f"seat {seat} does not get its own view of event {seq}"
                    for other, views in private.items():  # what is private to another seat (and not to this one)
                        if other != seat and views[seq] != public[seq] and views[seq] != own:
                            assert shown != views[seq], f"seat {seat} sees event {seq} as seat {other}"
                stream = sse_frames(client, f"/api/v1/games/{game.game_id}/events/stream?after=0", headers, len(events))
                assert stream == events
        read += 1  # a fresh stream opens with the table: the caller's view and moves, nobody else's
        text = first_line(client, f"/api/v1/games/{game.game_id}/events/stream",
                          {**headers, "Accept": "application/x-ndjson"})
        assert not [f for f in forbidden if f in text], f"{rules.name} stream snapshot as seat {seat} leaks a secret"
        table = json.loads(text)
        assert table["kind"] == "snapshot" and table["version"] == game.version and table["seat"] == seat
        assert table["view"] == rules.view(state, seat)
        assert not leaves_of_other_seats(table["view"], spectator, seat if seat is not None else -1)
        assert table["moves"] == client.get(f"/api/v1/games/{game.game_id}/moves", headers=headers).json["moves"]
    for path, response in responses(client, game.game_id, game.version, {"Authorization": f"Bearer {FORGED}"}):
        read += 1
        text = response.get_data(as_text=True)
        assert not [f for f in forbidden if f in text], f"{rules.name} {path} with a forged token leaks a secret"
        if path != "/replay":  # the bundle is public once the game is over (409 until then), token or not
            assert response.status_code == 401 and response.mimetype == "application/problem+json", path
            assert set(response.json) == {"type", "title", "status", "detail", "kind"}
    forged_stream = client.get(f"/api/v1/games/{game.game_id}/events/stream",
                               headers={"Authorization": f"Bearer {FORGED}"}, buffered=False)
    assert forged_stream.status_code == 401
    forged_stream.close()
    return read


def play(client: Any, svc: GameService, created: dict[str, Any], rng: random.Random, moves: int) -> None:
    tokens = {s["seat"]: s["token"] for s in created["seats"] if "token" in s}
    for _ in range(moves):
        jobs.run_advance(svc, created["id"], limit=200)
        game = svc.load(created["id"])
        if game.finished:
            return
        seat = rng.choice(sorted(a for a in game.to_act if a in tokens))
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.get(f"/api/v1/games/{created['id']}/moves", headers=headers).json["moves"]
        posted = client.post(f"/api/v1/games/{created['id']}/moves", json=rng.choice(legal), headers=headers)
        assert posted.status_code == 200, posted.get_data(as_text=True)[:300]


@pytest.mark.parametrize("name", package_games())
def test_no_endpoint_leaks_to_any_caller(client: Any, conn: redis.Redis, created: list[str], name: str) -> None:
    svc = GameService(conn)
    game = create_game(client, name)
    created.append(game["id"])
    forbidden = secrets_of(svc, game)
    rng = random.Random(f"leaks-{name}")
    read = 0
    for _ in range(CHECKPOINTS):
        play(client, svc, game, rng, MOVES_BETWEEN)
        read += check(client, svc, game, forbidden)
    assert read >= CHECKPOINTS * 4 * 7
    final = svc.load(game["id"])
    spectator = final.rules.view(final.state, None)
    hidden = [seat for seat in (0, 1) if final.rules.view(final.state, seat)["seats"][seat] != spectator["seats"][seat]]
    if name in NOTHING_PRIVATE:  # every seat sees what a spectator sees (but who it is): no seat sees more
        assert all({**final.rules.view(final.state, seat), "you": None} == spectator for seat in (0, 1, 2))
    else:
        assert hidden, f"{name}: no seat had anything hidden at the last checkpoint; the test proved nothing"
