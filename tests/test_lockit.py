"""Tests for slotmath.features.lockit: the hold & respin chain must equal the rules exactly."""

import itertools
from fractions import Fraction as Fr
from functools import cache

import numpy as np
import pytest

from slotmath.features import shapes
from slotmath.features.lockit import Landing, LockIt, screen_distribution, trigger_distribution, window_counts

# ----------------------------------------------------------------------------
# a tiny reel-strip game, played literally by the brute-force referees below
# ----------------------------------------------------------------------------
# 'F' feature symbol, 'M' marked feature symbol, '-' anything else.
# At stop s, row k of reel r shows strip[(s + k) % len].
H2, R3 = 2, 3
STRIPS_W = ["FM-", "-FF", "M-F-"]  # used while no mark is on screen
STRIPS_P = ["F--", "F-", "-FF"]  # used once a mark is on screen
FULL6 = (1 << (H2 * R3)) - 1


def strip_landing(strips, n_rows):
    counts = np.stack([window_counts([c in "FM" for c in s], n_rows, [c == "M" for c in s]) for s in strips])
    return Landing.from_counts(counts)


def spin_outcomes(strips, held, flag, n_rows):
    """Every stop combination of one respin: (probability, new held mask, new flag)."""
    sizes = [len(s) for s in strips]
    p = Fr(1, int(np.prod(sizes)))
    for stops in itertools.product(*(range(n) for n in sizes)):
        new_held, new_flag = held, flag
        for r, (strip, stop) in enumerate(zip(strips, stops, strict=True)):
            for k in range(n_rows):
                sym = strip[(stop + k) % len(strip)]
                bit = 1 << (r * n_rows + k)
                if sym in "FM" and not held & bit:  # lands on an empty cell
                    new_held |= bit
                    if sym == "M":
                        new_flag = 1
        yield p, new_held, new_flag


def brute_countdown(start, spins, n_rows=H2, full=FULL6):
    """Enumerate every sequence of stops (no memoisation)."""
    final, played = {}, Fr(0)

    def play(held, flag, left, prob):
        nonlocal played
        if left == 0 or held == full:
            final[flag, held] = final.get((flag, held), 0) + prob
            return
        played += prob
        strips = STRIPS_W if flag == 0 else STRIPS_P
        for p, new_held, new_flag in spin_outcomes(strips, held, flag, n_rows):
            play(new_held, new_flag, left - 1, prob * p)

    for (flag, held), prob in start.items():
        play(held, flag, spins, prob)
    return final, played


def brute_reset(start, spins, n_rows=H2, full=FULL6):
    """Play the reset rule literally; memoised on the raw (held, flag, counter) state."""

    @cache
    def outcome(held, flag, left):
        if left == 0 or held == full:
            return {(flag, held): Fr(1)}, Fr(0)
        strips = STRIPS_W if flag == 0 else STRIPS_P
        dist, played = {}, Fr(1)
        for p, new_held, new_flag in spin_outcomes(strips, held, flag, n_rows):
            nxt = spins if new_held != held else left - 1
            sub, sub_played = outcome(new_held, new_flag, nxt)
            played += p * sub_played
            for key, q in sub.items():
                dist[key] = dist.get(key, 0) + p * q
        return dist, played

    final, played = {}, Fr(0)
    for (flag, held), prob in start.items():
        sub, sub_played = outcome(held, flag, spins)
        played += prob * sub_played
        for key, q in sub.items():
            final[key] = final.get(key, 0) + prob * q
    return final, played


def as_array(dist, n_masks, exact=True):
    out = np.zeros((2, n_masks), dtype=object)
    out[...] = Fr(0)
    for (flag, mask), p in dist.items():
        out[flag, mask] = Fr(p)
    return out if exact else out.astype(float)


START = {(0, 0b000001): Fr(1, 2), (1, 0b010010): Fr(1, 3), (0, FULL6): Fr(1, 12), (0, 0b101100): Fr(1, 12)}


