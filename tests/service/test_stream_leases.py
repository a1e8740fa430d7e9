"""Issue 27: open-stream slots renewed in bulk (``service.limits.Leases``).

Before, each open stream renewed its own slot: a handed-over stream's greenlet woke every
heartbeat to do it, one pipeline per stream. Now one timer per process renews every held slot in
one pipeline. A slot must stay alive while its stream is open, free at once when it closes, and
lapse within a lease when its process dies (nothing renews it any more): the open-stream caps
(the ``streams`` budget) count only streams that exist.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from conftest import REDIS_URL

from service.app import create_app
from service.limits import LEASES, Leases, StreamSlot

ROOT = Path(__file__).resolve().parents[2]
LEASE_S = 0.6  # short leases, so expiry and renewal happen within a test


@pytest.fixture
def key(conn: redis.Redis) -> Iterator[str]:
    name = f"hg:{{sse}}:test:{uuid.uuid4().hex}"
    yield name
    conn.delete(name)


def alive(conn: redis.Redis, key: str, slot_member: str) -> bool:
    """The member is in the set with a lease that has not run out (what the open script counts)."""
    score = conn.zscore(key, slot_member)
    return score is not None and score > time.time() * 1000


class Counting:
    """A connection that counts the round trips made through it (pipelines and single commands)."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn, self.trips = conn, 0

    def pipeline(self, transaction: bool = True) -> Any:
        pipe = self.conn.pipeline(transaction=transaction)
        execute = pipe.execute

        def counted() -> Any:
            self.trips += 1
            return execute()
        pipe.execute = counted  # type: ignore[method-assign]
        return pipe

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_a_held_slot_outlives_its_lease_while_open_and_frees_at_close(conn: redis.Redis, key: str) -> None:
    slot = StreamSlot(conn, [key], LEASE_S)
    assert slot.open([4]) == 0
    slot.hold()
    try:
        time.sleep(LEASE_S * 3)  # three leases: only the process's timer kept it
        assert alive(conn, key, slot.member) and slot in LEASES.held
    finally:
        slot.close()
    assert conn.zscore(key, slot.member) is None and slot not in LEASES.held


def test_a_slot_not_held_lapses_after_its_lease(conn: redis.Redis, key: str) -> None:
    slot = StreamSlot(conn, [key], LEASE_S)  # as a verification slot: never renewed
    assert slot.open([1]) == 0
    other = StreamSlot(conn, [key], LEASE_S)
    assert other.open([1]) == 1  # the cap of one is taken
    time.sleep(LEASE_S + 0.2)
    assert other.open([1]) == 0  # the lapsed lease no longer counts
    other.close()
    slot.close()


def test_every_held_slot_is_renewed_in_one_round_trip(conn: redis.Redis, key: str) -> None:
    counting = Counting(conn)
    leases = Leases()
    addresses = [f"{key}:{n}" for n in range(5)]  # slots over several keys, as many addresses
    slots = [StreamSlot(counting, [addresses[n % 5], key], 60.0) for n in range(200)]
    try:
        for slot in slots:
            assert slot.open([1000, 1000]) == 0
            leases.held.add(slot)  # held by this instance (its timer is not started: renewed by hand)
        before = {slot.member: conn.zscore(key, slot.member) for slot in slots}
        time.sleep(0.01)
        assert leases.renew() == 200 and counting.trips == 1
        assert all(conn.zscore(key, s.member) > before[s.member] for s in slots)  # type: ignore[operator]
        assert all(0 < conn.pttl(k) <= 60_000 for k in [key, *addresses])
    finally:
        for slot in slots:
            slot.close()
        conn.delete(*addresses)


def test_a_renewal_never_brings_back_a_closed_or_lapsed_slot(conn: redis.Redis, key: str) -> None:
    leases = Leases()
    closed, lapsed = StreamSlot(conn, [key], 60.0), StreamSlot(conn, [key], 60.0)
    for slot in (closed, lapsed):
        assert slot.open([10]) == 0
        leases.held.add(slot)
    closed.close()  # closed while a renewal round was about to run
    conn.zrem(key, lapsed.member)  # what the next open does with a lapsed member
    leases.renew()
    assert conn.zcard(key) == 0


def test_the_slots_of_a_process_that_died_lapse_within_a_lease(conn: redis.Redis, key: str) -> None:
    holder = textwrap.dedent(f"""
        import sys, time, redis
        from service.limits import StreamSlot
        slot = StreamSlot(redis.Redis.from_url(sys.argv[1]), [{key!r}], {LEASE_S})
        assert slot.open([1]) == 0
        slot.hold()
        print("held", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", holder, REDIS_URL], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        time.sleep(LEASE_S * 3)
        assert StreamSlot(conn, [key], LEASE_S).open([1]) == 1  # renewed by the living process: still counted
    finally:
        proc.kill()
        proc.wait(10)
    time.sleep(LEASE_S + 0.3)
    late = StreamSlot(conn, [key], LEASE_S)
    assert late.open([1]) == 0  # the dead process's slot lapsed: its place is free
    late.close()


def test_a_stream_holds_its_slot_while_it_flows_and_frees_it_when_it_ends(conn: redis.Redis,
                                                                          created: list[str]) -> None:
    """The route: the slot joins the process's held set once the body flows, and leaves it (and
    Redis) when the client closes; another address's cap is untouched meanwhile."""
    app = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "CLIENT_SEEDS": "any", "RATE_LIMIT": 10_000,
                      "ANON_RATE_LIMIT": 10_000, "SSE_HEARTBEAT": 0.2, "SSE_PER_ADDRESS": 1})
    client = app.test_client()
    address = f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"
    client.environ_base["REMOTE_ADDR"] = address
    game = client.post("/api/v1/games", json={"game": "orleans", "edition": "classic",
                                              "seats": [{"name": "Ann"}, {"name": "Bob"}]}).json
    created.append(game["id"])
    path = f"/api/v1/games/{game['id']}/events/stream"
    before = set(LEASES.held)
    stream = client.get(path, buffered=False)
    assert stream.status_code == 200
    next(stream.response)  # the opening: the body flows
    mine = LEASES.held - before
    assert len(mine) == 1
    slot = next(iter(mine))
    assert alive(conn, slot.keys[0], slot.member)
    assert client.get(path, buffered=False).status_code == 429  # SSE_PER_ADDRESS=1: the slot counts
    elsewhere = f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"
    other = client.get(path, buffered=False, environ_base={"REMOTE_ADDR": elsewhere})
    assert other.status_code == 200  # another requester's budget is its own
    other.close()
    stream.close()
    assert slot not in LEASES.held and conn.zscore(slot.keys[0], slot.member) is None
    again = client.get(path, buffered=False)
    assert again.status_code == 200  # and the place is free again
    again.close()
