"""Artificium through the application core: create, play every move through GameService.apply
(as a client's JSON), export the replay bundle, verify it, and catch one-byte tampering."""
from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core.games import GameService
from core.store import EventStore
from domain.bots import bot_rng, get_bot
from domain.core import SYSTEM, Rejected, RejectKind
from replays.bundle import build_bundle
from replays.source import load_game
from replays.verify import verify_bundle
from tests.conftest import forget_games

SEATS = [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "bot", "bot": "greedy"},
         {"name": "Cy", "kind": "bot", "bot": "random"}, {"name": "Di", "kind": "human"}]


@pytest.fixture
def svc(conn: redis.Redis) -> Iterator[GameService]:
    service = GameService(conn, client_seeds="any")
    service.created = []  # type: ignore[attr-defined]
    yield service
    forget_games(conn, service.created)  # type: ignore[attr-defined]


def create(svc: GameService, seed: str = "artificium-service") -> dict[str, Any]:
    out = svc.create({"game": "artificium", "edition": "standard", "seats": SEATS, "seed": seed})
    svc.created.append(out["id"])  # type: ignore[attr-defined]
    return out


def play_to_end(svc: GameService, game_id: str) -> int:
    """SYSTEM steps first; each seat plays Artificium's greedy bot, sent as the client's JSON move."""
    policy = get_bot("greedy", "artificium")
    applied = 0
    while True:
        game = svc.load(game_id)
        if game.finished:
            return applied
        actor = SYSTEM if SYSTEM in game.to_act else min(a for a in game.to_act if a != SYSTEM)
        moves = game.rules.legal_moves(game.state, actor)
        if actor == SYSTEM:
            command = moves[0]
        else:
            chosen = policy(game.rules, game.state, actor, moves,
                            bot_rng(game.info.seed, game_id, actor, game.version))
            command = game.rules.command_from_json(game.rules.move_to_json(chosen), actor)
        svc.apply(game_id, actor, command, expected_version=game.version)
        applied += 1
        assert applied < 5000


def test_create_an_artificium_game(svc: GameService) -> None:
    out = create(svc)
    assert out["game"] == "artificium" and out["edition"] == "standard" and out["version"] == 1
    assert [bool(s.get("token")) for s in out["seats"]] == [True, False, False, True]
    game = svc.load(out["id"])
    assert game.to_act == {SYSTEM} and game.info.engine_version == "artificium-2"


def test_bad_configs_are_refused(svc: GameService) -> None:
    for body in ({"game": "artificium", "edition": "classic", "seats": SEATS},
                 {"game": "artificium", "edition": "standard", "seats": SEATS[:1]},
                 {"game": "artificium", "edition": "standard", "seats": SEATS * 2}):
        with pytest.raises(Rejected) as info:
            svc.create(body)
        assert info.value.kind is RejectKind.INVALID_CONFIG


def test_a_whole_game_through_the_service_exports_a_bundle_that_verifies(svc: GameService, conn: redis.Redis) -> None:
    game_id = create(svc)["id"]
    assert play_to_end(svc, game_id) > 100
    game = svc.load(game_id)
    result = game.rules.result(game.state)
    assert result is not None and game.state.turn == 4
    meta, entries = load_game(EventStore(conn), game_id)
    bundle = build_bundle(game_id, meta, entries)
    report = verify_bundle(bundle)
    assert report.ok, report
    assert report.result == result

    chooser = random.Random(7)
    data = bundle.encode("utf-8")
    for _ in range(25):
        at = chooser.randrange(len(data))
        if data[at] == ord("\n"):
            continue
        forged = data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]
        assert not verify_bundle(forged).ok, f"a flipped byte at {at} was not caught"


def test_a_seat_sees_its_own_hand_through_the_service(svc: GameService) -> None:
    game_id = create(svc, seed="artificium-views")["id"]
    svc.apply(game_id, SYSTEM, svc.load(game_id).rules.legal_moves(svc.load(game_id).state, SYSTEM)[0])
    game = svc.load(game_id)
    mine = game.rules.view(game.state, 0)["seats"]
    assert len(mine[0]["hand"]) == 5 and "hand" not in mine[1]
    assert all("hand" not in s for s in game.rules.view(game.state, None)["seats"])
    drawn = [e for e in svc.entries(game_id) if e.entry["type"] == "CardsDrawn"]
    assert len(drawn) == 4
    event = game.rules.event_from_json(drawn[1].entry["data"])
    assert game.rules.event_view(event, event.seat)["cards"]
    assert "cards" not in game.rules.event_view(event, (event.seat + 1) % 4)