# ----------------------------------------------------------------------------
# hand-worked cases
# ----------------------------------------------------------------------------
def test_window_counts_hand_worked():
    # strip F - F F, two rows: stop 0 shows (F,-) -> 0b01; stop 1 (-,F) -> 0b10;
    # stop 2 (F,F) -> 0b11; stop 3 (F, wrap to F) -> 0b11.
    assert window_counts([1, 0, 1, 1], 2).tolist() == [0, 1, 1, 2]
    # marks on position 3 only: stop 2 shows it in row 1 (marks 0b10), stop 3 in row 0 (0b01)
    with_marks = window_counts([1, 0, 1, 1], 2, [0, 0, 0, 1])
    assert with_marks[0b01, 0] == 1 and with_marks[0b10, 0] == 1
    assert with_marks[0b11, 0b10] == 1 and with_marks[0b11, 0b01] == 1
    assert with_marks.sum() == 4


def test_one_cell_left_two_spins():
    # 2x2 grid, three cells held, last cell (row 1, reel 1) lands with p = 1/3.
    # Countdown, 2 spins: P(full) = 1 - P(miss twice) = 1 - (2/3)^2 = 5/9.
    # Spins played: the first always, the second only after a miss: 1 + 2/3 = 5/3.
    p = Fr(1, 3)
    land = Landing.from_cells([[p, p], [p, p]])
    start = np.zeros(16, dtype=object)
    start[...] = 0
    start[0b0111] = 1
    res = LockIt(land, 2, exact=True).run(start)
    assert res.p_full == 1 - (1 - p) ** 2 == Fr(5, 9)
    assert res.spins_mean == Fr(5, 3)
    assert res.final[0, 0b0111] == Fr(4, 9) and res.total == 1
    flo = LockIt(Landing.from_cells([[1 / 3] * 2] * 2), 2).run(start.astype(float))
    assert flo.p_full == pytest.approx(5 / 9, abs=1e-15)


def test_reset_differs_from_countdown_hand_worked():
    # One reel, two rows, both empty, each cell lands independently with p, q = 1 - p.
    # Countdown with 1 spin: full only if both land at once: p^2.
    # Reset with 1 spin: both land (p^2) -> full; exactly one lands (2pq) -> counter back
    # to 1, one cell left, which lands with p.  P(full) = p^2 + 2pq * p.
    # Spins played: 1 + 2pq (the second spin happens only after a single landing).
    p = Fr(2, 5)
    q = 1 - p
    land = Landing.from_cells([[p], [p]])
    start = [1, 0, 0, 0]
    cd = LockIt(land, 1, exact=True).run(start)
    rs = LockIt(land, 1, rule="reset", exact=True).run(start)
    assert cd.p_full == p * p
    assert rs.p_full == p * p + 2 * p * q * p
    assert rs.spins_mean == 1 + 2 * p * q
    # no landing on the first spin ends the feature empty
    assert rs.final[0, 0] == q * q


def test_stacked_strip_keeps_within_reel_correlation():
    # One reel of two rows whose strip shows (F, F) on 1 stop in 4, nothing otherwise.
    # Each cell is covered with probability 1/4, but the reel model fills both together:
    # P(full after 1 spin) = 1/4, not (1/4)^2 as independent cells would give.
    strip = Landing.from_counts([[3, 0, 0, 1]])
    cells = Landing.from_cells([[Fr(1, 4)], [Fr(1, 4)]])
    assert LockIt(strip, 1, exact=True).run([1, 0, 0, 0]).p_full == Fr(1, 4)
    assert LockIt(cells, 1, exact=True).run([1, 0, 0, 0]).p_full == Fr(1, 16)


def test_marks_under_held_cells_do_not_count():
    # One reel, one row, held already.  The strip lands a marked symbol every time,
    # but under the held cell: the flag must stay 0 (and the screen is full anyway).
    # With the cell empty the same strip always sets the flag.
    land = Landing.from_counts([[[0, 0], [0, 1]]])  # pattern 1, marks 1, weight 1
    held = LockIt(land, 3, exact=True).run([0, 1])
    empty = LockIt(land, 3, exact=True).run([1, 0])
    assert held.final[0, 1] == 1 and held.spins_mean == 0
    assert empty.final[1, 1] == 1 and empty.spins_mean == 1


