"""A seat's view as a fixed-size vector: feature hashing of the view's JSON leaves.

The views of the three games are nested JSON with lists whose lengths change during play
(hands, discard piles, played cards, placements), so no fixed layout covers them without a
hand-written encoder per game. Instead every leaf becomes a feature named by its path:

- a number (int or float) at path ``p`` adds its value to slot ``h(p)``;
- a boolean adds 1.0 when true (nothing when false) to slot ``h(p)``;
- a string or null ``v`` at path ``p`` adds 1.0 to slot ``h(p + "=" + v)`` (one-hot by hashing).

Paths join dict keys and list positions with dots (``seats.2.coins``, ``hand.0``), so a seat's
numbers stay apart from another seat's. ``h`` is the first 8 bytes of BLAKE2b of the path,
modulo the vector size: stable across processes and machines (Python's ``hash`` is salted per
process). Two features may share a slot (a collision); their values then add up. This is the
hashing trick of Weinberger et al. (2009), as in scikit-learn's ``FeatureHasher`` without
alternating signs; it is written here (a dozen lines) rather than pulling in scikit-learn for it.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt


def leaves(data: Any) -> list[tuple[str, float]]:
    """The view's features as (name, value) pairs, in document order."""
    out: list[tuple[str, float]] = []
    _walk(data, "", out.append)
    return out


def _walk(node: Any, prefix: str, emit: Callable[[tuple[str, float]], None]) -> None:
    """Emit the leaves under ``node``; ``prefix`` is its path followed by a dot (empty at the root)."""
    if isinstance(node, dict):
        items: Iterable[tuple[Any, Any]] = node.items()
    elif isinstance(node, (list, tuple)):
        items = enumerate(node)
    else:
        raise TypeError(f"a view is a JSON object, not {type(node).__name__}")
    for key, value in items:
        path = f"{prefix}{key}"
        if value is True:
            emit((path, 1.0))
        elif value is False:
            continue
        elif isinstance(value, (int, float)):
            emit((path, float(value)))
        elif isinstance(value, (dict, list, tuple)):
            _walk(value, path + ".", emit)
        else:
            emit((f"{path}={value}", 1.0))


@lru_cache(maxsize=1 << 17)
def _slot(name: str, size: int) -> int:
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big") % size


def encode(view: dict[str, Any], size: int) -> npt.NDArray[np.float32]:
    """The view as a float32 vector of ``size`` slots."""
    features = leaves(view)
    out = np.zeros(size, dtype=np.float32)
    slots = np.fromiter((_slot(name, size) for name, _ in features), dtype=np.intp, count=len(features))
    np.add.at(out, slots, np.fromiter((value for _, value in features), dtype=np.float32, count=len(features)))
    return out
