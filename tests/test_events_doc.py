"""docs/events.md, the reference of every event a client can meet in a log or a stream, is written
from the event classes themselves; this test fails when the page and the code part ways.

Regenerate on purpose with ``HOURGLASS_REGENERATE_DOCS=1 pytest tests/test_events_doc.py``.
"""
from __future__ import annotations

import dataclasses
import os
import typing
from pathlib import Path
from typing import Any

from core.table import TABLE_EVENTS
from domain import apischema as S
from domain.games import plugins

PAGE = Path(__file__).resolve().parents[1] / "docs" / "events.md"

INTRO = """# Events: what a log or a stream can hold

Written from the event classes by `tests/test_events_doc.py` (which fails when this page and the
code part ways). Each event reaches a client as `{"seq", "type", "actor", "time", "data"}`
(`docs/api.md`, "Events and streams"); the tables below describe `data`, which always carries
`type` as well. A field marked *optional* is left out while it holds its default (a field added
after games were recorded with the event). Values named after the game's data (places, tiles,
cards, goods…) are explained in that game's data page.

A live stream carries more than events: a fresh stream opens with a `snapshot` of the table
(your view, your legal moves, the clocks, the version), and after each batch come the `clocks`
of a clocked game and, on a seat's stream when the batch leaves the seat to act, a `moves` line
with its legal moves; `docs/api.md` lists every line and the OpenAPI document types each one
(`StreamLine`).

Hidden information never reaches a seat that may not see it: where a game shows an event
differently to other seats and spectators, its section says how.
"""

# One section per listed game, in the registry's order (domain/games.py), then the table's events.
GAMES: list[tuple[str, tuple[type, ...], str]] = [
    *((p.title, p.codec.event_types, p.events_note) for p in plugins() if p.listed),
    ("Every game: seats and the table", TABLE_EVENTS, """Recorded by the service for any game
(`docs/api.md`, "Game-level actions"): seats opened and joined, resignations, aborts, forced moves,
forfeits (`docs/bots.md`) and games decided because seats left."""),
]


def describe(schema: dict[str, Any]) -> str:
    """A JSON Schema as a short phrase: `integer`, `list of string`, `"a" | "b"`, `{x: integer}`."""
    if "anyOf" in schema:
        return " or ".join(describe(s) for s in schema["anyOf"])
    if "enum" in schema:
        values = [f"`{v}`" if isinstance(v, str) else str(v) for v in schema["enum"]]
        return " \\| ".join(values) if len(values) <= 12 else f"one of {len(values)} names"
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(describe(s) for s in schema["prefixItems"]) + "]"
        return f"list of {describe(schema['items'])}"
    if kind == "object":
        inner = ", ".join(f"{name}: {describe(s)}" for name, s in schema.get("properties", {}).items())
        return "{" + inner + "}"
    return str(kind)


def section(title: str, events: tuple[type, ...], note: str) -> list[str]:
    lines = [f"## {title}", "", note, "", "| event | fields of `data` |", "|---|---|"]
    for cls in sorted(events, key=lambda c: c.__name__):
        hints = typing.get_type_hints(cls)
        cells = []
        for f in dataclasses.fields(cls):
            optional = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            cells.append(f"`{f.name}`: {describe(S.of_type(hints[f.name]))}" + (" *(optional)*" if optional else ""))
        doc = cls.__doc__ or ""
        own = "" if doc.startswith(f"{cls.__name__}(") else " ".join(doc.split()).split(". ")[0].rstrip(".")
        text = "; ".join(cells) or "(no fields)"
        lines.append(f"| `{cls.__name__}` | {text}{f' — {own}' if own else ''} |")
    return lines + [""]


def render() -> str:
    lines = [INTRO]
    for title, events, note in GAMES:
        lines += section(title, events, note)
    return "\n".join(lines).rstrip("\n") + "\n"


def test_the_events_page_matches_the_event_classes() -> None:
    text = render()
    if os.environ.get("HOURGLASS_REGENERATE_DOCS"):
        PAGE.write_text(text, encoding="utf-8")
    assert PAGE.exists(), "docs/events.md is missing: HOURGLASS_REGENERATE_DOCS=1 pytest tests/test_events_doc.py"
    assert PAGE.read_text(encoding="utf-8") == text, \
        "docs/events.md is behind the event classes: HOURGLASS_REGENERATE_DOCS=1 pytest tests/test_events_doc.py"
