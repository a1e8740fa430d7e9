"""The replay endpoints, the CLI and time travel against the real service on a real Redis."""
from __future__ import annotations

import io
import json
import random
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from core.games import GameService
from domain.canonical import json_hash
from domain.games import get_game
from replays.cli import main as cli
from replays.source import load_game, published_bundle, store_loader
from replays.timetravel import VersionOutOfRange, state_at, versions_of_batches, view_at
from replays.verify import verify_bundle
from service.cli import main as hourglass_main
from tests.replays.replay_redis import REDIS_URL, advance, create


@pytest.fixture(scope="module")
def live(service: GameService) -> str:
    game_id = create(service, "2023", 3, seed=f"live-{random.random()}")
    advance(service, game_id, random.Random(1), max_commands=25)
    service.created.append(game_id)  # type: ignore[attr-defined]
    return game_id


def _problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["status"] == status and body["kind"] == kind
    assert "Traceback" not in json.dumps(body)
    return body


# -- GET /replay ----------------------------------------------------------------------------------


def test_replay_of_a_finished_game_verifies(client: Any, service: GameService, finished: str) -> None:
    response = client.get(f"/api/v1/games/{finished}/replay")
    assert response.status_code == 200
    assert response.mimetype == "application/x-ndjson"
    assert "attachment" in response.headers["Content-Disposition"]
    report = verify_bundle(response.get_data())
    assert report.ok, report.describe()
    assert report.final_hash == service.store.last_hash(finished)
    assert report.result == service.load(finished).rules.result(service.load(finished).state)


def test_replay_of_a_live_game_is_409_and_reveals_nothing(client: Any, live: str) -> None:
    response = client.get(f"/api/v1/games/{live}/replay")
    body = _problem(response, 409, "GAME_NOT_FINISHED")
    seed = json.loads(client.get(f"/api/v1/games/{live}").get_data(as_text=True)).get("seed")
    assert seed is None
    assert "seed" not in body


def test_replay_of_an_unknown_game_is_404(client: Any) -> None:
    _problem(client.get("/api/v1/games/nope-not-a-game/replay"), 404, "NOT_FOUND")


# -- POST /replays/verify ------------------------------------------------------------------------


def test_verify_accepts_a_raw_bundle_larger_than_a_move_body(client: Any, finished: str) -> None:
    bundle = client.get(f"/api/v1/games/{finished}/replay").get_data()
    assert len(bundle) > 64 * 1024
    response = client.post("/api/v1/replays/verify", data=bundle, content_type="application/x-ndjson")
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True and body["divergence"] is None and body["game_id"] == finished


