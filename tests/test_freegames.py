"""Tests for slotmath.features.freegames: retriggerable free games."""

from fractions import Fraction as Fr

import numpy as np
import pytest

from slotmath.features.freegames import (
    FreeGames,
    capped_fourier_distribution,
    capped_moments,
    capped_work,
    fourier_distribution,
    per_spin_table,
    retrigger_table,
    series_distribution,
    uncapped_moments,
    win_distribution,
)

# Per free spin (counts out of 4): win 0 & no retrigger: 2, win 1 & none: 1, win 2 & +1 spin: 1.
#   rows = win units, columns = extra spins
HALVING = np.array([[2, 0], [1, 0], [0, 1]])


def test_hand_worked_geometric_total():
    # T = Y + [K = 1] T'  (T' an independent copy), starting with one spin.
    #   P(T=0) = 1/2, P(T=1) = 1/4, and for t >= 2 only (Y=2, K=1) can contribute:
    #   P(T=t) = 1/4 P(T=t-2).  By induction P(T=t) = 2^-(t+1): T is geometric on {0,1,..}
    #   with success 1/2, so E[T] = 1, Var = 2, E[T^2] = 3.
    #   Spins: S = 1 + [K = 1] S'  ->  E[S] = 1 / (1 - 1/4) = 4/3.
    fg = FreeGames(HALVING, spins=1, exact=True)
    assert fg.mean == 1 and fg.second_moment == 3 and fg.variance == 2
    assert fg.spins_mean == Fr(4, 3)
    values, probs, leftover = fg.distribution(tol=Fr(1, 2**30))
    assert [probs[t] for t in range(20)] == [Fr(1, 2 ** (t + 1)) for t in range(20)]
    assert probs.sum() + leftover == 1 and 0 < leftover <= Fr(1, 2**30)
    # two starting spins: sum of two independent copies, E = 2, E[T^2] = 2*3 + 2*1*1 = 8
    fg2 = FreeGames(HALVING, spins=2, exact=True)
    assert (fg2.mean, fg2.second_moment) == (2, 8)
    # the float series method: same law; the mass above max_win = 39 is 2^-40
    probs, leftover = series_distribution(per_spin_table(HALVING), 1, max_win=39, tol=1e-18)
    np.testing.assert_allclose(probs, 0.5 ** np.arange(1, 41), rtol=1e-13, atol=0)
    assert leftover == pytest.approx(2.0**-40, rel=1e-3)
    # P(T_2 = t) = sum_{i+j=t} 2^-(i+1) 2^-(j+1) = (t+1) 2^-(t+2)
    probs2, _ = series_distribution(per_spin_table(HALVING), 2, max_win=30, tol=1e-18)
    np.testing.assert_allclose(probs2, (np.arange(31) + 1) * 0.5 ** (np.arange(31) + 2), rtol=1e-12, atol=0)


def test_fourier_distribution_hand_worked():
    # Same geometric law as above: one spin of HALVING gives P(T=t) = 2^-(t+1); two spins
    # (t+1) 2^-(t+2).  On a 256-point cyclic grid the folded mass of t >= 256 is < 2^-250,
    # so every point must agree to rounding (the fixed point stops at rounding noise).
    t = np.arange(256)
    probs = fourier_distribution(per_spin_table(HALVING), 1, 256)
    np.testing.assert_allclose(probs, 0.5 ** (t + 1), rtol=0, atol=1e-15)
    probs2 = fourier_distribution(per_spin_table(HALVING), 2, 256)
    np.testing.assert_allclose(probs2, (t + 1) * 0.5 ** (t + 2), rtol=0, atol=1e-15)
    # a table with retriggers of 0, 2 and 5 extra spins agrees with the series method
    rng = np.random.default_rng(7)
    p = np.zeros((40, 6))
    p[:, 0] = rng.random(40)
    p[5:12, 2] = 0.02 * rng.random(7)
    p[20:25, 5] = 0.01 * rng.random(5)
    p /= p.sum()
    ref, _ = series_distribution(p, 3, max_win=4095, tol=1e-18)
    np.testing.assert_allclose(fourier_distribution(p, 3, 4096), ref, rtol=0, atol=1e-14)


