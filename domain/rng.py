"""Deterministic, auditable draws.

Draw i of a game is ``HMAC-SHA256(key=seed, msg="<game id>:<i>")`` read as a big-endian
256-bit integer and mapped into [0, n) by rejection sampling: values at or above the largest
multiple of n below 2**256 are rejected and the next draw index is used. The counter lives in
the game state, so anyone holding the seed can recompute every draw.
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")
_SPACE = 1 << 256


class Rng:
    """A draw counter over one game's seed. Mutable on purpose: decide() advances it."""

    __slots__ = ("seed", "game_id", "counter", "_keyed")

    def __init__(self, seed: bytes, game_id: str, counter: int = 0) -> None:
        self.seed = seed
        self.game_id = game_id
        self.counter = counter
        self._keyed = _keyed(seed)

    def raw(self, index: int) -> int:
        mac = self._keyed.copy()
        mac.update(f"{self.game_id}:{index}".encode())
        return int.from_bytes(mac.digest(), "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = _SPACE - (_SPACE % n)
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
def _keyed(seed: bytes) -> hmac.HMAC:
    """HMAC-SHA256 keyed with ``seed`` and fed nothing yet: each draw copies it instead of keying
    again (the same digests; a game keys its seed once, not once per draw). Never updated itself."""
    return hmac.new(seed, digestmod=hashlib.sha256)


def seed_from_text(text: str) -> bytes:
    """Client-given seed strings are used as their UTF-8 bytes (design.md)."""
    return text.encode("utf-8")


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()
