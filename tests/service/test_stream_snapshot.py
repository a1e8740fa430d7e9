"""Streams that open with the table (issue 25).

A fresh game stream (no ``Last-Event-ID``, no ``after``) starts with a snapshot for the caller,
the same as ``GET /state`` and ``GET /moves`` at its version; after each batch a seat left to
act is told its legal moves; a resumed stream sends only what was missed. The abuse case: a
snapshot is charged as the one request that opens the stream, from the caller's own window.
"""
from __future__ import annotations

import json
import random
from typing import Any

import redis
from conftest import auth, run_worker
from test_game_actions_streams import ndjson_lines, stream_line_validator
from test_sse_and_leaks import sse_messages

from core.games import GameService
from service.app import create_app

API = "/api/v1/games"
NDJSON = {"Accept": "application/x-ndjson"}
SAME = ("version", "status", "seat", "to_act", "view", "clocks")


def first_line(client: Any, gid: str, headers: dict[str, str]) -> dict[str, Any]:
    stream = client.get(f"{API}/{gid}/events/stream", headers={**headers, **NDJSON}, buffered=False)
    assert stream.status_code == 200 and stream.mimetype == "application/x-ndjson"
    line = json.loads(next(ndjson_lines(stream)))
    stream.close()
    return dict(line)


def test_the_first_ndjson_line_is_get_state_plus_get_moves_for_every_caller(
        client: Any, svc: GameService, created: list[str]) -> None:
    """An Orléans game some way in: each seat's snapshot and the spectator's equal what GET /state
    and GET /moves answer the same caller, and no seat's snapshot shows another seat's hidden
    entries (those equal the spectator's view of them)."""
    game = client.post(API, json={"game": "orleans", "edition": "classic", "seed": "snapshot",
                                  "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]}).json
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    created.append(gid)
    rng = random.Random(25)
    for _ in range(12):  # into the game: planning, some actions
        run_worker(svc, gid)
        acting = [seat for seat in svc.load(gid).to_act if isinstance(seat, int)]
        moves = client.get(f"{API}/{gid}/moves", headers=auth(tokens[acting[0]])).json
        client.post(f"{API}/{gid}/moves", json=rng.choice(moves["moves"]), headers=auth(tokens[acting[0]]))
    validator = stream_line_validator(client)
    spectator = client.get(f"{API}/{gid}/state").json["view"]
    for seat, headers in [(None, {}), *((n, auth(t)) for n, t in enumerate(tokens))]:
        line = first_line(client, gid, headers)
        state = client.get(f"{API}/{gid}/state", headers=headers).json
        moves = client.get(f"{API}/{gid}/moves", headers=headers).json
        assert line["kind"] == "snapshot" and line["seat"] == seat
        assert {k: line[k] for k in SAME} == {k: state[k] for k in SAME}
        assert line["moves"] == moves["moves"] and line["version"] == moves["version"] == svc.load(gid).version
        assert not list(validator.iter_errors(line)), line
        others = [o for o in range(len(tokens)) if o != seat]
        assert [line["view"]["seats"][o] for o in others] == [spectator["seats"][o] for o in others]
    assert any(first_line(client, gid, auth(t))["moves"] for t in tokens)  # someone is to act, and told what


def test_a_seat_is_told_its_moves_after_each_batch_that_leaves_it_to_act(
        client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 2})
    gid, (t0, t1) = game["id"], [s["token"] for s in game["seats"]]
    stream = client.get(f"{API}/{gid}/events/stream", headers={**auth(t1), **NDJSON}, buffered=False)
    lines = (json.loads(line) for line in ndjson_lines(stream) if line)
    table = next(lines)
    assert table["kind"] == "snapshot" and table["moves"] == client.get(f"{API}/{gid}/moves", headers=auth(t1)).json["moves"]

    def until(kind: str) -> list[dict[str, Any]]:
        taken = [next(lines)]
        while taken[-1]["kind"] != kind:
            taken.append(next(lines))
        return taken

    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=auth(t0))
    batch = until("moves")  # seat 0's bid: seat 1 still owes its own
    assert [line["kind"] for line in batch] == ["event", "head", "moves"]  # head: the seat's view chain
    assert batch[-1] == {"kind": "moves", "version": batch[0]["seq"],
                         "moves": client.get(f"{API}/{gid}/moves", headers=auth(t1)).json["moves"]}
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(t1))
    run_worker(svc, gid)  # the round ends; the next one starts with both to bid
    later = until("moves")
    events = [line for line in later if line["kind"] == "event"]
    assert {line["kind"] for line in later[:-1]} == {"event", "head"} and len(events) > 1
    assert later[-2] == {"kind": "head", "version": later[-1]["version"], "view_head": svc.load(gid).view_heads[1]}
    assert later[-1]["version"] == events[-1]["seq"] == svc.load(gid).version
    assert later[-1]["moves"] == client.get(f"{API}/{gid}/moves", headers=auth(t1)).json["moves"] != []
    stream.close()
    resumed = client.get(f"{API}/{gid}/events/stream?after={table['version']}", headers={**auth(t1), **NDJSON},
                         buffered=False)
    first = json.loads(next(ndjson_lines(resumed)))
    assert first["kind"] == "event" and first["seq"] == table["version"] + 1  # only what was missed: no snapshot
    resumed.close()


