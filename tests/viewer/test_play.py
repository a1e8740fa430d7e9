"""Playing in the browser (issue 25): whole games of all three games played by clicking only, two
seats in two browser contexts, each seeing the other's moves live; refusals in words; the
simultaneous phases' "done / still to do"; keyboard reach; a narrow screen; the lobby.

The server runs the worker's part in the request (``ADVANCE`` calls ``workers.jobs.run_advance``),
so a system step follows a move at once, as the RQ worker would a moment later.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from core.games import GameService
from service.app import create_app
from tests.viewer.conftest import shot
from tests.viewer.play_page import (
    Table,
    labels,
    mode,
    moves_version,
    offered,
    open_seat,
    wait_settled,
    wait_shows,
)
from workers.jobs import run_advance

NARROW = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def play_server(service: GameService) -> Iterator[str]:
    from werkzeug.serving import make_server

    holder: list[GameService] = []
    app = create_app({"REDIS": service.store.conn, "RATE_LIMIT": 0, "SSE_HEARTBEAT": 1.0, "CLIENT_SEEDS": "any",
                      "ADVANCE": lambda game_id, version: run_advance(holder[0], game_id)})
    holder.append(app.extensions["hourglass"])
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


def new_game(service: GameService, server: str, game: str, *, edition: str | None = None, seed: str | None = None,
             seats: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"game": game, "seats": seats or [{"name": "Ann", "kind": "human"},
                                                            {"name": "Bob", "kind": "human"}]}
    if edition:
        body["edition"] = edition
    if seed:
        body["seed"] = seed
    response = requests.post(f"{server}/api/v1/games", json=body, timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    service.created.append(created["id"])  # type: ignore[attr-defined]
    return created


def two_seats(open_page: Any, server: str, created: dict[str, Any], viewport: dict[str, int] | None = None) -> Table:
    pages = []
    for seat in (0, 1):
        page = open_page(viewport) if viewport else open_page()
        open_seat(page, server, created["id"], created["seats"][seat]["token"])
        pages.append(page)
    return Table(pages)


def api_state(server: str, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = requests.get(f"{server}/api/v1/games/{game_id}/state", timeout=10).json()
    return body


def assert_finished_everywhere(table: Table, server: str, game_id: str) -> None:
    assert not table.unreadable(), f"labels that read like data: {table.unreadable()}"
    state = api_state(server, game_id)
    assert state["status"] == "finished"
    for page in table.pages:
        wait_shows(page, state["version"])
        assert mode(page) == "over" and page.locator("#play-moves button.move").count() == 0
        assert page.inner_text("[data-testid=status]") == "finished"
        assert page.locator("[data-testid=result]").is_visible()
    # both seats' logs tell the same steps: each saw every move of the other live
    steps = requests.get(f"{server}/api/v1/games/{game_id}/timeline", timeout=10).json()["steps"]
    for page in table.pages:
        assert page.locator("#log li").count() == len(steps)


def assert_no_token_in_addresses(table: Table, created: dict[str, Any]) -> None:
    tokens = [s["token"] for s in created["seats"]]
    for page in table.pages:
        assert not any(t in url for url in page.urls for t in tokens), "a seat token went into an address"
        assert all(t not in page.url for t in tokens)


# ---- whole games, by clicking only ------------------------------------------------------------


def test_orleans_whole_game_by_clicking(service: GameService, play_server: str, open_page: Any) -> None:
    """Orléans, classic edition, 2 seats, all 18 rounds: about 120 clicks with the finishing-move
    strategy (draw the first offered count of followers, finish planning, pass, give up what torture
    asks). Round 1's planning is played for real first: one follower planned, shown as done."""
    created = new_game(service, play_server, "orleans", edition="classic", seed="play-orleans")
    table = two_seats(open_page, play_server, created)
    ann, bob = table.pages
    # followers phase, then planning: both seats plan at once
    while "PlaceFollower" not in offered(ann):
        table.click(table.acting(), 0)
    assert "everyone plays at once" in ann.inner_text("[data-testid=play-status]")
    assert "Finish planning" in ann.inner_text("[data-testid=play-owed]")
    planned = labels(ann)[offered(ann).index("PlaceFollower")]
    table.click(ann, offered(ann).index("PlaceFollower"))
    done = ann.inner_text("[data-testid=play-done]")
    assert done.startswith("Planned: a ") and planned.split(" (")[0].replace("Plan ", "") in done
    assert "Finish planning" in ann.inner_text("[data-testid=play-owed]")
    assert "Bob" in ann.inner_text("[data-testid=play-together]")  # still deciding
    shot(ann, "play-orleans-planning")
    table.click(ann, offered(ann).index("FinishPlanning"))
    assert mode(ann) == "waiting" and "You have finished planning." in ann.inner_text("[data-testid=play-done]")
    assert mode(bob) == "your-turn"
    table.play_out(limit=400)
    assert_finished_everywhere(table, play_server, created["id"])
    assert_no_token_in_addresses(table, created)
    assert table.clicks < 400
    shot(ann, "play-orleans-finished")


