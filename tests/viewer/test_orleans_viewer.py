"""Issue 13, "the viewer as a player judges it", for Orléans: each item against a real game.

One finished 5-player game of the 2023 edition (Ann holds a human seat and a token; the others
are bots), played through the GameService; every check compares the page with the API's own
view of the same version. A screenshot of each behaviour is kept in tests/artifacts/viewer/.
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from core.games import GameService
from domain.core import SYSTEM
from domain.orleans import data as D
from tests.viewer.conftest import LAPTOP, shot
from tests.viewer.helpers import (
    NAMES,
    advance,
    create,
    go_to_step,
    log_lines,
    open_game,
    phases,
    seat_token,
    spectate,
    to_act_at,
    view_as,
    view_at,
)


@pytest.fixture(scope="module")
def game(service: GameService) -> dict[str, Any]:
    created = create(service, "orleans", 5, edition="2023", humans=1)
    advance(service, created["id"])
    events = service.entries(created["id"], after=0)
    return {**created, "ends": service.batch_ends(created["id"]), "events": [(e.seq, e.actor, e.data) for e in events]}


def _step_of(game: dict[str, Any], seq: int) -> int:
    """The index of the step (batch) that holds event ``seq``."""
    return next(i for i, end in enumerate(game["ends"]) if end >= seq)


def test_a_finished_game_opens_at_its_result(open_page: Any, server: str, service: GameService, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    assert page.evaluate("document.body.dataset.version") == str(game["ends"][-1])
    assert page.inner_text("[data-testid=status]") == "finished"
    result = service.load(game["id"]).rules.result(service.load(game["id"]).state)
    panel = page.locator("[data-testid=result]")
    assert panel.is_visible()
    rows = panel.locator("[data-testid=rank]")
    assert rows.count() == len(result["ranking"]) == 5
    for i, entry in enumerate(result["ranking"]):
        row = rows.nth(i)
        assert row.get_attribute("data-seat") == str(entry["seat"])
        assert row.get_attribute("data-rank") == str(entry["rank"])
        assert NAMES[entry["seat"]] in row.inner_text()
        assert row.locator("[data-testid=score]").inner_text() == str(entry["score"])
        parts = result["parts"][entry["seat"]]
        for key in ("coins", "goods", "stations_and_citizens"):
            assert row.locator(f"[data-part={key}]").inner_text() == str(parts[key])
        assert row.locator("[data-testid=tie-break]").inner_text() == str(entry["development_position"])
    winners = page.inner_text("[data-testid=winners]")
    assert all(NAMES[w] in winners for w in result["winners"])
    assert "development track" in panel.inner_text()  # the tie-break is explained
    shot(page, "orleans-finished-result")


def test_who_is_to_act_is_marked_in_every_phase(open_page: Any, server: str, service: GameService,
                                                game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    seen: dict[str, int] = {}
    steps = phases(service, game["id"])
    for index, (_, phase, _) in enumerate(steps[:-1]):
        seen.setdefault(phase, index)
    simultaneous = set()
    for phase, index in seen.items():
        version, _, acting = steps[index]
        assert acting == to_act_at(service, game["id"], version)
        go_to_step(page, index, version)
        seats = sorted(a for a in acting if a != SYSTEM)
        marked = page.locator("[data-testid=player][data-to-act=true]")
        assert sorted(int(marked.nth(i).get_attribute("data-seat")) for i in range(marked.count())) == seats, phase
        header = page.locator("[data-testid=to-act]")
        assert header.get_attribute("data-seats") == ",".join(map(str, seats)), phase
        assert all(NAMES[s] in header.inner_text() for s in seats)
        if not seats:
            assert "the service" in header.inner_text()
        if len(seats) > 1:
            simultaneous.add(phase)
            shot(page, f"orleans-to-act-{phase}")
    assert {"followers", "planning", "actions"} <= set(seen)
    assert {"followers", "planning"} <= simultaneous, "the simultaneous phases must mark several seats"


def test_the_log_reads_in_game_terms_for_spectators_and_seats(open_page: Any, server: str, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    lines = log_lines(page)
    assert len(lines) == len(game["ends"])
    text = "\n".join(lines)
    for raw in ("{", "}", "_", "seat ", "type", "undefined", "null", "NaN", "[object"):
        assert raw not in text, f"raw data in the log: {raw!r}"
    used = next((seq, actor, data) for seq, actor, data in game["events"] if data["type"] == "ActionTaken")
    line = lines[_step_of(game, used[0])]
    assert f"{NAMES[used[2]['seat']]} uses the {D.PLACES[used[2]['place']].name}" in line
    drawn = next(data for seq, actor, data in game["events"] if data["type"] == "FollowersDrawn" and len(data["tiles"]) > 1)
    assert f"{NAMES[drawn['seat']]} draws {len(drawn['tiles'])} followers" in text
    moved = next((seq, data) for seq, actor, data in game["events"] if data["type"] == "MerchantMoved")
    assert re.search(rf"{NAMES[moved[1]['seat']]} .*travels to ", lines[_step_of(game, moved[0])])
    placed = [(seq, data) for seq, actor, data in game["events"] if data["type"] == "FollowerPlaced" and data["seat"] == 0]
    spectator_line = lines[_step_of(game, placed[0][0])]
    assert "Ann changes their plan (hidden until the plans are revealed)" in spectator_line  # D10

    view_as(page, seat_token(game, 0), 0)
    assert page.inner_text("[data-testid=viewer]") == "Ann's view"
    seat_line = log_lines(page)[_step_of(game, placed[0][0])]
    tile = placed[0][1]["tile"].removeprefix("start_")
    assert f"Ann plans a {tile} on the {D.PLACES[placed[0][1]['place']].name}" in seat_line
    assert not any(seat_token(game, 0) in url for url in page.urls), "the token went into an address"
    shot(page, "orleans-log-as-seat")
    spectate(page)
    assert log_lines(page)[_step_of(game, placed[0][0])] == spectator_line


def test_legend_and_pieces_told_apart(open_page: Any, server: str, service: GameService, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    middle = len(game["ends"]) // 2
    go_to_step(page, middle, game["ends"][middle])
    legend = page.locator("[data-testid=legend]")
    for key in ("station", "merchant", "good-grain", "good-brocade", "road", "waterway", "hourglass", "dev-marker"):
        assert legend.locator(f"[data-legend={key}]").count() == 1, key
    assert legend.locator("[data-testid=legend-seats] li").count() == 5
    shapes = {}
    for testid in ("station", "merchant", "road-good"):
        piece = page.locator(f"#map [data-testid={testid}]").first
        shapes[testid] = (piece.get_attribute("data-shape"), piece.locator("path").first.get_attribute("d"))
    assert len({shape for shape, _ in shapes.values()}) == 3 and len({d for _, d in shapes.values()}) == 3
    assert legend.locator("[data-legend=station] path").get_attribute("d") == shapes["station"][1]
    assert legend.locator("[data-legend=merchant] path").get_attribute("d") == shapes["merchant"][1]
    view = view_at(service, game["id"], game["ends"][middle])
    assert page.locator("#map [data-testid=station]").count() == len(view["board"]["stations"])
    fills = page.evaluate("""() => [...document.querySelectorAll('#map [data-testid=road-good] path')]
        .map(p => p.parentElement.parentElement.dataset.good + '=' + getComputedStyle(p).fill)""")
    by_good: dict[str, set[str]] = {}
    for item in fills:
        good, fill = item.split("=")
        by_good.setdefault(good, set()).add(fill)
    assert all(len(f) == 1 for f in by_good.values()) and len(set().union(*by_good.values())) == len(by_good)
    legend.scroll_into_view_if_needed()
    shot(page, "orleans-legend")


def test_hourglass_and_development_tracks(open_page: Any, server: str, service: GameService, game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, server, game["id"])
    index = len(game["ends"]) * 2 // 3
    version = game["ends"][index]
    go_to_step(page, index, version)
    view = view_at(service, game["id"], version)
    tiles = page.locator("[data-testid=round-tile]")
    assert tiles.count() == D.ROUNDS
    revealed = {data["round"]: data["tile"]["event"] for seq, actor, data in game["events"]
                if data["type"] == "HourglassRevealed" and seq <= version}
    shown = {int(tiles.nth(i).get_attribute("data-round")): tiles.nth(i).get_attribute("data-event") for i in range(D.ROUNDS)}
    assert {r: e for r, e in shown.items() if e} == revealed and max(revealed) == view["round"]
    assert "current" in page.locator(f"[data-testid=round-tile][data-round='{view['round']}']").get_attribute("class")
    for seat in view["seats"]:
        marker = page.locator(f"[data-testid=dev-marker][data-seat='{seat['seat']}']")
        assert marker.get_attribute("data-position") == str(seat["development_position"])
    citizens = page.locator("[data-testid=dev-citizen]")
    assert citizens.count() == len(D.DEVELOPMENT_CITIZENS)
    taken = sorted(str(c["seat"]) for c in view["board"]["citizens"]["development"] if c["seat"] is not None)
    shown = [citizens.nth(i).get_attribute("data-seat") for i in range(citizens.count())]
    assert sorted(seat for seat in shown if seat is not None) == taken
    page.locator("[data-testid=hourglass-track]").scroll_into_view_if_needed()
    shot(page, "orleans-tracks")


def test_five_players_fit_a_laptop_screen(open_page: Any, server: str, game: dict[str, Any]) -> None:
    page = open_page(LAPTOP)
    open_game(page, server, game["id"])
    middle = len(game["ends"]) // 2
    go_to_step(page, middle, game["ends"][middle])
    width = page.evaluate("document.documentElement.clientWidth")
    wide = page.evaluate("""w => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w)
        .map(e => e.tagName + '#' + e.id + '.' + e.getAttribute('class') + ' ' + e.getBoundingClientRect().right)""", width)
    assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"], wide
    for selector in ("#map", "#board", "[data-testid=hourglass-track]", "[data-testid=development-track]", "#side"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    map_box = page.locator("#map").bounding_box()
    assert map_box["y"] < LAPTOP["height"] and map_box["width"] >= 450  # on the first screen, big enough to read
    for seat in range(5):
        box = page.locator(f"[data-testid=player][data-seat='{seat}']").bounding_box()
        assert box["x"] + box["width"] <= width
    shot(page, "orleans-5p-1366x768")
