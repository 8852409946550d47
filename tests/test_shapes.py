"""Tests for slotmath.features.shapes: rectangle packing of occupancy masks."""

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotmath.features import shapes as S

# Eleven fixed-orientation rectangles (rows x reels), largest first, as on a
# typical 3x5 lock-it shapes table.
RECTS = [(3, 5), (3, 4), (2, 5), (3, 3), (2, 4), (3, 2), (2, 3), (2, 2), (3, 1), (2, 1), (1, 1)]
#                0       1       2       3       4       5       6       7       8       9      10


def covered_cells(placed, shapes, n_rows):
    """List of cell indices covered by each placed shape."""
    out = []
    for s, top, left in placed:
        rows, reels = shapes[s]
        out.append([S.cell_index(top + i, left + j, n_rows) for i in range(rows) for j in range(reels)])
    return out


def assert_exact_cover(mask, placed, shapes, n_rows):
    cells = [c for group in covered_cells(placed, shapes, n_rows) for c in group]
    assert len(cells) == len(set(cells)), "a cell is in two shapes"
    assert sum(1 << c for c in cells) == mask, "cover differs from the mask"


# ----------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------
def test_picture_roundtrip_and_cell_index():
    mask, h, r = S.mask_from_picture("""
        X....
        .X...
        ....X""")
    # (row 0, reel 0) -> bit 0; (row 1, reel 1) -> bit 1*3+1 = 4; (row 2, reel 4) -> bit 14
    assert (h, r) == (3, 5)
    assert mask == (1 << 0) | (1 << 4) | (1 << 14)
    assert S.mask_from_picture(S.picture(mask, 3, 5)) == (mask, 3, 5)
    # a 2x3 rectangle at top 1, left 2 covers bits 3*2+1, 3*2+2, 3*3+1, ... on a 3-row grid
    assert S.rect_mask(3, 1, 2, 2, 3) == sum(1 << (3 * reel + row) for reel in (2, 3, 4) for row in (1, 2))


# ----------------------------------------------------------------------------
# hand-worked packings
# ----------------------------------------------------------------------------
def test_full_screen_is_one_big_shape():
    full = (1 << 15) - 1
    assert S.pack(full, 3, 5, RECTS) == [(0, 0, 0)]


def test_hand_worked_greedy_3x5():
    mask, h, r = S.mask_from_picture("""
        XXXX.
        XXXX.
        XX...""")
    # 3x5, 3x4, 2x5, 3x3 all need an empty cell ((row 2, reel 2), reel 4 or (row 2, reel 3)).
    # 2x4 at (top 0, left 0) fits -> rows 0-1, reels 0-3 taken.
    # Left over: (row 2, reel 0) and (row 2, reel 1), a horizontal pair: no vertical
    # shape fits, so two 1x1.
    assert S.pack(mask, h, r, RECTS) == [(4, 0, 0), (10, 2, 0), (10, 2, 1)]
    # Both scan orders agree here (only one anchor fits per shape).
    assert S.pack(mask, h, r, RECTS, "row-major") == [(4, 0, 0), (10, 2, 0), (10, 2, 1)]


def test_hand_worked_scan_orders_differ():
    mask, h, r = S.mask_from_picture("""
        .XX
        XXX
        XX.""")
    shapes = [(2, 2), (1, 1)]
    # reel-major: anchors (reel 0, row 0) fails at the empty (0,0); (reel 0, row 1) covers
    # rows 1-2 x reels 0-1 -> placed.  The remaining 2x2 anchors all hit (1,1), now used.
    # Leftover 1x1 in reel-major order: (row 0, reel 1), (row 0, reel 2), (row 1, reel 2).
    assert S.pack(mask, h, r, shapes, "reel-major") == [(0, 1, 0), (1, 0, 1), (1, 0, 2), (1, 1, 2)]
    # row-major: (row 0, reel 0) fails; (row 0, reel 1) covers rows 0-1 x reels 1-2 -> placed.
    # Leftover: (row 1, reel 0), (row 2, reel 0), (row 2, reel 1).
    assert S.pack(mask, h, r, shapes, "row-major") == [(0, 0, 1), (1, 1, 0), (1, 2, 0), (1, 2, 1)]