def test_artificium_whole_game_by_clicking(service: GameService, play_server: str, open_page: Any) -> None:
    """Artificium, 2 seats, all 4 turns: about 95 clicks (done at the market, the first card,
    discard it unplayed when revealed, end the turn). The sealed card is shown as done while the
    other seat still chooses."""
    created = new_game(service, play_server, "artificium", seed="play-artificium")
    table = two_seats(open_page, play_server, created)
    ann, bob = table.pages
    while "CommitCard" not in offered(ann):
        page = table.acting()
        assert page is not None
        table.click(page, offered(page).index("PassMarket") if "PassMarket" in offered(page) else 0)
    assert "Choose a card" in ann.inner_text("[data-testid=play-owed]")
    card = labels(ann)[offered(ann).index("CommitCard")]
    table.click(ann, offered(ann).index("CommitCard"))
    done = ann.inner_text("[data-testid=play-done]")
    assert done.startswith("You have put ") and card.replace("Play ", "").replace(" (face down)", "") in done
    assert ann.get_attribute("[data-testid=play-owed]", "data-none") == "true"
    if mode(bob) == "your-turn":  # Bob has not chosen yet: Ann waits for him, and he still chooses
        assert mode(ann) == "waiting" and "Bob" in ann.inner_text("[data-testid=play-status]")
        assert "Choose a card" in bob.inner_text("[data-testid=play-owed]")
    shot(ann, "play-artificium-sealed")
    table.play_out(limit=300)
    assert_finished_everywhere(table, play_server, created["id"])
    assert_no_token_in_addresses(table, created)
    shot(bob, "play-artificium-finished")


def test_cathedral_whole_game_by_clicking(service: GameService, play_server: str, open_page: Any) -> None:
    """The Cathedral, standard variant, 2 seats, 3 rounds: 90 to 120 clicks (the draws decide). Ann's first turn is
    clicked on the board itself: a bag, then an action space for the follower drawn, then a route
    if the action is a Cart or a Boat (which one depends on the draw)."""
    created = new_game(service, play_server, "cathedral", seed="play-cathedral")
    table = two_seats(open_page, play_server, created)
    ann = table.pages[0]
    clicked = []
    for testid in ("bag", "action-space", "route"):
        target = ann.locator(f"#board [data-testid={testid}].playable").first
        if testid == "route" and target.count() == 0:
            break
        assert target.get_attribute("role") == "button" and target.get_attribute("aria-label")
        before = moves_version(ann)
        if testid == "route":  # a line: click where nothing drawn on it (goods, names) covers it
            target.scroll_into_view_if_needed()
            x, y = ann.evaluate("""el => { const m = el.getScreenCTM();
                for (let t = 0.1; t < 0.95; t += 0.05) {
                  const p = el.getPointAtLength(el.getTotalLength() * t);
                  const xy = [m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f];
                  if (document.elementFromPoint(...xy) === el) return xy;
                } return null; }""", target.element_handle())
            ann.mouse.click(x, y)
        else:
            target.click()
        clicked.append(testid)
        wait_settled(ann, after=before)
        for page in table.pages:
            wait_shows(page, moves_version(ann))
    log = ann.inner_text("#log")
    assert "Ann draws a" in log and "puts it on the" in log
    if "route" in clicked:
        assert "drives the Cart" in log or "sails by Boat" in log
    shot(ann, "play-cathedral-board")
    table.play_out(limit=300)
    assert_finished_everywhere(table, play_server, created["id"])
    assert_no_token_in_addresses(table, created)
    shot(ann, "play-cathedral-finished")


