"""Issue 13, platform basics: event pages with limit and next, the NDJSON stream beside SSE, and
remaining clock time in the summary, the view and the streams."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from conftest import auth, run_worker
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from test_sse_and_leaks import sse_messages

from core.games import GameService, utc_now

API = "/api/v1/games"


def ndjson_lines(response: Any) -> Iterator[str]:
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            yield line


def stream_line_validator(client: Any) -> Draft202012Validator:
    spec = client.get("/openapi.json").json
    registry: Registry = Registry().with_resource("urn:spec", Resource.from_contents(spec, DRAFT202012))
    return Draft202012Validator({"$ref": "urn:spec#/components/schemas/StreamLine"}, registry=registry)


def finish(client: Any, svc: GameService, game: dict[str, Any]) -> None:
    for _ in range(game.get("rounds", 1)):
        for seat in game["seats"]:
            client.post(f"{API}/{game['id']}/moves", json={"type": "Bid", "bid": 1}, headers=auth(seat["token"]))
        run_worker(svc, game["id"])


def test_event_pages_with_limit_and_next(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 2})
    gid, token = game["id"], game["seats"][0]["token"]
    finish(client, svc, {**game, "rounds": 2})
    version = svc.load(gid).version
    pages, after = [], 0
    while after is not None:
        page = client.get(f"{API}/{gid}/events", query_string={"after": after, "limit": 3}, headers=auth(token)).json
        assert len(page["events"]) <= 3 and page["version"] == version
        pages.append(page)
        after = page["next"]
    seqs = [e["seq"] for p in pages for e in p["events"]]
    assert seqs == list(range(1, version + 1)) and pages[-1]["next"] is None
    everything = client.get(f"{API}/{gid}/events", headers=auth(token)).json
    assert everything["next"] is None and len(everything["events"]) == version
    assert client.get(f"{API}/{gid}/events?limit=0").status_code == 400
    assert client.get(f"{API}/{gid}/events?limit=1001").status_code == 400


def test_ndjson_stream_of_a_finished_game(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 1})
    gid = game["id"]
    finish(client, svc, game)
    stream = client.get(f"{API}/{gid}/events/stream?after=2", headers={"Accept": "application/x-ndjson"},
                        buffered=False)
    assert stream.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in ndjson_lines(stream) if line]
    validator = stream_line_validator(client)
    for line in lines:
        assert not list(validator.iter_errors(line)), line
    events = client.get(f"{API}/{gid}/events?after=2").json["events"]
    assert [line for line in lines if line["kind"] == "event"] == [{"kind": "event", **e} for e in events]
    assert lines[-1] == {"kind": "end", "version": svc.load(gid).version, "status": "finished"}


def test_ndjson_stream_live_with_keep_alive_lines(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(options={"rounds": 1})
    gid, (t0, t1) = game["id"], [s["token"] for s in game["seats"]]
    stream = client.get(f"{API}/{gid}/events/stream", headers={**auth(t1), "Accept": "application/x-ndjson"},
                        buffered=False)
    lines = ndjson_lines(stream)
    seen: list[dict[str, Any]] = [json.loads(next(lines))]  # the table first...
    blanks = 0
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=auth(t0))  # ...then what follows
    for line in lines:
        if not line:
            blanks += 1  # keep-alive
            if blanks == 3:
                client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(t1))
                run_worker(svc, gid)
            continue
        seen.append(json.loads(line))
        if seen[-1]["kind"] == "end":
            break
    stream.close()
    kinds = [s["kind"] for s in seen]
    assert kinds[0] == "snapshot" and seen[0]["seat"] == 1 and seen[0]["moves"]  # the table, seat 1 to bid
    assert blanks >= 3 and kinds[-1] == "end" and kinds.count("event") == svc.load(gid).version - seen[0]["version"]
    hidden = next(s for s in seen if s.get("type") == "BidPlaced" and s["data"]["seat"] == 0)
    assert hidden["data"]["bid"] is None  # seat 0's bid stays sealed for seat 1


def test_an_unknown_stream_format_is_a_406(client: Any, new_game: Any) -> None:
    game = new_game()
    refused = client.get(f"{API}/{game['id']}/events/stream", headers={"Accept": "application/xml"})
    assert refused.status_code == 406 and refused.json["kind"] == "NOT_ACCEPTABLE"
    beyond = client.get(f"{API}/{game['id']}/events/stream?after=99", headers={"Accept": "application/x-ndjson"})
    assert beyond.status_code == 400


def test_remaining_clock_time_in_summary_view_and_stream(client: Any, svc: GameService, new_game: Any) -> None:
    clock = {"initial_s": 300, "increment_s": 5}
    game = new_game(seats=[{"name": "Ann", "clock": clock}, {"name": "Bob", "clock": clock}])
    gid, (t0, t1) = game["id"], [s["token"] for s in game["seats"]]
    summary = client.get(f"{API}/{gid}").json["clocks"]
    assert set(summary) == {"0", "1"} and all(c["running"] for c in summary.values())
    assert all(290_000 < c["remaining_ms"] <= 300_000 for c in summary.values())
    stream = client.get(f"{API}/{gid}/events/stream", headers=auth(t1), buffered=False)
    messages = sse_messages(stream)
    table = json.loads(next(m for m in messages if m.get("event") == "snapshot")["data"])  # the stream opens with them
    assert table["clocks"].keys() == {"0", "1"} and all(c["running"] for c in table["clocks"].values())
    later = svc.clock
    svc.clock = lambda: later() + timedelta(seconds=20)  # Ann thinks for 20 s
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=auth(t0))
    svc.clock = lambda: later() + timedelta(seconds=30)
    state = client.get(f"{API}/{gid}/state", headers=auth(t0)).json["clocks"]
    assert not state["0"]["running"] and state["1"]["running"]
    assert 284_000 <= state["0"]["remaining_ms"] <= 285_500  # 300 s - 20 s + 5 s increment
    assert state["1"]["remaining_ms"] <= 270_500  # Bob's clock ran all along
    clocks = None
    for message in messages:
        if message.get("event") == "clocks":
            clocks = json.loads(message["data"])
            break
    stream.close()
    assert clocks is not None and not clocks["clocks"]["0"]["running"]
    assert clocks["version"] == svc.load(gid).version
    svc.clock = utc_now


def test_the_clocks_after_a_batch_are_read_once_for_every_subscriber(
        client: Any, svc: GameService, new_game: Any, trips: list[str]) -> None:
    """Issue 14: a crowd of spectators costs one read of the game and its clocks per batch, not one each."""
    clock = {"initial_s": 300, "increment_s": 5}
    game = new_game(seats=[{"name": "Ann", "clock": clock}, {"name": "Bob", "clock": clock}])
    spectators, figures = 6, []
    opened, moved = threading.Barrier(spectators + 1), threading.Event()

    def spectate() -> None:  # each stream in a thread of its own, as each request has on a server
        stream = client.get(f"{API}/{game['id']}/events/stream", buffered=False)
        messages = sse_messages(stream)
        next(m for m in messages if m.get("event") == "snapshot")  # subscribed: the table and its clocks are out
        opened.wait(10)
        moved.wait(10)
        figures.append(next(json.loads(m["data"]) for m in messages if m.get("event") == "clocks"))
        stream.close()

    threads = [threading.Thread(target=spectate) for _ in range(spectators)]
    for thread in threads:
        thread.start()
    opened.wait(10)
    trips.clear()
    client.post(f"{API}/{game['id']}/moves", json={"type": "Bid", "bid": 2}, headers=auth(game["seats"][0]["token"]))
    moved.set()
    for thread in threads:
        thread.join(10)
    assert len(figures) == spectators
    assert len({json.dumps(f, sort_keys=True) for f in figures}) == 1, figures  # the same frame for everyone
    assert trips.count("XRANGE") <= 3, " ".join(trips)  # was one load (and a clocks fold) per subscriber
    assert trips.count("GET") <= 2, " ".join(trips)


def test_no_clocks_is_null(client: Any, new_game: Any) -> None:
    game = new_game()
    assert client.get(f"{API}/{game['id']}").json["clocks"] is None
    assert client.get(f"{API}/{game['id']}/state").json["clocks"] is None
