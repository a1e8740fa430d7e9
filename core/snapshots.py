"""State snapshots, so a cold process folds only the tail of a game's log.

Every ``EVERY`` events (and at the end of a game) the append that crosses the mark also keeps
the folded state in ``hg:{<id>}:snap`` (``core.store.snap_key``, the game's hash tag, written by
``append.lua`` in the same script: no extra round trip). A process that does not hold the game
reads the meta hash and the snapshot in one round trip, then the entries after it.

The snapshot is JSON, never pickle: the game's own ``state_to_json`` (``domain.codec``), decoded
with the same codec by the type that function is annotated with, which checks every field's
type. It carries ``digest``, the hash of its own content (``domain.canonical.json_hash`` of
every other field: format, rules, schema, version, chain hash, state and table). It is a cache,
never the record: it is ignored, and the whole log folded, when

- its content does not match its digest (an edit of the state in Redis that left the version and
  the chain hash as they were, or a corrupted value): logged as a warning with the game's id;
- its format, the game's rules (``engine_version``) or the shape of the state and table types
  (a digest of their fields and enum values, ``schema_digest``) differ from this process's (a
  snapshot of the format before 2 has no digest and is ignored this way, silently);
- it does not decode, or names a version the stream does not have;
- the stream's entry at its version does not carry the chain hash it recorded.

The digest is a plain hash, not a signature: it catches a snapshot edited or damaged without it
being recomputed. Whoever may write Redis at will can rewrite the event log as well; the replay
bundle's verification (docs/replay-format.md) is what proves a game to a third party.

After a fix to a fold that changes no type and no rules version, delete the ``hg:{*}:snap`` keys
(or raise ``FORMAT``): the next snapshots are written from the log again.
"""
from __future__ import annotations

import hashlib
import json
import logging
import typing
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any

from core.table import Table
from domain import codec
from domain.canonical import json_hash
from domain.core import GameRules

FORMAT = 3  # 2: the snapshot carries the digest of its content; 3: and every seat's view-chain head
EVERY = 64  # events between snapshots: a cold load folds at most this many

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Restored:
    state: Any
    table: Table
    version: int
    hash: str
    view_heads: tuple[str, ...]


def due(before_version: int, after_version: int, finished: bool) -> bool:
    """Whether the batch from ``before_version`` to ``after_version`` keeps a snapshot."""
    return finished or after_version // EVERY > before_version // EVERY


def encode(rules: GameRules, state: Any, table: Table, version: int, last_hash: str,
           view_heads: tuple[str, ...] = ()) -> str | None:
    """The snapshot's JSON; None (and no snapshot) for a game whose state type cannot be named.
    ``view_heads``: every seat's view-chain head at ``version`` (``core.viewchain``)."""
    try:
        schema = schema_digest(state_type(rules))
    except (KeyError, TypeError, NameError, AttributeError):
        log.warning("no snapshots for %s: its state_to_json names no state type", rules.name, exc_info=True)
        return None
    content = {"format": FORMAT, "engine": rules.engine_version, "schema": schema, "version": version,
               "hash": last_hash, "state": rules.state_to_json(state), "table": codec.object_to_json(table),
               "view_heads": list(view_heads)}
    return json.dumps({**content, "digest": json_hash(content)}, separators=(",", ":"))


def decode(rules: GameRules, text: str, game_id: str = "") -> Restored | None:
    """The snapshot's state, or None when it is not one this process can trust (see above)."""
    try:
        data = json.loads(text)
        digest = data.pop("digest", None)
        if (data.get("format") == FORMAT or digest is not None) and digest != json_hash(data):
            log.warning("ignoring the snapshot of game %s: its content does not match its digest "
                        "(edited or damaged); folding the game from its events", game_id or "?")
            return None
        if (data.get("format"), data.get("engine"), data.get("schema")) != (
                FORMAT, rules.engine_version, schema_digest(state_type(rules))):
            return None
        version, digest = data["version"], data["hash"]
        heads = data["view_heads"]
        if not (isinstance(version, int) and version > 0 and isinstance(digest, str) and isinstance(heads, list)
                and heads and all(isinstance(h, str) and len(h) == 64 for h in heads)):
            return None
        state = codec.from_json(state_type(rules), data["state"])
        table = codec.from_json(Table, data["table"])
    except (ValueError, TypeError, KeyError, AttributeError, codec.DecodeError):
        log.warning("ignoring a %s snapshot that does not decode", rules.name, exc_info=True)
        return None
    return Restored(state, table, version, digest, tuple(heads))


def state_type(rules: GameRules) -> Any:
    """The game's state class, as its plugin declares it."""
    return rules.state_type


@cache
def schema_digest(tp: Any) -> str:
    """A digest of every dataclass field (name and type) and enum value reachable from ``tp``
    and from the table: a snapshot of another shape is never decoded into this one."""
    lines: list[str] = []
    seen: set[Any] = set()

    def walk(t: Any) -> None:
        if t in seen:
            return
        seen.add(t)
        for arg in typing.get_args(t):
            walk(arg)
        if isinstance(t, type) and issubclass(t, Enum):
            lines.append(f"{t.__qualname__}={[m.value for m in t]!r}")
        elif isinstance(t, type) and is_dataclass(t):
            hints = typing.get_type_hints(t)
            lines.append(f"{t.__module__}.{t.__qualname__}({', '.join(f'{f.name}: {hints[f.name]!r}' for f in fields(t))})")
            for f in fields(t):
                walk(hints[f.name])

    walk(tp)
    walk(Table)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
