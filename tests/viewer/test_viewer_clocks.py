"""Issue 25: clocks in the viewer (replays/static/clocks.js).

- The panel's arithmetic, driven in Chromium with a fake clock (no waiting, no timing asserted):
  a running clock ticks down from the figures' arrival, a stopped one does not, every update
  corrects it (an older stream line does not), low time sets the class and says so, a finished
  game shows final times and stops ticking, a push bot's answer budget and a claim's opening time
  are shown.
- A live stack (the app with ADVANCE=rq and a real worker): a seat with a 3 s per-move clock; the
  page shows its clock ticking down, then low, then the service's default move for it
  (``TimeoutApplied``) in the log, and the clock starting afresh.
- A game with unclocked human seats shows when a claim against each awaited seat opens.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from core.games import GameService
from domain.core import SYSTEM
from tests.conftest import REDIS_URL, RUN_QUEUE, forget_games
from tests.platform.stack import Stack
from tests.viewer.conftest import shot
from tests.viewer.helpers import create, open_game

PANEL = """async () => {
  const { ClockPanel, formatMs, formatWait } = await import('/replays/static/clocks.js');
  let t = 5_000;  // the page's monotonic clock, moved by hand
  let wall = 1_800_000_000_000;  // its wall clock (claims open at a wall time)
  const box = document.createElement('p');
  document.body.append(box);
  const names = ['Ann', 'Bob', 'Cy'];
  const panel = new ClockPanel(box, (s) => names[s], () => t, () => wall);
  const read = () => Object.fromEntries([...box.querySelectorAll('[data-testid=clock]')].map((n) => [n.dataset.seat, {
    text: n.querySelector('.time').textContent, ms: Number(n.dataset.remainingMs), running: n.dataset.running,
    low: n.dataset.low, cls: n.className, cue: n.querySelector('.cue').textContent }]));
  const seats = [{ seat: 0, kind: 'human', name: 'Ann', clock: { initial_s: 300, increment_s: 5 } },
    { seat: 1, kind: 'human', name: 'Bob', clock: { move_s: 60 } }, { seat: 2, kind: 'http', name: 'Cy', deadline_s: 5 }];
  const out = {};
  panel.fromSummary({ status: 'active', version: 10, seats, claims: [],
    clocks: { 0: { remaining_ms: 40_000, running: true, deadline_ms: wall + 40_000 },
              1: { remaining_ms: 60_000, running: false, deadline_ms: null } } });
  out.start = read();
  out.ticking = panel.timer !== null;
  out.budget = box.querySelector('[data-testid=bot-deadline]').textContent;
  t += 12_000;
  panel.tick();
  out.later = read();
  panel.fromStream({ version: 9, clocks: { 0: { remaining_ms: 99_000, running: true, deadline_ms: 0 } } });
  out.stale = read();
  panel.fromStream({ version: 11, clocks: { 0: { remaining_ms: 33_000, running: false, deadline_ms: null },
                                            1: { remaining_ms: 60_000, running: true, deadline_ms: wall + 60_000 } } });
  t += 1_500;
  panel.tick();
  out.corrected = read();
  t += 70_000;
  panel.tick();
  out.up = read();
  panel.fromSummary({ status: 'active', version: 12, seats: [{ seat: 0, kind: 'human', name: 'Ann' }],
    claims: [{ absent: 0, opens_ms: wall + 90_061_000 }], clocks: null });
  out.claimLater = box.querySelector('[data-testid=claim]').textContent;
  wall += 90_061_000;
  panel.tick();
  out.claimNow = box.querySelector('[data-testid=claim]').textContent;
  out.claimOpen = box.querySelector('[data-testid=claim]').dataset.open;
  panel.fromSummary({ status: 'finished', version: 20, seats, claims: [],
    clocks: { 0: { remaining_ms: 31_000, running: false, deadline_ms: null },
              1: { remaining_ms: 60_000, running: false, deadline_ms: null } } });
  t += 10_000;
  panel.tick();
  out.final = read();
  out.finalLabel = box.querySelector('.clocks-label').textContent;
  out.finalTicking = panel.timer !== null;
  panel.fromSummary({ status: 'active', version: 21, seats: [{ seat: 0, kind: 'human', name: 'Ann' }],
    claims: [], clocks: null });
  out.hiddenWithout = box.hidden;
  panel.stop();
  out.formats = [formatMs(3_723_000), formatMs(65_000), formatMs(9_400), formatMs(-5),
    formatWait(90_061_000), formatWait(45_000)];
  box.remove();
  return out;
}"""


def test_the_clock_panel_ticks_corrects_and_stops(open_page: Any, server: str) -> None:
    page = open_page()
    page.goto(f"{server}/games/no-such-game")  # any page of the server: the module is imported from it
    out = page.evaluate(PANEL)
    assert out["start"]["0"] == {**out["start"]["0"], "text": "0:40", "ms": 40_000, "running": "true", "low": "false"}
    assert out["start"]["1"]["text"] == "1:00" and out["start"]["1"]["running"] == "false"
    assert "2" not in out["start"]  # a push bot has no clock, only its answer budget
    assert out["ticking"] and "Cy (bot) answers within 5 s a move" in out["budget"]
    # 12 s later: the running clock is down by 12 s and low (under 30 s), the stopped one unchanged
    assert out["later"]["0"]["ms"] == 28_000 and out["later"]["0"]["text"] == "0:28"
    assert out["later"]["0"]["low"] == "true" and "low" in out["later"]["0"]["cls"] and "low time" in out["later"]["0"]["cue"]
    assert out["later"]["1"]["ms"] == 60_000
    assert out["stale"] == out["later"]  # a line older than the figures shown changes nothing
    # a newer line corrects both: Ann moved (stopped at 33 s, not low), Bob's move clock runs
    assert out["corrected"]["0"] == {**out["corrected"]["0"], "ms": 33_000, "running": "false", "low": "false"}
    assert out["corrected"]["1"]["ms"] == 58_500 and out["corrected"]["1"]["running"] == "true"
    assert out["up"]["1"]["ms"] == 0 and "out" in out["up"]["1"]["cls"] and "time is up" in out["up"]["1"]["cue"]
    assert "becomes possible at" in out["claimLater"] and "in 1 d 1 h" in out["claimLater"]
    assert "Ann" in out["claimLater"] and "possible now" in out["claimNow"] and out["claimOpen"] == "true"
    # finished: the final figures, nothing running, no timer left
    assert out["final"]["0"]["ms"] == 31_000 and out["final"]["0"]["running"] == "false"
    assert out["final"]["1"]["ms"] == 60_000 and out["final"]["0"]["low"] == "false"
    assert out["finalLabel"].startswith("Final times") and not out["finalTicking"]
    assert out["hiddenWithout"] is True  # no clock, no budget, no claim: no panel
    assert out["formats"] == ["1:02:03", "1:05", "0:09.4", "0:00.0", "1 d 1 h", "45 s"]


# ---- a live game with a worker ----------------------------------------------------------------


@pytest.fixture(scope="module")
def stack(conn: redis.Redis) -> Iterator[Stack]:
    live = Stack(conn, REDIS_URL, RUN_QUEUE, {}).start(workers=1)
    yield live
    live.stop()


@pytest.fixture(scope="module")
def clocked_game(stack: Stack, conn: redis.Redis) -> Iterator[dict[str, Any]]:
    """Artificium: Ann (a human who never moves) on a 3 s per-move clock, Bob a greedy bot."""
    body = {"game": "artificium", "seats": [{"name": "Ann", "clock": {"move_s": 3}},
                                            {"name": "Bob", "kind": "bot", "bot": "greedy"}]}
    created = requests.post(f"{stack.url}/api/v1/games", json=body, timeout=10)
    assert created.status_code == 201, created.text
    yield created.json()
    forget_games(conn, [created.json()["id"]])


def test_a_clock_ticks_down_and_the_timed_out_seat_moves(open_page: Any, stack: Stack,
                                                         clocked_game: dict[str, Any]) -> None:
    page = open_page()
    open_game(page, stack.url, clocked_game["id"])
    ann = "[data-testid=clock][data-seat='0']"
    page.wait_for_selector(f"{ann}[data-running=true]", timeout=20_000)
    assert page.locator("[data-testid=clock]").count() == 1  # Bob, a built-in bot without a clock, has none
    assert "3 s a move" in page.inner_text(ann)
    first = int(page.get_attribute(ann, "data-remaining-ms") or 0)
    page.wait_for_function(  # it ticks between the server's updates
        "([sel, first]) => { const n = document.querySelector(sel);"
        " return n && n.dataset.running === 'true' && Number(n.dataset.remainingMs) < first; }",
        arg=[ann, first], timeout=10_000)
    page.wait_for_selector(f"{ann}.low[data-low=true]", timeout=15_000)
    assert "low time" in page.inner_text(ann)
    shot(page, "clock-low")
    page.wait_for_function(  # the worker's timeout: the service plays Ann's default move
        "() => [...document.querySelectorAll('#log li .text')]"
        ".some((li) => /^Ann runs out of time; the service plays/.test(li.textContent))",
        timeout=20_000)
    page.wait_for_function(  # and her next decision starts afresh: the clock is corrected upward
        "sel => { const n = document.querySelector(sel); return n && n.dataset.low === 'false'"
        " && Number(n.dataset.remainingMs) > 1500; }", arg=ann, timeout=20_000)
    shot(page, "clock-after-timeout")


# ---- claims (no worker: the seats wait) -------------------------------------------------------


def test_the_page_says_when_a_claim_opens(open_page: Any, server: str, service: GameService) -> None:
    created = create(service, "artificium", 2, humans=2)
    game_id = created["id"]
    while SYSTEM in (game := service.load(game_id)).to_act:  # the service's own steps, as a worker would
        service.apply(game_id, SYSTEM, game.rules.legal_moves(game.state, SYSTEM)[0], expected_version=game.version)
    awaited = sorted(s for s in service.load(game_id).to_act if isinstance(s, int))
    summary = requests.get(f"{server}/api/v1/games/{game_id}", timeout=10).json()
    assert [c["absent"] for c in summary["claims"]] == awaited and awaited
    page = open_page()
    open_game(page, server, game_id)
    claims = page.locator("[data-testid=claim]")
    assert claims.count() == len(awaited)
    for i, seat in enumerate(awaited):
        assert claims.nth(i).get_attribute("data-opens-ms") == str(summary["claims"][i]["opens_ms"])
        text = claims.nth(i).inner_text()
        assert ["Ann", "Bob"][seat] in text and "becomes possible at" in text
        assert "(in 23 h" in text or "(in 1 d" in text  # INACTIVITY_S: a day from the last append
    assert page.locator("[data-testid=clock]").count() == 0  # no seat has a clock
    shot(page, "claim-opens")
