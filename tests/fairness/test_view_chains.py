"""Per-seat view hash chains (issue 29): the bundle carries every seat's chain, the verifier
re-derives it and names the first wrong head, and checks the heads a seat recorded during play;
the service sends a seat only its own head, the Python client records them (a live game over a
real HTTP server in a thread)."""
from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import redis
from hourglass_client import Client
from werkzeug.serving import make_server

from core import viewchain
from core.games import GameService
from core.signing import KeySet
from domain.canonical import canonical_json
from domain.core import SYSTEM
from replays import cli
from replays.bundle import FORMAT, FORMAT_3, build_bundle
from replays.verify import RecordedHeads, Signing, verify_bundle
from service.app import create_app
from service.routes.events import FORMATS, _head_text, snapshot
from tests.conftest import forget_games
from tests.replays.replay_helpers import pick, played


@pytest.fixture(scope="module")
def game() -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    return played("classic", 2, "view-chains")


@pytest.fixture(scope="module")
def bundle(game: tuple[str, dict[str, Any], list[dict[str, Any]]]) -> str:
    return build_bundle(*game)


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def dumped(lines: list[dict[str, Any]]) -> str:
    return "".join(canonical_json(line) + "\n" for line in lines)


def seat_heads(text: str, seat: int) -> dict[int, str]:
    """What a seat would have recorded had it asked after every batch: the bundle's own heads."""
    return {line["entries"][-1]["seq"]: line["view_heads"][seat] for line in lines_of(text) if line["kind"] == "batch"}


def test_the_bundle_carries_every_seats_chain_and_verifies(bundle: str) -> None:
    lines = lines_of(bundle)
    assert lines[0]["format"] == FORMAT == "hourglass-replay/4"
    batches = [line for line in lines if line["kind"] == "batch"]
    assert all(len(b["view_heads"]) == 2 for b in batches)
    assert batches[0]["view_heads"][0] != batches[0]["view_heads"][1]  # each seat its own chain
    report = verify_bundle(bundle)
    assert report.ok, report.describe()


def test_a_changed_view_head_is_named_with_its_line_seat_and_version(bundle: str) -> None:
    lines = lines_of(bundle)
    number = 40  # 1-based line: batch 38
    lines[number - 1]["view_heads"][1] = "0" * 64
    report = verify_bundle(dumped(lines))
    assert not report.ok and report.divergence is not None
    version = lines[number - 1]["entries"][-1]["seq"]
    assert report.divergence.line == number
    assert report.divergence.what == f"view-chain head of seat 1 after batch {number - 2} (version {version})"
    assert report.divergence.found == "0" * 64


def test_a_head_forged_from_another_view_is_caught_at_its_batch(bundle: str,
                                                                 game: tuple[str, dict[str, Any], list[Any]]) -> None:
    """A forger who rehashes the rest of the chain after showing seat 0 another event at one batch
    is still caught: the verifier re-derives every seat's view of every event it replays."""
    lines = lines_of(bundle)
    batches = [line for line in lines if line["kind"] == "batch"]
    prev = batches[9]["view_heads"][0]
    for line in batches[10:]:  # a consistent chain from a view the seat was not really shown
        events = [{"forged": line["batch"]}] if line["batch"] == 10 else [e["data"] for e in line["entries"]]
        prev = viewchain.advance(prev, 0, line["entries"][-1]["seq"], events)
        line["view_heads"][0] = prev
    report = verify_bundle(dumped(lines))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 12 and "seat 0 after batch 10" in report.divergence.what


def test_seats_shown_alike_share_one_encoding_and_seats_shown_apart_do_not() -> None:
    """``advance_all`` encodes a view once for the seats that see it alike; ``True``, ``1`` and
    ``1.0`` are equal in Python and differ in JSON, so each seat's head stays its own link's."""
    class Shown(int):  # an int subclass: not marshalled, encoded as it is
        pass

    shown = [{"x": 1}, {"x": 1}, {"x": True}, {"x": 1.0}, {"x": Shown(1)}, {"x": [1, "é\""]}]
    rules: Any = type("Rules", (), {"event_view": staticmethod(lambda event, seat: dict(shown[seat]))})()
    heads = viewchain.genesis_heads(len(shown))
    got = viewchain.advance_all(rules, heads, 7, [{"type": "Shown"}], [object()])
    assert got == tuple(viewchain.advance(head, seat, 7, [shown[seat]]) for seat, head in enumerate(heads))
    assert got[0] != got[1] and len(set(got)) == len(shown)  # each seat chains from its own genesis
    views = [[view] for view in shown]  # the same, from views in hand (a move's answer: core.commands)
    assert viewchain.advance_views(heads, 7, views) == got


