"""Issue 25: the summary says when a claim against each awaited seat becomes possible.

``claims`` lists the unclocked human seats the game waits on with ``opens_ms``: the last append's
time plus ``INACTIVITY_S``. The claim endpoint refuses a claim a moment before that and accepts
one at it, so the viewer's "a claim becomes possible at …" is the server's own rule.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from conftest import auth

from core import timing
from core.games import GameService

API = "/api/v1/games"


def bid(client: Any, gid: str, token: str) -> Any:
    return client.post(f"{API}/{gid}/moves", json={"type": "Bid", "bid": 2}, headers=auth(token))


def at_ms(svc: GameService, ms: int) -> None:
    svc.clock = lambda: datetime.fromtimestamp(ms / 1000, tz=UTC)


def test_claims_open_at_the_last_append_plus_the_inactivity_limit(client: Any, svc: GameService,
                                                                    new_game: Any) -> None:
    game = new_game()
    gid, ann = game["id"], game["seats"][0]["token"]
    both = client.get(f"{API}/{gid}").json
    assert [c["absent"] for c in both["claims"]] == [0, 1]  # both bid at once: the game waits on both
    assert bid(client, gid, ann).status_code == 200
    last = timing.entry_ms(svc.store.last(gid).entry["time"])
    summary = client.get(f"{API}/{gid}").json
    opens = last + int(svc.inactivity_s * 1000)
    assert summary["claims"] == [{"absent": 1, "opens_ms": opens}]

    at_ms(svc, opens - 1000)
    early = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "default_move"}, headers=auth(ann))
    assert early.status_code == 422 and "another 1 s" in early.json["detail"]
    at_ms(svc, opens)
    claimed = client.post(f"{API}/{gid}/claim", json={"absent": 1, "remedy": "default_move"}, headers=auth(ann))
    assert claimed.status_code == 200, claimed.json
    assert all(c["absent"] != 1 for c in client.get(f"{API}/{gid}").json["claims"])  # Bob owes nothing now


def test_no_claim_time_for_clocked_seats_or_a_finished_game(client: Any, svc: GameService, new_game: Any) -> None:
    game = new_game(seats=[{"name": "Ann"}, {"name": "Bob", "clock": {"initial_s": 60}}], options={"rounds": 1})
    gid, bob = game["id"], game["seats"][1]["token"]
    assert [c["absent"] for c in client.get(f"{API}/{gid}").json["claims"]] == [0]  # Bob's clock moves for him
    resigned = client.post(f"{API}/{gid}/resign", headers=auth(bob))
    assert resigned.status_code == 200
    finished = client.get(f"{API}/{gid}").json
    assert finished["status"] == "finished" and finished["claims"] == []


def test_the_summary_schema_declares_claims(client: Any) -> None:
    spec = client.get("/openapi.json").json
    summary = spec["components"]["schemas"]["Summary"]
    assert "claims" in summary["required"]
    item = summary["properties"]["claims"]["items"]
    target = spec["components"]["schemas"][item["$ref"].rsplit("/", 1)[-1]] if "$ref" in item else item
    assert set(target["required"]) == {"absent", "opens_ms"}
