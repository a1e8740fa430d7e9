"""The Python client contributes entropy and keeps what it sent; after the game, the bundle the
service publishes carries it, signed, and the verifier checks both (issue 29, end to end over a
real HTTP server in a thread)."""
from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest
import redis
from hourglass_client import Client
from werkzeug.serving import make_server

from core.games import GameService
from core.signing import KeySet
from replays.verify import Signing, verify_bundle
from service.app import create_app
from tests.conftest import forget_games
from tests.replays.replay_redis import advance


@pytest.fixture()
def base(conn: redis.Redis) -> Iterator[str]:
    app = create_app({"REDIS": conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    made: list[str] = []
    app.made = made  # type: ignore[attr-defined]
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)
    forget_games(conn, made)


def test_the_client_contributes_records_and_the_bundle_proves_it(base: str, conn: redis.Redis) -> None:
    anonymous = Client(base)
    created = anonymous.create_game("orleans", [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"}],
                                    entropy_window_s=60)
    game_id = created["id"]
    ann, bob = (Client(base, s["token"]) for s in created["seats"])
    sent = ann.contribute_entropy(game_id)
    assert sent["status"] == "seeding" and ann.contributions[game_id] == sent["contribution"]
    assert len(bytes.fromhex(sent["contribution"])) == 32
    assert bob.seeding(game_id)["seats"][0]["contributed"] is True
    assert bob.contribute_entropy(game_id, b"\x01\x02")["status"] == "started"

    service = GameService(conn)
    try:
        advance(service, game_id, random.Random(3))
        bundle = anonymous.replay(game_id)
        keys = KeySet.from_json(anonymous.signing_keys())
        mine = {0: ann.contributions[game_id], 1: bob.contributions[game_id]}
        report = verify_bundle(bundle, signing=Signing(keys, contributions=mine))
        assert report.ok and report.signed_by is not None, report.describe()
        wrong = verify_bundle(bundle, signing=Signing(keys, contributions={1: "0103"}))
        assert not wrong.ok and wrong.divergence is not None and wrong.divergence.line == 1
    finally:
        forget_games(conn, [game_id])