# ---- refusals, keyboard, narrow screen ----------------------------------------------------------


def test_a_refused_move_is_told_in_words(service: GameService, play_server: str, open_page: Any) -> None:
    """Ann's page does not hear the stream (blocked), Ann moves through the API meanwhile: the move
    she then clicks was listed at a version that is gone. The server's 412 is shown in words and the
    panel lists her moves again at the new version, and clicking one of those works."""
    created = new_game(service, play_server, "cathedral", seed="play-refusal")
    page = open_page()
    page.route("**/events/stream*", lambda route: route.abort())
    open_seat(page, play_server, created["id"], created["seats"][0]["token"])
    assert mode(page) == "your-turn"
    listed = moves_version(page)
    auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    moves = requests.get(f"{play_server}/api/v1/games/{created['id']}/moves", headers=auth, timeout=10).json()
    made = requests.post(f"{play_server}/api/v1/games/{created['id']}/moves", json=moves["moves"][0], headers=auth,
                         timeout=10)
    assert made.status_code == 200
    page.locator("#play-moves button.move").first.click()
    refusal = page.locator("[data-testid=play-refusal]")
    refusal.wait_for(state="visible", timeout=10_000)
    text = refusal.inner_text()
    assert text.startswith("The game moved on before your move arrived") and "version" in text
    assert refusal.get_attribute("role") == "alert"
    wait_settled(page, after=listed)
    assert moves_version(page) == made.json()["version"]
    shot(page, "play-refused")
    before = moves_version(page)
    page.locator("#play-moves button.move").first.click()
    wait_settled(page, after=before)
    assert page.locator("[data-testid=play-refusal]").is_hidden()


def test_every_move_is_reached_with_the_keyboard(service: GameService, play_server: str, open_page: Any) -> None:
    """Tab from the top of the page reaches the moves; Enter plays one; "m" jumps to the first move;
    a move on the board is a focusable button that Enter plays too."""
    created = new_game(service, play_server, "cathedral", seed="play-keys")
    page = open_page()
    open_seat(page, play_server, created["id"], created["seats"][0]["token"])
    page.locator("body").click(position={"x": 2, "y": 2})
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches('#play-moves button.move')"):
            break
    else:
        raise AssertionError("40 presses of Tab never reached a move")
    first = page.evaluate("() => document.activeElement.textContent")
    assert first == labels(page)[0]
    before = moves_version(page)
    page.keyboard.press("Enter")
    wait_settled(page, after=before)
    # the focus stays in the panel for the next move (its buttons were replaced)
    page.wait_for_function("() => document.getElementById('play').contains(document.activeElement)", timeout=10_000)
    page.locator("body").click(position={"x": 2, "y": 2})
    page.keyboard.press("m")
    assert page.evaluate("() => document.activeElement.matches('#play-moves button.move')")
    board_move = page.locator("#board .playable").first
    board_move.focus()
    assert page.evaluate("() => document.activeElement.classList.contains('playable')")
    before = moves_version(page)
    page.keyboard.press("Enter")
    wait_settled(page, after=before)
    assert page.locator("[data-testid=play-refusal]").is_hidden()


def test_playing_on_a_narrow_screen(service: GameService, play_server: str, open_page: Any) -> None:
    """390 px wide (a phone): the panel comes before the board, fits the screen, and its buttons
    are big enough to touch; a few moves are played there."""
    created = new_game(service, play_server, "artificium", seed="play-narrow")
    table = two_seats(open_page, play_server, created, NARROW)
    for page in table.pages:
        box = page.locator("#play").bounding_box()
        board = page.locator("#board").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= NARROW["width"]
        assert box["y"] < board["y"], "the moves come before the board on a narrow screen"
        assert page.evaluate("() => document.getElementById('play').scrollWidth <= document.getElementById('play').clientWidth")
    for _ in range(6):
        page = table.acting()
        assert page is not None
        button = page.locator("#play-moves button.move").first
        size = button.bounding_box()
        assert size["height"] >= 40 and size["x"] + size["width"] <= NARROW["width"]
        table.click(page, 0)
    shot(table.pages[0], "play-narrow", full_page=False)


