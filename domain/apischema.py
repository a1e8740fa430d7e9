"""JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of what a game sends and receives as JSON.

Moves and configs are frozen dataclasses that ``domain.codec`` encodes from their type hints;
:func:`dataclass_schema` derives their schemas from the same hints, so a schema cannot disagree
with the codec. Views are plain JSON objects built by each game's ``view``; each game package
describes its view and result in its own ``schema.py`` with the small builders below, and a test
validates the views of random playouts against them (tests/service/test_openapi_views.py).

A game package builds ``SCHEMA = ApiSchema(...)`` (by convention in ``domain/<game>/schema.py``)
and declares it as its plugin's ``api_schema`` (``domain.core.GamePlugin``).
"""
from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

Schema = dict[str, Any]
INT: Schema = {"type": "integer"}
STR: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
NULL: Schema = {"type": "null"}
CONFIG_CORE = ("edition", "players")  # set by the create request's top level, never an option
ENGINE_RECORDED = ("rules_version",)  # written into a new game's config by the engine, never an option


@dataclass(frozen=True)
class ApiSchema:
    """What a game publishes in the OpenAPI document."""

    moves: tuple[type, ...]  # the commands a seat may post (their ``seat`` field comes from the token)
    config: type  # the config dataclass
    view: Mapping[str, Any]  # JSON Schema of ``view(state, seat)``
    result: Mapping[str, Any]  # JSON Schema of ``result(state)`` when not None


def find(name: str, rules: Any) -> ApiSchema | None:
    """The schema the plugin ``rules`` of game ``name`` declares."""
    own = getattr(rules, "api_schema", None)
    return own if isinstance(own, ApiSchema) else None


# --- derived from type hints ------------------------------------------------------------------


def of_type(tp: Any) -> Schema:
    """The schema of a value of type ``tp`` as ``domain.codec`` encodes it."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is type(None):
        return dict(NULL)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [of_type(a) for a in args]}
    if origin is typing.Literal:
        return enum(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return array(of_type(args[0]))
        return {"type": "array", "prefixItems": [of_type(a) for a in args], "items": False,
                "minItems": len(args), "maxItems": len(args)}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return enum([m.value for m in tp])
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return dataclass_schema(tp)
    simple = {bool: BOOL, int: INT, str: STR}.get(tp)
    if simple is None:
        raise TypeError(f"no schema for {tp!r}")
    return dict(simple)


def dataclass_schema(cls: type, *, exclude: Iterable[str] = (), tag: str | None = None,
                     all_optional: bool = False) -> Schema:
    """An object with the dataclass's fields (those without a default are required).

    ``tag``: add the ``type`` property the codec's ``TypeRegistry`` writes, e.g. ``"Pass"``.
    """
    hints = typing.get_type_hints(cls)
    skip = set(exclude)
    props: Schema = {}
    required = []
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        props[f.name] = of_type(hints[f.name])
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if has_default:
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            props[f.name]["default"] = default.value if isinstance(default, Enum) else default
        elif not all_optional:
            required.append(f.name)
    if tag is not None:
        props = {"type": enum([tag]), **props}
        required.insert(0, "type")
    return obj(props, required=required)


def move_schema(cls: type) -> Schema:
    """A move as a client posts it: the command without its ``seat``, tagged with its type."""
    return dataclass_schema(cls, exclude=("seat",), tag=cls.__name__)


def options_schema(config: type) -> Schema:
    """The create request's ``options``: the config without edition and player count, and without
    what the engine records itself (the rules version a new game is played by)."""
    return dataclass_schema(config, exclude=CONFIG_CORE + ENGINE_RECORDED)


def edition_values(config: type) -> list[Any]:
    edition = typing.get_type_hints(config).get("edition")
    if isinstance(edition, type) and issubclass(edition, Enum):
        return [m.value for m in edition]
    return []


# --- builders for hand-written view schemas ---------------------------------------------------------


def obj(properties: Mapping[str, Schema], *, required: Iterable[str] | None = None,
        extra: Schema | bool = False) -> Schema:
    """An object; every property required unless ``required`` names the required ones."""
    names = list(properties) if required is None else list(required)
    return {"type": "object", "properties": dict(properties), "required": names, "additionalProperties": extra}


def array(items: Schema, *, length: int | None = None) -> Schema:
    out: Schema = {"type": "array", "items": items}
    if length is not None:
        out.update(minItems=length, maxItems=length)
    return out


def enum(values: Iterable[Any]) -> Schema:
    listed = list(values)
    kinds = sorted({"integer" if isinstance(v, int) else "string" for v in listed})
    return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": listed}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, dict(NULL)]}


def counts(keys: Iterable[Any]) -> Schema:
    """``{key: integer}`` for exactly these keys (enum members stand for their values)."""
    return obj({k.value if isinstance(k, Enum) else str(k): dict(INT) for k in keys})


def mapping(values: Schema) -> Schema:
    return {"type": "object", "additionalProperties": values}


ACTOR: Schema = {"anyOf": [dict(INT), enum(["system"])]}