def test_hand_worked_greedy_vs_optimal():
    # 2 rows x 3 reels, full.  Priority 2x2 first, prize 2x2=1, 2x1=10, 1x1=0.
    # greedy: 2x2 at reels 0-1, then 2x1 at reel 2 -> 1 + 10 = 11
    # optimal: three 2x1 -> 30
    shapes, prize = [(2, 2), (2, 1), (1, 1)], [1.0, 10.0, 0.0]
    full = (1 << 6) - 1
    assert S.pack(full, 2, 3, shapes) == [(0, 0, 0), (1, 0, 2)]
    assert S.pack(full, 2, 3, shapes, rule="optimal", prize=prize) == [(1, 0, 0), (1, 0, 1), (1, 0, 2)]
    table_g = S.shape_count_table(2, 3, shapes)
    table_o = S.shape_count_table(2, 3, shapes, rule="optimal", prize=prize)
    assert table_g[full].tolist() == [1, 1, 0]
    assert table_o[full].tolist() == [0, 3, 0]

    # On the 3x5 picture above: greedy pays 2x4 + 2 x 1x1; the optimum is
    # 3x2 at reels 0-1 plus 2x2 at rows 0-1, reels 2-3.
    mask, h, r = S.mask_from_picture("""
        XXXX.
        XXXX.
        XX...""")
    prize = np.array([1000, 500, 400, 300, 60, 50, 50, 20, 5, 3, 1.0])
    opt = S.pack(mask, h, r, RECTS, rule="optimal", prize=prize)
    assert sorted(opt) == [(5, 0, 0), (7, 0, 2)]
    assert sum(prize[s] for s, _, _ in opt) == 70 > 60 + 1 + 1


def test_optimal_matches_brute_force_over_all_covers():
    # Independent check: enumerate every set of disjoint in-grid placements whose
    # union is the mask, take the best prize.
    shapes = [(2, 2), (2, 1), (1, 2), (1, 1)]
    prize = np.array([7.0, 3.0, 2.5, 1.0])
    h, r = 2, 3
    places = [(s, cells) for s, _, _, cells in S.placements(h, r, shapes)]
    table = S.shape_count_table(h, r, shapes, rule="optimal", prize=prize)
    for mask in range(1 << (h * r)):
        inside = [(s, c) for s, c in places if c & mask == c]
        best = -1.0
        for k in range(len(inside) + 1):
            for combo in itertools.combinations(inside, k):
                union, ok = 0, True
                for _, c in combo:
                    ok &= not (union & c)
                    union |= c
                if ok and union == mask:
                    best = max(best, sum(prize[s] for s, _ in combo))
        assert table[mask] @ prize == pytest.approx(best, abs=1e-12)


# ----------------------------------------------------------------------------
# exact cover properties
# ----------------------------------------------------------------------------
shape_lists = st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4)), max_size=6, unique=True)


@settings(max_examples=150, deadline=None)
@given(
    h=st.integers(1, 3),
    r=st.integers(1, 4),
    extra=shape_lists,
    mask_seed=st.integers(0, 2**12 - 1),
    order=st.sampled_from(S.ORDERS),
    prize_seed=st.integers(0, 10**6),
)
def test_every_cell_in_exactly_one_shape(h, r, extra, mask_seed, order, prize_seed):
    shapes = [s for s in extra if s != (1, 1)] + [(1, 1)]
    mask = mask_seed % (1 << (h * r))
    assert_exact_cover(mask, S.pack(mask, h, r, shapes, order), shapes, h)
    prize = np.random.default_rng(prize_seed).uniform(0, 10, len(shapes))
    assert_exact_cover(mask, S.pack(mask, h, r, shapes, rule="optimal", prize=prize), shapes, h)


