"""Finished games compacted (issue 27): the stream, snapshot and stored bundle give way to the
packed bundle (``replays.compaction``, ``core.packed``), and every read answers as before."""
from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest
import redis

from core.games import GameService
from core.packed import ELIDED, pack, pack_opened, unpack
from core.retention import COMPACT_KEY, Retention
from core.store import PACKED_FIELD, events_key, idem_key, meta_key, packed_key, snap_key
from domain.core import SYSTEM, Rejected, RejectKind
from replays.cli import main as replay_cli
from replays.compaction import DirectoryArchive, archive_from_env, compact
from replays.source import published_bundle
from replays.verify import verify_bundle
from tests.conftest import forget_games
from tests.replays.replay_helpers import pick
from tests.service.conftest import auth
from workers.sweeper import sweep_once

API = "/api/v1/games"
GAMES = [("orleans", "classic", 4, False), ("artificium", "standard", 2, False), ("cathedral", "standard", 2, False),
         ("artificium", "standard", 2, True)]


def _create(client: Any, created: list[str], game: str, edition: str, players: int, seed: str,
            clocked: bool = False) -> dict[str, Any]:
    clock = {"clock": {"move_s": 3600}} if clocked else {}  # a clock nobody runs out of in a test
    body = {"game": game, "edition": edition, "seed": seed, "seats": [{"name": f"P{i}", **clock} for i in range(players)]}
    response = client.post(API, json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    created.append(response.json["id"])
    return response.json


def _play(svc: GameService, game_id: str, seed: str) -> tuple[Any, Any, str]:
    """Every seat plays (greedy for Orléans, else random), each move with an idempotency key as
    a client sends it; the last (actor, command, key)."""
    chooser, n, last = random.Random(seed), 0, None
    while True:
        game = svc.load(game_id)
        if game.finished:
            assert last is not None
            return last
        actor = SYSTEM if SYSTEM in game.to_act else min(game.to_act)
        command = pick(game.rules, game.state, actor, game.info.seed, game_id, game.version, chooser)
        key = f"move-{n}"
        svc.apply(game_id, actor, command, expected_version=game.version, idempotency_key=key)
        last, n = (actor, command, key), n + 1
        assert n < 5000


def _reads(client: Any, game_id: str, token: str) -> dict[str, Any]:
    """Every read of a finished game, as a spectator and as seat 0."""
    timeline = client.get(f"{API}/{game_id}/timeline").json
    versions = [step["version"] for step in timeline["steps"]]
    picked = sorted({versions[0], versions[len(versions) // 3], versions[-2], versions[-1]})
    out: dict[str, Any] = {"timeline": timeline}
    for who, headers in (("spectator", {}), ("seat0", auth(token))):
        out[f"summary {who}"] = client.get(f"{API}/{game_id}", headers=headers).json
        state = client.get(f"{API}/{game_id}/state", headers=headers)
        out[f"state {who}"] = (state.status_code, state.headers["ETag"], state.json)
        for v in picked:
            out[f"state {v} {who}"] = client.get(f"{API}/{game_id}/states/{v}", headers=headers).json
        pages, after = [], 0
        while after is not None:
            page = client.get(f"{API}/{game_id}/events?after={after}&limit=200", headers=headers).json
            pages.append(page)
            after = page["next"]
        out[f"events {who}"] = pages
        stream = client.get(f"{API}/{game_id}/events/stream", headers={**headers, "Accept": "application/x-ndjson"})
        out[f"stream {who}"] = stream.get_data(as_text=True)
        resumed = client.get(f"{API}/{game_id}/events/stream?after={picked[1]}",
                             headers={**headers, "Accept": "application/x-ndjson"})
        out[f"resumed stream {who}"] = resumed.get_data(as_text=True)
    replay = client.get(f"{API}/{game_id}/replay")
    out["replay"] = (replay.status_code, replay.get_data())
    out["viewer"] = client.get(f"/games/{game_id}").status_code
    return out


def _forget(svc: GameService) -> None:
    """This process forgets what it folded and opened: the next reads go to Redis."""
    svc.repository.forget()
    svc.store.forget_opened()


def _keys(conn: redis.Redis, game_id: str) -> dict[str, int]:
    return {k.decode().rsplit(":", 1)[1]: int(conn.memory_usage(k, samples=0) or 0)  # type: ignore[arg-type]
            for k in conn.scan_iter(match=f"hg:{{{game_id}}}:*")}


@pytest.mark.parametrize("game,edition,players,clocked", GAMES)
def test_every_read_answers_the_same_from_the_packed_form(client: Any, svc: GameService, conn: redis.Redis,
                                                          created: list[str], game: str, edition: str,
                                                          players: int, clocked: bool) -> None:
    seed = f"compact-{game}"
    out = _create(client, created, game, edition, players, seed, clocked)
    gid, token = out["id"], out["seats"][0]["token"]
    _play(svc, gid, seed)
    before = _reads(client, gid, token)
    assert before["replay"][0] == 200 and before["viewer"] == 200 and before["state spectator"][0] == 200
    assert f'"seq": {before["timeline"]["steps"][-1]["version"]}' in before["resumed stream spectator"]
    assert (before["state spectator"][2]["clocks"] is not None) == clocked
    clock = {"clock"} if clocked else set()  # the final clocks stay, a state read shows them
    assert set(_keys(conn, gid)) == {"events", "meta", "snap", "bundle", *clock}  # idempotency keys went at the end

    done = compact(svc.store, gid)
    assert done.outcome == "ok" and done.packed_bytes < done.bundle_bytes / 5
    text = before["replay"][1].decode() if isinstance(before["replay"][1], bytes) else before["replay"][1]
    packed, opened = pack_opened(text)  # what compaction checks against the stream: as a reader opens it
    assert packed.startswith(ELIDED) and opened.entries == unpack(packed).entries and unpack(packed).text == text
    _forget(svc)
    after = _reads(client, gid, token)
    assert after == before
    _forget(svc)
    assert verify_bundle(after["replay"][1]).ok
    assert {k.decode().rsplit(":", 1)[1] for k in conn.scan_iter(match=f"hg:{{{gid}}}:*")} == {
        "events", "meta", "packed", "snap", *clock}  # the final snapshot and clocks stay
    assert conn.xlen(events_key(gid)) == 1 and svc.store.version(gid) == before["state spectator"][2]["version"]
    assert conn.hget(meta_key(gid), PACKED_FIELD) == str(svc.store.version(gid)).encode()
    assert conn.ttl(packed_key(gid)) > 0 and abs(conn.ttl(packed_key(gid)) - conn.ttl(meta_key(gid))) <= 1
    conn.delete(snap_key(gid))  # a snapshot this process cannot use: the cold load folds the packed entries
    _forget(svc)
    assert _reads(client, gid, token) == before


def test_a_finished_orleans_game_fits_in_64_kb(client: Any, svc: GameService, conn: redis.Redis,
                                               created: list[str]) -> None:
    out = _create(client, created, "orleans", "classic", 4, "compact-size")
    gid = out["id"]
    _play(svc, gid, "compact-size")
    live = sum(_keys(conn, gid).values())
    assert compact(svc.store, gid).outcome == "ok"
    packed = sum(_keys(conn, gid).values())
    assert packed <= 64 * 1024 < live, (packed, live)


def test_the_compacting_process_reads_the_bundle_without_opening_it_again(
        client: Any, svc: GameService, conn: redis.Redis, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The form the compaction opened (its text rebuilt by the round trip's proof) is kept in the
    process's cache: a read there after the swap (a tournament's tick) opens nothing; another
    process opens the same bytes."""
    out = _create(client, created, "orleans", "classic", 2, "compact-kept")
    gid = out["id"]
    _play(svc, gid, "compact-kept")
    bundle = published_bundle(svc.store, gid)  # built and stored, as the finishing worker leaves it
    _forget(svc)
    assert compact(svc.store, gid).outcome == "ok"

    def opening(data: bytes) -> Any:
        raise AssertionError("opened again")

    with monkeypatch.context() as patched:
        patched.setattr("core.store.unpack", opening)
        assert svc.store.stored_bundle(gid) == bundle
    _forget(svc)
    assert svc.store.stored_bundle(gid) == bundle  # a cold process: opened from the bytes


def test_compaction_is_idempotent_and_a_crash_half_way_leaves_a_whole_game(
        client: Any, svc: GameService, conn: redis.Redis, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    out = _create(client, created, "artificium", "standard", 2, "compact-crash")
    gid, token = out["id"], out["seats"][0]["token"]
    _play(svc, gid, "compact-crash")
    before = _reads(client, gid, token)

    def crash(game_id: str, version: int) -> str:
        raise ConnectionError("the compacting process died before the swap")

    monkeypatch.setattr(svc.store, "compact", crash)
    with pytest.raises(ConnectionError):
        compact(svc.store, gid)
    monkeypatch.undo()
    assert conn.exists(packed_key(gid)) and conn.xlen(events_key(gid)) > 1  # written, not swapped in
    _forget(svc)
    assert _reads(client, gid, token) == before  # the stream still answers

    assert compact(svc.store, gid).outcome == "ok"
    assert compact(svc.store, gid).outcome == "already"
    assert svc.store.compact(gid, svc.store.version(gid)) == "already"
    _forget(svc)
    assert _reads(client, gid, token) == before


def test_a_game_deleted_while_it_is_packed_leaves_no_key(client: Any, svc: GameService, conn: redis.Redis,
                                                         created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's compaction racing the game's deletion (or expiry) writes nothing that would
    outlive the game."""
    out = _create(client, created, "artificium", "standard", 2, "compact-gone")
    gid = out["id"]
    _play(svc, gid, "compact-gone")
    write = svc.store.write_packed

    def deleted_first(game_id: str, packed: bytes, opened: Any = None) -> bool:
        forget_games(conn, [game_id])
        return write(game_id, packed, opened)

    monkeypatch.setattr(svc.store, "write_packed", deleted_first)
    assert compact(svc.store, gid).outcome == "gone"
    assert list(conn.scan_iter(match=f"hg:{{{gid}}}:*")) == []


def test_a_bundle_built_for_a_game_deleted_meanwhile_is_not_kept(client: Any, svc: GameService, conn: redis.Redis,
                                                               created: list[str]) -> None:
    """A ``/replay`` (or a finishing worker) that built a bundle while the game was deleted or
    expired stores nothing: a bundle of no game would have no expiry and be kept for ever."""
    out = _create(client, created, "artificium", "standard", 2, "bundle-gone")
    gid = out["id"]
    _play(svc, gid, "bundle-gone")
    text = client.get(f"/api/v1/games/{gid}/replay").get_data(as_text=True)
    forget_games(conn, [gid])
    svc.store.store_bundle(gid, text)
    assert list(conn.scan_iter(match=f"hg:{{{gid}}}:*")) == []


def test_the_swap_refuses_a_live_game_and_a_moved_stream(client: Any, svc: GameService, conn: redis.Redis,
                                                         created: list[str]) -> None:
    """Abuse case: nobody can compact a game that is still played (its moves would be lost),
    nor swap in a packed form that does not end where the stream ends."""
    out = _create(client, created, "artificium", "standard", 2, "compact-live")
    gid = out["id"]
    version = svc.store.version(gid)
    assert compact(svc.store, gid).outcome == "live"
    svc.store.write_packed(gid, b"hgpack/1 whole\nnot zlib")
    assert svc.store.compact(gid, version) == "live"
    assert conn.xlen(events_key(gid)) == version and conn.hget(meta_key(gid), PACKED_FIELD) is None
    conn.delete(packed_key(gid))

    _play(svc, gid, "compact-live")
    svc.store.write_packed(gid, b"hgpack/1 whole\n")
    assert svc.store.compact(gid, svc.store.version(gid) - 1) == "moved"
    assert conn.xlen(events_key(gid)) == svc.store.version(gid)


def test_a_retried_move_after_the_end_is_refused_and_applies_nothing(client: Any, svc: GameService,
                                                                     conn: redis.Redis, created: list[str]) -> None:
    """The idempotency keys go when the game ends: the retry of the final move gets the game's
    end (422 GAME_OVER), before and after the compaction, and nothing is appended."""
    out = _create(client, created, "cathedral", "standard", 2, "compact-retry")
    gid, tokens = out["id"], [s["token"] for s in out["seats"]]
    actor, command, key = _play(svc, gid, "compact-retry")
    version = svc.store.version(gid)
    assert not conn.exists(idem_key(gid))
    for step in ("finished", "compacted"):
        with pytest.raises(Rejected) as refused:
            svc.apply(gid, actor, command, idempotency_key=key)
        assert refused.value.kind is RejectKind.GAME_OVER
        seat = actor if isinstance(actor, int) else 0
        moves = client.post(f"{API}/{gid}/moves", json={"type": "Pass"},
                            headers={**auth(tokens[seat]), "Idempotency-Key": key})
        assert moves.status_code in (400, 422) and moves.content_type == "application/problem+json", step
        assert svc.store.version(gid) == version
        if step == "finished":
            assert compact(svc.store, gid).outcome == "ok"
            _forget(svc)
    assert conn.xlen(events_key(gid)) == 1 and not conn.exists(idem_key(gid))


def test_the_sweeper_compacts_what_ended_and_the_archive_gets_the_bundle(
        client: Any, svc: GameService, conn: redis.Redis, created: list[str], tmp_path: Path) -> None:
    out = _create(client, created, "artificium", "standard", 2, "compact-sweep")
    gid = out["id"]
    _play(svc, gid, "compact-sweep")
    assert conn.zscore(COMPACT_KEY, gid) is not None  # put there by the append that ended it
    bundle = client.get(f"{API}/{gid}/replay").get_data()
    archive = archive_from_env({"HOURGLASS_ARCHIVE_DIR": str(tmp_path / "bundles")})
    assert isinstance(archive, DirectoryArchive) and archive_from_env({}) is None
    counts = sweep_once(svc, archive=archive)
    assert counts["compacted"] >= 1 and conn.zscore(COMPACT_KEY, gid) is None
    assert conn.hget(meta_key(gid), PACKED_FIELD) is not None and conn.xlen(events_key(gid)) == 1
    assert archive.name(gid).read_bytes() == bundle
    assert [p.name for p in (tmp_path / "bundles").iterdir()] == [archive.name(gid).name]
    _forget(svc)
    assert client.get(f"{API}/{gid}/replay").get_data() == bundle


def test_compaction_off_leaves_finished_games_whole(conn: redis.Redis, created: list[str], client: Any) -> None:
    svc = GameService(conn, client_seeds="any", retention=Retention(compact_after_s=-1))
    out = _create(client, created, "artificium", "standard", 2, "compact-off")
    gid = out["id"]
    _play(svc, gid, "compact-off")
    assert conn.zscore(COMPACT_KEY, gid) is None and svc.live.to_compact() == []
    assert conn.xlen(events_key(gid)) == svc.store.version(gid)


def test_pack_keeps_the_bundle_byte_for_byte_and_falls_back_to_whole() -> None:
    text = "".join([
        '{"format":"hourglass-replay/2","kind":"header"}\n',
        '{"actor":"system","batch":0,"chain_hash":"' + "f" * 64 + '","command":null,"entries":[],'
        '"kind":"batch","state_hash":null}\n',
        '{"batches":1,"kind":"footer"}\n'])
    packed = pack(text)  # a chain hash that does not follow from its entries: kept as it is
    assert not packed.startswith(ELIDED) and unpack(packed).text == text


def test_the_cli_compacts_named_games_and_queues_those_that_ended_before(
        client: Any, svc: GameService, conn: redis.Redis, created: list[str]) -> None:
    out = _create(client, created, "artificium", "standard", 2, "compact-cli")
    gid = out["id"]
    _play(svc, gid, "compact-cli")
    conn.zrem(COMPACT_KEY, gid)  # as a game that ended before compaction was deployed
    said, errors = io.StringIO(), io.StringIO()
    assert replay_cli(["compact", "--over"], stdout=said, stderr=errors, conn=conn) == 0
    assert conn.zscore(COMPACT_KEY, gid) is not None and "put on the compaction list" in said.getvalue()

    said = io.StringIO()
    assert replay_cli(["compact", gid], stdout=said, stderr=errors, conn=conn) == 0
    assert said.getvalue().startswith(f"{gid}: compacted, bundle ")
    assert replay_cli(["replay", "compact", gid], stdout=said, stderr=errors, conn=conn) == 0
    assert said.getvalue().endswith(f"{gid}: compacted already\n")
    assert replay_cli(["compact", "no-such-game"], stdout=said, stderr=errors, conn=conn) == 1
    assert errors.getvalue() == "no-such-game: not compacted (gone)\n"
    assert replay_cli(["compact"], stdout=said, stderr=errors, conn=conn) == 2
