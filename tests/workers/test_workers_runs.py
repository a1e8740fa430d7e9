"""Issue 27: a fast-lane slice decides its steps on the game in memory and stores them in one
append. Each step keeps its own command, key and result; a run that lost a race stores nothing;
a further key already in use refuses the whole run; a slice still ends (CPU or wall clock) and
hands the game back to its queue. A tournament tick that finds the lock taken leaves word for the
holder, and the worker that ends a tournament game keeps its bundle. Nothing here measures time."""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

from core.games import GameService, IdempotencyConflict, StaleVersion
from core.ratings import RatingModel
from core.signing import service_keys
from core.tournaments import Settings, Tournament, TournamentGame
from replays.bundle import build_bundle
from replays.entries import split_batches
from replays.source import load_game
from replays.verify import verify_bundle
from workers import jobs, lanes
from workers.bundles import BundleBook
from workers.enqueue import enqueue_advance
from workers.tournaments import (
    STALL_S,
    TickLock,
    TournamentRunner,
    again_key,
    bundling_key,
    game_bundle,
    game_finished,
    lock_key,
    queued_key,
    seen_key,
)

SEATS = [{"name": "R1", "kind": "bot", "bot": "random"}, {"name": "G1", "kind": "bot", "bot": "greedy"}]


def plan_steps(svc: GameService, game_id: str, count: int) -> list[Any]:
    """``count`` machine steps planned on the game as stored now, each on the one before."""
    game, run = svc.load(game_id), []
    for _ in range(count):
        actor = jobs.next_actor(game.rules, game.state, game.info.seats, game.to_act, game.table.left)
        decision = jobs.decide(svc, game, actor)
        planned = svc.plan(game, decision.actor, decision.command, f"advance:{game_id}:{game.version}",
                           decision.meta or None)
        run.append(planned)
        game = planned.after
    return run


