"""Capped exponential backoff with jitter, for reconnecting to Redis and restarting children.

``Backoff().next()`` returns 0.5, 1, 2, 4 … seconds, capped (10 s by default), each drawn
uniformly from the upper half of its step ("equal jitter"), so processes that lost Redis at the
same moment do not all come back in the same instant, and no wait is ever zero.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

MAX_EXPONENT = 30  # 2**30 * base is far above any cap; keeps the float finite


@dataclass
class Backoff:
    base_s: float = 0.5
    cap_s: float = 10.0
    attempt: int = 0

    def next(self) -> float:
        """The next wait in seconds; each call doubles the step until the cap."""
        step = min(self.cap_s, self.base_s * 2 ** min(self.attempt, MAX_EXPONENT))
        self.attempt += 1
        return random.uniform(step / 2, step)

    def reset(self) -> None:
        """Start again from ``base_s`` (after a long enough healthy spell)."""
        self.attempt = 0
