"""JSON <-> frozen dataclasses, driven by type hints.

Supported field types: int, str, bool, None, Enum subclasses (by value), nested dataclasses,
``tuple[X, ...]``, fixed ``tuple[X, Y]``, ``X | None`` and ``Literal`` of strings. Anything
else is a programming error. Decoding rejects unknown fields and missing fields without a default
(a field added later with a default keeps older logs readable). A field declared with ``added``
is also left out of the JSON while it holds its default, so a record written before the field
existed encodes to the very same bytes (replay hashes and old bundles stay valid).
"""
from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")
ADDED: Final = "codec.added"  # field metadata: omitted from JSON while it holds its default
_ALWAYS: Final = object()  # an ordinary field: always encoded


class DecodeError(ValueError):
    """The JSON does not fit the dataclass: a missing, unknown or mistyped field."""


@cache
def _hints(cls: type) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


@cache
def _optional(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls)
                     if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING)


def added(default: T) -> T:
    """A dataclass field added after records were written: it defaults to ``default`` when the
    JSON lacks it and is omitted from the JSON while it holds ``default``."""
    return dataclasses.field(default=default, metadata={ADDED: True})


@cache
def _encoded(cls: type) -> tuple[tuple[str, Any], ...]:
    """(field name, the default that omits it or ``_ALWAYS``) in declaration order."""
    return tuple((f.name, f.default if f.metadata.get(ADDED) else _ALWAYS) for f in dataclasses.fields(cls))


_PLAIN = frozenset({int, str, bool, float, type(None)})  # JSON as they are (not their subclasses: enums)


def to_json(value: Any) -> Any:
    if type(value) in _PLAIN:  # most fields: skips the enum and dataclass checks (self-play's final_hash)
        return value
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return object_to_json(value)
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    return value


def object_to_json(value: DataclassInstance) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, default in _encoded(type(value)):
        field_value = getattr(value, name)
        if default is _ALWAYS or field_value != default:
            out[name] = to_json(field_value)
    return out


def from_json(tp: Any, data: Any, where: str = "") -> Any:
    return _decoder(tp)(data, where)


@cache
def _decoder(tp: Any) -> Callable[[Any, str], Any]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is type(None):
        return _expect_none
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(args)
    if origin is typing.Literal:
        return _literal_decoder(args)
    if origin is tuple:
        return _tuple_decoder(args)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_decoder(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return lambda data, where: decode_dataclass(tp, data, where)
    if tp is bool:
        return _scalar_decoder(bool, (bool,))
    if tp is int:
        return _scalar_decoder(int, (int,))
    if tp is str:
        return _scalar_decoder(str, (str,))
    raise TypeError(f"codec cannot handle {tp!r}")


def _expect_none(data: Any, where: str) -> None:
    if data is not None:
        raise DecodeError(f"{where or 'value'}: expected null")
    return None


def _scalar_decoder(tp: type, accepted: tuple[type, ...]) -> Callable[[Any, str], Any]:
    def decode(data: Any, where: str) -> Any:
        if tp is int and isinstance(data, bool):
            raise DecodeError(f"{where or 'value'}: expected an integer, got a boolean")
        if not isinstance(data, accepted):
            raise DecodeError(f"{where or 'value'}: expected {tp.__name__}, got {type(data).__name__}")
        return data

    return decode


def _enum_decoder(tp: type[Enum]) -> Callable[[Any, str], Any]:
    values = {m.value: m for m in tp}

    def decode(data: Any, where: str) -> Any:
        if isinstance(data, bool) or data not in values:
            allowed = ", ".join(str(v) for v in values)
            raise DecodeError(f"{where or 'value'}: {data!r} is not one of {allowed}")
        return values[data]

    return decode


def _literal_decoder(args: tuple[Any, ...]) -> Callable[[Any, str], Any]:
    def decode(data: Any, where: str) -> Any:
        if data not in args or isinstance(data, bool):
            raise DecodeError(f"{where or 'value'}: {data!r} is not one of {list(args)}")
        return data

    return decode


def _union_decoder(args: tuple[Any, ...]) -> Callable[[Any, str], Any]:
    decoders = [_decoder(a) for a in args]

    def decode(data: Any, where: str) -> Any:
        errors = []
        for dec in decoders:
            try:
                return dec(data, where)
            except DecodeError as exc:
                errors.append(str(exc))
        raise DecodeError("; ".join(errors))

    return decode


def _tuple_decoder(args: tuple[Any, ...]) -> Callable[[Any, str], Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def decode_var(data: Any, where: str) -> Any:
            if not isinstance(data, (list, tuple)):
                raise DecodeError(f"{where or 'value'}: expected a list")
            return tuple(item(v, f"{where}[{i}]") for i, v in enumerate(data))

        return decode_var
    items = [_decoder(a) for a in args]

    def decode_fixed(data: Any, where: str) -> Any:
        if not isinstance(data, (list, tuple)) or len(data) != len(items):
            raise DecodeError(f"{where or 'value'}: expected a list of {len(items)}")
        return tuple(dec(v, f"{where}[{i}]") for i, (dec, v) in enumerate(zip(items, data)))

    return decode_fixed


def decode_dataclass(cls: type, data: Any, where: str = "", skip: frozenset[str] = frozenset()) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"{where or cls.__name__}: expected an object")
    names, fields = _plan(cls)
    if not data.keys() <= names:  # the sorted list only when some key is not a field
        unknown = sorted(set(data) - names - skip)
        if unknown:
            raise DecodeError(f"{where or cls.__name__}: unknown field(s) {', '.join(unknown)}")
    kwargs = {}
    for name, decode, optional in fields:
        if name not in data:
            if optional:
                continue
            raise DecodeError(f"{where or cls.__name__}: missing field {name}")
        kwargs[name] = decode(data[name], f"{where}.{name}" if where else name)
    return cls(**kwargs)


@cache
def _plan(cls: type) -> tuple[frozenset[str], tuple[tuple[str, Callable[[Any, str], Any], bool], ...]]:
    """A dataclass's field names, and each field's decoder and whether it may be absent, looked up
    once per class instead of once per field decoded."""
    optional = _optional(cls)
    fields = tuple((name, _field_decoder(tp), name in optional) for name, tp in _hints(cls))
    return frozenset(name for name, _, _ in fields), fields


def _field_decoder(tp: Any) -> Callable[[Any, str], Any]:
    """``_decoder(tp)``; for a type the codec cannot handle, a decoder that raises its TypeError
    when a value comes to it (as before: a record without that field still decodes)."""
    try:
        return _decoder(tp)
    except TypeError:
        return lambda data, where: _decoder(tp)(data, where)


R = TypeVar("R", bound="DataclassInstance")


class TypeRegistry(Generic[R]):
    """Dataclasses by name, encoded as ``{"type": Name, ...fields}``."""

    def __init__(self, classes: typing.Iterable[type[R]]) -> None:
        self.by_name: dict[str, type[R]] = {cls.__name__: cls for cls in classes}

    def encode(self, value: R) -> dict[str, Any]:
        out = object_to_json(value)
        out["type"] = type(value).__name__
        return out

    def decode(self, data: Any, extra: dict[str, Any] | None = None) -> R:
        if not isinstance(data, dict):
            raise DecodeError("expected a JSON object")
        name = data.get("type")
        cls = self.by_name.get(name) if isinstance(name, str) else None
        if cls is None:
            raise KeyError(name)
        body = {k: v for k, v in data.items() if k != "type"}
        if extra:
            body.update(extra)
        decoded: R = decode_dataclass(cls, body, "")
        return decoded