def test_a_run_is_stored_as_if_each_step_had_been_appended_alone(
        svc: GameService, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game(SEATS, seed="runs-alone")["id"]
    run = plan_steps(svc, game_id, 4)
    result = svc.apply_planned(game_id, run)
    assert (result.first, result.last) == (run[0].entries[0].seq, run[-1].entries[-1].seq)
    stored = svc.entries(game_id, after=run[0].before.version)
    assert [e.hash for e in stored] == [e.hash for p in run for e in p.entries]  # the same chain, in order
    assert svc.load(game_id).version == run[-1].after.version
    for p in run:
        found = svc.store.idempotent_result(game_id, p.key)
        assert found is not None and found[0] == p.fingerprint
        assert (found[1].first, found[1].last) == (p.entries[0].seq, p.entries[-1].seq)
    again = svc.apply_planned(game_id, run)  # the first key's stored result: nothing twice
    assert again.replayed and svc.load(game_id).version == run[-1].after.version


def test_a_run_keeps_the_view_heads_in_its_snapshot(svc: GameService, new_game: Callable[..., dict[str, Any]],
                                                    conn: redis.Redis) -> None:
    """A run's snapshot carries every seat's view-chain head: a cold load starts from it (one
    without them is ignored, and the game is folded from its first entry)."""
    game_id = new_game(SEATS, seed="runs-snapshot")["id"]
    run = plan_steps(svc, game_id, 70)  # crosses a multiple of snapshots.EVERY (64 events)
    svc.apply_planned(game_id, run)
    stored = json.loads(conn.get(f"hg:{{{game_id}}}:snap"))
    assert stored["version"] == run[-1].after.version
    assert stored["view_heads"] == list(run[-1].after.view_heads) and len(stored["view_heads"]) == len(SEATS)


def test_a_run_that_lost_a_race_stores_nothing(svc: GameService, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game(SEATS, seed="runs-race")["id"]
    run = plan_steps(svc, game_id, 3)
    other = plan_steps(svc, game_id, 1)[0]
    svc.apply_planned(game_id, [replace(other, key="someone-else")])  # another writer got there first
    with pytest.raises(StaleVersion):
        svc.apply_planned(game_id, run)
    assert svc.load(game_id).version == other.after.version  # only the other writer's step


def test_a_further_key_in_use_refuses_the_whole_run(svc: GameService, new_game: Callable[..., dict[str, Any]],
                                                    conn: redis.Redis) -> None:
    game_id = new_game(SEATS, seed="runs-key")["id"]
    run = plan_steps(svc, game_id, 3)
    before = svc.store.version(game_id)
    conn.hset(f"hg:{{{game_id}}}:idem", run[2].key, "elsewhere\n{}")  # as if that key had been used
    with pytest.raises(IdempotencyConflict):
        svc.apply_planned(game_id, run)
    assert svc.store.version(game_id) == before and svc.store.idempotent_result(game_id, run[0].key) is None


def test_runs_that_do_not_chain_are_refused_before_anything_is_sent(
        svc: GameService, new_game: Callable[..., dict[str, Any]]) -> None:
    game_id = new_game(SEATS, seed="runs-chain")["id"]
    first, second = plan_steps(svc, game_id, 1)[0], plan_steps(svc, game_id, 1)[0]  # both on the same version
    with pytest.raises(ValueError):
        svc.apply_planned(game_id, [first, second])
    assert svc.store.version(game_id) == first.before.version


def test_a_slice_ends_and_the_game_goes_back_to_the_end_of_its_queue(
        conn: redis.Redis, svc: GameService, queue_name: str, new_game: Callable[..., dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With another game waiting on the fast lane, slices of 1 ms of CPU (4 ms on the clock) play
    a run of at least one step each, and after ``lanes.TURN_SLICES`` of them the game waits at the
    back of the fast queue, behind the other, its version read from the run's end, not from Redis
    again. (Alone, it would play on: ``test_workers_lanes``.)"""
    monkeypatch.setenv(lanes.SLICE_ENV, "1")
    game_id = new_game(SEATS, seed="runs-slice")["id"]
    other = new_game(SEATS, seed="runs-slice-other")["id"]
    enqueue_advance(conn, other, 0, lane=lanes.FAST)
    start = svc.load(game_id).version
    out = jobs.run_advance(svc, game_id, lane=lanes.FAST)
    assert out["continued"] and out["next"] == "fast" and 1 <= out["appended"] < 200 * lanes.TURN_SLICES
    assert out["version"] == svc.store.version(game_id) > start
    fast = Queue(queue_name, connection=conn, serializer=JSONSerializer)
    assert fast.job_ids == [f"advance-{other}-0", f"advance-{game_id}-{out['version']}"]


def test_a_tick_that_finds_the_lock_taken_leaves_word_for_the_holder(conn: redis.Redis) -> None:
    tid = "t-lock-test"
    holder, late = TickLock(conn, tid), TickLock(conn, tid)
    try:
        assert holder.take(60_000) and not late.take(60_000)
        assert conn.exists(again_key(tid))
        assert holder.release()  # someone came: the holder ticks again at once
        assert not conn.exists(lock_key(tid)) and not conn.exists(again_key(tid))
        assert holder.take(60_000) and not holder.release()  # nobody came this time
    finally:
        conn.delete(lock_key(tid), again_key(tid))


def test_the_worker_that_ends_a_tournament_game_keeps_its_bundle_and_wakes_the_tick(
        conn: redis.Redis, queue_name: str, created: list[str]) -> None:
    """The finishing worker builds the bundle (the tick only reads it) and queues the tick on the
    now lane, ahead of the games' continuations; the caller process's hook only queues the tick."""
    tid = "t-runs-bundle"
    svc = GameService(conn, on_finished=game_finished)
    game_id = svc.create({"game": "orleans", "seats": SEATS, "seed": "runs-bundle"}, tournament=tid)["id"]
    created.append(game_id)
    try:
        jobs.run_advance(svc, game_id, limit=100_000)
        assert svc.load(game_id).finished
        text = svc.store.stored_bundle(game_id)
        assert text is not None and text == game_bundle(svc.store, game_id)
        assert verify_bundle(text).ok
        now = Queue(queue_name + lanes.queue_suffix(lanes.NOW), connection=conn, serializer=JSONSerializer)
        assert [j for j in now.job_ids if j.startswith(f"tick-{tid}-")]
        assert not Queue(queue_name, connection=conn, serializer=JSONSerializer).job_ids  # nothing behind the games
    finally:
        conn.delete(queued_key(tid, "now"), queued_key(tid, "later"))


def _booked(conn: redis.Redis, created: list[str], seed: str,
            tournament: str) -> tuple[BundleBook, GameService, GameService, str]:
    """A tournament game, a worker's service that keeps a bundle book of it, and another process's."""
    book = BundleBook()
    mine, other = GameService(conn), GameService(conn)
    mine.commands.listen_first(book)
    game_id = mine.create({"game": "orleans", "seats": SEATS, "seed": seed}, tournament=tournament)["id"]
    created.append(game_id)
    return book, mine, other, game_id


def test_a_bundle_built_from_what_the_worker_holds_is_the_same_bundle(
        conn: redis.Redis, queue_name: str, created: list[str]) -> None:
    """The finishing worker folds again only the batches another process played: a game played
    in turns by a worker with its book and by another process gives the same bytes as the
    bundle built from the stream alone (the creation, the book's batches and the gaps between)."""
    book, mine, other, game_id = _booked(conn, created, "runs-book", "t-runs-book")
    turn = 0
    while not mine.load(game_id).finished:
        jobs.run_advance(mine if turn % 3 else other, game_id, limit=25)  # a third of the way by another
        turn += 1
    known = book.known(game_id)
    meta, entries = load_game(mine.store, game_id)
    batches = split_batches(entries)
    held = sum(known(batch) is not None for batch in batches)
    assert 0 < held < len(batches) and known(batches[0]) is not None  # the creation, and gaps
    signer, at = service_keys()[0], "2026-11-28T00:00:00Z"
    from_stream = build_bundle(game_id, meta, entries, signer=signer, signed_at=at)
    assert build_bundle(game_id, meta, entries, signer=signer, signed_at=at, known=known) == from_stream
    assert verify_bundle(from_stream).ok
    other_game = mine.create({"game": "orleans", "seats": SEATS, "seed": "runs-book-2"}, tournament="t-runs-book")
    created.append(other_game["id"])
    assert known(split_batches(load_game(mine.store, other_game["id"])[1])[0]) is None  # another game's batch


def test_the_bundle_reads_from_the_stream_only_what_comes_before_the_finishing_workers_batches(
        conn: redis.Redis, queue_name: str, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker that ends a game holds the batches it played last: only the entries before them
    are read for the bundle, whose bytes are the same; a tail the stream goes on after is not used."""
    book = BundleBook()
    mine, other = GameService(conn), GameService(conn)
    mine.commands.listen_first(book)
    game_id = other.create({"game": "orleans", "seats": SEATS, "seed": "runs-tail"}, tournament="t-runs-tail")["id"]
    created.append(game_id)
    jobs.run_advance(other, game_id, limit=40)
    jobs.run_advance(mine, game_id, limit=100_000)
    assert mine.load(game_id).finished
    meta, entries = load_game(mine.store, game_id)
    tail = book.known(game_id).tail()
    assert 0 < len(tail) < len(entries) and tail[-1]["seq"] == entries[-1]["seq"]
    reads: list[tuple[int, int | None]] = []
    real = mine.store.read

    def read(game_id: str, after: int = 0, until: int | None = None) -> Any:
        reads.append((after, until))
        return real(game_id, after, until)

    monkeypatch.setattr(mine.store, "read", read)
    held_meta, held = load_game(mine.store, game_id, tail)
    assert reads == [(entries[-1]["seq"], None), (0, tail[0]["seq"] - 1)]
    assert held_meta == meta and [json.dumps(e, sort_keys=True) for e in held] == [
        json.dumps(e, sort_keys=True) for e in entries]
    signer, at = service_keys()[0], "2026-11-28T00:00:00Z"
    assert build_bundle(game_id, held_meta, held, signer=signer, signed_at=at) == build_bundle(
        game_id, meta, entries, signer=signer, signed_at=at)
    reads.clear()
    assert load_game(mine.store, game_id, tail[:-1])[1] == entries  # the stream goes on: all of it is read
    assert reads == [(tail[-2]["seq"], None), (0, None)]


def test_a_tick_reads_a_game_that_did_not_move_only_once_it_may_have_stalled(
        conn: redis.Redis, queue_name: str, created: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A game waiting its turn between two ticks is not read (nor folded) by the nudge; one that
    has not moved for STALL_S is, and gets a fresh advance job."""
    svc = GameService(conn)
    game_id = svc.create({"game": "orleans", "seats": SEATS, "seed": "runs-nudge"}, tournament="t-nudge")["id"]
    created.append(game_id)
    version = svc.load(game_id).version
    settings = Settings("t-nudge", None, "orleans", None, 2, "round_robin", 1, 1, 5.0, 1, (1.0, 0.0), "c" * 64,
                        "e1", RatingModel().describe(), "2026-01-01T00:00:00.000Z")
    t = Tournament(settings, games=(TournamentGame(0, 0, (0, 1), game_id),))
    reads: list[str] = []
    runner = TournamentRunner(conn, games=svc, load=lambda gid: reads.append(gid) or svc.load(gid))
    fast = Queue(queue_name, connection=conn, serializer=JSONSerializer)
    fast.empty()
    try:
        conn.hset(seen_key("t-nudge"), game_id, f"{version}:{time.time() - 1}")
        runner.nudge(t)
        assert reads == [] and not fast.job_ids
        conn.hset(seen_key("t-nudge"), game_id, f"{version}:{time.time() - STALL_S - 1}")
        runner.nudge(t)
        assert reads == [game_id] and [j for j in fast.job_ids if j.startswith(f"advance-{game_id}-{version}-t")]
    finally:
        conn.delete(seen_key("t-nudge"))
        fast.empty()


def test_a_tick_leaves_a_bundle_to_the_worker_building_it(conn: redis.Redis, created: list[str]) -> None:
    """While the worker that ended a game builds its bundle (its mark is set), a tick does not
    build it a second time; once it is stored, or the mark lapsed (that worker died), it goes on."""
    svc = GameService(conn)
    game_id = svc.create({"game": "orleans", "seats": SEATS, "seed": "runs-bundling"}, tournament="t-bundling")["id"]
    created.append(game_id)
    jobs.run_advance(svc, game_id, limit=100_000)
    runner = TournamentRunner(conn, games=svc)
    try:
        conn.set(bundling_key(game_id), b"1", px=60_000)
        assert runner._bundling(game_id)
        game_bundle(svc.store, game_id)
        assert not runner._bundling(game_id)  # stored: the tick records the result
    finally:
        conn.delete(bundling_key(game_id))
    assert not runner._bundling(game_id)


def test_the_book_keeps_what_its_process_folds_in_from_another(
        conn: redis.Redis, queue_name: str, created: list[str]) -> None:
    """A worker that takes a game back from another folds in the other's batches one by one and
    keeps each: the bundle then folds nothing again, and is the same bundle."""
    book, mine, other, game_id = _booked(conn, created, "runs-book-load", "t-book")
    turn = 0
    while not book.load(mine.repository, game_id).finished:
        jobs.run_advance(mine if turn % 2 else other, game_id, limit=25)
        turn += 1
    assert book.load(mine.repository, game_id) == mine.repository.load(game_id)
    known = book.known(game_id)
    meta, entries = load_game(mine.store, game_id)
    assert all(known(batch) is not None for batch in split_batches(entries))
    signer, at = service_keys()[0], "2026-11-28T00:00:00Z"
    assert (build_bundle(game_id, meta, entries, signer=signer, signed_at=at, known=known)
            == build_bundle(game_id, meta, entries, signer=signer, signed_at=at))


def test_the_book_holds_the_games_it_heard_of_last(conn: redis.Redis, created: list[str]) -> None:
    book = BundleBook(max_games=1)
    svc = GameService(conn)
    svc.commands.listen_first(book)
    first, second = (svc.create({"game": "orleans", "seats": SEATS, "seed": f"runs-lru-{i}"}, tournament="t-lru")["id"]
                     for i in range(2))
    created += [first, second]
    assert len(book.known(first)) == 0 and len(book.known(second)) == 1  # the creation batch of the last
    untracked = svc.create({"game": "orleans", "seats": SEATS, "seed": "runs-lru-free"})["id"]  # no tournament
    created.append(untracked)
    assert len(book.known(untracked)) == 0 and len(book.known(second)) == 1