# ----------------------------------------------------------------------------
# exact agreement with the literal rules on a 2x3 grid
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chain_parts():
    return strip_landing(STRIPS_W, H2), strip_landing(STRIPS_P, H2)


@pytest.mark.parametrize("spins", [1, 2, 3])
def test_countdown_equals_enumeration_of_all_stop_sequences(chain_parts, spins):
    land_w, land_p = chain_parts
    final, played = brute_countdown(START, spins)
    want = as_array(final, 1 << 6)
    start = as_array(START, 1 << 6)
    res = LockIt(land_w, spins, after_mark=land_p, exact=True).run(start)
    assert res.total == 1
    assert np.array_equal(res.final, want)
    assert res.spins_mean == played
    flo = LockIt(land_w, spins, after_mark=land_p).run(start.astype(float))
    np.testing.assert_allclose(flo.final, want.astype(float), rtol=0, atol=1e-12)
    assert flo.spins_mean == pytest.approx(float(played), abs=1e-12)
    # derived summaries against the brute-force distribution
    cover = [
        [sum(p for (f, m), p in final.items() if m >> (r * H2 + k) & 1) for r in range(R3)] for k in range(H2)
    ]
    assert res.coverage.tolist() == cover
    assert res.p_flag == sum(p for (f, m), p in final.items() if f == 1)
    assert res.p_full == sum(p for (f, m), p in final.items() if m == FULL6)
    assert res.cell_count_distribution.tolist() == [
        sum(p for (f, m), p in final.items() if bin(m).count("1") == n) for n in range(7)
    ]
    # law of a prize that depends on the mask and the flag
    prize = np.array([[bin(m).count("1") ** 2 + 5 * flag for m in range(64)] for flag in (0, 1)])
    want_law = {}
    for (flag, m), p in final.items():
        want_law[prize[flag, m]] = want_law.get(prize[flag, m], 0) + p
    vals, probs = res.distribution(prize)
    assert {v: q for v, q in zip(vals, probs, strict=True) if q} == want_law


@pytest.mark.parametrize("spins", [1, 2])
def test_reset_equals_literal_play(chain_parts, spins):
    land_w, land_p = chain_parts
    final, played = brute_reset(START, spins)
    start = as_array(START, 1 << 6)
    res = LockIt(land_w, spins, "reset", after_mark=land_p, exact=True).run(start)
    assert res.total == 1
    assert np.array_equal(res.final, as_array(final, 1 << 6))
    assert res.spins_mean == played
    flo = LockIt(land_w, spins, "reset", after_mark=land_p).run(start.astype(float))
    np.testing.assert_allclose(flo.final, as_array(final, 64, exact=False), atol=1e-12, rtol=0)
    assert flo.spins_mean == pytest.approx(float(played), abs=1e-12)


@pytest.mark.parametrize("rule,spins", [("countdown", 3), ("reset", 2)])
def test_backward_values_equal_forward_runs_for_every_start(chain_parts, rule, spins):
    land_w, land_p = chain_parts
    rng = np.random.default_rng(3)
    f = np.array([[Fr(int(x), 7) for x in row] for row in rng.integers(-20, 50, (2, 64))], dtype=object)
    chain = LockIt(land_w, spins, rule, after_mark=land_p, exact=True)
    V = chain.values(f)
    for flag in (0, 1):
        for mask in range(64):
            start = np.zeros((2, 64), dtype=object)
            start[...] = 0
            start[flag, mask] = 1
            assert V[flag, mask] == chain.run(start).expect(f), (flag, mask)
    # every intermediate horizon as well (countdown: V_k uses k spins)
    allV = chain.values(f, all_spins=True)
    assert np.array_equal(allV[-1], V) and np.array_equal(allV[0], f)
    flo = LockIt(land_w, spins, rule, after_mark=land_p).values(f.astype(float))
    np.testing.assert_allclose(flo, V.astype(float), atol=1e-12, rtol=0)
    if rule == "countdown":
        for k in range(1, spins):
            shorter = LockIt(land_w, k, rule, after_mark=land_p, exact=True)
            assert np.array_equal(allV[k], shorter.values(f))


