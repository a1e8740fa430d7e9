"""Orléans over HTTP against the real Redis: a whole game with random legal moves, and the
no-leak property (seed, other seats' tokens and hidden event fields) along the way."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import auth, run_worker

API = "/api/v1/games"


def create(client: Any, created: list[str], edition: str, seats: list[dict[str, Any]], seed: str) -> dict[str, Any]:
    r = client.post(API, json={"game": "orleans", "edition": edition, "seats": seats, "seed": seed})
    assert r.status_code == 201, r.json
    created.append(r.json["id"])
    return r.json


def test_whole_orleans_game_over_http(client: Any, svc: Any, created: list[str], advanced: list) -> None:
    seats = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Bot", "kind": "bot", "bot": "random"}]
    game = create(client, created, "classic", seats, "whole-game")
    gid, toks = game["id"], {s["seat"]: s["token"] for s in game["seats"] if "token" in s}
    assert "token" not in game["seats"][2] and (gid, game["version"]) in advanced
    rng, posted = random.Random(3), 0
    while True:
        run_worker(svc, gid)
        summary = client.get(f"{API}/{gid}").json
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        moves = client.get(f"{API}/{gid}/moves", headers=auth(toks[seat])).json
        assert moves["version"] == summary["version"] and moves["moves"]
        move = rng.choice(moves["moves"])
        r = client.post(f"{API}/{gid}/moves", json=move, headers={**auth(toks[seat]), "If-Match": str(moves["version"])})
        assert r.status_code == 200, (move, r.json)
        assert r.json["version"] > summary["version"] and r.json["events"]
        posted += 1
    assert posted > 50 and summary["result"] is not None and summary["seed"] == b"whole-game".hex()
    entries = svc.entries(gid)
    assert entries[0].command == {"type": "CreateGame", "config": svc.load(gid).info.config}
    assert entries[-1].seq == summary["version"]
    late = client.post(f"{API}/{gid}/moves", json={"type": "Pass"}, headers=auth(toks[0]))
    assert late.status_code in (400, 422) and late.content_type == "application/problem+json"


@pytest.mark.parametrize("edition,players", [("classic", 4), ("2023", 5)])
def test_orleans_responses_leak_nothing(client: Any, svc: Any, created: list[str], edition: str, players: int) -> None:
    seed = f"leak-{edition}-{players}"
    game = create(client, created, edition, [{"name": f"P{i}"} for i in range(players)], seed)
    gid, toks = game["id"], [s["token"] for s in game["seats"]]
    rng = random.Random(players)
    for _ in range(60):
        run_worker(svc, gid)
        current = svc.load(gid)
        rules = current.rules
        for viewer in [None, *range(players)]:
            headers = auth(toks[viewer]) if viewer is not None else {}
            bodies = [client.get(f"{API}/{gid}{s}", headers=headers) for s in ("", "/state", "/moves", "/events")]
            bodies.append(client.post(f"{API}/{gid}/moves", json={"type": "Nope"}, headers=headers))
            text = "".join(b.get_data(as_text=True) for b in bodies)
            assert seed not in text and seed.encode().hex() not in text
            assert not any(t in text for i, t in enumerate(toks) if i != viewer)
            assert bodies[1].json["view"] == json.loads(json.dumps(rules.view(current.state, viewer)))
            for event, entry in zip(bodies[3].json["events"], svc.entries(gid)):
                expected = rules.event_view(rules.event_from_json(entry.data), viewer)
                assert event["data"] == json.loads(json.dumps(expected))
        seat = sorted(a for a in current.to_act if a != "system")[0]
        moves = client.get(f"{API}/{gid}/moves", headers=auth(toks[seat])).json["moves"]
        assert client.post(f"{API}/{gid}/moves", json=rng.choice(moves), headers=auth(toks[seat])).status_code == 200
