"""Frozen dataclasses built in one step: the rules create an event or two on every decision."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

T = TypeVar("T", bound=type)
R = TypeVar("R")


def shared(cls: Callable[..., R]) -> Callable[..., R]:
    """``cls``'s constructor, memoised: the same fields (of the same types) give the very same
    frozen instance. For records that recur with few values: the log keeps one object per
    value, not one per event, and every decision builds its event with one cache lookup. The
    cache is unbounded, so only for records whose fields take a small, fixed set of values
    (seats, places, rounds, phases), never for anything a client can vary at will."""
    return lru_cache(maxsize=None, typed=True)(cls)


def one_step_init(cls: T) -> T:
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