def test_trigger_distribution_matches_enumeration(chain_parts):
    land_w, _ = chain_parts
    # one base spin on the W strips from an empty screen, conditioned on >= 3 symbols
    screen = {}
    for p, held, flag in spin_outcomes(STRIPS_W, 0, 0, H2):
        screen[flag, held] = screen.get((flag, held), 0) + p
    assert np.array_equal(screen_distribution(land_w, exact=True), as_array(screen, 64))
    trig = {k: p for k, p in screen.items() if bin(k[1]).count("1") >= 3}
    p_trig = sum(trig.values())
    got_p, got_init = trigger_distribution(land_w, 3, exact=True)
    assert got_p == p_trig
    assert np.array_equal(got_init, as_array({k: v / p_trig for k, v in trig.items()}, 64))


# ----------------------------------------------------------------------------
# 3x5: float vs exact, and Monte Carlo against a literal simulation
# ----------------------------------------------------------------------------
def random_strips(rng, n_reels, marked):
    strips = []
    for _ in range(n_reels):
        n = int(rng.integers(18, 30))
        hits = np.zeros(n, dtype=bool)
        for start in rng.choice(n, size=4, replace=False):  # some stacks of 1-3
            hits[start : start + int(rng.integers(1, 4))] = True
        marks = hits & (rng.random(n) < 0.2) if marked else np.zeros(n, dtype=bool)
        strips.append((hits, marks))
    return strips


def window_arrays(strips, n_rows):
    """Per reel: landing pattern and mark pattern at every stop."""
    out = []
    for hits, marks in strips:
        n = len(hits)
        idx = (np.arange(n)[:, None] + np.arange(n_rows)) % n
        w = 1 << np.arange(n_rows)
        out.append(((hits[idx] * w).sum(1), ((hits & marks)[idx] * w).sum(1)))
    return out


@pytest.fixture(scope="module")
def game_3x5():
    rng = np.random.default_rng(2024)
    w_strips = random_strips(rng, 5, marked=True)
    p_strips = random_strips(rng, 5, marked=False)
    land_w = Landing.from_counts(np.stack([window_counts(h, 3, m) for h, m in w_strips]))
    land_p = Landing.from_counts(np.stack([window_counts(h, 3) for h, _ in p_strips]))
    start_mask, _, _ = shapes.mask_from_picture(["X...X", ".X.X.", "..X.."])
    return w_strips, p_strips, land_w, land_p, start_mask


def test_exact_and_float_agree_on_3x5(game_3x5):
    _, _, land_w, land_p, start_mask = game_3x5
    start = np.zeros((2, 1 << 15), dtype=object)
    start[...] = 0
    start[0, start_mask] = 1
    ex = LockIt(land_w, 5, after_mark=land_p, exact=True).run(start)
    fl = LockIt(land_w, 5, after_mark=land_p).run(start.astype(float))
    assert ex.total == 1
    assert abs(fl.total - 1) < 1e-13
    exf = ex.final.astype(float)
    # documented bound: relative error <= ~ steps * R * (2^H + 3) * 2^-53 (~3e-14)
    nz = exf > 0
    assert np.max(np.abs(fl.final[nz] - exf[nz]) / exf[nz]) < 5 * 5 * 11 * 2.0**-53
    assert np.all(fl.final[~nz] == 0)
    assert fl.spins_mean == pytest.approx(float(ex.spins_mean), rel=1e-13)


