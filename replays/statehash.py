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
import operator
from collections.abc import Callable
from enum import Enum
from typing import Any

from domain.canonical import canonical_json, sha256_hex
from domain.codec import ADDED
from domain.core import GameRules

_ALWAYS = object()
_FIELDS: dict[type, tuple[tuple[str, str, Any], ...]] = {}
_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _fields(cls: type) -> tuple[tuple[str, str, Any], ...]:
    """(field name, its JSON key text with the colon, the default that leaves it out or ``_ALWAYS``)
    in canonical (sorted) key order."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(
            (f.name, json.dumps(f.name, ensure_ascii=False) + ":", f.default if f.metadata.get(ADDED) else _ALWAYS)
            for f in sorted(dataclasses.fields(cls), key=lambda f: f.name))
        _GETTERS[cls] = _getter(tuple(name for name, _, _ in names))
    return names


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """All the fields of an object at once, as a tuple, in ``names`` order."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return operator.attrgetter(*names)


class StateHasher:
    """``hasher(state)`` -> hex state hash; one instance per game (it memoises that game's parts)."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.fast: bool | None = None
        self._memo: dict[int, tuple[Any, str]] = {}

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
        memo = self._memo
        hit = memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        kind = type(value)
        if kind is int:
            return str(value)
        fields = _FIELDS.get(kind)
        if fields is not None:
            parts = []
            for (_, key, default), v in zip(fields, _GETTERS[kind](value)):
                if default is not _ALWAYS and (v is default or v == default):
                    continue  # a codec.added field at its default: left out, as state_to_json does
                known = memo.get(id(v))  # the common case, inlined: a part unchanged since last time
                if known is not None and known[0] is v:
                    parts.append(key + known[1])
                else:
                    parts.append(key + (str(v) if type(v) is int else self._encode(v)))
            text = "{" + ",".join(parts) + "}"
        elif kind is tuple:
            items = []
            for v in value:
                known = memo.get(id(v))
                if known is not None and known[0] is v:
                    items.append(known[1])
                else:
                    items.append(str(v) if type(v) is int else self._encode(v))
            text = "[" + ",".join(items) + "]"
        elif kind is str or kind is bool or kind is float or value is None or isinstance(value, Enum):
            text = json.dumps(value.value if isinstance(value, Enum) else value, ensure_ascii=False)
        elif kind is list:  # mutable: never memoised
            return "[" + ",".join([self._encode(v) for v in value]) + "]"
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            _fields(kind)
            return self._encode(value)
        else:
            raise TypeError(f"cannot encode {kind.__name__}")
        memo[id(value)] = (value, text)  # keeps value alive, so its id is never reused
        return text
