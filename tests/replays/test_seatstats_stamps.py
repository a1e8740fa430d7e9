"""replays.seatstats reads entry times with a pattern for the service's own stamps and strptime
for anything else: both must give the same milliseconds, and refuse the same impossible dates."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from replays.seatstats import _ms


def reference(stamp: str) -> int:
    return int(datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp() * 1000)


@pytest.mark.parametrize("stamp", ["2026-11-27T22:54:23.123Z", "1999-01-31T00:00:00.000Z", "2024-02-29T23:59:59.999Z",
                                   "2026-11-27T22:54:23.1Z", "2026-1-27T22:54:23.123456Z"])
def test_a_stamp_is_read_as_strptime_reads_it(stamp: str) -> None:
    assert _ms(stamp) == reference(stamp)


@pytest.mark.parametrize("stamp", ["2026-13-27T22:54:23.123Z", "2026-11-27T25:54:23.123Z", "2023-02-29T00:00:00.000Z"])
def test_an_impossible_stamp_is_refused_like_strptime_refuses_it(stamp: str) -> None:
    with pytest.raises(ValueError):
        reference(stamp)
    with pytest.raises(ValueError):
        _ms(stamp)
