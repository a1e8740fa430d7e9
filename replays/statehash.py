"""State hashes for a whole game, fast: ``sha256(canonical_json(rules.state_to_json(state)))``.

Hashing every state of a game from scratch costs more than replaying it (the full state is
re-encoded after every batch). States are frozen dataclasses of tuples that share every part a
batch did not touch, so this encoder memoises the canonical JSON text of each immutable part by
identity and only re-encodes what changed. It mirrors ``domain.codec.to_json`` (enum -> value,
dataclass -> object of its fields, leaving out ``codec.added`` fields that hold their default,
tuple -> array) and is used only when it reproduces
``state_to_json`` exactly on the first state it sees; otherwise every hash takes the slow path.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from enum import Enum
from typing import Any

from domain.canonical import canonical_json, sha256_hex
from domain.codec import ADDED
from domain.core import GameRules

_ALWAYS = object()
_FIELDS: dict[type, tuple[tuple[str, str, Any], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, str, Any], ...]:
    """(field name, its JSON key text with the colon, the default that leaves it out or ``_ALWAYS``)
    in canonical (sorted) key order."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(
            (f.name, json.dumps(f.name, ensure_ascii=False) + ":", f.default if f.metadata.get(ADDED) else _ALWAYS)
            for f in sorted(dataclasses.fields(cls), key=lambda f: f.name))
    return names


class StateHasher:
    """``hasher(state)`` -> hex state hash; one instance per game (it memoises that game's parts)."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.fast: bool | None = None
        self._memo: dict[int, tuple[Any, str]] = {}
        self._scalars: dict[tuple[type, Any], str] = {}

    def slow(self, state: Any) -> str:
        return sha256_hex(canonical_json(self.rules.state_to_json(state)).encode("utf-8"))

    def __call__(self, state: Any) -> str:
        if self.fast is None:
            text = canonical_json(self.rules.state_to_json(state))
            try:
                self.fast = self._encode(state) == text
            except (TypeError, ValueError):
                self.fast = False
            return sha256_hex(text.encode("utf-8"))
        if self.fast:
            try:
                return hashlib.sha256(self._encode(state).encode("utf-8")).hexdigest()
            except (TypeError, ValueError):
                self.fast = False
        return self.slow(state)

    def _encode(self, value: Any) -> str:
        kind = type(value)
        if kind is int:
            return str(value)
        fields = _FIELDS.get(kind)
        if fields is not None or kind is tuple:
            key = id(value)
            hit = self._memo.get(key)
            if hit is not None and hit[0] is value:
                return hit[1]
            encode = self._encode
            if fields is not None:
                text = "{" + ",".join([k + encode(v) for n, k, default in fields
                                       if (v := getattr(value, n)) is not default and (default is _ALWAYS or v != default)]) + "}"
            else:
                text = "[" + ",".join([encode(v) for v in value]) + "]"
            self._memo[key] = (value, text)  # keeps value alive, so its id is never reused
            return text
        if kind is str or kind is bool or kind is float or value is None or isinstance(value, Enum):
            known = self._scalars.get((kind, value))
            if known is not None:
                return known
            plain = value.value if isinstance(value, Enum) else value
            text = self._scalars[(kind, value)] = json.dumps(plain, ensure_ascii=False)
            return text
        if kind is list:  # mutable: never memoised
            return "[" + ",".join([self._encode(v) for v in value]) + "]"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _fields(kind)
            return self._encode(value)
        raise TypeError(f"cannot encode {kind.__name__}")
