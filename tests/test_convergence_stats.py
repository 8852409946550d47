"""The statistics of the Monte Carlo cross-check: the SD's standard error
from the exact fourth moment and the exact Poisson test of rare counts."""

import math

import numpy as np
import pytest

from slotmath.engine.distribution import WinDistribution
from slotmath.montecarlo.convergence import (
    central_fourth_moment,
    count_z,
    detectable_rtp_error,
    rounds_for_rtp_error,
    sd_standard_error,
)


def two_point(a: int, hits: int, total: int) -> WinDistribution:
    """Win ``a`` total bets with probability hits/total, else nothing."""
    return WinDistribution.from_pairs([(0, total - hits), (a, hits)], unit_den=1, total_bet=1)


def test_fourth_moment_by_hand():
    # X = a with probability p, else 0: E[(X - pa)^4] = a^4 p q (1 - 3pq), q = 1 - p.
    # a = 10, p = 1/4: 10^4 x 1/4 x 3/4 x (1 - 9/16) = 10000 x 3/16 x 7/16 = 820.3125
    d = two_point(10, 1, 4)
    assert central_fourth_moment(d) == pytest.approx(820.3125, rel=1e-15)
    # the float path agrees with the exact one
    f = WinDistribution(d.wins, d.weights.astype(float), d.unit_den, d.total_bet)
    assert central_fourth_moment(f) == pytest.approx(820.3125, rel=1e-12)


def test_sd_standard_error_by_hand():
    # same X: sigma^2 = 100 x 3/16 = 18.75; Var(s^2) = (mu4 - sigma^4)/n = (820.3125 -
    # 351.5625)/n = 468.75/n; se(s) = sqrt(468.75/n) / (2 sigma); n = 100:
    # sqrt(4.6875) / (2 x 4.330127) = 2.165064 / 8.660254 = 0.25
    assert sd_standard_error(math.sqrt(18.75), 820.3125, 100) == pytest.approx(0.25, rel=1e-12)


def test_sd_z_is_valid_for_heavy_tails():
    # a heavy-tailed game (a 1000x win 1 in 2,000): the z of 400 runs of 20,000 rounds
    # has mean near 0 and spread near 1, and no |z| >= 4; the sample's own fourth
    # moment (the former se) would often be far too small when the big win is missing
    d = WinDistribution.from_pairs([(0, 1500), (2, 499), (1000, 1)], unit_den=1, total_bet=1)
    x, p = d.x, d.probabilities
    sd, mu4 = d.sd, central_fourth_moment(d)
    rng = np.random.default_rng(5)
    n = 20_000
    zs = []
    for _ in range(400):
        s = rng.choice(x, size=n, p=p).std(ddof=1)
        zs.append((s - sd) / sd_standard_error(sd, mu4, n))
    zs = np.array(zs)
    assert abs(zs.mean()) < 0.25 and 0.7 < zs.std() < 1.3
    assert np.abs(zs).max() < 4


def test_rare_count_uses_the_poisson_tail():
    # expected 0.01 hits, seen once: P(K >= 1) = 1 - e^-0.01 = 0.00995; two-sided
    # 0.0199 -> z = 2.33 (a pass), where the normal z would read (1 - 0.01)/0.1 = 9.9
    assert count_z(1, 0.01) == pytest.approx(2.328, abs=0.01)
    assert count_z(0, 0.01) == pytest.approx(0.0, abs=1e-9)
    # far too many: 20 seen where 5 are expected fails
    assert count_z(20, 5.0) > 4
    assert count_z(0, 30.0) < -4
    # the most likely count passes with a small z
    assert abs(count_z(100, 100.0)) < 0.2


def test_power_of_the_check():
    # SD 17, 10 million rounds: 4 x 17 / sqrt(1e7) = 0.0215 (2.15 percentage points)
    assert detectable_rtp_error(17.0, 10_000_000) == pytest.approx(0.0215035, rel=1e-5)
    assert rounds_for_rtp_error(17.0, detectable_rtp_error(17.0, 10_000_000)) == pytest.approx(1e7)
