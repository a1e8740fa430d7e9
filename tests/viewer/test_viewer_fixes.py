"""Issue 25's viewer fixes, each in Chromium against a real game played through the GameService.

- Orléans seat boxes show "passed" only in the actions phase ("planning done" only in planning):
  the view keeps ``passed`` set from the last actions phase until the next one begins.
- The result panel is shown only at the end of a finished game, never while scrubbing its middle.
- The Orléans result table fits the side column at 1,400 px (and 1,366), long names included.
- An Artificium card's name never runs under its VP badge or out of the card.
(The unknown-page 404s are in test_viewer_routes.py.)
"""
from __future__ import annotations

from typing import Any

import pytest

from core.games import GameService
from tests.viewer.conftest import shot
from tests.viewer.helpers import advance, create, go_to_step, open_game, phases, view_at, wait_version

LONG_NAMES = ["Anne-Marguerite de Valois-Angoulême", "Bartholomew Fitzwilliam", "Cy", "Dorothea Wilhelmina"]


@pytest.fixture(scope="module")
def orleans(service: GameService) -> dict[str, Any]:
    """A finished 4-seat classic game (bots only, two long names) and its steps."""
    seats = [{"name": n, "kind": "bot", "bot": "greedy"} for n in LONG_NAMES]
    created = service.create({"game": "orleans", "edition": "classic", "seats": seats})
    service.created.append(created["id"])  # type: ignore[attr-defined]
    advance(service, created["id"])
    return {"id": created["id"], "steps": phases(service, created["id"])}


def badges(page: Any, seat: int) -> str:
    node = page.locator(f"[data-testid=player][data-seat='{seat}'] h3 .badges")
    return node.inner_text() if node.count() else ""


def test_orleans_flags_show_only_in_their_phase(open_page: Any, server: str, service: GameService,
                                                orleans: dict[str, Any]) -> None:
    gid, steps = orleans["id"], orleans["steps"]
    stale = acting = None  # (step index, version, seat)
    for index, (version, phase, _) in enumerate(steps):
        seats = view_at(service, gid, version)["seats"]
        passed = [p["seat"] for p in seats if p["passed"]]
        if passed and phase == "actions" and acting is None:
            acting = (index, version, passed[0])
        if passed and phase != "actions" and stale is None:
            stale = (index, version, passed[0])
    assert stale is not None and acting is not None, "the game has no step where the view keeps a stale flag"
    page = open_page()
    open_game(page, server, gid)
    index, version, seat = acting
    go_to_step(page, index, version)
    assert "passed" in badges(page, seat)
    index, version, seat = stale
    go_to_step(page, index, version)
    assert "passed" not in badges(page, seat), badges(page, seat)
    for other in range(len(LONG_NAMES)):
        assert "passed" not in badges(page, other)
    shot(page, "orleans-no-stale-passed")


def test_the_result_shows_only_at_the_end(open_page: Any, server: str, orleans: dict[str, Any]) -> None:
    steps = orleans["steps"]
    page = open_page()
    open_game(page, server, orleans["id"])
    result = page.locator("[data-testid=result]")
    assert result.is_visible() and result.locator("[data-testid=rank]").count() == 4
    middle = len(steps) // 2
    go_to_step(page, middle, steps[middle][0])
    assert result.is_hidden() and result.inner_text() == ""  # not even in the page's text: no spoiler
    page.keyboard.press("ArrowLeft")
    wait_version(page, steps[middle - 1][0])
    assert result.is_hidden()
    page.keyboard.press("End")
    wait_version(page, steps[-1][0])
    assert result.is_visible() and result.locator("[data-testid=rank]").count() == 4


@pytest.mark.parametrize("width", [1400, 1366, 1920])
def test_the_orleans_result_table_fits(open_page: Any, server: str, orleans: dict[str, Any], width: int) -> None:
    page = open_page(viewport={"width": width, "height": 900})
    open_game(page, server, orleans["id"])
    page.wait_for_selector("[data-testid=result] [data-testid=rank]")
    fit = page.evaluate("""() => {
      const panel = document.getElementById('result');
      const box = panel.getBoundingClientRect();
      const style = getComputedStyle(panel);
      const right = box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
      const cells = [...panel.querySelectorAll('th, td')].map((c) => c.getBoundingClientRect().right);
      return {scroll: panel.scrollWidth, client: panel.clientWidth, right, widest: Math.max(...cells),
              columns: panel.querySelectorAll('thead th').length};
    }""")
    assert fit["columns"] == 7  # #, player, score, coins, goods, stations, development
    assert fit["scroll"] <= fit["client"], fit
    assert fit["widest"] <= fit["right"] + 0.5, fit
    if width == 1400:
        shot(page, "orleans-result-1400")


ARTIFICIUM_CARDS = """async () => {
  const words = await import('/replays/static/artificium.js');
  const reference = await (await fetch('/api/v1/reference/artificium')).json();
  const probe = document.createElement('div');
  probe.className = 'cards';
  probe.dataset.testid = 'every-card';
  document.getElementById('board').prepend(probe);
  for (const id of Object.keys(reference.cards)) probe.append(words.cardFace(id, { reference }));
  const bad = [];
  for (const card of document.querySelectorAll('#board .card[data-card]')) {
    const name = card.querySelector('.card-name');
    const vp = card.querySelector('.vp');
    const range = document.createRange();
    range.selectNodeContents(name);
    const lines = [...range.getClientRects()];
    const c = card.getBoundingClientRect();
    const v = vp ? vp.getBoundingClientRect() : null;
    const under = v && lines.some((l) => l.left < v.right && v.left < l.right && l.top < v.bottom && v.top < l.bottom);
    const out = lines.some((l) => l.right > c.right - 1 || l.left < c.left);
    if (under || out) bad.push(`${card.dataset.card}: ${under ? 'under its VP' : 'out of the card'}`);
  }
  return {checked: document.querySelectorAll('#board .card[data-card]').length,
          cards: Object.keys(reference.cards).length, bad};
}"""


def test_artificium_card_names_clear_the_vp_badge(open_page: Any, server: str, service: GameService) -> None:
    created = create(service, "artificium", 4, humans=0)
    advance(service, created["id"], 40)  # mid-game: a market, hands and played cards on the board
    page = open_page(viewport={"width": 1400, "height": 900})
    open_game(page, server, created["id"])
    found = page.evaluate(ARTIFICIUM_CARDS)
    assert found["checked"] > found["cards"] > 10  # every card of the reference, and the drawn ones
    assert found["bad"] == []
    shot(page, "artificium-card-names")
