"""Time travel: a game's state, or a seat's view of it, as of any version.

Version N is the state after the first N entries (seq 1..N); version 0 is "before setup" and has
no state. The service's ``GET /api/v1/games/{id}/states/{version}`` calls ``view_at``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.table import is_table_event
from domain.core import GameRules, Seat
from domain.games import fold
from replays.entries import Entry, event_json


class VersionOutOfRange(ValueError):
    """The version is below 1 or past the last entry."""

    def __init__(self, version: int, last: int) -> None:
        super().__init__(f"version {version} is outside 1..{last}")
        self.version = version
        self.last = last


def state_at(rules: GameRules, entries: Sequence[Entry], version: int, base: Any = None, base_version: int = 0) -> Any:
    """Fold entries up to ``version``; ``base``/``base_version`` resume from a cached state."""
    last = entries[-1]["seq"] if entries else 0
    if not 1 <= version <= last or base_version > version:
        raise VersionOutOfRange(version, last)
    todo = (event_json(e) for e in entries if base_version < e["seq"] <= version)
    return fold(rules, (rules.event_from_json(e) for e in todo if not is_table_event(e)), base)


def view_at(
    rules: GameRules, entries: Sequence[Entry], version: int, seat: Seat | None, finished: bool,
) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see at ``version``.

    During a game every caller gets their own view of the past (a spectator the spectator
    view); after the game hidden information is no longer secret, so everyone gets the full
    state alongside the spectator view.
    """
    state = state_at(rules, entries, version)
    out: dict[str, Any] = {"version": version, "view": rules.view(state, seat)}
    if finished:
        out["full"] = rules.state_to_json(state)
    return out


def versions_of_batches(entries: Sequence[Entry]) -> list[int]:
    """The version after each batch: the natural stops for a viewer's step buttons."""
    ends = [e["seq"] - 1 for e in entries if e.get("command") is not None][1:]
    return ends + ([entries[-1]["seq"]] if entries else [])
