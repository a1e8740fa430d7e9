"""Deterministic, auditable draws.

Draw i of a game is ``HMAC-SHA256(key=seed, msg="<game id>:<i>")`` read as a big-endian
256-bit integer and mapped into [0, n) by rejection sampling: values at or above the largest
multiple of n below 2**256 are rejected and the next draw index is used. The counter lives in
the game state, so anyone holding the seed can recompute every draw.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, TypeVar

from domain.canonical import canonical_json

T = TypeVar("T")
_SPACE = 1 << 256
# n -> the largest multiple of n up to 2**256, the bound of below(n)'s rejection sampling: worked out
# once per n (a few 256-bit divisions a draw otherwise); the bounds drawn below are mostly small
# list lengths, and the first _LIMITS_KEPT of them are kept
_LIMITS: dict[int, int] = {}
_LIMITS_KEPT = 1024


class Rng:
    """A draw counter over one game's seed. Mutable on purpose: decide() advances it."""

    __slots__ = ("seed", "game_id", "counter", "_keyed")

    def __init__(self, seed: bytes, game_id: str, counter: int = 0) -> None:
        self.seed = seed
        self.game_id = game_id  # fixed at construction: the inner hash below has already read it
        self.counter = counter
        inner_pad, outer_pad = _keyed(seed)
        prefixed = inner_pad.copy()  # every message starts "<game id>:": hashed once, not per draw
        prefixed.update(f"{game_id}:".encode())
        self._keyed = (prefixed, outer_pad)

    def raw(self, index: int) -> int:
        prefixed, outer_pad = self._keyed
        inner = prefixed.copy()
        inner.update(b"%d" % index)  # the index's decimal digits, as str(index).encode() gives them
        outer = outer_pad.copy()
        outer.update(inner.digest())
        return int.from_bytes(outer.digest(), "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        limit = _LIMITS.get(n)
        if limit is None:
            if n <= 0:
                raise ValueError("below() needs n >= 1")
            limit = _SPACE - (_SPACE % n)
            if len(_LIMITS) < _LIMITS_KEPT:
                _LIMITS[n] = limit
        while True:
            value = self.raw(self.counter)
            self.counter += 1
            if value < limit:
                return value % n

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> tuple[T, ...]:
        """Fisher–Yates from the last position down, one draw per position."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)


@lru_cache(maxsize=256)
def _keyed(seed: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256 (RFC 2104) keyed with ``seed``, as its two padded SHA-256 states fed nothing
    else yet: each draw copies them instead of keying again, which is all ``hmac`` does, minus
    its per-call set-up. The same digests (tests/domain/test_rng.py compares with ``hmac``)."""
    key = hashlib.sha256(seed).digest() if len(seed) > _BLOCK else seed
    key = key.ljust(_BLOCK, b"\0")
    return hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))


_BLOCK = 64  # SHA-256's block size in bytes
_INNER = bytes(b ^ 0x36 for b in range(256))  # byte -> byte XOR ipad, for bytes.translate
_OUTER = bytes(b ^ 0x5C for b in range(256))  # byte -> byte XOR opad


def seed_from_text(text: str) -> bytes:
    """Client-given seed strings are used as their UTF-8 bytes (design.md)."""
    return text.encode("utf-8")


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


SEED_DERIVATION = "hourglass-seed/1"
MAX_CONTRIBUTION = 64  # bytes a seat may contribute


def derive_seed(service_seed: bytes, contributions: Sequence[str | None]) -> bytes:
    """The seed a game draws from when its seats contributed entropy (docs/fairness.md).

    ``contributions`` holds one entry per seat, in seat order: the hex a seat contributed, or
    None for a seat that did not. The result is ``sha256(b"hourglass-seed/1\\n" +
    canonical JSON of {"contributions": [...], "seed": <service seed hex>})``: every input has a
    fixed place, so neither the order of arrival nor a moved or dropped entry can give the same
    seed, and anyone can recompute it with a JSON encoder and SHA-256.
    """
    body = canonical_json({"contributions": list(contributions), "seed": service_seed.hex()})
    return hashlib.sha256(f"{SEED_DERIVATION}\n{body}".encode()).digest()


def valid_contribution(text: object) -> bool:
    """Lower-case hex of 1 to MAX_CONTRIBUTION bytes."""
    return (isinstance(text, str) and 2 <= len(text) <= 2 * MAX_CONTRIBUTION and len(text) % 2 == 0
            and all(c in "0123456789abcdef" for c in text))