def test_verify_accepts_what_curl_data_binary_sends(client: Any, finished: str) -> None:
    """curl --data-binary @game.jsonl without -H sends application/x-www-form-urlencoded."""
    bundle = client.get(f"/api/v1/games/{finished}/replay").get_data()
    response = client.post("/api/v1/replays/verify", data=bundle, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200 and response.get_json()["ok"] is True


def test_verify_accepts_a_multipart_upload(client: Any, finished: str) -> None:
    bundle = client.get(f"/api/v1/games/{finished}/replay").get_data()
    response = client.post("/api/v1/replays/verify", data={"bundle": (io.BytesIO(bundle), "game.jsonl")},
                           content_type="multipart/form-data")
    assert response.status_code == 200 and response.get_json()["ok"] is True


def test_verify_reports_the_first_divergence(client: Any, finished: str) -> None:
    lines = client.get(f"/api/v1/games/{finished}/replay").get_data(as_text=True).split("\n")
    del lines[5]
    body = client.post("/api/v1/replays/verify", data="\n".join(lines)).get_json()
    assert body["ok"] is False
    assert body["divergence"]["line"] == 6 and body["divergence"]["expected"] != body["divergence"]["found"]


def test_verify_without_a_body_is_400(client: Any) -> None:
    _problem(client.post("/api/v1/replays/verify", data=b""), 400, "MALFORMED")


def test_openapi_lists_the_replay_endpoints(client: Any) -> None:
    paths = client.get("/openapi.json").get_json()["paths"]
    assert "/api/v1/games/{game_id}/replay" in paths
    assert "post" in paths["/api/v1/replays/verify"]


# -- the timeline (the viewer page: tests/viewer/) ---------------------------------------------------------------


def test_timeline_lists_every_batch_end(client: Any, service: GameService, finished: str) -> None:
    body = client.get(f"/api/v1/games/{finished}/timeline").get_json()
    assert body["status"] == "finished"
    assert [s["version"] for s in body["steps"]] == service.batch_ends(finished)
    assert body["steps"][0]["command"]["type"] == "CreateGame"


def test_timeline_of_a_live_game_hides_commands(client: Any, live: str) -> None:
    body = client.get(f"/api/v1/games/{live}/timeline").get_json()
    assert body["status"] == "active"
    assert all(set(step) == {"version", "actor"} for step in body["steps"])


# -- the CLI -------------------------------------------------------------------------------------


def test_cli_export_then_verify(service: GameService, finished: str, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    path = tmp_path / "game.jsonl"
    assert cli(["export", finished, "--out", str(path)], load=store_loader(service.store), stdout=out, stderr=err) == 0
    assert cli(["replay", "verify", str(path)], stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("verified")
    data = path.read_bytes()
    flipped = data[:900] + bytes([data[900] ^ 0x20]) + data[901:]
    path.write_bytes(flipped)
    out, err = io.StringIO(), io.StringIO()
    assert cli(["verify", str(path)], stdout=out, stderr=err) == 1
    assert err.getvalue().startswith("line ") and "expected" in err.getvalue()


def test_cli_export_to_stdout_matches_the_http_bundle(client: Any, service: GameService, finished: str) -> None:
    out = io.StringIO()  # both give the bundle the service published (signed once, then stored)
    publish = partial(published_bundle, service.store)
    assert cli(["export", finished], publish=publish, stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue().encode("utf-8") == client.get(f"/api/v1/games/{finished}/replay").get_data()


def test_cli_refuses_live_and_unknown_games(service: GameService, live: str) -> None:
    err = io.StringIO()
    load = store_loader(service.store)
    assert cli(["export", live], load=load, stdout=io.StringIO(), stderr=err) == 1
    assert "not finished" in err.getvalue()
    assert cli(["export", "no-such-game"], load=load, stdout=io.StringIO(), stderr=err) == 1
    assert "unknown game" in err.getvalue()


def test_service_cli_entry_uses_redis_url(service: GameService, finished: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("REDIS_URL", REDIS_URL)
    path = tmp_path / "b.jsonl"
    assert hourglass_main(["replay", "export", finished, "--out", str(path)]) == 0
    assert hourglass_main(["replay", "verify", str(path)]) == 0
    assert "verified" in capsys.readouterr().out


def test_loader_never_exports_tokens_or_secrets(service: GameService, finished: str) -> None:
    meta, _ = store_loader(service.store)(finished)
    assert meta == load_game(service.store, finished)[0]
    assert not [k for k in meta if k.startswith(("token:", "secret:"))]


# -- time travel ---------------------------------------------------------------------------------


def test_state_at_matches_the_service_at_every_tenth_batch(service: GameService, finished: str) -> None:
    meta, entries = load_game(service.store, finished)
    rules = get_game("orleans")
    ends = versions_of_batches(entries)
    assert ends == service.batch_ends(finished)
    for version in ends[::10] + ends[-1:]:
        mine = state_at(rules, entries, version)
        assert json_hash(rules.state_to_json(mine)) == json_hash(rules.state_to_json(service.state_at(finished, version).state))


def test_view_at_gives_spectators_the_view_and_finished_games_the_full_state(service: GameService, finished: str,
                                                                            live: str) -> None:
    rules = get_game("orleans")
    _, entries = load_game(service.store, finished)
    past = view_at(rules, entries, versions_of_batches(entries)[3], None, finished=True)
    assert past["view"]["you"] is None and "full" in past and past["full"]["hourglass"]
    _, live_entries = load_game(service.store, live)
    now = view_at(rules, live_entries, live_entries[-1]["seq"], None, finished=False)
    assert "full" not in now and "bag" not in now["view"]["seats"][0]
    with pytest.raises(VersionOutOfRange):
        state_at(rules, entries, entries[-1]["seq"] + 1)
    with pytest.raises(VersionOutOfRange):
        state_at(rules, entries, 0)


def test_time_travel_shows_full_states_only_after_the_game(client: Any, finished: str, live: str) -> None:
    done = client.get(f"/api/v1/games/{finished}/states/5").get_json()
    assert done["version"] == 5 and "hourglass" in done["full"] and done["full"]["hourglass"]
    ongoing = client.get(f"/api/v1/games/{live}/states/1").get_json()
    assert "full" not in ongoing and "seed" not in str(ongoing)


def test_a_finished_bundle_is_built_once_then_served_as_stored(client: Any, service: GameService, finished: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    first = client.get(f"/api/v1/games/{finished}/replay").get_data()
    assert service.store.stored_bundle(finished) == first.decode("utf-8")

    def no_rebuild(*args: Any) -> str:
        raise AssertionError("a stored bundle was rebuilt")

    monkeypatch.setattr("replays.source.build_bundle", no_rebuild)
    assert client.get(f"/api/v1/games/{finished}/replay").get_data() == first
