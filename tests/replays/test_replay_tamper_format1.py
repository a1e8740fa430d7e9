"""Every game-agnostic tampering test of test_replay_tamper.py, run once more against a bundle in
format 1 (a state hash after every batch), which the verifier still accepts."""
from __future__ import annotations

from typing import Any

import pytest

from replays.verify import verify_bundle
from tests.replays.test_replay_format2 import format_1_text
from tests.replays.test_replay_tamper import (  # noqa: F401  (collected here with this module's subject)
    test_changed_final_score_with_recomputed_hashes_is_caught,
    test_changed_score_in_the_footer_is_caught,
    test_dropped_lines_are_caught,
    test_dumps_roundtrip_is_stable,
    test_duplicated_lines_are_caught,
    test_every_flipped_byte_of_the_header_is_caught,
    test_flipped_bytes_anywhere_are_caught_at_their_line,
    test_non_canonical_spacing_is_caught,
    test_reordered_lines_are_caught,
    test_replaced_seed_and_commitment_is_caught_by_the_draws,
    test_replaced_seed_is_caught,
    test_truncated_bundles_are_caught,
    test_untampered_bundle_verifies,
)


@pytest.fixture(scope="module")
def subject() -> tuple[str, Any]:
    """(bundle text, verify function): the 2-player classic game of conftest's subject, in format 1."""
    return format_1_text("classic", 2), verify_bundle
