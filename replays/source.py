"""Read one finished (or live) game out of the event store, for export and the viewer.

Replays call the application core like every other reader: :func:`load_game` takes a
``core.store.EventStore`` and returns the game's exported meta fields (never the token or
secret fields) and its entries, each with its stored ``hash``.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
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


def load_game(store: EventStore, game_id: str, tail: Sequence[Entry] = ()) -> Loaded:
    """(meta, entries) of one game; raises :class:`GameNotFound` for an unknown id. ``tail``: the
    game's last entries as the caller holds them (each with its ``hash``); only those before them
    are read, and they are taken only when the stream holds nothing after them."""
    raw = store.meta(game_id)
    if raw is None:
        raise GameNotFound(game_id)
    held = list(tail) if tail and not store.read(game_id, after=tail[-1]["seq"]) else []
    until = held[0]["seq"] - 1 if held else None
    entries = [{**e.entry, "hash": e.hash} for e in store.read(game_id, until=until)] + held
    if not entries:
        raise GameNotFound(game_id)
    return decode_meta(raw), entries


def published_bundle(store: EventStore, game_id: str, now: str | None = None, known: KnownAfter | None = None,
                     tail: Sequence[Entry] = ()) -> str:
    """The bundle the service publishes for a finished game: built and signed with the service's
    active key (``core.signing``) on the first request, stored, then served as stored, so every
    reader (the API, the tournament runner, ``hourglass replay export``) gets the same bytes.
    ``known``: what the process that played the game holds of it (``replays.bundle.build_lines``);
    ``tail``: the last entries it holds (:func:`load_game`).
    Raises :class:`GameNotFound`, or ``NotFinished`` while the game runs."""
    stored = store.stored_bundle(game_id)
    if stored is not None:
        return stored
    meta, entries = load_game(store, game_id, tail)
    if meta.get("status") not in OVER:
        raise NotFinished(f"game {game_id} is still being played; its replay (and seed) is published when it ends")
    signed_at = now or iso_time(utc_now())
    text = build_bundle(game_id, meta, entries, signer=service_keys()[0], signed_at=signed_at, known=known)
    if store.store_bundle(game_id, text):  # the first one written wins: serve that one
        return text  # this one, as stored (not read back: it is the whole bundle)
    return store.stored_bundle(game_id) or text


def store_loader(store: EventStore) -> Loader:
    """A :data:`Loader` over ``store`` (what ``replays.cli`` export takes)."""
    return lambda game_id: load_game(store, game_id)
