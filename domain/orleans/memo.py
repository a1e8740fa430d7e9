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


def memo_key(cls: type, name: str, depends_on: tuple[str, ...] | None = None) -> str:
    """Declare a memo key of ``cls`` and the fields its value is derived from (None: all).

    ``"field.part"`` names a field of the elements of a field (``"players.planned"``: the
    ``planned`` of each Player in ``players``): a change to their other fields keeps the memo.
    """
    assert name.startswith("_") and name not in {k for k, _ in MEMO_KEYS.get(cls, ())}
    MEMO_KEYS[cls] = (*MEMO_KEYS.get(cls, ()), (name, None if depends_on is None else frozenset(depends_on)))
    inputs = (d.partition(".")[0] for d in depends_on) if depends_on is not None else (
        f.name for f in dataclasses.fields(cls))
    MEMO_INPUTS[cls] = MEMO_INPUTS.get(cls, frozenset()).union(inputs)
    for table in _TABLES.values():
        table.clear()
    return name


class StaleKeys(dict[tuple[str, ...], tuple[str, ...]]):
    """Changed fields -> the memo keys of one class they make stale (see ``stale_table``), each
    entry worked out on first use: the fold looks them up with one plain dict read."""

    def __init__(self, cls: type, within: str) -> None:
        super().__init__()
        self.cls, self.within = cls, within

    def __missing__(self, changed: tuple[str, ...]) -> tuple[str, ...]:
        within = self.within
        names = frozenset(f"{within}.{name}" for name in changed) if within else frozenset(changed)
        stale = self[changed] = tuple(key for key, depends_on in MEMO_KEYS.get(self.cls, ())
                                      if depends_on is None or _touches(depends_on, names))
        return stale


_TABLES: dict[tuple[type, str], StaleKeys] = {}


def stale_table(cls: type, within: str = "") -> StaleKeys:
    """The live ``StaleKeys`` of ``cls`` (emptied whenever a memo key is declared): indexed by
    changed fields, the memo keys of ``cls`` whose value may differ once they change. With
    ``within``, the changed fields are those of one element of that field (evolve.with_player: a
    Player's fields, within the State's ``players``)."""
    table = _TABLES.get((cls, within))
    if table is None:
        table = _TABLES[(cls, within)] = StaleKeys(cls, within)
    return table


def _touches(depends_on: frozenset[str], changed: frozenset[str]) -> bool:
    """Does a change to ``changed`` (whole fields, or parts "field.part") reach a value derived
    from ``depends_on`` (the same)? A whole field reaches its parts; a part reaches its whole
    field and itself, not the field's other parts."""
    heads = {name.partition(".")[0] for name in changed}
    for name in depends_on:
        field, dot, _ = name.partition(".")
        if (name in changed or field in changed) if dot else name in heads:
            return True
    return False


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
