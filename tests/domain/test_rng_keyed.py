"""Rng keys HMAC-SHA256 once per seed by hand (RFC 2104); every draw equals the hmac module's."""
import hashlib
import hmac

import pytest

from domain.rng import Rng


@pytest.mark.parametrize("seed", [b"", b"short", bytes(range(64)), bytes(range(65)), b"x" * 200, bytes(32)])
def test_raw_equals_the_hmac_module_for_every_key_length(seed):
    """Keys below, at and past SHA-256's 64-byte block (longer keys are hashed first)."""
    for index in (0, 1, 12345):
        expected = hmac.new(seed, f"g:{index}".encode(), hashlib.sha256).digest()
        assert Rng(seed, "g").raw(index) == int.from_bytes(expected, "big")


def test_rngs_of_different_seeds_do_not_share_keys():
    assert Rng(b"a", "g").raw(0) != Rng(b"b", "g").raw(0)
    assert Rng(b"a", "g").raw(0) == Rng(b"a", "g").raw(0)