@pytest.mark.parametrize("order", S.ORDERS)
def test_table_equals_pack_for_every_mask(order):
    h, r = 3, 3
    shapes = [(3, 2), (2, 2), (2, 3), (3, 1), (2, 1), (1, 1)]
    prize = np.array([9.0, 6.0, 8.5, 4.0, 2.5, 1.0])
    greedy = S.shape_count_table(h, r, shapes, order)
    optimal = S.shape_count_table(h, r, shapes, rule="optimal", prize=prize)
    sizes = np.array([a * b for a, b in shapes])
    for mask in range(1 << (h * r)):
        for table, kw in ((greedy, dict(order=order)), (optimal, dict(rule="optimal", prize=prize))):
            counts = np.bincount([s for s, _, _ in S.pack(mask, h, r, shapes, **kw)], minlength=len(shapes))
            assert table[mask].tolist() == counts.tolist()
        assert greedy[mask] @ sizes == bin(mask).count("1")
        # optimal is never worse than greedy
        assert optimal[mask] @ prize >= greedy[mask] @ prize - 1e-12


def test_full_3x5_table_speed_and_consistency():
    S.shape_count_table(3, 5, RECTS)  # warm caches
    prize = np.array([1000, 500, 400, 300, 60, 50, 50, 20, 5, 3, 1.0])
    S.shape_count_table(3, 5, RECTS, rule="optimal", prize=prize)  # numba compile
    t0 = time.perf_counter()
    greedy = S.shape_count_table(3, 5, RECTS)
    optimal = S.shape_count_table(3, 5, RECTS, rule="optimal", prize=prize)
    elapsed = time.perf_counter() - t0
    assert elapsed < 0.5, elapsed
    pop = np.array([bin(m).count("1") for m in range(1 << 15)])
    sizes = np.array([a * b for a, b in RECTS])
    assert np.array_equal(greedy @ sizes, pop)
    assert np.array_equal(optimal @ sizes, pop)
    # the greedy rule is a genuine restriction for this prize table on some masks
    diff = optimal @ prize - greedy @ prize
    assert diff.min() >= -1e-9 and (diff > 0).sum() > 0
    rng = np.random.default_rng(7)
    for mask in rng.integers(0, 1 << 15, 200):
        counts = np.bincount([s for s, _, _ in S.pack(int(mask), 3, 5, RECTS)], minlength=11)
        assert greedy[mask].tolist() == counts.tolist()


def test_shape_prize_moments_hand_worked():
    # On a 2x2 grid:
    #   X X
    #   X .
    # 2x2 does not fit; reel 0 is a full column -> one 2x1; (row 0, reel 1) -> one 1x1.
    shapes = [(2, 2), (2, 1), (1, 1)]
    table = S.shape_count_table(2, 2, shapes)
    mask, _, _ = S.mask_from_picture(["XX", "X."])
    assert table[mask].tolist() == [0, 1, 1]
    # 2x1 prize: mean 3, second moment 13 (var 4); 1x1: mean 1, second 1 (var 0).
    m1, m2 = S.shape_prize_moments(table, [0, 3, 1], [0, 13, 1])
    assert m1[mask] == 4  # 3 + 1
    assert m2[mask] == 4**2 + 4 + 0  # mean^2 + sum of variances


def test_validation():
    with pytest.raises(ValueError, match="1x1"):
        S.pack(1, 2, 2, [(2, 2)])
    with pytest.raises(ValueError, match="order"):
        S.shape_count_table(2, 2, [(1, 1)], "diagonal")
    with pytest.raises(ValueError, match="outside"):
        S.pack(1 << 4, 2, 2, [(1, 1)])
    with pytest.raises(ValueError, match="prize"):
        S.shape_count_table(2, 2, [(1, 1)], rule="optimal")
    with pytest.raises(ValueError, match="rule"):
        S.pack(1, 2, 2, [(1, 1)], rule="best")