def test_recorded_heads_that_match_verify_and_a_differing_one_is_named(bundle: str) -> None:
    mine = seat_heads(bundle, 1)
    assert verify_bundle(bundle, signing=Signing(heads=RecordedHeads(1, mine))).ok
    versions = sorted(mine)
    wrong = {**mine, versions[30]: mine[versions[31]], versions[50]: "ab" * 32}
    report = verify_bundle(bundle, signing=Signing(heads=RecordedHeads(1, wrong)))
    assert not report.ok and report.divergence is not None
    assert report.divergence.what == f"view-chain head of seat 1 at version {versions[30]} (the one the seat recorded)"
    assert report.divergence.line == 30 + 2  # the line of the batch ending at that version
    other_seat = verify_bundle(bundle, signing=Signing(heads=RecordedHeads(0, mine)))
    assert not other_seat.ok  # seat 1's heads are not seat 0's


def test_recorded_versions_that_no_batch_ends_or_past_the_end_are_refused(bundle: str) -> None:
    mine = seat_heads(bundle, 0)
    inside = next(v for v in range(1, max(mine)) if v not in mine)
    report = verify_bundle(bundle, signing=Signing(heads=RecordedHeads(0, {inside: "00" * 32})))
    assert not report.ok and report.divergence is not None and f"version {inside}" in report.divergence.what
    past = verify_bundle(bundle, signing=Signing(heads=RecordedHeads(0, {max(mine) + 5: "00" * 32})))
    assert not past.ok and past.divergence is not None and f"version {max(mine) + 5}" in past.divergence.what
    bad_seat = verify_bundle(bundle, signing=Signing(heads=RecordedHeads(2, {1: "00" * 32})))
    assert not bad_seat.ok and bad_seat.divergence is not None and bad_seat.divergence.line == 1


def test_older_formats_verify_and_refuse_recorded_heads(game: tuple[str, dict[str, Any], list[Any]]) -> None:
    old = build_bundle(*game, fmt=FORMAT_3)
    assert "view_heads" not in old and verify_bundle(old).ok
    report = verify_bundle(old, signing=Signing(heads=RecordedHeads(0, {1: "00" * 32})))
    assert not report.ok and report.divergence is not None and report.divergence.line == 1
    assert "format hourglass-replay/3" in report.divergence.found


def test_a_format_4_bundle_stripped_of_its_view_heads_is_refused(bundle: str) -> None:
    lines = lines_of(bundle)
    del lines[5]["view_heads"]
    report = verify_bundle(dumped(lines))
    assert not report.ok and report.divergence is not None
    assert report.divergence.line == 6 and report.divergence.what == "batch fields"