def test_hand_worked_cap():
    # Same table, at most 3 spins in total.  Spin 3 happens only after two retriggers
    # (prob 1/16, win 2+2 so far), and then ends the feature whatever it lands:
    #   P(T=4) = 1/16 * 1/2, P(T=5) = 1/16 * 1/4, P(T=6) = 1/16 * 1/4.
    # Below 4 nothing changes: P(T=t) = 2^-(t+1) for t = 0..3.
    fg = FreeGames(HALVING, spins=1, max_spins=3, exact=True)
    _, probs, leftover = fg.distribution()
    assert leftover == 0
    assert probs.tolist() == [Fr(1, 2), Fr(1, 4), Fr(1, 8), Fr(1, 16), Fr(1, 32), Fr(1, 64), Fr(1, 64)]
    # E[T] = 1/4 + 2/8 + 3/16 + 4/32 + 5/64 + 6/64 = 63/64
    assert fg.mean == Fr(63, 64)
    spins, left = fg.spins_distribution()
    # 1 spin w.p. 3/4, 2 spins 1/4 * 3/4, 3 spins 1/16
    assert left == 0 and spins.tolist() == [0, Fr(3, 4), Fr(3, 16), Fr(1, 16)]
    assert fg.spins_mean == Fr(3, 4) + 2 * Fr(3, 16) + 3 * Fr(1, 16)


def test_classic_same_reels_retrigger():
    # "3+ scatters award N free spins at xM, retriggerable on the same reels".
    # With p = P(3+ scatters per free spin), E[K] = N p and E[spins] = N / (1 - N p).
    N, M = 10, 2
    # joint weights [win units, scatter count 0..5]; scatters pay 2 units at 3+
    joint = np.zeros((6, 6), dtype=np.int64)
    joint[0, 0], joint[1, 0], joint[5, 1], joint[3, 2] = 700, 150, 80, 40
    joint[2, 3], joint[2, 4], joint[4, 5] = 20, 7, 3
    table = retrigger_table(joint, {3: N, 4: N, 5: N})
    p = Fr(20 + 7 + 3, int(joint.sum()))
    fg = FreeGames(table, spins=N, multiplier=M, exact=True)
    assert fg.retrigger_mean == N * p
    assert fg.spins_mean == Fr(N) / (1 - N * p)
    # mean: each of the expected spins wins E[Y] units, all doubled
    ey = Fr(int((np.arange(6)[:, None] * joint).sum()), int(joint.sum()))
    assert fg.mean == M * ey * fg.spins_mean
    # awards of different sizes land in separate columns
    t2 = retrigger_table(joint, {3: 10, 4: 15, 5: 25})
    assert t2.shape == (6, 26) and t2[:, 15].sum() == 7 and t2[:, 25].sum() == 3


def brute_capped(p, spins, cap):
    """Play every sequence of spin outcomes literally (exact)."""
    outcomes = [(y, k, p[y, k]) for y in range(p.shape[0]) for k in range(p.shape[1]) if p[y, k] != 0]
    dist = {}

    def play(left, played, win, prob):
        if left == 0:
            dist[win] = dist.get(win, 0) + prob
            return
        for y, k, q in outcomes:
            awarded = played + left  # spins awarded so far
            extra = min(k, cap - awarded)  # awards beyond the cap are lost
            play(left - 1 + extra, played + 1, win + y, prob * q)

    play(min(spins, cap), 0, 0, Fr(1))
    return dist


def test_capped_matches_brute_force():
    table = np.array([[5, 2, 1], [3, 0, 1], [0, 1, 0], [2, 0, 1]])
    p = per_spin_table(table, exact=True)
    for spins, cap in [(2, 5), (1, 4), (3, 3), (4, 2)]:
        dist = brute_capped(p, spins, cap)
        probs, leftover = win_distribution(p, spins, cap)
        assert leftover == 0 and probs.sum() == 1
        assert {w: q for w, q in enumerate(probs) if q != 0} == dist
        m1, m2, s1, _ = capped_moments(p, spins, cap)
        assert m1 == sum(w * q for w, q in dist.items())
        assert m2 == sum(w * w * q for w, q in dist.items())
        assert 1 <= s1 <= cap
        flo, flo_left = win_distribution(p.astype(float), spins, cap, tol=1e-14)
        np.testing.assert_allclose(flo, probs.astype(float), rtol=0, atol=1e-15)
        assert flo_left <= 2e-14


