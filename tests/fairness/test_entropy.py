"""Seat-contributed entropy (issue 29): a game created with an entropy window is set up only when
its seats have contributed or the window has closed, from a seed derived from the service's
committed seed and every contribution; the bundle carries the contributions and the verifier
re-derives the seed from them."""
from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from core.games import EntropyClosed, GameNotFound, GameService, NotThisSeat
from domain.canonical import canonical_json, json_hash
from domain.core import Rejected
from domain.rng import derive_seed, seed_commitment
from replays.bundle import build_bundle
from replays.cli import main as replay_cli
from replays.source import load_game, published_bundle
from replays.verify import Signing, verify_bundle
from tests.conftest import forget_games
from tests.replays.replay_redis import advance

SEED = bytes(range(32))  # one service seed for every game here: only the contributions differ


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def svc(conn: redis.Redis, clock: Clock) -> Iterator[GameService]:
    service = GameService(conn, clock=clock)
    service.created = []  # type: ignore[attr-defined]
    yield service
    forget_games(conn, service.created)  # type: ignore[attr-defined]


def seeding(svc: GameService, window_s: float = 30, bot: bool = False) -> dict[str, Any]:
    seats: list[dict[str, Any]] = [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"}]
    if bot:
        seats.append({"name": "Bot", "kind": "bot", "bot": "greedy"})
    created = svc.create({"game": "orleans", "seats": seats, "entropy": {"window_s": window_s}}, seed=SEED)
    svc.created.append(created["id"])  # type: ignore[attr-defined]
    return created


def test_two_seats_contribute_and_different_contributions_give_different_draws(svc: GameService) -> None:
    first, second = seeding(svc), seeding(svc)
    assert first["status"] == "seeding" and first["seed_commitment"] == seed_commitment(SEED)
    assert first["entropy"]["contributors"] == [0, 1]
    with pytest.raises(GameNotFound):
        svc.repository.load(first["id"])  # nothing is set up, nothing drawn, before the seats have spoken
    ann, bob = (s["token"] for s in first["seats"])
    assert svc.contribute(first["id"], ann, "aa" * 32)["status"] == "seeding"
    assert svc.contribute(first["id"], bob, "bb" * 32)["status"] == "started"  # the last one starts it
    ann2, bob2 = (s["token"] for s in second["seats"])
    svc.contribute(second["id"], ann2, "aa" * 32)
    svc.contribute(second["id"], bob2, "cc" * 32)

    one, two = svc.load(first["id"]), svc.load(second["id"])
    assert one.info.committed_seed == two.info.committed_seed == SEED
    assert one.info.contributions == ("aa" * 32, "bb" * 32)
    assert one.info.seed == derive_seed(SEED, ["aa" * 32, "bb" * 32]) != two.info.seed
    draws_one = [e.entry["data"] for e in svc.entries(first["id"])][:12]
    draws_two = [e.entry["data"] for e in svc.entries(second["id"])][:12]
    assert json.dumps(draws_one) != json.dumps(draws_two)  # the same service seed, other draws


def test_a_seat_that_does_not_contribute_costs_only_itself(svc: GameService, clock: Clock) -> None:
    created = seeding(svc, window_s=10, bot=True)
    assert created["entropy"]["contributors"] == [0, 1]  # the built-in bot's bytes are the service's
    ann = created["seats"][0]["token"]
    secret = "5eed" * 16  # long enough that a hash in the answer cannot hold it by chance
    svc.contribute(created["id"], ann, secret)
    status = svc.seeding(created["id"])
    assert status["status"] == "seeding" and [s["contributed"] for s in status["seats"]] == [True, False, True]
    assert secret not in json.dumps(status)  # who contributed, never what
    clock.now += timedelta(seconds=10)
    game = svc.load(created["id"])  # the first read after the deadline sets the game up
    assert game.version > 0 and game.info.contributions is not None
    assert game.info.contributions[0] == secret and game.info.contributions[1] is None
    assert game.info.contributions[2] is not None and len(game.info.contributions[2]) == 64
    with pytest.raises(EntropyClosed, match="closed"):
        svc.contribute(created["id"], created["seats"][1]["token"], "02")


def test_a_late_contribution_is_refused_and_starts_the_game(svc: GameService, clock: Clock) -> None:
    created = seeding(svc, window_s=5)
    clock.now += timedelta(seconds=6)
    with pytest.raises(EntropyClosed, match="closed"):
        svc.contribute(created["id"], created["seats"][0]["token"], "ab")
    assert svc.store.exists(created["id"])
    assert svc.repository.load(created["id"]).info.contributions == (None, None)


def test_abuse_once_per_seat_own_seat_only_bounded_size(svc: GameService) -> None:
    created = seeding(svc)
    ann, bob = (s["token"] for s in created["seats"])
    svc.contribute(created["id"], ann, "ab")
    with pytest.raises(EntropyClosed, match="contributed already"):
        svc.contribute(created["id"], ann, "cd")  # no second try after seeing anything
    with pytest.raises(NotThisSeat):
        svc.contribute(created["id"], "not-a-token", "cd")
    for bad in ("", "abc", "AB", "zz", "00" * 65):
        with pytest.raises(Rejected, match="lower-case hex"):
            svc.contribute(created["id"], bob, bad)
    with pytest.raises(GameNotFound):
        svc.contribute("no-such-game", bob, "cd")
    svc.contribute(created["id"], bob, "00" * 64)  # 64 bytes is the most


def test_a_window_is_bounded_and_takes_no_open_seats(svc: GameService) -> None:
    two = [{"name": "A", "kind": "human"}, {"name": "B", "kind": "human"}]
    for window in (0, -1, 601, "10", True, None):
        with pytest.raises(Rejected, match="window_s"):
            svc.create({"game": "orleans", "seats": two, "entropy": {"window_s": window}})
    with pytest.raises(Rejected, match="open seats"):
        svc.create({"game": "orleans", "seats": [two[0], {"kind": "open"}], "entropy": {"window_s": 5}})


def test_bots_only_start_at_once(svc: GameService) -> None:
    created = svc.create({"game": "orleans", "seats": [{"name": f"B{i}", "kind": "bot", "bot": "greedy"} for i in range(2)],
                          "entropy": {"window_s": 5}}, seed=SEED)
    svc.created.append(created["id"])  # type: ignore[attr-defined]
    assert created["entropy"]["contributors"] == []
    assert svc.load(created["id"]).info.contributions is not None


# -- the bundle carries the contributions; the verifier re-derives the seed -----------------------


@pytest.fixture()
def contributed(svc: GameService) -> tuple[str, str]:
    """A finished game whose two seats contributed: (game id, its published bundle)."""
    created = seeding(svc)
    for seat, value in zip(created["seats"], ("a1" * 16, "b2" * 8)):
        svc.contribute(created["id"], seat["token"], value)
    advance(svc, created["id"], random.Random(7))
    return created["id"], published_bundle(svc.store, created["id"])


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n")[:-1]]


def rehashed(lines: list[dict[str, Any]]) -> str:
    """A forger's edit of the header: header_hash recomputed (the signature is another matter)."""
    lines[-1]["header_hash"] = json_hash(lines[0])
    return "".join(canonical_json(o) + "\n" for o in lines)


def test_the_bundle_carries_the_contributions_and_verifies(contributed: tuple[str, str]) -> None:
    game_id, text = contributed
    header = lines_of(text)[0]
    assert header["contributions"] == ["a1" * 16, "b2" * 8] and header["seed"] == SEED.hex()
    assert lines_of(text)[1]["command"]["contributions"] == header["contributions"]
    report = verify_bundle(text, signing=Signing(contributions={0: "a1" * 16, 1: "B2" * 8}))
    assert report.ok, report.describe()


@pytest.mark.parametrize(("change", "line", "what"), [
    (lambda c: c.__setitem__(1, "b3" * 8), 2, "setup command"),  # changed
    (lambda c: c.__setitem__(1, None), 2, "setup command"),  # omitted
    (lambda c: c.pop(), 1, "contributions (one per seat"),  # dropped from the list
    (lambda c: c.__setitem__(0, "XYZ"), 1, "contribution of seat 0"),  # not hex
])
def test_a_changed_or_omitted_contribution_is_named(contributed: tuple[str, str], change: Any, line: int,
                                                     what: str) -> None:
    lines = lines_of(contributed[1])
    change(lines[0]["contributions"])
    report = verify_bundle(rehashed(lines))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == line and report.divergence.what.startswith(what), report.describe()


def test_a_forger_who_rewrites_the_chain_too_is_caught_at_the_set_up(svc: GameService,
                                                                    contributed: tuple[str, str]) -> None:
    """Contributions changed in the header and in the set-up command, every chain hash
    recomputed: the set-up's draws no longer come from that seed."""
    game_id, _ = contributed
    meta, entries = load_game(svc.store, game_id)
    meta["contributions"] = ["a1" * 16, None]
    entries[0] = {**entries[0], "command": {**entries[0]["command"], "contributions": meta["contributions"]}}
    report = verify_bundle(build_bundle(game_id, meta, entries))
    assert not report.ok and report.divergence is not None and report.divergence.line == 2
    assert "seats' contributions" in report.divergence.what, report.describe()


def test_a_seat_checks_its_own_contribution(contributed: tuple[str, str], tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(contributed[1], "utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_cli(["verify", str(path), "--contribution", f"0:{'a1' * 16}"], stdout=out, stderr=err) == 0
    err = io.StringIO()
    assert replay_cli(["verify", str(path), "--contribution", "1:00"], stdout=out, stderr=err) == 1
    assert err.getvalue().startswith("line 1: contribution of seat 1 (the one the seat recorded)")
    assert replay_cli(["verify", str(path), "--contribution", "one:00"], stdout=out, stderr=io.StringIO()) == 2


def test_the_documented_recipe_recomputes_draws_from_the_derived_seed(contributed: tuple[str, str],
                                                                     tmp_path: Path) -> None:
    """docs/replay-format.md's independent recipe (hashlib and hmac only) derives the seed too."""
    from tests.replays.test_replay_docs import ROOT, _recipe

    script, bundle = tmp_path / "recompute_draws.py", tmp_path / "game.jsonl"
    script.write_text(_recipe(), encoding="utf-8")
    bundle.write_text(contributed[1], encoding="utf-8")
    run = subprocess.run([sys.executable, str(script), str(bundle)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.split()[0]) > 0
