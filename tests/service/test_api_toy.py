"""The v1 API over the real Redis with the toy game: a whole game, time travel, OpenAPI,
concurrency (If-Match), idempotent retries, rate limits."""
from __future__ import annotations

import threading
from typing import Any

from conftest import auth, run_worker

from core.store import EventStore

API = "/api/v1/games"


def tokens(game: dict[str, Any]) -> list[str]:
    return [s["token"] for s in game["seats"]]


def play_round(client: Any, svc: Any, game: dict[str, Any], bids: list[int]) -> None:
    for token, bid in zip(tokens(game), bids):
        r = client.post(f"{API}/{game['id']}/moves", json={"type": "Bid", "bid": bid}, headers=auth(token))
        assert r.status_code == 200, r.json
    run_worker(svc, game["id"])


def test_whole_game_over_http(client: Any, svc: Any, new_game: Any, advanced: list) -> None:
    game = new_game(options={"rounds": 2})
    gid = game["id"]
    assert game["version"] == 2 and len(game["seed_commitment"]) == 64
    for _round in range(2):
        for seat, token in enumerate(tokens(game)):
            listed = client.get(f"{API}/{gid}/moves", headers=auth(token)).json
            assert listed["seat"] == seat and listed["moves"]
            posted = client.post(f"{API}/{gid}/moves", json=listed["moves"][-1], headers=auth(token))
            assert posted.status_code == 200 and posted.json["events"][0]["data"]["bid"] == 3
        summary = client.get(f"{API}/{gid}").json
        assert summary["to_act"] == ["system"] and (gid, summary["version"]) in advanced
        run_worker(svc, gid)
    summary = client.get(f"{API}/{gid}").json
    assert summary["status"] == "finished" and summary["result"] == {"scores": [0, 0], "winners": [0, 1]}
    assert summary["seed"] == b"test-seed".hex()
    assert svc.store.meta_field(gid, "status") == "finished"
    late = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(tokens(game)[0]))
    assert late.status_code == 422 and late.json["kind"] == "GAME_OVER"


def test_state_etag_and_spectator_view(client: Any, new_game: Any) -> None:
    game = new_game()
    gid, (t0, t1) = game["id"], tokens(game)
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=auth(t0))
    mine = client.get(f"{API}/{gid}/state", headers=auth(t0))
    spectator = client.get(f"{API}/{gid}/state")
    assert mine.headers["ETag"] == '"3"' and mine.json["view"]["my_bid"] == 2
    assert spectator.json["seat"] is None and "my_bid" not in spectator.json["view"]
    assert client.get(f"{API}/{gid}/state", headers={**auth(t1), "If-None-Match": '"3"'}).status_code == 304
    for held, status in (("*", 304), ('"1", W/"3"', 304), ('"1", "2"', 200), ('W/"2"', 200)):  # RFC 9110 13.1.2
        answer = client.get(f"{API}/{gid}/state", headers={**auth(t1), "If-None-Match": held})
        assert (answer.status_code, answer.headers["ETag"]) == (status, '"3"'), held
    assert client.get(f"{API}/0000000000000000/state", headers={"If-None-Match": "*"}).status_code == 404  # none exists
    assert client.get(f"{API}/{gid}/moves").json["moves"] == []


def test_time_travel(client: Any, svc: Any, new_game: Any) -> None:
    game = new_game()
    gid = game["id"]
    play_round(client, svc, game, [1, 3])
    then = client.get(f"{API}/{gid}/states/2", headers=auth(tokens(game)[0]))
    assert then.status_code == 200 and then.json["version"] == 2 and then.json["view"]["my_bid"] is None
    assert then.json["to_act"] == [0, 1]
    after_bid = client.get(f"{API}/{gid}/states/3", headers=auth(tokens(game)[0])).json
    assert after_bid["view"]["my_bid"] == 1 and after_bid["to_act"] == [1]
    assert client.get(f"{API}/{gid}/states/1").status_code == 404  # inside the setup batch
    assert client.get(f"{API}/{gid}/states/999").json["kind"] == "NOT_FOUND"
    assert svc.batch_ends(gid)[:3] == [2, 3, 4]


