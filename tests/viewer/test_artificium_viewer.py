"""Issue 10's viewer item: an Artificium game drawn from the real API, stepped and followed live.

Hands are drawn only where the viewer may see them: a spectator sees card backs; a seat that
typed its token into the page sees its own hand (and its sealed card), nobody else's. The token
stays out of every address the page requests.
"""
from __future__ import annotations

from typing import Any

import pytest

from core.games import GameService
from domain.artificium import data as D
from domain.games import fold
from tests.viewer.conftest import shot
from tests.viewer.helpers import (
    NAMES,
    advance,
    create,
    go_to_step,
    log_lines,
    open_game,
    seat_token,
    spectate,
    view_as,
    view_at,
    wait_version,
)


@pytest.fixture(scope="module")
def game(service: GameService) -> dict[str, Any]:
    created = create(service, "artificium", 4, edition="standard", humans=1)
    advance(service, created["id"])
    return {**created, "ends": service.batch_ends(created["id"])}


def _sealed_step(service: GameService, game: dict[str, Any]) -> int:
    """A step in card play where Ann has sealed her card and others still choose, hands in play."""
    rules = service.load(game["id"]).rules
    ends = game["ends"]
    state, index = None, 0
    for entry in service.entries(game["id"]):
        state = fold(rules, [rules.event_from_json(entry.data)], state)
        if entry.seq != ends[index]:
            continue
        view = rules.view(state, 0)
        seats = view["seats"]
        if view["phase"] == "commit" and seats[0]["committed"] and not all(s["committed"] for s in seats) \
                and all(s["hand_count"] for s in seats):
            return index
        index += 1
    raise AssertionError("no step with Ann's card sealed while others choose")


def _check_seats(page: Any, view: dict[str, Any]) -> None:
    for seat in view["seats"]:
        board = page.locator(f"[data-testid=seat][data-seat='{seat['seat']}']")
        assert board.locator("[data-testid=vp]").inner_text() == str(seat["vp"])
        assert board.locator("[data-testid=coins]").inner_text() == str(seat["coins"])
        assert board.locator("[data-testid=projected]").inner_text() == str(seat["projected_score"])
        counts = board.locator("[data-testid=stock]")
        shown = {counts.nth(i).get_attribute("data-resource"): counts.nth(i).locator("[data-testid=resource-count]").inner_text()
                 for i in range(counts.count())}
        assert shown == {r: str(n) for r, n in seat["resources"].items()}
        played = board.locator("[data-testid=played-card]")
        assert [played.nth(i).get_attribute("data-card") for i in range(played.count())] == seat["played"]
        marker = page.locator(f"[data-testid=score-marker][data-seat='{seat['seat']}']")
        assert marker.get_attribute("data-space") == str(seat["space"])


def _hands(page: Any, seat: int) -> tuple[list[str | None], int]:
    board = page.locator(f"[data-testid=seat][data-seat='{seat}']")
    faces = board.locator("[data-testid=hand-card]")
    backs = board.locator("[data-testid=hand-back]").count()
    return [faces.nth(i).get_attribute("data-card") for i in range(faces.count())], backs


