"""canonical_json keeps one C encoder for every call: it must write exactly what json.dumps with
the canonical options writes, and refuse what json.dumps refuses."""
from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from domain.canonical import canonical_json, entry_hash

VALUES: list[Any] = [
    {"b": 1, "a": [True, False, None, 1.5, -0.0, 1e100, 'é"\\\n\u2028\x00'], "c": {"z": {}, "y": []}},
    3, -7, 2.5, None, True, False, [], {}, "x", "é\n", [[1, [2, {"k": "v"}]]], {"1": 1, "10": 2, "2": 3},
    {"nan": float("nan"), "inf": float("inf")}, (1, 2), {"nested": ({"t": (3,)},)},
]


@pytest.mark.parametrize("value", VALUES)
def test_canonical_json_is_json_dumps_with_sorted_keys_and_no_spaces(value: Any) -> None:
    assert canonical_json(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("value", [{"a": object()}, {1: "x", "a": 2}, [b"bytes"]])
def test_canonical_json_refuses_what_json_refuses(value: Any) -> None:
    with pytest.raises(TypeError):
        json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    with pytest.raises(TypeError):
        canonical_json(value)
    assert canonical_json({"after": "a refused value"}) == '{"after":"a refused value"}'  # nothing left behind


def test_entry_hash_is_sha256_of_the_previous_hash_and_the_dumped_entry() -> None:
    entry = {"seq": 1, "type": "T", "data": {"type": "T", "n": 2}, "actor": "system", "time": "t", "command": None,
             "meta": None}
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert entry_hash("0" * 64, entry) == hashlib.sha256(("0" * 64 + text).encode("utf-8")).hexdigest()
