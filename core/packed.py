"""The packed form of a finished game: its replay bundle, compressed, which replaces its stream.

(Format 4 bundles: every batch's ``view_heads`` are left out as well and recomputed from the
events, ``core.viewchain``, when the text is read: 64 incompressible hex digits per seat per batch.)

A finished game's entries are all in its ``hourglass-replay/2`` bundle (docs/replay-format.md):
each batch line carries its entries (the command on the batch) and the chain hash after it. The
packed form is that bundle text, compressed with zlib (stdlib, maintained, ~1 ms to inflate a
4-player Orléans game). Most of what zlib cannot shrink is the 64 hex digits of each batch's
``chain_hash``; those are a function of the entries, so the packed form leaves them out and
:func:`unpack` recomputes them. :func:`pack` proves the round trip before it answers (else it
keeps the whole text), so the bundle served from the packed form is the very bytes that were
built: verification of the stored bundle is unchanged.

Layout: one ASCII header line, ``hgpack/1 elided`` or ``hgpack/1 whole``, then the zlib stream.
Pure functions: no Redis, no clock (``core.store`` keeps the bytes under ``packed_key``).
"""
from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from core import table, viewchain
from domain.canonical import GENESIS_HASH, entry_hash
from domain.games import for_engine, get_game

ELIDED = b"hgpack/1 elided\n"
WHOLE = b"hgpack/1 whole\n"
LEVEL = 9  # a game is packed once and read many times: the smallest output is worth 8 ms once
ENTRY_KEYS = ("seq", "type", "data", "actor", "time", "command", "meta")  # replays.entries.ENTRY_KEYS
_CHAIN = re.compile(r'"chain_hash":"[0-9a-f]{64}"')
_EMPTY_CHAIN = '"chain_hash":""'
_HEADS = re.compile(r'"view_heads":\[(?:"[0-9a-f]{64}",?)*\]')  # format 4: recomputed from the events too
_NO_HEADS = '"view_heads":[]'


class PackError(ValueError):
    """The bytes are not a packed game this module wrote."""


@dataclass(frozen=True)
class Unpacked:
    """A packed game opened: the bundle text and every entry with its chain hash, in seq order.

    ``lines``: the bundle's lines with their chain hashes; when ``heads`` is true their view-chain
    heads (format 4) are still left out, and :attr:`text` recomputes them when it is first read
    (about 45 us a batch for 4 seats, ``core.viewchain``: the entries need none of it)."""

    lines: tuple[str, ...]
    entries: tuple[tuple[dict[str, Any], str], ...]
    heads: bool = False

    @cached_property
    def text(self) -> str:
        return "".join(_with_heads(self.lines) if self.heads else self.lines)

    @property
    def version(self) -> int:
        return int(self.entries[-1][0]["seq"]) if self.entries else 0


def pack(text: str) -> bytes:
    """``text`` (a bundle) packed; chain hashes left out when :func:`unpack` restores them exactly."""
    return pack_opened(text)[0]


def pack_opened(text: str) -> tuple[bytes, Unpacked]:
    """:func:`pack`, and the packed form opened as :func:`unpack` opens it: the round trip that
    proves the elided form already opened it, so a caller that needs its entries (compaction's
    check against the stream) does not open it again."""
    lines = text.splitlines(keepends=True)
    elided = "".join(_HEADS.sub(_NO_HEADS, _CHAIN.sub(_EMPTY_CHAIN, line, count=1), count=1)
                     if line.startswith('{"actor"') else line for line in lines)
    packed = ELIDED + zlib.compress(elided.encode("utf-8"), LEVEL)
    try:
        opened = unpack(packed)
        if opened.text == text:
            return packed, opened
    except (PackError, ValueError, KeyError, TypeError):
        pass
    whole = WHOLE + zlib.compress(text.encode("utf-8"), LEVEL)
    return whole, unpack(whole)


def unpack(data: bytes) -> Unpacked:
    """The bundle text and the entries of a packed game."""
    head, _, body = data.partition(b"\n")
    try:
        raw = zlib.decompress(body).decode("utf-8")
    except zlib.error as exc:
        raise PackError(f"not a packed game: {exc}") from None
    if head + b"\n" == WHOLE:
        _, whole = _entries(raw.splitlines(keepends=True), fill=False)
        return Unpacked((raw,), tuple(whole))
    if head + b"\n" != ELIDED:
        raise PackError(f"unknown packed header {head[:40]!r}")
    lines, entries = _entries(raw.splitlines(keepends=True), fill=True)
    return Unpacked(tuple(lines), tuple(entries), heads=_NO_HEADS in raw)


def _with_heads(lines: tuple[str, ...]) -> list[str]:
    """The lines with every batch's view-chain heads recomputed from its events (format 4)."""
    header = json.loads(lines[0])
    rules = for_engine(get_game(str(header["game"])), str(header["engine_version"]))
    heads = viewchain.genesis_heads(len(header["seats"]))
    out = [lines[0]]
    for line in lines[1:]:
        if line.startswith('{"actor"') and _NO_HEADS in line:
            batch = json.loads(line)
            data = [e["data"] for e in batch["entries"]]
            # the stored JSON is its events' own encoding (the contract suite checks the round trip),
            # so an event every seat sees alike is shown as that JSON, not encoded again
            events = table.decoded(rules, data)
            heads = viewchain.advance_all(rules, heads, batch["entries"][-1]["seq"], data, events=events)
            line = line.replace(_NO_HEADS, '"view_heads":' + json.dumps(list(heads), separators=(",", ":")), 1)
        out.append(line)
    return out


def _entries(lines: list[str], *, fill: bool) -> tuple[list[str], list[tuple[dict[str, Any], str]]]:
    """Entries (with their chain hashes) of the batch lines; with ``fill``, each batch line gets
    its chain hash back."""
    out_lines: list[str] = []
    entries: list[tuple[dict[str, Any], str]] = []
    prev = GENESIS_HASH
    for line in lines:
        obj = json.loads(line)
        if obj.get("kind") != "batch":
            out_lines.append(line)
            continue
        for i, item in enumerate(obj["entries"]):
            entry = {key: (obj["command"] if i == 0 else None) if key == "command" else item.get(key)
                     for key in sorted(ENTRY_KEYS)}
            prev = entry_hash(prev, entry)
            entries.append((entry, prev))
        if fill:
            line = line.replace(_EMPTY_CHAIN, f'"chain_hash":"{prev}"', 1)
        out_lines.append(line)
    return out_lines, entries
