"""Values derived from a frozen state object, computed once and kept on the object."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
Obj = TypeVar("Obj")


MEMO_KEYS: dict[type, tuple[tuple[str, frozenset[str] | None], ...]] = {}
# cls -> every field some memo of cls is derived from: a change to none of them keeps every memo,
# which the fold tells with one isdisjoint instead of looking up the stale keys
MEMO_INPUTS: dict[type, frozenset[str]] = {}
_STALE: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


def memo_key(cls: type, name: str, depends_on: tuple[str, ...] | None = None) -> str:
    """Declare a memo key of ``cls`` and the fields its value is derived from (None: all)."""
    assert name.startswith("_") and name not in {k for k, _ in MEMO_KEYS.get(cls, ())}
    MEMO_KEYS[cls] = (*MEMO_KEYS.get(cls, ()), (name, None if depends_on is None else frozenset(depends_on)))
    inputs = depends_on if depends_on is not None else (f.name for f in dataclasses.fields(cls))
    MEMO_INPUTS[cls] = MEMO_INPUTS.get(cls, frozenset()).union(inputs)
    _STALE.clear()
    return name


def stale_keys(cls: type, changed: tuple[str, ...]) -> tuple[str, ...]:
    """The memo keys of ``cls`` whose value may differ once the fields ``changed`` change."""
    stale = _STALE.get((cls, changed))
    if stale is None:
        stale = _STALE[(cls, changed)] = tuple(
            key for key, depends_on in MEMO_KEYS.get(cls, ()) if depends_on is None or not depends_on.isdisjoint(changed))
    return stale


def memo(obj: Obj, key: str, compute: Callable[[Obj], T]) -> T:
    """A value derived from a frozen object, computed once and kept on it.

    Pure memoisation: the object never changes, so neither does the value. Keys are declared
    with ``memo_key``, start with "_" and are not dataclass fields, so equality, hashing and JSON
    never see them; ``evolve.replace`` drops them when a field they depend on changes.
    """
    cached: T | None = obj.__dict__.get(key)
    if cached is None:
        cached = obj.__dict__[key] = compute(obj)
    return cached
