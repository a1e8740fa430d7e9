"""Playing through the viewer's move panel (replays/static/play.js), for the browser tests.

A seat's page is the viewer opened with its token in the address fragment; the panel says what
it is doing in ``body[data-play]`` (``your-turn``, ``waiting``, ``sending``, ``loading``, ``over``) and
the version its moves belong to in ``#play[data-version]``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

# The strategy of the whole-game tests: the move that ends the seat's part soonest when one is
# offered (finish planning, pass, done at the market, ...), else the first move listed. It keeps a
# game short (see each test for its length) and still plays every phase.
FINISHING = ("FinishPlanning", "Pass", "FinishTurn", "PassMarket", "DeclineCard", "EndTurn", "SkipExclusion",
             "FinishLoading")
SETTLED = ("your-turn", "waiting", "over")
WAIT_MS = 20_000


def open_seat(page: Any, server: str, game_id: str, token: str) -> None:
    """The viewer as a seat: the token in the fragment (never sent to the server), then ready."""
    page.goto(f"{server}/games/{game_id}#token={token}")
    page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
    wait_settled(page)


def mode(page: Any) -> str:
    value: str = page.evaluate("() => document.body.dataset.play || ''")
    return value


def moves_version(page: Any) -> int:
    return int(page.get_attribute("#play", "data-version") or -1)


def shown_version(page: Any) -> int:
    return int(page.evaluate("() => document.body.dataset.version || '-1'"))


def wait_settled(page: Any, *, after: int | None = None) -> None:
    """Until the panel lists moves (or waits, or the game is over) at a version past ``after``."""
    page.wait_for_function(
        """after => ['your-turn', 'waiting', 'over'].includes(document.body.dataset.play)
             && (after === null || Number(document.getElementById('play').dataset.version) > after)""",
        arg=after, timeout=WAIT_MS)


def wait_shows(page: Any, version: int) -> None:
    """Until the page's board shows ``version`` (or later) and its panel is settled there."""
    page.wait_for_function(
        """v => Number(document.body.dataset.version) >= v && document.body.dataset.loading === 'false'
             && ['your-turn', 'waiting', 'over'].includes(document.body.dataset.play)
             && Number(document.getElementById('play').dataset.version) >= v""",
        arg=version, timeout=WAIT_MS)


def offered(page: Any) -> list[str]:
    types: list[str] = page.eval_on_selector_all("#play-moves button.move", "bs => bs.map(b => b.dataset.type)")
    return types


def labels(page: Any) -> list[str]:
    texts: list[str] = page.locator("#play-moves button.move").all_inner_texts()
    return texts


def choose(types: list[str], prefer: tuple[str, ...] = FINISHING) -> int:
    for kind in prefer:
        if kind in types:
            return types.index(kind)
    return 0


@dataclass
class Table:
    """Two (or more) seats' pages on one game, played by clicking."""

    pages: list[Any]
    clicks: int = 0
    labels: list[str] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)  # (move type, label) of every move offered

    def acting(self) -> Any | None:
        """The first page whose seat may move now, after every page settled; None once the game is over."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while time.monotonic() < deadline:
            modes = [mode(p) for p in self.pages]
            if all(m == "over" for m in modes):
                return None
            for page, m in zip(self.pages, modes):
                if m == "your-turn":
                    return page
            time.sleep(0.05)
        raise AssertionError(f"no seat may move and the game is not over: {[mode(p) for p in self.pages]}")

    def click(self, page: Any, index: int) -> int:
        """Click move ``index`` of ``page``'s panel; wait until every page shows the new version.
        Returns that version."""
        before = moves_version(page)
        button = page.locator("#play-moves button.move").nth(index)
        self.labels.append(button.inner_text())
        button.click()
        self.clicks += 1
        wait_settled(page, after=before)
        version = moves_version(page)
        for other in self.pages:  # every other seat sees the move live, without reloading
            wait_shows(other, version)
        return version

    def play_out(self, limit: int, prefer: tuple[str, ...] = FINISHING) -> None:
        while (page := self.acting()) is not None:
            assert self.clicks < limit, f"the game did not end within {limit} clicks"
            self.seen.update(zip(offered(page), labels(page)))
            self.click(page, choose(offered(page), prefer))

    def unreadable(self) -> list[str]:
        """Labels of every move offered during the game that read like data, not words."""
        return [text for text in {t for _, t in self.seen}
                if any(bad in text for bad in ("undefined", "null", "NaN", "[object", "{", "_"))]
