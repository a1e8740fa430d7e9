"""domain/rng.py must never drift: these draws are pinned."""
import hashlib
import hmac

import pytest

from domain.rng import Rng, seed_commitment, seed_from_text

SEED = b"hourglass-golden"


def test_first_draws_are_pinned():
    rng = Rng(SEED, "game-1")
    assert [rng.below(1000) for _ in range(8)] == [196, 395, 816, 645, 454, 79, 937, 287]
    assert rng.counter == 8


def test_raw_draw_is_hmac_sha256_of_game_id_and_index():
    expected = hmac.new(SEED, b"game-1:0", hashlib.sha256).digest()
    assert Rng(SEED, "game-1").raw(0) == int.from_bytes(expected, "big")
    assert Rng(SEED, "game-1").raw(0) == 0xF6F2FE9529B4F28B636CDADEC2206A10D18547D0EDD6BE6EC16156C6984B02BC


def test_shuffle_is_pinned():
    assert Rng(bytes(32), "g").shuffled(range(10)) == (7, 9, 6, 2, 0, 1, 5, 4, 3, 8)


def test_rejection_sampling_skips_values_above_the_last_multiple():
    class Fixed(Rng):
        values = [(1 << 256) - 1, 5]

        def raw(self, index):
            return self.values[index]

    rng = Fixed(SEED, "g")
    assert rng.below(3) == 5 % 3  # 2**256 - 1 is in the rejected tail for n = 3
    assert rng.counter == 2


def test_below_needs_a_positive_bound():
    with pytest.raises(ValueError):
        Rng(SEED, "g").below(0)


def test_commitment_is_sha256_of_the_seed_bytes():
    assert seed_commitment(seed_from_text("abc")) == hashlib.sha256(b"abc").hexdigest()
