"""Exact moments of line games (:mod:`slotmath.engine.moments`) against the joint
distribution and brute force, exactly (Fractions, integer counts).

* sample games (video20 at every level, fruit_classic at its three
  non-linear levels, the tuning test games): mean, second moment, variance,
  SD, hit frequency and feature frequency equal those of
  :func:`slotmath.engine.joint.spin_distribution` (which its own tests tie to brute
  force), and :func:`slotmath.analysis.metrics.line_figures` uses them;
* random small games (the generator of ``test_engine_properties``): the
  same figures equal brute-force enumeration of every window;
* a hand-worked toy game;
* the automaton reproduces the pay tensor it compresses.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotmath.analysis.metrics import line_figures
from slotmath.engine.evaluate import brute_force_distribution
from slotmath.engine.joint import spin_distribution
from slotmath.engine.lines import pay_tensor
from slotmath.engine.moments import build_automaton, line_moments, pay_automaton
from slotmath.io.gamefile import build_game, load_game

from conftest import TEST_DATA
from test_engine_properties import SETTINGS, games, load


def assert_same(m, dist):
    assert m.mean == dist.mean
    assert m.second_moment == dist.second_moment
    assert m.variance == dist.variance
    assert m.sd == dist.sd
    assert m.hit_frequency == dist.hit_frequency


@pytest.mark.parametrize("name", ["video20", "fruit_classic"])
def test_sample_games_equal_the_joint_distribution(name):
    game = load_game(name)
    for level in game.levels:
        m = line_moments(game, level)
        assert_same(m, spin_distribution(game, level))


@pytest.mark.parametrize("name", ["tune_video", "tune_mid", "tune_classic", "tune_small"])
def test_tuning_games_equal_the_joint_distribution(name):
    game = load_game(TEST_DATA / name)
    level = game.levels[-1]
    assert_same(line_moments(game, level), spin_distribution(game, level))


def test_line_figures_use_the_moments_and_agree_with_the_distribution():
    game = load_game("video20")
    level = game.levels[0]
    fast = line_figures(game, level, needed={"rtp", "hit_frequency", "sd", "vi", "feature_frequency"})
    full = line_figures(game, level)  # every figure: joint distribution
    assert "max_win" not in fast and "max_win" in full
    for k in ("rtp", "hit_frequency", "sd", "vi", "feature_frequency", "rtp:lines", "rtp:scatters"):
        assert fast[k] == full[k], k
    assert isinstance(fast["hit_frequency"], Fraction)
    # published figures of video20 (issue 2): hit frequency 38.30 %, SD 3.050
    assert round(float(fast["hit_frequency"]), 4) == 0.3830
    assert round(fast["sd"], 3) == 3.050
    m = line_moments(game, level)
    assert fast["feature_frequency"] == m.feature_frequency


@SETTINGS
@given(data=games(), pick=st.integers(0, 2))
def test_random_games_equal_brute_force(data, pick):
    game = load(data)
    level = game.levels[pick % len(game.levels)]
    brute = brute_force_distribution(game, level)  # {win [x total bet]: weight}
    cycle = sum(brute.values())
    mean = sum(w * c for w, c in brute.items()) / Fraction(cycle)
    second = sum(w * w * c for w, c in brute.items()) / Fraction(cycle)
    hits = sum(c for w, c in brute.items() if w > 0)
    m = line_moments(game, level)
    assert m.cycle == cycle
    assert m.mean == mean
    assert m.second_moment == second
    assert m.variance == second - mean**2
    assert m.hit_frequency == Fraction(hits, cycle)


@SETTINGS
@given(data=games(), pick=st.integers(0, 2))
def test_automaton_reproduces_the_pay_tensor(data, pick):
    game = load(data)
    level = game.levels[pick % len(game.levels)]
    tensor = pay_tensor(game, level)
    S, R = tensor.n_symbols, tensor.n_reels
    auto = build_automaton(tensor.wins, S, R)
    wins = tensor.wins.reshape((S,) * R)
    for x in product(range(S), repeat=R):
        q = 0
        for k, s in enumerate(x):
            q = auto.trans[k, q, s]
            completions = wins[x[: k + 1]]
            assert auto.lo[k + 1, q] == completions.min()
            assert auto.hi[k + 1, q] == completions.max()
        assert auto.value[q] == wins[x]


TOY = {
    "name": "toy",
    "title": "two lines, hand-worked",
    "grid": {"reels": 2, "rows": 2},
    "bet": {"levels": [1]},
    "symbols": [{"name": "A"}, {"name": "B"}, {"name": "S", "kind": "scatter"}],
    "paylines": [[0, 0], [1, 1]],
    "pays": [{"symbol": "A", "count": 2, "pay": 4}],
    "scatters": [{"symbol": "S", "count": 2, "pay": 1}],
    "reels": {"base": [["A", "B"], ["A", "S"]]},
}


def test_hand_worked_toy_game():
    """Reel 1 stop 0 shows (A, B), stop 1 (B, A); reel 2 stop 0 (A, S),
    stop 1 (S, A).  Lines read row 0 and row 1; A A pays 4 coins per line,
    total bet 2 coins, so a line win is 2 x total bet; two S pay 1 x total
    bet.  The four stop combinations:

    ====== ========= ========= ===== ==========
    stops  row 0     row 1     S's   win [xTB]
    ====== ========= ========= ===== ==========
    (0,0)  A A: 2    B S: 0    1     2
    (0,1)  A S: 0    B A: 0    1     0
    (1,0)  B A: 0    A S: 0    1     0
    (1,1)  B S: 0    A A: 2    1     2
    ====== ========= ========= ===== ==========

    No window shows two scatters.  Mean 1, E[X^2] = (4 + 4) / 4 = 2,
    variance 1, SD 1, hit frequency 1/2.
    """
    game = build_game(TOY, Path("toy.yaml"), "toy")
    m = line_moments(game, 1)
    assert m.mean == 1
    assert m.second_moment == 2
    assert m.variance == 1 and m.sd == 1.0
    assert m.hit_frequency == Fraction(1, 2)
    assert m.feature_frequency == 0


def test_automaton_is_shared_by_games_with_one_pay_table():
    import dataclasses

    game = load_game("video20")
    other = dataclasses.replace(game, name="video20-copy")
    assert pay_automaton(game, 1) is pay_automaton(other, 1)
    assert pay_tensor(game, 1) is pay_tensor(other, 1)


@given(
    st.lists(st.lists(st.integers(0, 40), min_size=3, max_size=3), max_size=60),
    st.integers(-(2**40), 2**40),
)
def test_unique_rows_and_codes_are_numpys(rows, shift):
    """The automaton's distinct rows and values (by base-``max + 1`` keys or a
    lexsort; by a sort and a binary search or a stable argsort) equal
    ``numpy.unique``'s, order and inverse included."""
    import numpy as np

    from slotmath.engine.moments import unique_codes, unique_rows

    a = np.array(rows, dtype=np.int64).reshape(-1, 3)
    for r in (a, a - 20):  # keys; negative entries: the lexsort
        got, inv = unique_rows(r)
        want, want_inv = np.unique(r, axis=0, return_inverse=True)
        assert got.tolist() == want.tolist() and inv.tolist() == want_inv.ravel().tolist()
    # more than 4096 distinct values: the argsort path
    wide = np.concatenate([a.ravel() + shift, np.arange(5000) * 7 - shift])
    for flat in (a.ravel() - 20, wide):
        got, inv = unique_codes(flat)
        want, want_inv = np.unique(flat, return_inverse=True)
        assert got.tolist() == want.tolist() and inv.tolist() == want_inv.ravel().tolist()
