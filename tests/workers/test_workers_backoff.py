"""workers.backoff: doubling steps with jitter in the upper half, capped, reset on demand."""
from __future__ import annotations

from workers.backoff import Backoff


def test_steps_double_up_to_the_cap_with_jitter() -> None:
    backoff = Backoff(base_s=0.5, cap_s=4.0)
    waits = [backoff.next() for _ in range(8)]
    for wait, step in zip(waits, [0.5, 1, 2, 4, 4, 4, 4, 4]):
        assert step / 2 <= wait <= step
    backoff.reset()
    assert backoff.next() <= 0.5


def test_a_long_outage_never_overflows() -> None:
    backoff = Backoff(attempt=10_000)
    assert 5.0 <= backoff.next() <= 10.0
