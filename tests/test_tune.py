"""Reel tuning building blocks: exact figures, multilinear line forms, layout, bounds.

The fast figures the tuner reads are checked against the engine (``par()``)
and against brute-force enumeration of every stop combination.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from slotmath.analysis.metrics import equivalent_levels, game_figures, line_figures, line_rtp_parts
from slotmath.engine.lines import pay_tensor
from slotmath.engine.multilinear import line_total, reel_gradient, row_marginals, unit_coefficients
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par
from slotmath.tuning.layout import changed_positions, lay_out, longest_runs, runs, spread, stacked_symbols
from slotmath.tuning.reelspace import Bounds, BoundsError, ReelSpace

from tuning_games import CLASSIC, MID, SMALL, VIDEO, brute_rtp_hf


# ------------------------------------------------------------------ exact figures
@pytest.mark.parametrize("path", [SMALL, MID, CLASSIC])
def test_contracted_figures_equal_the_engine(path):
    game = load_game(path)
    for level in game.levels:
        figs = line_figures(game, level)
        result = par(game, level)
        assert figs["rtp"] == result.rtp  # Fractions, exactly
        assert figs["rtp:lines"] == result.components["lines"]
        assert figs["hit_frequency"] == result.distribution.hit_frequency
        assert figs["sd"] == result.sd
        assert figs["max_win"] == result.distribution.max_win


def test_contracted_rtp_of_a_five_reel_game_equals_the_combination_table():
    game = load_game(VIDEO)
    from slotmath.engine.combinations import line_rtp

    parts = line_rtp_parts(game, 1)
    assert parts["lines"] == line_rtp(game, 1)[0]
    table = par(game, 1).combinations
    assert parts["scatters"] == sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))


def test_small_game_figures_by_brute_force(small):
    rtp, hf = brute_rtp_hf(small)
    figs = game_figures(small, 1)
    assert figs["rtp"] == rtp and figs["hit_frequency"] == hf


def test_equivalent_levels(small, classic):
    # linear pay table: every level has the figures of level 1
    assert equivalent_levels(small) == {1: 1, 2: 1}
    # pay_by_level [150, 400] for SEVEN x3 is not proportional: level 2 stands alone
    assert equivalent_levels(classic) == {1: 1, 2: 2}


# ------------------------------------------------------------------ multilinear forms
def test_reel_gradient_is_the_exact_linear_form(mid):
    values = pay_tensor(mid, 1).reshaped()
    margs = [row_marginals(mid, s) for s in mid.strips()]
    total = line_total(values, margs, mid.paylines)
    space = ReelSpace(mid)
    for r in range(3):
        G = reel_gradient(values, margs, mid.paylines, r)
        assert int((G * margs[r]).sum()) == total
        a = unit_coefficients(G, space.reels[r].incidence)
        x = space.reels[r].x0
        assert int(a @ x) == total
        # moving one copy from BLANK to BAR changes the line sum by exactly a[BAR] - a[BLANK]
        bar, blank = mid.symbol_index["BAR"], mid.symbol_index["BLANK"]
        y = x.copy()
        y[bar] += 1
        y[blank] -= 1
        game2 = space.game_for([y if k == r else space.reels[k].x0 for k in range(3)])
        margs2 = [row_marginals(game2, s) for s in game2.strips()]
        assert line_total(values, margs2, mid.paylines) - total == a[bar] - a[blank]


def test_weighted_reel_units_are_stops(classic):
    space = ReelSpace(classic)
    rv = space.reels[0]
    assert rv.mode == "weights" and rv.size == 12 and rv.total == (64, 64)
    values = pay_tensor(classic, 1).reshaped()
    margs = [row_marginals(classic, s) for s in classic.strips()]
    G = reel_gradient(values, margs, classic.paylines, 0)
    a = unit_coefficients(G, rv.incidence)
    # One more weight on reel 1's stop 0 (SEVEN) adds, over reels 2 and 3 (total weight 64
    # each; SEVEN weighs 3 and 2, CHERRY 3 and 2):
    #   7 7 7 pays 150:                    150 * 3 * 2                   =  900
    #   exactly one CHERRY anywhere pays 2:  2 * (3 * (64 - 2) + (64 - 3) * 2) =  616
    #   exactly two CHERRIES pay 5:          5 * 3 * 2                     =   30
    assert a[0] == 900 + 616 + 30
    assert int(a @ rv.x0) == line_total(values, margs, classic.paylines)


# ------------------------------------------------------------------ layout
def test_layout_keeps_stacks_and_spreads_singles():
    strip = "A B C H H H A B D C A B S C D".split()
    assert runs(strip)[3] == (3, 3, "H")
    assert stacked_symbols(strip) == {"H"}
    same = lay_out(strip, {})
    assert same == tuple(strip)
    out = lay_out(strip, {"A": 4, "B": 2}, pinned={"S"})
    assert Counter(out) == Counter(strip) + Counter({"A": 1}) - Counter({"B": 1})
    # no two A side by side (there were none), the H stack intact, S in place
    assert all(not (out[i] == out[i - 1] == "A") for i in range(len(out)))
    assert "H H H" in " ".join(out) and out.index("S") == strip.index("S")
    # a stacked symbol grows its stack and shrinks it again
    grown = lay_out(strip, {"H": 4, "D": 1})
    assert "H H H H" in " ".join(grown) and len(grown) == len(strip)
    # unless a longest run is declared: a 4th H then starts a new stack
    grown = lay_out(strip, {"H": 4, "D": 1}, max_run=3)
    assert "H H H H" not in " ".join(grown) and len(grown) == len(strip)
    assert longest_runs(grown)["H"] == 3 and Counter(grown)["H"] == 4
    shrunk = lay_out(strip, {"H": 2, "C": 4})
    assert "H H" in " ".join(shrunk) and "H H H" not in " ".join(shrunk)
    # new length = sum of counts; a new symbol is spread
    longer = lay_out(strip, {"Z": 2})
    assert len(longer) == len(strip) + 2 and Counter(longer)["Z"] == 2
    zs = [i for i, s in enumerate(longer) if s == "Z"]
    assert min((zs[1] - zs[0]) % len(longer), (zs[0] - zs[1]) % len(longer)) >= 4


def test_spread_by_hand():
    # A B C A A B C D, 8 stops (cyclic):
    #   A runs start at 0 and 3 (the pair is one run): gaps 3 and 5, even
    #     spacing 8 / 2 = 4, smallest gap 3 -> 3 / 4
    #   B at 1 and 5, C at 2 and 6: gaps 4 and 4 -> 1; D one run: left out
    strip = "A B C A A B C D".split()
    assert spread(strip) == {"A": 3 / 4, "B": 1.0, "C": 1.0}
    assert spread(strip, {"A", "D"}) == {"A": 3 / 4}
    # 5 Q in the first 10 of 20 stops (every other stop): gaps 2, 2, 2, 2
    # and 12, even spacing 20 / 5 = 4 -> 2 / 4
    clump = ["Q", "X"] * 5 + ["X"] * 10
    assert spread(clump)["Q"] == 2 / 4


def test_layout_never_makes_a_run_longer_than_the_limit():
    # 3 A among 9 stops, singles (longest run 1): 6 A on 12 stops stay apart
    strip = "A B C A B C A B C".split()
    out = lay_out(strip, {"A": 6})
    assert Counter(out)["A"] == 6 and longest_runs(out)["A"] == 1
    # 7 A among 12 stops with 5 others cannot all be singles (7 runs need
    # 7 others between them): with a declared limit of 2 none is longer
    strip = "A B C D A B C D A B C D".split()
    counts = {"A": 7, "B": 2, "C": 1, "D": 2}
    out = lay_out(strip, counts, max_run=2)
    assert Counter(out) == Counter(counts) and longest_runs(out)["A"] == 2
    # the limits: each symbol's longest run on the draft, 1 for a new one
    from slotmath.tuning.layout import run_limits

    assert run_limits("A A B C C C".split(), {"A", "B", "C", "Z"}) == {"A": 2, "B": 1, "C": 3, "Z": 1}
    assert run_limits("A A B C C C".split(), {"A", "C"}, stacked={"C"}) == {"A": 2, "C": None}
    assert run_limits("A A B".split(), {"A", "B"}, 4) == {"A": 4, "B": 4}


def test_changed_positions_is_an_edit_distance():
    assert changed_positions("A B C".split(), "A B C".split()) == 0
    assert changed_positions("A B C".split(), "A X C".split()) == 1
    assert changed_positions("A B C".split(), "A B X C".split()) == 1
    assert changed_positions("A B C D".split(), "B C D".split()) == 1


# ------------------------------------------------------------------ bounds
def test_default_bounds(small):
    space = ReelSpace(small)
    names = small.symbol_names
    rv = space.reels[0]
    star = names.index("STAR")
    assert rv.lo[star] == rv.hi[star] == rv.x0[star]  # scatter held
    assert rv.total == (18, 18)  # length unchanged
    free = [u for u in range(len(names)) if names[u] != "STAR"]
    # shape bound: each count within a factor 2 of its value, at least +-1, never below 1
    for u in free:
        x0 = int(rv.x0[u])
        assert rv.lo[u] == max(1, min(-(-x0 // 2), x0 - 1)), names[u]  # ceil(x0 / 2)
        assert rv.hi[u] == max(2 * x0, x0 + 1), names[u]
    # symbol shares within +-50 % of the share now (at least one copy either way)
    for mask, s_lo, s_hi, name in rv.shares:
        x0 = int(rv.x0[mask].sum())
        assert s_lo == pytest.approx(min(x0 / 18 * 0.5, (x0 - 1) / 18)), name
        assert s_hi == pytest.approx(max(x0 / 18 * 1.5, (x0 + 1) / 18)), name
    assert "STAR" not in {name for *_, name in rv.shares}  # held: no share limit
    # released shape bounds: the old limits (at least one copy, up to the length)
    loose = ReelSpace(small, bounds=Bounds(weight_factor=None, symbol_share=None)).reels[0]
    assert all(loose.lo[u] == 1 and loose.hi[u] == 18 for u in free) and loose.shares == ()


def test_shape_bounds_hold_weights_within_a_factor():
    """A weighted reel: each stop weight within [w/2, 2w] (at least w+-1),
    and every tuned symbol's share of the reel's weight inside its band."""
    game = load_game("fruit_classic")
    rv = ReelSpace(game).reels[0]
    assert rv.mode == "weights"
    x0 = rv.x0
    free = rv.lo < rv.hi
    assert np.all(rv.lo[free] == np.maximum(1, np.minimum(-(-x0[free] // 2), x0[free] - 1)))
    assert np.all(rv.hi[free] == np.maximum(2 * x0[free], x0[free] + 1))
    assert rv.feasible(x0)


def test_symbols_absent_from_a_reel_stay_absent():
    game = load_game(VIDEO)
    space = ReelSpace(game)
    wild = game.symbol_index["WILD"]
    assert space.reels[0].hi[wild] == 0 and space.reels[4].hi[wild] == 0
    assert space.reels[1].hi[wild] > 0


def test_bad_bounds_are_named(small):
    with pytest.raises(BoundsError, match="unknown symbol 'ZZZ'"):
        ReelSpace(small, bounds=Bounds(counts={(None, "ZZZ"): (1, 2)}))
    with pytest.raises(BoundsError, match="reel 9 does not exist"):
        ReelSpace(small, bounds=Bounds(counts={(8, "BAR"): (1, 2)}))
    with pytest.raises(BoundsError, match="no reel set 'free'"):
        ReelSpace(small, "free")
