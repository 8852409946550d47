"""Player-session distributions: FFT convolution against exact arithmetic."""

from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest

from slotmath.engine.distribution import WinDistribution
from slotmath.engine.session import TAIL_LIMIT, power_truncated, session, win_lattice
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

TOY = Path(__file__).parent / "data" / "report_toy"


@pytest.fixture(scope="module")
def toy_distribution():
    return par(load_game(TOY), 1).distribution


def coin_flip(bet_units: int = 1) -> WinDistribution:
    """Win 0 or 2 total bets with probability 1/2 each (RTP 100 %)."""
    return WinDistribution.from_pairs([(0, 1), (2 * bet_units, 1)], unit_den=1, total_bet=bet_units)


def test_coin_flip_by_hand():
    # After N spins the total win is 2B total bets, B ~ Binomial(N, 1/2), so the
    # net result is 2B - N.  N = 100: ahead iff B > 50, even iff B = 50, hence
    # P(ahead) = (1 - C(100,50)/2^100) / 2 and P(even) = C(100,50)/2^100.
    s = session(coin_flip(5), 100)
    p_even = comb(100, 50) / 2**100
    assert s.p_even == pytest.approx(p_even, abs=1e-15)
    assert s.p_ahead == pytest.approx((1 - p_even) / 2, abs=1e-13)
    # Lattice step is the gcd of the wins: 10 units (2 bets of 5 coins).
    assert s.step == 10 and win_lattice(coin_flip(5)) == 10
    # P(net <= -50) = P(B <= 25)
    p25 = sum(comb(100, k) for k in range(26)) / 2**100
    assert s.p_at_most(-50) == pytest.approx(p25, abs=1e-15)
    assert s.mean == 0.0 and s.sd == pytest.approx(10.0)  # sqrt(100) x SD 1
    # the median of 2B - 100 is 0 (P(B <= 50) > 1/2 and P(B <= 49) < 1/2)
    assert s.quantile(0.5) == 0.0


def test_matches_exact_integer_convolution(toy_distribution):
    d = toy_distribution
    n = 30
    s = session(d, n)
    size = len(s.probabilities)
    counts = np.zeros(size, dtype=object)
    counts[:] = 0
    for w, h in zip(d.wins.tolist(), d.weights.tolist(), strict=True):
        if w // s.step < size:
            counts[w // s.step] += int(h)
    exact = np.array([1] + [0] * (size - 1), dtype=object)
    for _ in range(n):
        exact = np.convolve(exact, counts)[:size]
    total = d.total**n
    exact_p = np.array([float(Fraction(int(c), total)) for c in exact])
    err = np.abs(exact_p - s.probabilities)
    assert err.max() < 1e-14
    assert err.max() <= s.error_bound  # the stated bound holds
    big = exact_p > 1e-6
    assert np.max(err[big] / exact_p[big]) < 1e-10
    assert s.tail == pytest.approx(1 - float(Fraction(int(sum(exact)), total)), abs=1e-13)


def test_truncation_does_not_change_the_kept_range(toy_distribution):
    narrow = session(toy_distribution, 100, upper=10)
    wide = session(toy_distribution, 100, upper=500)
    k = len(narrow.probabilities)
    assert np.abs(narrow.probabilities - wide.probabilities[:k]).max() < 1e-15
    # mass above +10 bets = mass of the wide range above +10 plus its own tail
    assert narrow.tail == pytest.approx(wide.probabilities[k:].sum() + wide.tail, abs=1e-13)
    assert narrow.p_ahead == pytest.approx(wide.p_ahead, abs=1e-13)


def test_moments_when_the_range_holds_everything(toy_distribution):
    # max win 98.4 bets: 5 spins stay below 5 x 98.4 - 5 < 500 net, so no tail
    d = toy_distribution
    s = session(d, 5, upper=500)
    assert s.tail < 1e-14
    assert float(np.dot(s.net, s.probabilities)) == pytest.approx(5 * (float(d.mean) - 1), abs=1e-10)
    var = float(np.dot(s.net**2, s.probabilities)) - (5 * (float(d.mean) - 1)) ** 2
    assert var == pytest.approx(5 * float(d.variance), rel=1e-10)


def test_coarse_lattice_keeps_the_mean(toy_distribution):
    d = toy_distribution
    s = session(d, 20, upper=2000, max_points=500)
    assert not s.exact_lattice
    assert len(s.probabilities) <= 500
    mean = float(np.dot(s.net, s.probabilities))
    assert mean == pytest.approx(20 * (float(d.mean) - 1), abs=1e-9)


def test_power_truncated_small_case():
    # (1/2 + x/2)^3 = (1 + 3x + 3x^2 + x^3) / 8, cut after x^2
    out = power_truncated(np.array([0.5, 0.5]), 3, 3)
    assert np.allclose(out, [1 / 8, 3 / 8, 3 / 8], atol=1e-16)


def test_quantiles_and_cdf_agree(toy_distribution):
    s = session(toy_distribution, 100)
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        x = s.quantile(q)
        assert s.p_at_most(x) >= q - 1e-12
        below = s.net[s.net < x]
        if len(below):
            assert s.p_at_most(below[-1]) < q
    with pytest.raises(ValueError):
        s.p_at_most(s.upper + 1)
    with pytest.raises(ValueError):
        session(toy_distribution, 0)


def test_default_range_covers_all_but_a_negligible_tail(toy_distribution):
    # the range grows until P(above it) < TAIL_LIMIT; asked for the whole
    # range (5 x max win on the lattice), nothing is left above it
    d = toy_distribution
    for n in (5, 100, 1000):
        s = session(d, n)
        assert s.tail < TAIL_LIMIT
        assert s.max_net == pytest.approx(n * (float(d.max_win) - 1))
        assert s.upper <= s.max_net + 1e-9
    s = session(d, 5, upper=5 * (float(d.max_win) - 1))
    assert s.tail < 1e-14 and s.upper == pytest.approx(s.max_net)


def test_payback_quantiles_stay_inside_what_the_game_pays(toy_distribution):
    # payback = total win / amount bet lies in [0, max win]; the interval's
    # ends are quantiles of the exact distribution (P(payback <= low) >= 5 %)
    d = toy_distribution
    for n in (100, 1000, 10_000):
        s = session(d, n)
        low, high = s.payback_interval(0.90)
        assert 0 <= low <= float(d.mean) <= high <= float(d.max_win)
        assert s.p_at_most((low - 1) * n) >= 0.05 - s.cdf_error_bound
        below_low = s._cdf[int(np.searchsorted(s.net, (low - 1) * n - 1e-9)) - 1]
        assert below_low < 0.05 + s.cdf_error_bound
    # the interval narrows as the session grows (law of large numbers)
    widths = [np.diff(session(d, n).payback_interval(0.99))[0] for n in (100, 1000, 10_000)]
    assert widths[0] > widths[1] > widths[2]


def test_probabilities_with_round_off_above_one_are_clipped():
    # two lattice points whose float sum is 1 + 1e-12 (FFT round-off): every
    # probability the session gives stays in [0, 1]
    from slotmath.engine.session import SessionDistribution

    # stake 0: both wins are ahead
    s = SessionDistribution(1, 1, np.array([0.0, 0.5, 0.5 + 1e-12]), 1e-13, 0, 1, 1.5, 0.5)
    assert s.p_ahead == 1.0
    assert s.p_at_most(2.0) == 1.0
    assert s.to_frame()["cdf"].max() == 1.0
