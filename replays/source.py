"""Read one game's meta and entries out of Redis, for export.

The key layout is the event store's (service/store.py): ``hg:{<id>}:meta`` (a hash of strings,
JSON for the structured fields) and ``hg:{<id>}:events`` (a stream whose entries have the fields
``entry``, the canonical JSON entry, and ``hash``). replays/ may not import service/, so this
small reader repeats the two key names; the service passes its own loader where it has one
(service/replay_api.py) and tests check both agree.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from replays.entries import Entry

Loaded = tuple[dict[str, Any], list[Entry]]
Loader = Callable[[str], Loaded]
JSON_META_FIELDS = ("config", "seats", "options", "result")
EXPORTED_META_FIELDS = ("game", "config", "seats", "seed", "seed_commitment", "engine_version", "status", "created")


class GameNotFound(LookupError):
    """No meta hash for that game id."""


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def decode_meta(raw: dict[Any, Any]) -> dict[str, Any]:
    """The meta hash as JSON values, without per-seat token fields (never exported)."""
    meta: dict[str, Any] = {}
    for key, value in raw.items():
        name = _text(key)
        if name not in EXPORTED_META_FIELDS:
            continue
        text = _text(value)
        meta[name] = json.loads(text) if name in JSON_META_FIELDS else text
    return meta


def decode_stream(rows: list[tuple[Any, dict[Any, Any]]]) -> list[Entry]:
    """XRANGE rows -> entries, each with its stored ``hash``."""
    entries = []
    for _, fields in rows:
        fields = {_text(k): _text(v) for k, v in fields.items()}
        entry = json.loads(fields["entry"])
        entry["hash"] = fields["hash"]
        entries.append(entry)
    return entries


def redis_loader(conn: Any) -> Loader:
    """A loader over a redis-py client (bytes or str replies)."""

    def load(game_id: str) -> Loaded:
        raw = conn.hgetall(f"hg:{{{game_id}}}:meta")
        if not raw:
            raise GameNotFound(game_id)
        return decode_meta(raw), decode_stream(conn.xrange(f"hg:{{{game_id}}}:events", "-", "+"))

    return load