def test_capped_on_a_grid_matches_brute_force():
    # The capped recursion run at the roots of unity: on a grid that holds
    # every win (cap x largest spin win < size) nothing wraps, and the law
    # equals the brute force over every sequence of spins to rounding.
    table = np.array([[5, 2, 1], [3, 0, 1], [0, 1, 0], [2, 0, 1]])
    p = per_spin_table(table, exact=True)
    for spins, cap in [(2, 5), (1, 4), (3, 3), (4, 2), (1, 7)]:
        dist = brute_capped(p, spins, cap)
        size = 64
        assert cap * (p.shape[0] - 1) < size
        grid = capped_fourier_distribution(p.astype(float), spins, cap, size, block=8)
        want = np.zeros(size)
        for w, q in dist.items():
            want[w] = float(q)
        np.testing.assert_allclose(grid, want, rtol=0, atol=1e-15)
        dp, work = capped_work(p, spins, cap, size)
        assert dp > 0 and work > 0


def test_capped_on_a_small_grid_wraps_only_the_far_tail():
    # A grid of 256 points for wins of up to 60 x 99 units: the mass that
    # folds back is that of wins >= 256, which the DP over the whole range shows.
    rng = np.random.default_rng(7)
    table = np.column_stack([rng.integers(50, 100, 100), rng.integers(0, 3, (100, 2))])
    p = per_spin_table(table)
    exact, _ = win_distribution(p, 3, 60, tol=0.0)
    grid = capped_fourier_distribution(p, 3, 60, 256)
    beyond = float(exact[256:].sum())
    assert beyond > 1e-6  # some mass does fold back
    folded = np.zeros(256)
    np.add.at(folded, np.arange(len(exact)) % 256, exact)
    np.testing.assert_allclose(grid, folded, rtol=0, atol=1e-14)


def test_cap_converges_to_uncapped_and_distribution_moments():
    rng = np.random.default_rng(5)
    table = np.column_stack([rng.integers(50, 100, 8), rng.integers(0, 10, (8, 3))])
    p = per_spin_table(table)
    assert 0.2 < (np.arange(4) * p.sum(axis=0)).sum() < 0.6
    m1, m2, s1, s2 = uncapped_moments(p, 3)
    c1, c2, d1, d2 = capped_moments(p, 3, 400)
    assert (c1, c2, d1, d2) == pytest.approx((m1, m2, s1, s2), rel=1e-10)
    probs, leftover = win_distribution(p, 3, tol=1e-16)
    w = np.arange(len(probs))
    assert leftover < 1e-15
    assert (w * probs).sum() == pytest.approx(m1, rel=1e-12)
    assert (w * w * probs).sum() == pytest.approx(m2, rel=1e-12)
    # the branching-series method gives the same law
    series, tail = series_distribution(p, 3, max_win=len(probs) - 1, tol=1e-16)
    np.testing.assert_allclose(series, probs, rtol=0, atol=1e-14)
    assert tail < 1e-14
    # a tight cap lowers the mean
    assert capped_moments(p, 3, 4)[0] < m1


