"""Canonical JSON (sorted keys, no spaces, UTF-8) and the hashes built on it."""
from __future__ import annotations

import hashlib
import json
from typing import Any

# One encoder for every call: json.dumps with non-default options builds a new one each time.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# ...and JSONEncoder.encode still builds a new C encoder per call (json.encoder.iterencode), about
# as costly as encoding a small event: build it once. Its arguments are the ones JSONEncoder passes
# for the options above, without the circular-reference markers (whose dict a failed call could
# leave dirty; a cycle then ends in RecursionError instead of ValueError).
_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # None without the C accelerator
_ENCODE = (_C_ENCODER(None, _CANONICAL.default, json.encoder.encode_basestring, None, ":", ",", True, False, True)
           if _C_ENCODER is not None else None)


def canonical_json(obj: Any) -> str:
    if _ENCODE is None or isinstance(obj, str):
        return _CANONICAL.encode(obj)
    return "".join(_ENCODE(obj, 0))


def canonical_bytes(obj: Any) -> bytes:
    return canonical_json(obj).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def json_hash(obj: Any) -> str:
    """sha256 (hex) of the canonical JSON of obj."""
    return sha256_hex(canonical_bytes(obj))


GENESIS_HASH = "0" * 64


def entry_hash(prev_hash: str, entry: dict[str, Any]) -> str:
    """One link of a game's hash chain: sha256(prev_hash || canonical_json(entry)).

    ``entry`` is the stored event entry as a JSON object with exactly the keys
    seq, type, data, actor, time, command, meta (see docs/replay-format.md).
    The first entry of a game chains from GENESIS_HASH.
    """
    return entry_text_hash(prev_hash, canonical_json(entry))


def entry_text_hash(prev_hash: str, text: str) -> str:
    """:func:`entry_hash` of the entry whose canonical JSON is ``text`` (a caller that has built
    the text from encoded parts hashes it without encoding the entry again)."""
    return sha256_hex(prev_hash.encode("ascii") + text.encode("utf-8"))
