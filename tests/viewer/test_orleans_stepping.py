"""Stepping through an Orléans game and following a live one: what the page draws equals the
API's spectator view at every version it shows (header, map pieces, deeds, every seat's board)."""
from __future__ import annotations

from typing import Any

from core.games import GameService
from tests.viewer.conftest import shot
from tests.viewer.helpers import advance, create, go_to_step, log_lines, open_game, view_at, wait_version
from tests.viewer.orleans_page import check_drawn


def test_a_finished_game_steps_and_matches_the_state(open_page: Any, server: str, service: GameService) -> None:
    game_id = create(service, "orleans", 3, edition="classic", humans=0)["id"]
    advance(service, game_id)
    ends = service.batch_ends(game_id)
    page = open_page({"width": 1600, "height": 1000})
    open_game(page, server, game_id)
    wait_version(page, ends[-1])
    assert page.inner_text("[data-testid=status]") == "finished"
    assert page.locator("#log li").count() == len(ends)
    final = view_at(service, game_id, ends[-1])
    check_drawn(page, final)
    for seat in final["seats"]:
        header = page.locator(f"[data-testid=player][data-seat='{seat['seat']}'] h3").inner_text()
        assert f"score {seat['score']['total']}" in header
    assert page.locator("#log li.current").get_attribute("data-version") == str(ends[-1])

    page.click("#first")
    wait_version(page, ends[0])
    check_drawn(page, view_at(service, game_id, ends[0]))
    for step in range(1, 4):
        page.click("#next")
        wait_version(page, ends[step])
    check_drawn(page, view_at(service, game_id, ends[3]))
    page.keyboard.press("ArrowLeft")
    wait_version(page, ends[2])
    middle = len(ends) // 2
    go_to_step(page, middle, ends[middle])
    check_drawn(page, view_at(service, game_id, ends[middle]))
    shot(page, "orleans-midgame", full_page=True)
    page.keyboard.press("End")
    wait_version(page, ends[-1])


def test_a_live_game_follows_the_event_stream(open_page: Any, server: str, service: GameService) -> None:
    game_id = create(service, "orleans", 4, edition="2023", humans=0)["id"]
    advance(service, game_id, max_commands=10)
    page = open_page({"width": 1600, "height": 1000})
    open_game(page, server, game_id)
    wait_version(page, service.load(game_id).version)
    assert page.inner_text("[data-testid=status]") == "active"
    advance(service, game_id, max_commands=15)
    latest = service.load(game_id).version
    wait_version(page, latest)
    check_drawn(page, view_at(service, game_id, latest))
    assert len(log_lines(page)) == len(service.batch_ends(game_id))
    shot(page, "orleans-live")


def test_holding_an_arrow_key_asks_for_few_states(open_page: Any, server: str, service: GameService) -> None:
    """Steps asked for while a state is on its way only move the target (spectators share a
    per-address rate limit): the page lands on the last step asked for, with fewer requests."""
    game_id = create(service, "orleans", 2, edition="classic", humans=0)["id"]
    advance(service, game_id, max_commands=60)
    ends = service.batch_ends(game_id)
    page = open_page()
    open_game(page, server, game_id)
    page.click("#first")
    wait_version(page, ends[0])
    before = sum("/states/" in url for url in page.urls)
    page.evaluate("""() => {  // 40 presses faster than any answer: a held key
        for (let i = 0; i < 40; i++) document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
    }""")
    wait_version(page, ends[40])
    asked = sum("/states/" in url for url in page.urls) - before
    assert asked == 2, asked  # the first step pressed, then the last one
    assert page.locator("#log li.current").get_attribute("data-index") == "40"