def test_the_cli_checks_a_seats_heads_file(bundle: str, tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(bundle, encoding="utf-8")
    heads = tmp_path / "heads.json"
    mine = seat_heads(bundle, 0)
    heads.write_text(json.dumps({str(v): h for v, h in mine.items()}), encoding="utf-8")
    out, err = StringIO(), StringIO()
    assert cli.main(["verify", str(path), "--seat", "0", "--heads", str(heads)], stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("verified:")
    first = min(mine)
    heads.write_text(json.dumps({str(first): "11" * 32}), encoding="utf-8")
    out, err = StringIO(), StringIO()
    assert cli.main(["verify", str(path), "--seat", "0", "--heads", str(heads)], stdout=out, stderr=err) == 1
    assert f"view-chain head of seat 0 at version {first} (the one the seat recorded)" in err.getvalue()
    heads.write_text("[1, 2]", encoding="utf-8")
    assert cli.main(["verify", str(path), "--seat", "0", "--heads", str(heads)], stdout=out, stderr=err) == 2
    assert cli.main(["verify", str(path), "--heads", str(heads)], stdout=out, stderr=err) == 2


# -- live, through the app ----------------------------------------------------------------------


@pytest.fixture()
def base(conn: redis.Redis) -> Iterator[str]:
    app = create_app({"REDIS": conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)


def test_a_live_game_the_client_records_heads_and_the_bundle_proves_them(base: str, conn: redis.Redis,
                                                                          tmp_path: Path) -> None:
    anonymous = Client(base)
    created = anonymous.create_game("orleans", [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"}])
    game_id = created["id"]
    seats = [Client(base, s["token"]) for s in created["seats"]]
    service, chooser = GameService(conn), random.Random(29)
    try:
        spectator_state = anonymous.state(game_id)
        assert spectator_state["view_head"] is None and game_id not in anonymous.view_heads
        while not (game := service.load(game_id)).finished:
            actor = SYSTEM if SYSTEM in game.to_act else min(game.to_act)
            command = pick(game.rules, game.state, actor, game.info.seed, game_id, game.version, chooser)
            if actor == SYSTEM:
                service.apply(game_id, actor, command, expected_version=game.version)
                seats[game.version % 2].state(game_id)  # seats look now and then
            else:
                answer = seats[actor].post_move(game_id, game.rules.move_to_json(command), if_match=game.version)
                assert answer["view_head"] == service.load(game_id).view_head(actor)
        ann, bob = seats
        state = ann.state(game_id)
        assert state["view_head"] == service.load(game_id).view_heads[0] != bob.state(game_id)["view_head"]
        assert len(ann.view_heads[game_id]) > 20 and len(bob.view_heads[game_id]) > 20
        bundle = anonymous.replay(game_id)
        assert json.loads(bundle.splitlines()[0])["format"] == FORMAT
        path = tmp_path / "game.jsonl"
        path.write_text(bundle, encoding="utf-8")
        for seat, client in enumerate(seats):
            heads = tmp_path / f"heads-{seat}.json"
            assert client.write_view_heads(game_id, str(heads)) == len(client.view_heads[game_id])
            out, err = StringIO(), StringIO()
            code = cli.main(["verify", str(path), "--seat", str(seat), "--heads", str(heads)], stdout=out, stderr=err)
            assert code == 0, err.getvalue()
        recorded = dict(bob.view_heads[game_id])
        version = sorted(recorded)[3]
        recorded[version] = ann.view_heads[game_id].get(version, "22" * 32)  # another seat's head is not Bob's
        report = verify_bundle(bundle, signing=Signing(heads=RecordedHeads(1, recorded)))
        assert not report.ok and report.divergence is not None
        assert f"seat 1 at version {version}" in report.divergence.what
    finally:
        forget_games(conn, [game_id])


def test_a_seat_is_sent_only_its_own_head(conn: redis.Redis) -> None:
    """Abuse case: a seat's answers and stream lines carry its own head, never another seat's (a
    hash of a small hidden hand could be brute-forced); a spectator gets none. Draws on no budget
    of its own: the head rides on answers the seat was given anyway."""
    app = create_app({"REDIS": conn, "ADVANCE": "off", "TESTING": True, "RATE_LIMIT": 0})
    http = app.test_client()
    made = http.post("/api/v1/games", json={"game": "orleans", "seats": [
        {"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"}]}).get_json()
    game_id = made["id"]
    try:
        game = GameService(conn).load(game_id)
        mine, theirs = game.view_heads
        ann = {"Authorization": f"Bearer {made['seats'][0]['token']}"}
        text = http.get(f"/api/v1/games/{game_id}/state", headers=ann).get_data(as_text=True)
        assert json.loads(text)["view_head"] == mine and theirs not in text
        assert http.get(f"/api/v1/games/{game_id}/state").get_json()["view_head"] is None
        ndjson = FORMATS["application/x-ndjson"]
        line = json.loads(_head_text(game, 0, ndjson))
        assert line == {"kind": "head", "version": game.version, "view_head": mine}
        assert _head_text(game, None, ndjson) == ""  # spectators: no head line
        snap = snapshot(game, 1, None)
        assert snap["view_head"] == theirs and mine not in json.dumps(snap)
    finally:
        forget_games(conn, [game_id])


GOLDEN_3 = Path(__file__).resolve().parents[1] / "golden" / "cathedral-format3-signed-2p.jsonl"
GOLDEN_3_KEY = "812783d6faa600854bf30ee187bfff037588d766942094d7d01bc18fb7b1ad79"  # its signer's public key


def test_a_format_3_bundle_exported_before_view_chains_still_verifies_signed() -> None:
    """tests/golden/cathedral-format3-signed-2p.jsonl was exported by main before format 4 (a
    Cathedral game between bots, signed by a key generated for it): it keeps verifying, signature
    included, and refuses recorded heads (it has no chains)."""
    text = GOLDEN_3.read_text(encoding="utf-8")
    assert json.loads(text.splitlines()[0])["format"] == FORMAT_3
    report = verify_bundle(text, signing=Signing(KeySet.single(GOLDEN_3_KEY)))
    assert report.ok and report.signed_by is not None, report.describe()
    refused = verify_bundle(text, signing=Signing(heads=RecordedHeads(0, {1: "00" * 32})))
    assert not refused.ok and refused.divergence is not None and refused.divergence.line == 1