def test_openapi_and_docs(client: Any) -> None:
    spec = client.get("/openapi.json").json
    assert spec["openapi"].startswith("3.")
    for path in ("/api/v1/games", "/api/v1/games/{game_id}", "/api/v1/games/{game_id}/state",
                 "/api/v1/games/{game_id}/moves", "/api/v1/games/{game_id}/events",
                 "/api/v1/games/{game_id}/events/stream", "/api/v1/games/{game_id}/states/{version}"):
        assert path in spec["paths"], path
    assert "CreateGame" in spec["components"]["schemas"]
    docs = client.get("/docs", follow_redirects=True)
    assert docs.status_code == 200 and b"swagger" in docs.data.lower()
    assert b"cdn" not in docs.data.lower() and b"/docs/swagger-ui-bundle.js" in docs.data  # served from the package
    assert client.get("/docs/swagger-ui-bundle.js").status_code == 200
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": spec["components"]["securitySchemes"]["bearerAuth"][
            "description"]}
    assert {"bearerAuth": []} in spec["security"]


def test_eight_threads_same_if_match_exactly_one_applies(app: Any, new_game: Any) -> None:
    game = new_game(seats=[{"name": n} for n in "ABCD"])
    gid, token = game["id"], tokens(game)[0]
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def post() -> None:
        client = app.test_client()
        barrier.wait()
        r = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2},
                        headers={**auth(token), "If-Match": '"2"'})
        statuses.append(r.status_code)
        if r.status_code == 412:
            assert r.json["current_version"] == 3 and r.content_type == "application/problem+json"

    threads = [threading.Thread(target=post) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [412] * 7
    seqs = [e.seq for e in EventStore(app.extensions["hourglass"].store.conn).read(gid)]
    assert seqs == [1, 2, 3]


def test_eight_threads_sharing_an_idempotency_key_all_get_the_same_answer(app: Any, new_game: Any) -> None:
    game = new_game()
    gid, token = game["id"], tokens(game)[1]
    bodies: list[bytes] = []
    barrier = threading.Barrier(8)

    def post() -> None:
        client = app.test_client()
        barrier.wait()
        r = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1},
                        headers={**auth(token), "If-Match": "2", "Idempotency-Key": "same"})
        assert r.status_code == 200, r.json
        bodies.append(r.data)

    threads = [threading.Thread(target=post) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(bodies) == 8 and len(set(bodies)) == 1
    assert app.extensions["hourglass"].store.version(gid) == 3


def test_idempotent_retry_is_byte_identical_and_appends_nothing(client: Any, svc: Any, new_game: Any) -> None:
    game = new_game()
    gid, token = game["id"], tokens(game)[0]
    headers = {**auth(token), "Idempotency-Key": "retry-1"}
    first = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=headers)
    client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(tokens(game)[1]))
    version = svc.store.version(gid)
    again = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 3}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.data == first.data and again.headers["Idempotent-Replayed"] == "true"
    assert svc.store.version(gid) == version
    other = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=headers)
    assert other.status_code == 409 and other.json["kind"] == "IDEMPOTENCY_CONFLICT"
    assert "'retry-1'" in other.json["detail"] and "http:" not in other.json["detail"]  # the client's key, not ours
    # the same key from another seat is another key: no conflict, no shared result
    theirs = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2},
                         headers={**auth(tokens(game)[1]), "Idempotency-Key": "retry-1"})
    assert theirs.status_code == 422 and theirs.json["kind"] == "NOT_YOUR_TURN"
    assert svc.store.version(gid) == version


def test_rate_limit_per_requester(conn: Any, created: list, advanced: list) -> None:
    """The seat tokens of one address share one window (issue 22: three tokens are not three
    allowances); another address's seat holder, and the address's spectators, have their own."""
    from conftest import create_app

    app = create_app({"REDIS": conn, "RATE_LIMIT": 5, "RATE_LIMIT_WINDOW": 60, "ADVANCE": "off"})
    client = app.test_client()
    here, there = {"REMOTE_ADDR": "10.9.8.1"}, {"REMOTE_ADDR": "10.9.8.2"}
    game = client.post(API, json={"game": "toy", "edition": "classic", "seats": [{"name": "A"}, {"name": "B"}]},
                       environ_base=here).json
    created.append(game["id"])
    t0, t1 = tokens(game)
    codes = [client.get(f"{API}/{game['id']}/state", headers=auth(t), environ_base=here).status_code
             for t in (t0, t1, t0, t1, t0, t1, t0)]
    assert codes == [200] * 5 + [429] * 2
    limited = client.post(f"{API}/{game['id']}/moves", json={"type": "Bid", "bid": 1}, headers=auth(t0),
                          environ_base=here)
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    assert limited.json["kind"] == "RATE_LIMITED" and app.extensions["hourglass"].store.version(game["id"]) == 2
    assert client.get(f"{API}/{game['id']}/state", headers=auth(t1), environ_base=there).status_code == 200
    assert client.get(f"{API}/{game['id']}/state", environ_base=here).status_code == 200
