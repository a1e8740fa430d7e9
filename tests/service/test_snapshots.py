"""State snapshots (core.snapshots): a cold process folds only the tail, and a snapshot it cannot
trust is ignored, never believed."""
from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import redis
from conftest import run_worker

from core import snapshots
from core.games import Game, GameService
from core.store import snap_key
from core.table import EMPTY
from domain.games import fold, get_game
from domain.rng import Rng


def _same(a: Game, b: Game) -> None:
    assert (a.version, a.last_hash, a.state, a.table) == (b.version, b.last_hash, b.state, b.table)


@pytest.fixture
def finished_game(conn: redis.Redis, created: list[str]) -> str:
    svc = GameService(conn, client_seeds="any")
    seats = [{"name": "R", "kind": "bot", "bot": "random"}, {"name": "S", "kind": "bot", "bot": "random"}]
    game_id: str = svc.create({"game": "orleans", "edition": "classic", "seats": seats, "seed": "snapshots"})["id"]
    created.append(game_id)
    run_worker(svc, game_id)
    assert svc.load(game_id).finished
    return game_id


def _reads(svc: GameService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    afters: list[int] = []
    real = svc.store.read

    def read(game_id: str, after: int = 0, until: int | None = None) -> Any:
        afters.append(after)
        return real(game_id, after, until)

    monkeypatch.setattr(svc.store, "read", read)
    return afters


def _fold_from_zero(conn: redis.Redis, game_id: str) -> Game:
    saved = conn.dump(snap_key(game_id))
    conn.delete(snap_key(game_id))
    try:
        return GameService(conn).load(game_id)
    finally:
        conn.restore(snap_key(game_id), 0, saved, replace=True)


def test_a_finished_game_loads_cold_from_its_snapshot_alone(
        conn: redis.Redis, finished_game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = json.loads(conn.get(snap_key(finished_game)))
    cold = GameService(conn)
    afters = _reads(cold, monkeypatch)
    game = cold.load(finished_game)
    assert stored["version"] == game.version and afters == [game.version - 1]  # the snapshot's own entry only
    _same(game, _fold_from_zero(conn, finished_game))


def test_a_snapshot_every_64_events_leaves_only_the_tail_to_fold(
        conn: redis.Redis, finished_game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    full = _fold_from_zero(conn, finished_game)
    middle = 3 * snapshots.EVERY + 5
    entries = GameService(conn).entries(finished_game, until=middle)
    start = GameService(conn).load(finished_game)  # the rules, info
    base = Game(start.info, start.rules, None, 0, "")
    base = GameService(conn).repository.folded(base, entries)
    text = snapshots.encode(base.rules, base.state, base.table, base.version, base.last_hash, base.view_heads)
    assert text is not None
    conn.set(snap_key(finished_game), text)
    cold = GameService(conn)
    afters = _reads(cold, monkeypatch)
    _same(cold.load(finished_game), full)
    assert afters == [middle - 1]


def _behind(conn: redis.Redis, game_id: str) -> tuple[GameService, int]:
    """A service whose fold cache holds ``game_id`` at the end of the first batch past the first
    snapshot's version (another process played on), and that version."""
    svc = GameService(conn)
    start = svc.load(game_id)
    version = next(v for v in svc.batch_ends(game_id) if v > snapshots.EVERY)
    base = svc.repository.folded(Game(start.info, start.rules, None, 0, ""), svc.entries(game_id, until=version))
    fresh = GameService(conn)
    fresh.repository.remember(base)
    return fresh, version


def test_a_finished_game_behind_in_the_cache_loads_over_from_its_snapshot(
        conn: redis.Redis, finished_game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    svc, _ = _behind(conn, finished_game)
    afters = _reads(svc, monkeypatch)
    game = svc.load_over(finished_game)
    _same(game, _fold_from_zero(conn, finished_game))
    assert afters == [game.version - 1]  # the snapshot's own entry, nothing folded
    assert svc.cached(finished_game) is game


def test_load_over_folds_on_from_the_cache_when_the_snapshot_cannot_be_trusted(
        conn: redis.Redis, finished_game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    full = _fold_from_zero(conn, finished_game)
    conn.set(snap_key(finished_game), "not json")
    svc, version = _behind(conn, finished_game)
    afters = _reads(svc, monkeypatch)
    game = svc.load_over(finished_game)
    _same(game, full)
    assert game.view_heads == full.view_heads
    assert afters == [version]  # the tail after the cached copy, not the whole stream


@pytest.mark.parametrize("tamper", [
    lambda s: "not json",
    lambda s: json.dumps({**json.loads(s), "engine": "orleans-0"}),
    lambda s: json.dumps({**json.loads(s), "schema": "0" * 16}),
    lambda s: json.dumps({**json.loads(s), "hash": "0" * 64}),
    lambda s: json.dumps({**json.loads(s), "version": 10**9}),
    lambda s: json.dumps({**json.loads(s), "state": {"players": "x"}}),
    lambda s: json.dumps({**json.loads(s), "format": 99}),
])
def test_a_snapshot_that_cannot_be_trusted_is_ignored(conn: redis.Redis, finished_game: str, tamper: Any) -> None:
    full = _fold_from_zero(conn, finished_game)
    conn.set(snap_key(finished_game), tamper(conn.get(snap_key(finished_game)).decode()))
    _same(GameService(conn).load(finished_game), full)


def _edited_coins(text: str) -> str:
    """The snapshot with one seat's coins raised: version, chain hash and digest left as they were."""
    data = json.loads(text)
    data["state"]["players"][0]["coins"] += 5
    return json.dumps(data, separators=(",", ":"))


def test_a_snapshot_whose_state_was_edited_is_logged_and_the_game_folded_from_its_events(
        conn: redis.Redis, finished_game: str, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 22: before, this edit was trusted after a restart (the game loaded with 5 more coins)."""
    full = _fold_from_zero(conn, finished_game)
    conn.set(snap_key(finished_game), _edited_coins(conn.get(snap_key(finished_game)).decode()))
    with caplog.at_level(logging.WARNING, logger="core.snapshots"):
        cold = GameService(conn).load(finished_game)
    _same(cold, full)
    assert any(finished_game in r.getMessage() and "does not match its digest" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("tamper", [
    lambda d: d.pop("digest"),
    lambda d: d.update(digest="0" * 64),
    lambda d: d.update(hash="0" * 64),
    lambda d: d["state"]["players"][1].update(coins=d["state"]["players"][1]["coins"] + 1),
    lambda d: d.update(version=d["version"] + 64),
])
def test_a_snapshot_is_trusted_only_with_the_digest_of_its_own_content(tamper: Any,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    rules = get_game("orleans")
    state = fold(rules, rules.setup(rules.config_from_json({"players": 2}), Rng(b"seed", "g1", 0)))
    text = snapshots.encode(rules, state, EMPTY, 7, "h" * 64, ("a" * 64, "b" * 64))
    assert text is not None and snapshots.decode(rules, text) is not None
    data = json.loads(text)
    tamper(data)
    with caplog.at_level(logging.WARNING, logger="core.snapshots"):
        assert snapshots.decode(rules, json.dumps(data), "g1") is None
    assert "snapshot of game g1" in caplog.text and "does not match its digest" in caplog.text


def test_a_snapshot_of_the_format_before_digests_is_ignored_quietly(
        conn: redis.Redis, finished_game: str, caplog: pytest.LogCaptureFixture) -> None:
    full = _fold_from_zero(conn, finished_game)
    data = json.loads(conn.get(snap_key(finished_game)))
    del data["digest"]
    conn.set(snap_key(finished_game), json.dumps({**data, "format": 1}))
    with caplog.at_level(logging.WARNING, logger="core.snapshots"):
        _same(GameService(conn).load(finished_game), full)
    assert "digest" not in caplog.text


def test_every_game_round_trips_its_state_through_the_snapshot() -> None:
    from workers.selfplay import play

    for name in ("orleans", "artificium", "cathedral"):
        rules = get_game(name)
        players = 2
        config = rules.config_to_json(rules.config_from_json({"players": players}))
        state = play(rules, config, b"snap", "g", [{"kind": "bot", "bot": "random"}] * players).state
        text = snapshots.encode(rules, state, EMPTY, 7, "h", ("a" * 64,))
        restored = snapshots.decode(rules, text) if text is not None else None
        assert restored is not None and restored.state == state and restored.version == 7, name