def test_a_finished_game_is_drawn_from_the_api(open_page: Any, server: str, service: GameService, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    last = game["ends"][-1]
    assert page.evaluate("document.body.dataset.version") == str(last)
    view = view_at(service, game["id"], last)
    spaces = page.locator("[data-testid=score-space]")
    assert spaces.count() == view["score_board"]["length"] == D.SCORE_BOARD_LENGTH
    bonus = page.locator("[data-testid=score-space][data-bonus]")
    assert {bonus.nth(i).get_attribute("data-space"): bonus.nth(i).get_attribute("data-bonus") for i in range(bonus.count())} \
        == view["score_board"]["bonus_spaces"] == {str(k): v.value for k, v in D.BONUS_SPACES.items()}
    assert page.locator("[data-turn].current").get_attribute("data-turn") == str(view["turn"]) == str(D.TURNS)
    assert page.text_content("[data-testid=current-step]") == "finished"
    assert page.inner_text("[data-testid=deck-count]") == str(view["deck_count"])
    assert page.inner_text("[data-testid=discard-count]") == str(len(view["discard"]))
    _check_seats(page, view)
    assert page.locator("[data-testid=hand-card]").count() == 0
    result = view["result"]
    rows = page.locator("[data-testid=rank]")
    assert [rows.nth(i).get_attribute("data-seat") for i in range(rows.count())] == [str(r["seat"]) for r in result["ranking"]]
    for i, entry in enumerate(result["ranking"]):
        assert rows.nth(i).locator("[data-part=vp]").inner_text() == str(result["parts"][entry["seat"]]["vp"])
    assert all(NAMES[w] in page.inner_text("[data-testid=winners]") for w in result["winners"])
    lines = log_lines(page)
    assert len(lines) == len(game["ends"]) and not any("_" in line or "{" in line for line in lines)
    assert any("Cards revealed: " in line for line in lines) and any(" scores " in line for line in lines)
    shot(page, "artificium-finished")


def test_hands_only_where_the_viewer_may_see_them(open_page: Any, server: str, service: GameService,
                                                   game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    index = _sealed_step(service, game)
    version = game["ends"][index]
    go_to_step(page, index, version)
    spectator = view_at(service, game["id"], version)
    assert f"step {spectator['step']}" in page.text_content("[data-testid=current-step]")
    assert page.locator("[data-testid=market-card]").count() == len(spectator["market"])
    for seat in spectator["seats"]:
        assert _hands(page, seat["seat"]) == ([], seat["hand_count"])
    assert page.locator("[data-testid=committed-card]").count() == 0
    assert page.locator("[data-testid=committed-back]").count() == sum(s["committed"] for s in spectator["seats"])
    _check_seats(page, spectator)
    shot(page, "artificium-spectator-hands-hidden")

    token = seat_token(game, 0)
    view_as(page, token, 0)
    assert page.evaluate("document.body.dataset.version") == str(version)
    ann = view_at(service, game["id"], version, 0)
    assert _hands(page, 0) == (ann["seats"][0]["hand"], 0)
    sealed = page.locator("[data-testid=seat][data-seat='0'] [data-testid=committed-card]")
    assert sealed.get_attribute("data-card") == ann["seats"][0]["committed_card"]
    for seat in ann["seats"][1:]:
        assert _hands(page, seat["seat"]) == ([], seat["hand_count"])
    assert page.locator("[data-testid=committed-card]").count() == 1
    assert not any(token in url for url in page.urls), "the token went into an address"
    assert page.evaluate("sessionStorage.length") == 1 and page.input_value("#token") == ""
    shot(page, "artificium-seat-sees-own-hand")

    page.reload()  # the tab keeps the token: the reloaded page is Ann's view again
    page.wait_for_selector("body[data-ready=true][data-viewer='0']", state="attached", timeout=20_000)
    go_to_step(page, index, version)
    assert _hands(page, 0) == (ann["seats"][0]["hand"], 0)
    spectate(page)
    assert _hands(page, 0) == ([], ann["seats"][0]["hand_count"])
    assert page.evaluate("sessionStorage.length") == 0


def test_a_wrong_token_falls_back_to_the_spectator(open_page: Any, server: str, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    page.fill("#token", "not-a-token")
    page.click("#seat-form button[type=submit]")
    page.wait_for_selector("body[data-viewer=spectator]", state="attached", timeout=10_000)
    assert "not a seat token" in page.inner_text("#error")
    assert page.locator("[data-testid=hand-card]").count() == 0 and page.evaluate("sessionStorage.length") == 0


def test_stepping_through_a_game(open_page: Any, server: str, service: GameService, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    page.click("#first")
    wait_version(page, game["ends"][0])
    for step in range(1, 4):
        page.keyboard.press("ArrowRight")
        wait_version(page, game["ends"][step])
    _check_seats(page, view_at(service, game["id"], game["ends"][3]))
    page.locator("#log li").nth(10).click()
    wait_version(page, game["ends"][10])
    assert page.locator("#log li.current").get_attribute("data-index") == "10"
    _check_seats(page, view_at(service, game["id"], game["ends"][10]))


def test_a_live_game_is_followed(open_page: Any, server: str, service: GameService) -> None:
    created = create(service, "artificium", 3, edition="standard", humans=0)
    advance(service, created["id"], max_commands=12)
    page = open_page()
    open_game(page, server, created["id"])
    assert page.inner_text("[data-testid=status]") == "active"
    advance(service, created["id"], max_commands=25)
    latest = service.load(created["id"]).version
    wait_version(page, latest)
    _check_seats(page, view_at(service, created["id"], latest))
    assert len(log_lines(page)) == len(service.batch_ends(created["id"]))
    advance(service, created["id"])  # to the end: the page shows the result without a reload
    wait_version(page, service.load(created["id"]).version)
    page.wait_for_selector("[data-testid=result] [data-testid=rank]", timeout=10_000)
    assert page.inner_text("[data-testid=status]") == "finished"
    shot(page, "artificium-live-to-the-end")


def test_a_token_in_the_fragment_is_taken_and_dropped_from_the_address(open_page: Any, server: str,
                                                                        game: dict[str, Any]) -> None:
    """/games/<id>#token=... (a fragment never reaches the server) opens that seat's view; the page
    keeps the token for the tab and removes it from the address bar at once."""
    token = seat_token(game, 0)
    page = open_page()
    page.goto(f"{server}/games/{game['id']}#token={token}")
    page.wait_for_selector("body[data-ready=true][data-viewer='0']", state="attached", timeout=20_000)
    assert page.url == f"{server}/games/{game['id']}"
    assert page.inner_text("[data-testid=viewer]") == "Ann's view"
    assert not any(token in url for url in page.urls)