def test_monte_carlo_agreement_3x5(game_3x5):
    w_strips, p_strips, land_w, land_p, start_mask = game_3x5
    H, R, spins, full = 3, 5, 5, (1 << 15) - 1
    rects = [(3, 5), (3, 4), (2, 5), (3, 3), (2, 4), (3, 2), (2, 3), (2, 2), (3, 1), (2, 1), (1, 1)]
    prize = np.array([500, 200, 150, 100, 40, 30, 25, 10, 5, 3, 1.0])
    f = shapes.shape_count_table(H, R, rects) @ prize

    chain = LockIt(land_w, spins, after_mark=land_p)
    start = np.zeros((2, 1 << 15))
    start[0, start_mask] = 1
    res = chain.run(start)
    mean, var = res.moments(f)
    assert chain.values(f)[0, start_mask] == pytest.approx(mean, rel=1e-12)

    # literal simulation: each reel stops uniformly on its strip, W strips until a mark shows
    rng = np.random.default_rng(99)
    n = 200_000
    held = np.full(n, start_mask, dtype=np.int64)
    flag = np.zeros(n, dtype=bool)
    played = np.zeros(n)
    win_w, win_p = window_arrays(w_strips, H), window_arrays(p_strips, H)
    for _ in range(spins):
        live = held != full
        played += live
        new_held, new_flag = held.copy(), flag.copy()
        for r in range(R):
            stop_w = (rng.random(n) * len(w_strips[r][0])).astype(int)
            stop_p = (rng.random(n) * len(p_strips[r][0])).astype(int)
            pat = np.where(flag, win_p[r][0][stop_p], win_w[r][0][stop_w])
            mark = np.where(flag, 0, win_w[r][1][stop_w])
            reel_held = (held >> (r * H)) & 7
            new_held |= pat.astype(np.int64) << (r * H)
            new_flag |= (mark & ~reel_held) != 0
        held = np.where(live, new_held, held)
        flag = np.where(live, new_flag, flag)

    def z(sample_mean, exact_mean, variance):
        return (sample_mean - exact_mean) / np.sqrt(variance / n)

    p_full, p_flag = res.p_full, res.p_flag
    assert 0.01 < p_full < 0.99 and 0.01 < p_flag < 0.99  # the test has power
    assert abs(z(f[held].mean(), mean, var)) < 4
    assert abs(z((held == full).mean(), p_full, p_full * (1 - p_full))) < 4
    assert abs(z(flag.mean(), p_flag, p_flag * (1 - p_flag))) < 4
    assert abs(z(played.mean(), res.spins_mean, played.var())) < 4
    for row, reel in [(0, 1), (2, 4)]:
        c = res.coverage[row, reel]
        sim = ((held >> (reel * H + row)) & 1).mean()
        assert abs(z(sim, c, c * (1 - c))) < 4


def test_speed_3x5(game_3x5):
    import time

    _, _, land_w, land_p, start_mask = game_3x5
    chain = LockIt(land_w, 5, after_mark=land_p)
    start = np.zeros((2, 1 << 15))
    start[0, start_mask] = 1
    chain.run(start)
    t0 = time.perf_counter()
    chain.run(start)
    chain.values(np.ones(1 << 15))
    assert time.perf_counter() - t0 < 1.0


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------
def test_validation_errors():
    with pytest.raises(ValueError, match="non-negative"):
        Landing.from_counts([[3, -1]])
    with pytest.raises(ValueError, match="subset"):
        Landing.from_counts([[[1, 1], [0, 0]]])  # a mark on an empty pattern
    with pytest.raises(ValueError, match="sum to 1"):
        Landing(1, [[[0.5, 0.0], [0.4, 0.0]]])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Landing.from_cells([[1.5]])
    land = Landing.from_cells([[0.5]])
    with pytest.raises(ValueError, match="spins"):
        LockIt(land, 0)
    with pytest.raises(ValueError, match="rule"):
        LockIt(land, 2, "hold")
    with pytest.raises(ValueError, match="exact"):
        LockIt(land, 2, exact=True)
    with pytest.raises(ValueError, match="sum to 1"):
        LockIt(land, 2).run([0.5, 0.4])
    with pytest.raises(ValueError, match="shape"):
        LockIt(land, 2).run([1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="same grid"):
        LockIt(land, 2, after_mark=Landing.from_cells([[0.5, 0.5]]))
