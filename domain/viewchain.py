"""Per-seat view hash chains: what each seat was shown, as a chain of hashes (issue 29).

After every batch (the version that ends it) each seat's head advances over the seat's view at
that version, exactly as ``GET .../state`` serves it: ``rules.view(state, seat)``. The chain of
seat ``s`` of a game starts at ``genesis(s)`` and

    head_v = sha256(bytes.fromhex(head_prev) || canonical_json({"seat": s, "version": v, "view": view}))

where ``head_prev`` is the head after the previous batch. Every seat's head advances on every
batch, whether or not its view changed, so a head names one version. Pure functions: the service
computes heads while folding (``core.repository``), the bundle builder and the verifier with the
same code (``replays.bundle``, ``replays.verify``).
"""
from __future__ import annotations

import hashlib
from typing import Any

from domain.canonical import canonical_bytes

GENESIS_CONTEXT = b"hourglass view chain\n"  # so a genesis head is no hash of anything else


def genesis(seat: int) -> str:
    """The head of seat ``seat``'s chain before the first batch."""
    return hashlib.sha256(GENESIS_CONTEXT + str(seat).encode("ascii")).hexdigest()


def genesis_heads(seats: int) -> tuple[str, ...]:
    return tuple(genesis(s) for s in range(seats))


def advance(head: str, seat: int, version: int, view: dict[str, Any]) -> str:
    """The head after the batch ending at ``version``, where seat ``seat`` was shown ``view``."""
    link = canonical_bytes({"seat": seat, "version": version, "view": view})
    return hashlib.sha256(bytes.fromhex(head) + link).hexdigest()


def advance_all(heads: tuple[str, ...], version: int, views: list[dict[str, Any]]) -> tuple[str, ...]:
    """Every seat's head after the batch ending at ``version`` (``views[s]``: seat ``s``'s view)."""
    return tuple(advance(h, s, version, v) for s, (h, v) in enumerate(zip(heads, views, strict=True)))


def seat_views(rules: Any, state: Any, seats: int) -> list[dict[str, Any]]:
    """Each seat's view of ``state`` (``rules.view``; ``rules`` a ``domain.core.GameRules``)."""
    return [rules.view(state, s) for s in range(seats)]
