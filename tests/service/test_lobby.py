"""Issue 13: the lobby (listing with filters and a cursor), open seats, invites and rematches.

Decided here (docs/api.md, "Lobby and seats"): a game with open seats has status ``open`` and
nobody acts, SYSTEM included, until the last open seat is taken; the joiner alone receives the
seat's token; a private seat is taken only with its invite token.
"""
from __future__ import annotations

import threading
import uuid
from typing import Any

from conftest import auth, run_worker

from core.games import GameService
from replays.verify import verify_bundle

API = "/api/v1/games"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def listed(client: Any, **query: Any) -> dict[str, Any]:
    response = client.get(API, query_string=query)
    assert response.status_code == 200, response.json
    return dict(response.json)


def test_an_open_seat_waits_for_a_player_then_the_game_starts(client: Any, new_game: Any, advanced: list) -> None:
    ann = unique("ann")
    game = new_game(seats=[{"name": ann}, {"kind": "open"}])
    gid, ann_token = game["id"], game["seats"][0]["token"]
    assert game["status"] == "open" and "token" not in game["seats"][1] and game["seats"][1]["invite"]
    summary = client.get(f"{API}/{gid}").json
    assert summary["status"] == "open" and summary["to_act"] == []
    assert [s["status"] for s in summary["seats"]] == ["playing", "open"]
    waiting = client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(ann_token))
    assert waiting.status_code == 422 and waiting.json["kind"] == "WRONG_PHASE"
    assert gid in [g["id"] for g in listed(client, open="true", player=ann)["games"]]

    joined = client.post(f"{API}/{gid}/seats/1/join", json={"name": "Bea"})
    assert joined.status_code == 200, joined.json
    bea = joined.json["token"]
    assert joined.json["seat"] == 1 and joined.json["status"] == "active"
    summary = client.get(f"{API}/{gid}").json
    assert summary["status"] == "active" and summary["to_act"] == [0, 1]
    assert summary["seats"][1] == {"seat": 1, "name": "Bea", "kind": "human", "status": "playing"}
    assert client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 1}, headers=auth(bea)).status_code == 200
    assert listed(client, open="true", player=ann)["games"] == []
    assert [g["id"] for g in listed(client, player=ann)["games"]] == [gid]
    assert client.post(f"{API}/{gid}/seats/1/join", json={"name": "Cy"}).status_code == 409
    assert client.post(f"{API}/{gid}/seats/7/join", json={"name": "Cy"}).status_code == 404


def test_system_waits_for_the_open_seats(client: Any, svc: GameService, created: list[str]) -> None:
    body = {"game": "orleans", "edition": "classic", "seats": [{"name": "Ann"}, {"kind": "open"}]}
    game = client.post(API, json=body).json
    created.append(game["id"])
    assert svc.load(game["id"]).to_act == frozenset() and not svc.load(game["id"]).needs_worker()
    client.post(f"{API}/{game['id']}/seats/1/join", json={"name": "Bea"})
    assert svc.load(game["id"]).needs_worker()  # now SYSTEM reveals the first hour glass tile


def test_a_private_seat_needs_its_invite(client: Any, new_game: Any) -> None:
    game = new_game(seats=[{"name": "Ann"}, {"kind": "open", "private": True, "name": "Friend"}])
    gid, invite = game["id"], game["seats"][1]["invite"]
    assert gid not in [g["id"] for g in listed(client, open="true", player="Ann", limit=100)["games"]]
    no_invite = client.post(f"{API}/{gid}/seats/1/join", json={"name": "Eve"})
    wrong = client.post(f"{API}/{gid}/seats/1/join", json={"name": "Eve", "invite": "guess"})
    assert no_invite.status_code == wrong.status_code == 403 and wrong.json["kind"] == "FORBIDDEN"
    taken = client.post(f"{API}/{gid}/seats/1/join", json={"name": "Bea", "invite": invite})
    assert taken.status_code == 200
    again = client.post(f"{API}/{gid}/seats/1/join", json={"name": "Eve", "invite": invite})
    assert again.status_code == 409  # an invite takes its seat once