def test_a_spectator_gets_no_move_panel(service: GameService, play_server: str, open_page: Any) -> None:
    created = new_game(service, play_server, "cathedral", seed="play-spectator")
    page = open_page()
    page.goto(f"{play_server}/games/{created['id']}")
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)
    assert page.locator("#play").is_hidden() and page.locator("#board .playable").count() == 0
    assert not any("/moves" in url for url in page.urls)


# ---- the lobby -----------------------------------------------------------------------------------


def test_the_lobby_lists_open_games_and_joins_one(service: GameService, play_server: str, open_page: Any) -> None:
    created = new_game(service, play_server, "cathedral", seed="play-lobby",
                       seats=[{"name": "Ann", "kind": "human"}, {"kind": "open"}])
    page = open_page()
    page.goto(f"{play_server}/lobby")
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)
    row = page.locator(f"[data-testid=open-game][data-game='{created['id']}']")
    assert row.count() == 1 and "The Cathedral of Orléans" in row.inner_text() and "Ann" in row.inner_text()
    join = row.locator("[data-testid=join][data-seat='1']")
    join.click()  # no name yet: told so, nothing taken
    assert "name" in page.inner_text("[data-testid=lobby-error]")
    page.fill("[data-testid=player-name]", "Zoé")
    shot(page, "lobby")
    join.click()
    page.wait_for_url(f"**/games/{created['id']}", timeout=20_000)
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)
    wait_settled(page)
    assert page.get_attribute("[data-testid=viewer]", "data-seat") == "1"
    assert "Zoé" in page.inner_text("[data-testid=viewer]")
    assert page.locator("#play").is_visible()
    assert "token" not in page.url and not any("token=" in url for url in page.urls)
    summary = requests.get(f"{play_server}/api/v1/games/{created['id']}", timeout=10).json()
    assert summary["status"] == "active" and summary["seats"][1]["name"] == "Zoé"
    page.goto(f"{play_server}/lobby")  # the game is full now: no longer listed
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)
    assert page.locator(f"[data-testid=open-game][data-game='{created['id']}']").count() == 0


def test_a_taken_seat_is_refused_in_words(service: GameService, play_server: str, open_page: Any) -> None:
    created = new_game(service, play_server, "cathedral", seed="play-taken",
                       seats=[{"name": "Ann", "kind": "human"}, {"kind": "open"}])
    page = open_page()
    page.goto(f"{play_server}/lobby")
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)
    page.fill("[data-testid=player-name]", "Late")
    taken = requests.post(f"{play_server}/api/v1/games/{created['id']}/seats/1/join", json={"name": "Early"}, timeout=10)
    assert taken.status_code == 200
    page.locator(f"[data-testid=join][data-game='{created['id']}']").click()
    error = page.locator("[data-testid=lobby-error]")
    error.wait_for(state="visible", timeout=10_000)
    assert error.inner_text().startswith("You could not join:") and "HTTP" not in error.inner_text()
    assert page.url.endswith("/lobby")


# ---- the lobby page over HTTP, and what a stranger with a script gets ---------------------------------


def test_the_lobby_page_is_served_with_the_viewers_policy(app: Any) -> None:
    page = app.test_client().get("/lobby")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    body = page.get_data(as_text=True)
    assert 'src="/replays/static/lobby.js"' in body and "/replays/static/play.css" in body
    for name in ("lobby.js", "play.js", "play-words.js", "play.css"):
        assert app.test_client().get(f"/replays/static/{name}").status_code == 200


def test_a_script_fetching_the_lobby_draws_from_its_address_window(conn: redis.Redis) -> None:
    """The lobby page and the list it reads are anonymous requests: a script that hammers them
    gets the per-address window's 429 (problem+json, Retry-After) like any tokenless caller, and
    another address is not affected."""
    limited = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 100, "RATE_LIMIT_WINDOW": 60,
                          "ANON_RATE_LIMIT": 4}).test_client()
    script = {"REMOTE_ADDR": "10.251.0.7"}
    answers = [limited.get(path, environ_base=script) for path in ("/lobby", "/api/v1/games?open=true") * 3]
    assert [a.status_code for a in answers] == [200] * 4 + [429] * 2
    refused = answers[-1]
    assert refused.mimetype == "application/problem+json" and refused.json["kind"] == "RATE_LIMITED"
    assert int(refused.headers["Retry-After"]) >= 1
    assert limited.get("/lobby", environ_base={"REMOTE_ADDR": "10.251.0.8"}).status_code == 200


