"""Server-Sent Events (resume with Last-Event-ID) and the no-leak property over random games."""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from conftest import auth, run_worker

API = "/api/v1/games"


def sse_messages(response: Any) -> Iterator[dict[str, Any]]:
    """Parse a streaming test-client response into SSE messages (comments become heartbeats)."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            message: dict[str, Any] = {}
            for line in block.split("\n"):
                field, _, value = line.partition(":")
                if field == "":
                    message.setdefault("comment", value.strip())
                else:
                    message[field] = value.lstrip(" ")
            yield message


def take_events(response: Any, count: int) -> list[dict[str, Any]]:
    out = []
    heartbeats = 0
    for message in sse_messages(response):
        if "id" in message:
            out.append(message)
        elif message.get("comment") == "heartbeat":
            heartbeats += 1
            assert heartbeats < 50, "stream went quiet"
        if len(out) == count or message.get("event") == "end":
            break
    return out


def test_sse_resume_with_last_event_id_gets_every_missed_event_once(client: Any, svc: Any, new_game: Any) -> None:
    game = new_game(options={"rounds": 3})
    gid, (t0, t1) = game["id"], [s["token"] for s in game["seats"]]
    stream = client.get(f"{API}/{gid}/events/stream", headers=auth(t1), buffered=False)
    assert stream.mimetype == "text/event-stream"
    first = take_events(stream, 1)  # a fresh stream opens with the table...
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=auth(t0))
    first += take_events(stream, 1)  # ...then what follows it
    stream.close()  # disconnect mid-game
    assert [(m.get("event"), int(m["id"])) for m in first] == [("snapshot", 2), (None, 3)]  # the table, then live
    assert json.loads(first[0]["data"])["seat"] == 1
    assert json.loads(first[1]["data"])["data"]["bid"] is None  # seat 0's bid, hidden from seat 1
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(t1))
    run_worker(svc, gid)
    for _ in range(2):
        client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=auth(t0))
        client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=auth(t1))
        run_worker(svc, gid)
    final = svc.load(gid)
    assert final.finished
    resumed = client.get(f"{API}/{gid}/events/stream", headers={**auth(t1), "Last-Event-ID": "3"}, buffered=False)
    rest = []
    ended = False
    for message in sse_messages(resumed):
        if "id" in message:
            rest.append(message)
        if message.get("event") == "end":
            ended = True
            break
    assert ended and [int(m["id"]) for m in rest] == list(range(4, final.version + 1))
    expected = client.get(f"{API}/{gid}/events?after=3", headers=auth(t1)).json["events"]
    assert [json.loads(m["data"]) for m in rest] == expected


def test_sse_heartbeats_while_idle_and_spectator_redaction(client: Any, new_game: Any) -> None:
    game = new_game()
    gid, t0 = game["id"], game["seats"][0]["token"]
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=auth(t0))
    stream = client.get(f"{API}/{gid}/events/stream?after=2", buffered=False)
    messages = sse_messages(stream)
    event = next(m for m in messages if "id" in m)
    assert event["id"] == "3" and json.loads(event["data"])["data"]["bid"] is None
    assert next(messages).get("comment") == "heartbeat"
    stream.close()


def collect(client: Any, gid: str, token: str | None) -> list[str]:
    headers = auth(token) if token else {}
    bodies = [client.get(f"{API}/{gid}{suffix}", headers=headers).get_data(as_text=True)
              for suffix in ("", "/state", "/moves", "/events")]
    bodies.append(client.post(f"{API}/{gid}/moves", json={"type": "Cheat"}, headers=headers).get_data(as_text=True))
    return bodies


def test_no_response_leaks_seed_hidden_bids_or_other_tokens(client: Any, svc: Any, new_game: Any) -> None:
    rng = random.Random(7)
    for n in range(6):
        seed = f"leak-{n}-{rng.random()}"
        players = rng.choice([2, 3, 4])
        game = new_game(seats=[{"name": f"P{i}"} for i in range(players)], seed=seed, options={"rounds": 2})
        gid, toks = game["id"], [s["token"] for s in game["seats"]]
        while not svc.load(gid).finished:
            order = list(range(players))
            rng.shuffle(order)
            hidden: dict[int, int] = {}
            for seat in order:
                bid = rng.choice([1, 2, 3])
                client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": bid}, headers=auth(toks[seat]))
                hidden[seat] = bid
                for viewer in [None, *range(players)]:
                    bodies = collect(client, gid, toks[viewer] if viewer is not None else None)
                    text = "".join(bodies)
                    assert seed not in text and seed.encode().hex() not in text
                    assert all(toks[o] not in text for o in range(players))
                    state = json.loads(bodies[1])["view"]
                    assert state.get("my_bid") == (hidden.get(viewer) if viewer is not None else None)
                    for event in json.loads(bodies[3])["events"]:
                        data = event["data"]
                        if data["type"] == "BidPlaced" and data["seat"] != viewer:
                            assert data["bid"] is None
            run_worker(svc, gid)
        assert json.loads(collect(client, gid, None)[0])["seed"] == seed.encode().hex()