def test_sse_opens_with_a_snapshot_whose_id_resumes_after_it(client: Any, new_game: Any) -> None:
    game = new_game()
    gid, (t0, t1) = game["id"], [s["token"] for s in game["seats"]]
    stream = client.get(f"{API}/{gid}/events/stream", headers=auth(t1), buffered=False)
    messages = sse_messages(stream)
    opening = next(m for m in messages if "data" in m)
    stream.close()
    data = json.loads(opening["data"])
    assert opening["event"] == "snapshot" and opening["id"] == str(data["version"]) and "kind" not in data
    assert data["moves"] == client.get(f"{API}/{gid}/moves", headers=auth(t1)).json["moves"]
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=auth(t0))
    resumed = client.get(f"{API}/{gid}/events/stream", headers={**auth(t1), "Last-Event-ID": opening["id"]},
                         buffered=False)
    after = next(m for m in sse_messages(resumed) if "data" in m)
    resumed.close()
    assert "event" not in after and after["id"] == str(data["version"] + 1)


def test_a_finished_game_opens_with_its_final_table_then_the_end(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 1})
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    for token in tokens:
        client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(token))
    run_worker(svc, gid)
    final = svc.load(gid)
    assert final.finished
    body = client.get(f"{API}/{gid}/events/stream", headers={**auth(tokens[0]), **NDJSON}).get_data(as_text=True)
    lines = [json.loads(line) for line in body.splitlines() if line]
    assert [line["kind"] for line in lines] == ["snapshot", "end"]
    assert lines[0]["version"] == final.version and lines[0]["status"] == "finished" and lines[0]["moves"] == []
    assert lines[0]["view"] == client.get(f"{API}/{gid}/state", headers=auth(tokens[0])).json["view"]


def test_a_snapshot_costs_the_one_request_that_opens_the_stream(conn: redis.Redis, created: list[str]) -> None:
    """The abuse case. A stranger with a script who opens fresh streams over and over gets one
    snapshot per request from its own window (the anonymous budget of its address), then a 429
    problem with no snapshot; the seats of the game are not charged for it."""
    app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 100, "ANON_RATE_LIMIT": 4})
    client = app.test_client()
    game = client.post(API, json={"game": "toy", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]},
                       environ_base={"REMOTE_ADDR": "10.25.0.1"}).json
    created.append(game["id"])
    stranger = {"REMOTE_ADDR": f"10.25.{random.randrange(1, 255)}.{random.randrange(1, 255)}"}
    remaining = []
    for _ in range(4):
        stream = client.get(f"{API}/{game['id']}/events/stream", headers=NDJSON, environ_base=stranger, buffered=False)
        assert stream.status_code == 200
        remaining.append(int(stream.headers["RateLimit-Remaining"]))
        assert json.loads(next(ndjson_lines(stream)))["kind"] == "snapshot"
        stream.close()
    assert remaining == [3, 2, 1, 0]  # one request each, whatever the snapshot holds
    refused = client.get(f"{API}/{game['id']}/events/stream", headers=NDJSON, environ_base=stranger)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60 and "snapshot" not in refused.get_data(as_text=True)
    seat = client.get(f"{API}/{game['id']}/state", headers=auth(game["seats"][0]["token"]), environ_base=stranger)
    assert seat.status_code == 200  # the seat's own window is untouched by the stranger's streams


def test_the_client_library_follows_a_game_from_its_snapshot_to_its_end(
        conn: redis.Redis, created: list[str]) -> None:
    """clients/python: ``follow_game`` yields the snapshot first, a ``moves`` event when the seat is
    to act (the bot loop needs no GET), and stops at ``end``."""
    import threading

    from hourglass_client import Client
    from werkzeug.serving import make_server

    app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0, "SSE_HEARTBEAT": 0.2})
    svc: GameService = app.extensions["hourglass"]
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_port}"
    try:
        made = Client(base).create_game("toy", [{"name": "Ann"}, {"name": "Bob"}], edition="classic", options={"rounds": 1})
        gid = made["id"]
        created.append(gid)
        ann, bob = (Client(base, s["token"]) for s in made["seats"])
        seen: list[Any] = []
        follower = ann.follow_game(gid)
        seen.append(next(follower))  # the stream is open, at the table
        bob.post_move(gid, {"type": "Bid", "bid": 1})
        for event in follower:
            seen.append(event)
            if event.event == "moves":
                ann.post_move(gid, event.data["moves"][0], if_match=event.data["version"])
                run_worker(svc, gid)
        kinds = [e.event for e in seen]
        assert kinds[0] == "snapshot" and seen[0].data["seat"] == 0 and seen[0].data["moves"]
        assert "moves" in kinds and kinds[-1] == "end" and seen[-1].data["version"] == svc.load(gid).version
        assert [int(e.id) for e in seen if e.event == "message"] == list(range(seen[0].data["version"] + 1,
                                                                               svc.load(gid).version + 1))
    finally:
        httpd.shutdown()