def test_resigning_asks_first(service: GameService, play_server: str, open_page: Any) -> None:
    """Resign… asks in the panel; "No" changes nothing, "Yes" resigns: with two seats the game ends
    and both pages say so."""
    created = new_game(service, play_server, "cathedral", seed="play-resign")
    table = two_seats(open_page, play_server, created)
    ann, bob = table.pages
    ann.click("[data-testid=play-resign]")
    assert ann.locator("[data-testid=play-confirm]").is_visible()
    ann.click("[data-testid=play-confirm] [data-answer=no]")
    assert ann.locator("[data-testid=play-confirm]").is_hidden() and mode(ann) == "your-turn"
    ann.click("[data-testid=play-resign]")
    ann.click("[data-testid=play-confirm] [data-answer=yes]")
    for page in table.pages:
        page.wait_for_function("() => document.body.dataset.play === 'over'", timeout=20_000)
        assert page.inner_text("[data-testid=play-status]") == "The game is over."
    assert api_state(play_server, created["id"])["status"] == "finished"


def test_a_seat_that_resigned_a_three_seat_game_is_told_it_goes_on_without_it(
        service: GameService, play_server: str, open_page: Any) -> None:
    """With three seats a resignation leaves the game running for the others: the seat that left is
    told so (not "Waiting for …"), has no Resign button, and is told so again after a reload, when
    the page learns it from the seat's status alone."""
    seats = [{"name": n, "kind": "human"} for n in ("Ann", "Bob", "Cy")]
    created = new_game(service, play_server, "orleans", seed="play-resign-three", seats=seats)
    table = two_seats(open_page, play_server, created)
    ann = table.pages[0]
    ann.click("[data-testid=play-resign]")
    ann.click("[data-testid=play-confirm] [data-answer=yes]")
    ann.wait_for_function("() => document.body.dataset.play === 'left'", timeout=20_000)
    assert ann.inner_text("[data-testid=play-status]") == "You have left this game; it goes on without you."
    assert ann.locator("[data-testid=play-resign]").is_hidden()
    assert api_state(play_server, created["id"])["status"] != "finished"
    ann.reload()
    ann.wait_for_function("() => document.body.dataset.play === 'left'", timeout=20_000)
    assert ann.locator("[data-testid=play-resign]").is_hidden()
    summary = requests.get(f"{play_server}/api/v1/games/{created['id']}", timeout=10).json()
    assert summary["seats"][0]["status"] == "resigned"


def test_cards_and_places_on_the_board_are_moves(service: GameService, play_server: str, open_page: Any) -> None:
    """Artificium: a card in the hand is the button that plays it. Orléans' planning: a place on
    the seat's own board stands for several moves (which follower, which space), so clicking it
    narrows the panel to them; "show all" lists every move again."""
    created = new_game(service, play_server, "artificium", seed="play-board-cards")
    table = two_seats(open_page, play_server, created)
    ann = table.pages[0]
    while "CommitCard" not in offered(ann):
        page = table.acting()
        assert page is not None
        table.click(page, offered(page).index("PassMarket") if "PassMarket" in offered(page) else 0)
    card = ann.locator("#board [data-testid=hand-card].playable").first
    name = card.get_attribute("aria-label")
    assert name and name.startswith("Play ")
    before = moves_version(ann)
    card.click()
    wait_settled(ann, after=before)
    assert ann.inner_text("[data-testid=play-done]").startswith("You have put ")

    created = new_game(service, play_server, "orleans", edition="classic", seed="play-board-places")
    table = two_seats(open_page, play_server, created)
    ann = table.pages[0]
    while "PlaceFollower" not in offered(ann):
        page = table.acting()
        assert page is not None
        table.click(page, 0)
    everything = len(offered(ann))
    place = ann.locator("#board [data-testid=player][data-seat='0'] [data-place].playable").first
    assert place.get_attribute("aria-label").split(" moves here: ")[0].isdigit()
    place.click()
    narrowed = offered(ann)
    assert 1 < len(narrowed) < everything and set(narrowed) <= {"PlaceFollower", "TakeBackFollower"}
    assert f"of {everything} moves" in ann.inner_text("#play-filter")
    assert ann.evaluate("() => document.activeElement.matches('#play-moves button.move')")
    ann.click("[data-testid=play-show-all]")
    assert len(offered(ann)) == everything
