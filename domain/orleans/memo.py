"""Orléans' speed machinery, all of it: the one module that knows how it is done (docs/performance.md).

Everything here trades plain code for speed in bulk self-play and the search bots; the rules
modules read it through named functions and never touch an object's attribute dict themselves.

- Derived values (``derived``): a query over a frozen State or Player declared with the fields it
  reads, computed once per object and kept in that object's attribute dict (not a field: equality,
  hashing and JSON never see it). ``recall``/``keep`` read and write such a value by key.
- Copies (``replace``, ``with_player``): the fold's ``dataclasses.replace``, without re-running
  ``__init__``: the new object's attribute dict is the old one united with the changes, less the
  derived values a changed field makes stale (``stale_table``).
- Constructors: ``one_step_init`` gives a frozen record an ``__init__`` that sets its attribute
  dict at once (built with ``exec``, as dataclasses itself builds ``__init__``); ``shared``
  memoises a constructor for records that recur with few values.

Legal moves are always listed afresh from the state (``dispatch.legal_moves``); the list is kept on
the state (``recall``) and a command that is one of its very objects is accepted without
re-validation (``dispatch.guard``), so a move's order never depends on how the state was reached.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
Obj = TypeVar("Obj")
R = TypeVar("R")
TT = TypeVar("TT", bound=type)


# --- derived values -------------------------------------------------------------------------------


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


class _StaleByClass(dict[type, StaleKeys]):
    """cls -> ``stale_table(cls, within)``, one plain dict read on the fold's hot path (the tables
    are the live ones: emptied in place whenever a memo key is declared)."""

    def __init__(self, within: str) -> None:
        super().__init__()
        self.within = within

    def __missing__(self, cls: type) -> StaleKeys:
        table = self[cls] = stale_table(cls, self.within)
        return table


_STALE = _StaleByClass("")  # changes to an object's own fields
_STALE_IN_PLAYERS = _StaleByClass("players")  # changes to the fields of one of a State's players


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


def derived(cls: type, depends_on: tuple[str, ...] | None = None) -> Callable[[Callable[[Obj], T]], Callable[[Obj], T]]:
    """Declare the decorated query a value derived from a frozen ``cls`` object: computed on first
    use, kept on the object under ``"_" + name`` and dropped by ``replace`` when a field in
    ``depends_on`` (None: any) changes. The query must not return None."""

    def declare(compute: Callable[[Obj], T]) -> Callable[[Obj], T]:
        key = memo_key(cls, "_" + compute.__name__.lstrip("_"), depends_on)

        def query(obj: Obj) -> T:
            attrs = obj.__dict__
            value: T | None = attrs.get(key)
            if value is None:
                value = attrs[key] = compute(obj)
            return value

        query.__name__, query.__qualname__, query.__doc__ = compute.__name__, compute.__qualname__, compute.__doc__
        KEYS[query] = key
        return query

    return declare


KEYS: dict[Callable[..., Any], str] = {}  # a derived query -> the key its value is kept under


def recall(obj: object, key: str) -> Any:
    """The value kept on ``obj`` under ``key`` (a ``memo_key`` or ``KEYS[query]``), or None."""
    return obj.__dict__.get(key)


def keep(obj: object, key: str, value: object) -> None:
    """Keep ``value`` on ``obj`` under ``key``: only a value derived from ``obj``'s fields."""
    obj.__dict__[key] = value


# --- copies -----------------------------------------------------------------------------------------


class HasPlayers(Protocol):
    @property
    def players(self) -> tuple[Any, ...]: ...


DC = TypeVar("DC")
SP = TypeVar("SP", bound=HasPlayers)
_new = object.__new__
_set_attr = object.__setattr__


class _FieldCount(dict[type, int]):
    """A dataclass -> its number of fields: an attribute dict longer than that holds derived values."""

    def __missing__(self, cls: type) -> int:
        count = self[cls] = len(dataclasses.fields(cls))
        return count


_FIELD_COUNT = _FieldCount()


def _copy(obj: DC, changes: dict[str, Any]) -> DC:
    cls = type(obj)
    old = obj.__dict__
    fresh = old | changes
    if len(fresh) != len(old):  # a key that is not a field (every field is in the old dict)
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(set(changes) - names)}")
    if len(old) > _FIELD_COUNT[cls] and not MEMO_INPUTS[cls].isdisjoint(changes):
        for key in _STALE[cls][tuple(changes)]:
            fresh.pop(key, None)
    new: DC = _new(cls)
    _set_attr(new, "__dict__", fresh)  # frozen: bypass the dataclass's __setattr__, as __init__ does
    return new


def replace(obj: DC, **changes: Any) -> DC:
    """``dataclasses.replace`` for the frozen records, without re-running ``__init__``."""
    return _copy(obj, changes)


def with_player(state: SP, seat: int, /, also: dict[str, Any] | None = None, **changes: Any) -> SP:
    """``replace(state, players=<seat's player replaced with changes>, **also)`` in one copy of the
    state: most events change one player."""
    players = state.players
    items = list(players)
    items[seat] = _copy(players[seat], changes)
    cls = type(state)
    old = state.__dict__
    fresh = old.copy()
    fresh["players"] = tuple(items)
    if len(old) > _FIELD_COUNT[cls]:  # the State's derived values that read these fields of a player
        for key in _STALE_IN_PLAYERS[cls][tuple(changes)]:
            fresh.pop(key, None)
    if also:
        size = len(fresh)
        fresh.update(also)
        if len(fresh) != size:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(also)}")
        if len(old) > _FIELD_COUNT[cls]:
            for key in _STALE[cls][tuple(also)]:
                fresh.pop(key, None)
    after: SP = _new(cls)
    _set_attr(after, "__dict__", fresh)
    return after


# --- constructors -----------------------------------------------------------------------------------


def shared(cls: Callable[..., R]) -> Callable[..., R]:
    """``cls``'s constructor, memoised: the same fields (of the same types) give the very same
    frozen instance. For records that recur with few values: the log keeps one object per
    value, not one per event, and every decision builds its event with one cache lookup. The
    cache is unbounded, so only for records whose fields take a small, fixed set of values
    (seats, places, rounds, phases), never for anything a client can vary at will."""
    return lru_cache(maxsize=None, typed=True)(cls)


def one_step_init(cls: TT) -> TT:
    """Give the frozen dataclass ``cls`` an ``__init__`` that sets its attribute dict at once.

    A frozen dataclass's own ``__init__`` sets each field with ``object.__setattr__`` (its
    ``__setattr__`` refuses), one call per field; this one builds the same dict, fields in
    declaration order, and sets it with one call, as ``dataclasses.replace`` fast paths do. Same
    signature, same defaults, same instances. Classes with ``__post_init__``, ``InitVar``,
    keyword-only or ``init=False`` fields or default factories are refused: none of ours has one.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    declared = cls.__dict__["__dataclass_fields__"].values()  # InitVars too, unlike fields()
    fields = dataclasses.fields(cls)
    if len(fields) != len(declared) or any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__} has an InitVar, a keyword-only or an init=False field")
    if any(f.default_factory is not dataclasses.MISSING for f in fields):
        raise TypeError(f"{cls.__name__} has a default factory")
    namespace: dict[str, Any] = {"_set": object.__setattr__}
    signature = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
    attributes = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
    source = f"def __init__(self, {', '.join(signature)}):\n    _set(self, '__dict__', {{{attributes}}})\n"
    exec(source, namespace)  # as dataclasses itself builds __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    type.__setattr__(cls, "__init__", init)
    return cls
