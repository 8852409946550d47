"""Small test games and brute-force figures shared by the tuning tests."""

from fractions import Fraction

import pytest

from slotmath.engine.evaluate import brute_force_distribution
from slotmath.io.gamefile import load_game

from conftest import TEST_DATA

SMALL, MID, CLASSIC, VIDEO = (TEST_DATA / n for n in ("tune_small", "tune_mid", "tune_classic", "tune_video"))


@pytest.fixture(scope="module")
def small():
    return load_game(SMALL)


@pytest.fixture(scope="module")
def mid():
    return load_game(MID)


@pytest.fixture(scope="module")
def classic():
    return load_game(CLASSIC)


def brute_rtp_hf(game, level=1):
    dist = brute_force_distribution(game, level)
    total = sum(dist.values())
    rtp = sum(w * c for w, c in dist.items()) / total
    hf = Fraction(sum(c for w, c in dist.items() if w > 0), total)
    return rtp, hf