def test_eight_players_race_for_one_seat_and_exactly_one_gets_it(app: Any, new_game: Any) -> None:
    game = new_game(seats=[{"name": "Ann"}, {"kind": "open"}])
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def join(i: int) -> None:
        client = app.test_client()
        barrier.wait()
        statuses.append(client.post(f"{API}/{game['id']}/seats/1/join", json={"name": f"P{i}"}).status_code)

    threads = [threading.Thread(target=join, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [409] * 7


def test_abort_a_game_nobody_joined(client: Any, new_game: Any) -> None:
    game = new_game(seats=[{"name": "Ann"}, {"kind": "open"}])
    aborted = client.post(f"{API}/{game['id']}/abort", headers=auth(game["seats"][0]["token"]))
    assert aborted.status_code == 200 and client.get(f"{API}/{game['id']}").json["status"] == "aborted"
    assert client.post(f"{API}/{game['id']}/seats/1/join", json={"name": "Late"}).json["kind"] == "GAME_OVER"


def test_listing_filters_and_cursor_pages(client: Any, svc: GameService, new_game: Any) -> None:
    name = unique("lister")
    ids = [new_game(seats=[{"name": name}, {"name": "Other"}])["id"] for _ in range(5)]
    bot_game = new_game(seats=[{"name": name}, {"kind": "bot", "bot": "random"}])["id"]
    first = listed(client, player=name, limit=2)
    assert [g["id"] for g in first["games"]] == [bot_game, ids[4]] and first["next"]
    seen = [g["id"] for g in first["games"]]
    cursor = first["next"]
    while cursor:
        page = listed(client, player=name, limit=2, cursor=cursor)
        seen += [g["id"] for g in page["games"]]
        cursor = page["next"]
    assert seen == [bot_game, *reversed(ids)]
    assert [g["id"] for g in listed(client, player=name.upper(), bot="random")["games"]] == [bot_game]
    assert listed(client, player=name, game="orleans")["games"] == []
    item = listed(client, player=name, game="toy", edition="classic", limit=1)["games"][0]
    assert item["status"] == "active" and item["seats"][0]["name"] == name and item["open_seats"] == []
    svc.abort(ids[0], 0)
    assert [g["id"] for g in listed(client, player=name, status="aborted")["games"]] == [ids[0]]
    assert ids[0] not in [g["id"] for g in listed(client, player=name, status="active")["games"]]
    bad = client.get(API, query_string={"cursor": "not-a-cursor!"})
    assert bad.status_code == 400 and bad.json["kind"] == "MALFORMED"
    assert client.get(API, query_string={"status": "sleeping"}).status_code == 400


def test_a_stale_index_entry_is_repaired_on_read(client: Any, svc: GameService, new_game: Any) -> None:
    name = unique("stale")
    gid = new_game(seats=[{"name": name}, {"name": "B"}])["id"]
    svc.store.conn.hset(f"hg:{{{gid}}}:meta", "status", "finished")  # as if the index update was lost
    assert listed(client, player=name, status="active")["games"] == []
    assert [g["id"] for g in listed(client, player=name, status="finished")["games"]] == [gid]


def _finish(client: Any, svc: GameService, game: dict[str, Any]) -> None:
    for seat in game["seats"]:
        client.post(f"{API}/{game['id']}/moves", json={"type": "Bid", "bid": 3}, headers=auth(seat["token"]))
    run_worker(svc, game["id"])
    assert client.get(f"{API}/{game['id']}").json["status"] == "finished"


def test_rematch_rotates_seats_and_each_player_claims_a_new_token(client: Any, svc: GameService, new_game: Any,
                                                                 created: list[str]) -> None:
    game = new_game(options={"rounds": 1})
    gid, (ann, bob) = game["id"], [s["token"] for s in game["seats"]]
    assert client.post(f"{API}/{gid}/rematch", headers=auth(ann)).json["kind"] == "GAME_NOT_FINISHED"
    _finish(client, svc, game)
    first = client.post(f"{API}/{gid}/rematch", headers=auth(ann))
    assert first.status_code == 200, first.json
    new = first.json["id"]
    created.append(new)
    assert first.json["created"] is True and first.json["seat"] == 1 and first.json["status"] == "open"
    assert client.get(f"{API}/{gid}").json["rematch"] == new
    summary = client.get(f"{API}/{new}").json
    assert [s["name"] for s in summary["seats"]] == ["Bob", "Ann"] and summary["config"]["rounds"] == 1
    assert client.post(f"{API}/{new}/seats/0/join", json={"name": "Eve"}).status_code == 403  # reserved for Bob
    assert client.post(f"{API}/{gid}/rematch").status_code == 401
    second = client.post(f"{API}/{gid}/rematch", headers=auth(bob))
    assert second.json["seat"] == 0 and second.json["created"] is False and second.json["status"] == "active"
    assert client.post(f"{API}/{gid}/rematch", headers=auth(bob)).json["token"] == second.json["token"]
    assert client.post(f"{API}/{gid}/rematch", headers=auth(ann)).json["token"] == first.json["token"]
    for token, seat in ((first.json["token"], 1), (second.json["token"], 0)):
        assert client.get(f"{API}/{new}/state", headers=auth(token)).json["seat"] == seat
    assert client.get(f"{API}/{new}/state", headers=auth(ann)).status_code == 401  # old tokens stay old


def test_a_game_with_joins_replays_and_verifies(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(seats=[{"kind": "open"}, {"name": "Ann"}], options={"rounds": 1})
    gid = game["id"]
    bea = client.post(f"{API}/{gid}/seats/0/join", json={"name": "Bea"}).json["token"]
    for token in (bea, game["seats"][1]["token"]):
        client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=auth(token))
    run_worker(svc, gid)
    bundle = client.get(f"{API}/{gid}/replay")
    report = verify_bundle(bundle.data)
    assert report.ok, report.describe()
    header = bundle.get_data(as_text=True).splitlines()[0]
    assert '"name":"Bea"' in header and '"kind":"human"' in header
