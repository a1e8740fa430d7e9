"""Stored event entries: their shape, how they group into batches, and the event JSON inside.

An entry is the JSON object the event store hashes (``domain.canonical.entry_hash``)::

    {seq, type, data, actor, time, command, meta}   (+ "hash" once stored)

The first entry of a batch carries the command that caused the batch (and the batch's meta);
the others carry null. ``data`` is the engine's ``event_to_json`` object, ``type`` a copy of its
"type" (core/store.py ``build_entries``). This module is the single place that knows that.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.canonical import GENESIS_HASH, entry_hash

ENTRY_KEYS = ("seq", "type", "data", "actor", "time", "command", "meta")
Entry = dict[str, Any]


def hashed_part(entry: Entry) -> Entry:
    """The keys that go into the chain hash, without the stored hash itself."""
    return {key: entry.get(key) for key in ENTRY_KEYS}


def event_json(entry: Entry) -> dict[str, Any]:
    """The engine's ``event_to_json`` form of a stored entry (the store keeps it whole in data)."""
    data: dict[str, Any] = entry["data"]
    return data


def split_batches(entries: Iterable[Entry]) -> list[list[Entry]]:
    """Group entries by the command that caused them (a non-null command opens a batch)."""
    batches: list[list[Entry]] = []
    for entry in entries:
        if entry.get("command") is not None or not batches:
            batches.append([])
        batches[-1].append(entry)
    return batches


def chain_hashes(entries: Sequence[Entry], prev: str = GENESIS_HASH) -> list[str]:
    """The hash of every entry, recomputed from GENESIS_HASH (or ``prev``)."""
    out = []
    for entry in entries:
        prev = entry_hash(prev, hashed_part(entry))
        out.append(prev)
    return out
