"""The nudge as an absorbing Markov chain (slotmath.features.nudge), by hand and against
the enumeration of Grand Spinn Superpot."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from slotmath.features.nudge import (
    CAP_BLANKED,
    CAP_NONE,
    joint_distribution,
    nudge_reel,
    reel_cap,
    reel_chains,
    sum_distribution,
)
from slotmath.io.gamefile import load_game
from slotmath.rules.grand_spinn_superpot import analysis as gs

X, ARROW, BLANK, LEMON, JP = 0, 1, 2, 3, 4
#            0      1      2  3  4  5      6   7  8  9
STRIP = [BLANK, ARROW, X, X, X, BLANK, JP, X, X, LEMON]


def test_one_reel_by_hand():
    """Stop s shows positions s, s+1, s+2; nudges = X read upwards from s.

    s=0 BLANK: 0 moves.           s=5 BLANK: 0.       s=9 LEMON: 0.
    s=6 JP over X: 0 moves, JP caps the stack.
    s=7: 1 nudge -> JP on top over X.   s=8: 2 nudges -> JP over X.
    s=1 ARROW over X X X: the arrow adds the stack, 3 moves.
    s=2, 3, 4: 1, 2, 3 nudges up to the arrow, then 3: 4, 5, 6 moves.
    """
    strip = np.array(STRIP, dtype=np.int64)
    n = len(strip)
    expect = {
        0: (0, 0, CAP_NONE),
        1: (0, 3, CAP_BLANKED),
        2: (1, 3, CAP_BLANKED),
        3: (2, 3, CAP_BLANKED),
        4: (3, 3, CAP_BLANKED),
        5: (0, 0, CAP_NONE),
        6: (0, 0, JP),
        7: (1, 0, JP),
        8: (2, 0, JP),
        9: (0, 0, CAP_NONE),
    }
    for s, (u, stack, cap) in expect.items():
        got_u, got_stack, top = nudge_reel(strip, n, s, X, ARROW)
        assert (got_u, got_stack, reel_cap(strip, n, top, X, got_stack)) == (u, stack, cap)

    chains = reel_chains(
        strip[None, :],
        np.array([n]),
        np.ones((1, n), dtype=np.int64),
        np.zeros((1, n), dtype=np.int64),
        1,
        np.array([X]),
        ARROW,
        5,
    )
    # moves: 0 for 4 stops, 1..6 for one stop each
    assert chains.moves_distribution[0, 0, 0] == pytest.approx([0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], abs=1e-15)
    caps = chains.cap_distribution[0, 0, 0]
    assert caps[JP] == pytest.approx(0.3) and caps[5] == pytest.approx(0.3)  # 5 = S: no stack
    assert caps[6] == pytest.approx(0.4)  # 6 = S+1: blanked
    nudges, arrows = chains.nudge_arrow_means
    assert nudges[0, 0, 0] == pytest.approx(0.9) and arrows[0, 0, 0] == pytest.approx(1.2)
    # transitions out of (0 nudges): 5 of 10 stops nudge, 1 fires the arrow, 4 stop
    chain = chains.chain(0, 0, 0, labels=["X", "ARROW", "BLANK", "LEMON", "JP"])
    t = chain.to_frame()
    out0 = t[t["from"] == (0, False)].set_index("to")["probability"]
    assert out0[(1, False)] == pytest.approx(0.5) and out0[(1, True)] == pytest.approx(0.1)
    assert out0.sum() == pytest.approx(1.0)
    # (1 nudge): s = 2, 3, 4, 7, 8 -> again 3/5, arrow 1/5 (s=2), stop 1/5 (s=7, JP)
    out1 = t[t["from"] == (1, False)].set_index("to")["probability"]
    assert out1[(2, False)] == pytest.approx(0.6) and out1[(2, True)] == pytest.approx(0.2)
    assert chain.absorption.sum() == pytest.approx(1.0)
    assert chain.expected_steps == pytest.approx(1 + 2.1)  # start state + moves


def test_mixing_reels():
    """sum_distribution and joint_distribution against a direct sum."""
    rng = np.random.default_rng(3)
    T = rng.random((3, 4, 2))
    f = [rng.dirichlet(np.ones(3), size=d) for d in T.shape]
    direct = np.zeros(7)
    joint = np.zeros((3, 3, 3))
    for a in range(3):
        for b in range(4):
            for c in range(2):
                for i in range(3):
                    for j in range(3):
                        for k in range(3):
                            p = T[a, b, c] * f[0][a, i] * f[1][b, j] * f[2][c, k]
                            direct[i + j + k] += p
                            joint[i, j, k] += p
    assert sum_distribution(T, f) == pytest.approx(direct, abs=1e-14)
    assert joint_distribution(T, f) == pytest.approx(joint, abs=1e-14)


@pytest.fixture(scope="module")
def real():
    game = load_game("grand_spinn_superpot")
    rules = gs.compile_rules(game, 1)
    ex = gs.enumerate_cycle(rules)
    return rules, ex, gs.nudge_chain(rules)


def test_chain_agrees_with_enumeration(real):
    rules, ex, chain = real
    exact = gs.pays_distribution(ex)
    assert len(chain.pays) == len(exact)
    assert np.abs(chain.pays - exact).max() <= 1e-12
    assert chain.pays.sum() == pytest.approx(1.0, abs=1e-12)
    repay = Fraction(ex.landing + ex.nudge + ex.arrow, ex.landing)
    assert abs(chain.repay_factor - float(repay)) <= 1e-12
    expected_pays = Fraction(int((ex.pays_hist * np.arange(len(ex.pays_hist))).sum()), ex.win_rounds)
    assert abs(chain.expected_pays - float(expected_pays)) <= 1e-12
    C, tb = ex.cycle, rules.total_bet
    assert abs(chain.nudge_rtp - float(Fraction(ex.nudge, C * tb))) <= 1e-12
    assert abs(chain.arrow_rtp - float(Fraction(ex.arrow, C * tb))) <= 1e-12
    for k in range(len(rules.jp_coins)):
        p = Fraction(int(ex.jp_counts[gs.PATH_NUDGE, k]), C)
        assert abs(chain.jackpot_after_nudge[k] - float(p)) <= 1e-12 * max(1.0, float(p))


def test_reel_table(real):
    _, _, chain = real
    t = chain.reel_table
    assert set(t["reel"]) == {1, 2, 3}
    row = t[(t["nudges so far"] == 0)]
    assert row["P(reach | win)"].to_numpy() == pytest.approx(1.0)
    probs = t[["P(nudge again)", "P(arrow fires)", "P(stop)"]]
    assert ((probs >= -1e-15) & (probs <= 1 + 1e-15)).all().all()
    assert probs.sum(axis=1).to_numpy() == pytest.approx(1.0)
