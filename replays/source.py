"""Read one finished (or live) game out of the event store, for export and the viewer.

Replays call the application core like every other reader: :func:`load_game` takes a
``core.store.EventStore`` and returns the game's exported meta fields (never the token or
secret fields) and its entries, each with its stored ``hash``.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.game import iso_time, utc_now
from core.games import GameNotFound
from core.signing import service_keys
from core.store import EventStore
from replays.bundle import OVER, KnownAfter, NotFinished, build_bundle
from replays.entries import Entry

__all__ = ["EXPORTED_META_FIELDS", "GameNotFound", "Loaded", "Loader", "decode_meta", "load_game", "published_bundle",
           "store_loader"]

Loaded = tuple[dict[str, Any], list[Entry]]
Loader = Callable[[str], Loaded]
JSON_META_FIELDS = ("config", "seats", "options", "result", "contributions")
EXPORTED_META_FIELDS = ("game", "config", "seats", "seed", "seed_commitment", "engine_version", "status", "created",
                        "contributions")


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


def load_game(store: EventStore, game_id: str) -> Loaded:
    """(meta, entries) of one game; raises :class:`GameNotFound` for an unknown id."""
    raw = store.meta(game_id)
    if raw is None:
        raise GameNotFound(game_id)
    entries = [{**e.entry, "hash": e.hash} for e in store.read(game_id)]
    if not entries:
        raise GameNotFound(game_id)
    return decode_meta(raw), entries


def published_bundle(store: EventStore, game_id: str, now: str | None = None, known: KnownAfter | None = None) -> str:
    """The bundle the service publishes for a finished game: built and signed with the service's
    active key (``core.signing``) on the first request, stored, then served as stored, so every
    reader (the API, the tournament runner, ``hourglass replay export``) gets the same bytes.
    ``known``: what the process that played the game holds of it (``replays.bundle.build_lines``).
    Raises :class:`GameNotFound`, or ``NotFinished`` while the game runs."""
    stored = store.stored_bundle(game_id)
    if stored is not None:
        return stored
    meta, entries = load_game(store, game_id)
    if meta.get("status") not in OVER:
        raise NotFinished(f"game {game_id} is still being played; its replay (and seed) is published when it ends")
    signed_at = now or iso_time(utc_now())
    text = build_bundle(game_id, meta, entries, signer=service_keys()[0], signed_at=signed_at, known=known)
    store.store_bundle(game_id, text)  # the first one written wins: serve that one
    return store.stored_bundle(game_id) or text


def store_loader(store: EventStore) -> Loader:
    """A :data:`Loader` over ``store`` (what ``replays.cli`` export takes)."""
    return lambda game_id: load_game(store, game_id)