def test_monte_carlo_agreement():
    rng = np.random.default_rng(11)
    joint = np.zeros((10, 6), dtype=np.int64)
    joint[:, 0] = rng.integers(50, 400, 10)
    joint[rng.integers(0, 10, 6), rng.integers(1, 6, 6)] += rng.integers(2, 10, 6)
    table = retrigger_table(joint, {3: 5, 4: 5, 5: 8})
    fg = FreeGames(table, spins=5, multiplier=3)
    p = fg.p.ravel()
    n_win, n_extra = fg.p.shape
    n = 100_000
    left = np.full(n, 5)
    total = np.zeros(n)
    spins = np.zeros(n)
    while (live := left > 0).any():
        draw = rng.choice(p.size, size=live.sum(), p=p)
        total[live] += 3 * (draw // n_extra)
        left[live] += draw % n_extra - 1
        spins[live] += 1
    z_win = (total.mean() - fg.mean) / np.sqrt(fg.variance / n)
    z_spins = (spins.mean() - fg.spins_mean) / np.sqrt(fg.spins_variance / n)
    assert fg.retrigger_mean > 0.05  # retriggers matter here
    assert abs(z_win) < 4 and abs(z_spins) < 4
    # and the whole distribution agrees: Kolmogorov distance well inside 2.5 / sqrt(n)
    # (P(D > 2.5/sqrt(n)) ~ 2 exp(-2 * 2.5^2) ~ 7e-6; discreteness only makes D smaller)
    values, probs, leftover = fg.distribution(tol=1e-13)
    assert leftover < 1e-13 and values[7] == 21
    sim = np.bincount((total / 3).astype(int), minlength=len(probs)) / n
    assert len(sim) == len(probs)  # nothing simulated beyond support
    assert np.max(np.abs(np.cumsum(sim) - np.cumsum(probs))) < 2.5 / np.sqrt(n)


def test_multiplier_scales_moments():
    base = FreeGames(HALVING, spins=3, exact=True)
    dbl = FreeGames(HALVING, spins=3, multiplier=2, exact=True)
    assert dbl.mean == 2 * base.mean and dbl.variance == 4 * base.variance
    values, probs, _ = dbl.distribution(tol=Fr(1, 2**20))
    assert values[5] == 10 and probs[5] == base.distribution(tol=Fr(1, 2**20))[1][5]


def test_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        per_spin_table([[0.5, 0.2]])
    with pytest.raises(ValueError, match="non-negative"):
        per_spin_table([[3, -1]])
    with pytest.raises(ValueError, match="exact"):
        per_spin_table([[0.5, 0.5]], exact=True)
    with pytest.raises(ValueError, match=">= 1"):
        _ = FreeGames([[1, 0, 1]], spins=2).mean  # E[K] = 1: never ends
    # with a cap even a sure retrigger ends: every spin awards 2, so all 6 spins are played
    sure = FreeGames([[0, 0, 1]], spins=1, max_spins=6, exact=True)
    assert sure.spins_mean == 6 and sure.spins_variance == 0
    with pytest.raises(ValueError, match="spins"):
        FreeGames(HALVING, spins=0)


def test_capped_award_law_takes_the_grid_when_the_dp_is_too_slow(monkeypatch):
    # ``capped_probabilities`` runs the DP over the win range while it is
    # cheap, the grid recursion when the DP's estimate is the slower one,
    # and refuses in one line when both are above the bound.
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import freegames

    rng = np.random.default_rng(11)
    table = np.column_stack([rng.integers(50, 100, 40), rng.integers(0, 3, (40, 2))])
    fg = FreeGames(table, spins=5, max_spins=30)
    dp = freegames.capped_probabilities(fg)
    monkeypatch.setattr(freegames, "DP_SECONDS", 0.0)
    monkeypatch.setattr(freegames, "DP_STEPS_PER_SECOND", 1.0)
    grid = freegames.capped_probabilities(fg)
    n = max(len(dp), len(grid))
    np.testing.assert_allclose(np.pad(grid, (0, n - len(grid))), np.pad(dp, (0, n - len(dp))), atol=1e-14)
    monkeypatch.setattr(freegames, "MAX_AWARD_SECONDS", 0)
    with pytest.raises(EngineTooLarge, match=r"at most 30 games would take about .* smaller max_games"):
        freegames.capped_probabilities(fg)


def test_exact_capped_moments_estimate_their_cost_first(monkeypatch):
    # The rational recursion runs in integers scaled by D**level (equal to
    # the brute force above); its cost grows as cap**3 x the bits of D, and
    # above the bound it is refused in one line before it starts.
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import freegames

    table = np.array([[7, 2, 1], [3, 0, 1], [0, 1, 0], [2, 0, 3]])
    p = per_spin_table(table, exact=True)
    m1, _, s1, _ = capped_moments(p, 2, 6)
    dist = brute_capped(p, 2, 6)
    assert m1 == sum(w * q for w, q in dist.items()) and 1 <= s1 <= 6
    monkeypatch.setattr(freegames, "MAX_MOMENT_SECONDS", 0)
    with pytest.raises(EngineTooLarge, match=r"exact moments of at most 7 games .* smaller max_games"):
        capped_moments(p, 2, 7)
