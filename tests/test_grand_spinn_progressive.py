"""Renewal-reward figures of the Super progressive (slotmath.features.progressive)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from slotmath.features.progressive import Progressive, p_next_within, renewal_figures
from slotmath.io.gamefile import load_game
from slotmath.rules.grand_spinn_superpot import analysis as gs

SUPER = Progressive(Fraction("0.0216"), Fraction("0.0054"), Fraction(5000))


def test_formulas_against_series():
    """E[J] and SD[J] summed over the geometric cycle lengths directly.

    J = R + c_r b N' + c b N with N', N independent Geometric(p) on 1, 2, ...
    """
    p, b = 0.002, 2.0
    n = np.arange(1, 40_000)
    pn = p * (1 - p) ** (n - 1)
    mean_n = (pn * n).sum()
    var_n = (pn * n**2).sum() - mean_n**2
    c, cr = 0.0216, 0.0054
    mean = 5000 + (c + cr) * b * mean_n
    sd = b * math.sqrt((c * c + cr * cr) * var_n)
    assert SUPER.expected_jackpot(p, b) == pytest.approx(mean, rel=1e-12)
    assert SUPER.sd_jackpot(p, b) == pytest.approx(sd, rel=1e-9)
    # by hand: E[J] = 5000 + 0.027 x 2 / 0.002 = 5027
    assert SUPER.expected_jackpot(p, b) == pytest.approx(5027.0)
    # return per unit bet = contributions + reseed x frequency: 0.027 + 0.002 x 5000 / 2
    assert float(SUPER.rtp(Fraction(2, 1000), 2)) == pytest.approx(0.027 + 5.0)
    assert SUPER.contribution_rate == Fraction(27, 1000)
    assert SUPER.expected_reserve_at_win(p, b) == pytest.approx(0.0054 * b / p)


def test_renewal_simulation():
    """A simulated jackpot sequence matches E[J] and SD[J] (|z| < 4)."""
    rng = np.random.default_rng(11)
    p, b, k = 1e-3, 1.0, 20_000
    n = rng.geometric(p, size=k + 1)
    jackpots = 5000 + 0.0054 * b * n[:-1] + 0.0216 * b * n[1:]
    mean, sd = SUPER.expected_jackpot(p, b), SUPER.sd_jackpot(p, b)
    # consecutive jackpots share a cycle, so use the exact SD of the mean of a
    # 1-dependent sequence: var = (sd^2 + 2 cov) / k, cov = c c_r b^2 Var N
    cov = 0.0216 * 0.0054 * b * b * (1 - p) / p**2
    se = math.sqrt((sd * sd + 2 * cov) / k)
    assert abs(jackpots.mean() - mean) / se < 4
    assert jackpots.std() == pytest.approx(sd, rel=0.05)


def test_two_wins_within_the_window():
    # 1000 players, a spin each 5 s, p = 1e-6: 200 spins/s, 6000 spins in 30 s
    p = 1e-6
    assert p_next_within(p, 200, 30) == pytest.approx(1 - (1 - p) ** 6000, rel=1e-12)
    assert p_next_within(p, 200, 30) == pytest.approx(1 - math.exp(-0.006), rel=1e-5)


def test_super_figures_of_the_game():
    game = load_game("grand_spinn_superpot")
    res = gs.analyse(game, 1)
    sup = res.features["super"]
    p = Fraction(sup["hit_probability_exact"])
    assert p == Fraction(
        int(gs.enumerate_cycle(gs.compile_rules(game, 1)).jp_counts[:, 2].sum()), game.cycle()
    )
    ref = sup["reference"]
    opts = gs.parse_options(game)
    net = opts.network
    assert ref["bet"] == net.reference_bet
    assert ref["expected_jackpot"] == pytest.approx(5000 + 0.027 * net.reference_bet / float(p))
    assert ref["expected_turnover_between_wins"] == pytest.approx(net.reference_bet / float(p))
    assert ref["expected_spins_between_wins"] == pytest.approx(1 / float(p))
    spins_per_s = net.players / net.seconds_per_spin
    assert ref["p_next_within_window"] == pytest.approx(
        1 - (1 - float(p)) ** (spins_per_s * net.window_seconds)
    )
    assert ref == renewal_figures(
        opts.progressive, p, net.reference_bet, net.players, net.seconds_per_spin, net.window_seconds
    )
    # the reseed's return as a function of the bet: p x 5000 / bet
    rows = sup["seed_rtp_by_bet"]
    assert len(rows) == len(opts.coin_values) * len(game.levels)
    for row in rows:
        assert row["seed_rtp"] == pytest.approx(float(p) * 5000 / row["total_bet"])
        assert row["rtp_with_seed"] == pytest.approx(float(res.rtp) + row["seed_rtp"])
