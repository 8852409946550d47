"""The reel-tuning solver: targets, bands, bet levels, bounds, infeasibility.

Each tuned game is re-checked by an independent path: ``par()`` of the
tuned game (combination table and joint distribution) and, on the small
game, brute-force enumeration of every stop combination.
"""

from __future__ import annotations

from fractions import Fraction

from slotmath.rules.par import par
from slotmath.tuning.reelspace import Bounds
from slotmath.tuning.tune import Targets, tune

from tuning_games import brute_rtp_hf

# The toy games have 18-64 stops per reel and start 4-7 pp from their targets:
# the tests here are about targets, bands, levels and limits, so the shape
# bounds (tested in test_tune_shape.py) are released.
FREE = Bounds(weight_factor=None, symbol_share=None)
SHAPE_OFF = {"component_share": None}


# ------------------------------------------------------------------ solver
def test_tune_to_target_rtp(small):
    target = Fraction("0.95")
    res = tune(small, Targets(target), FREE, **SHAPE_OFF)
    assert res.feasible
    tuned = res.tuned
    tol = Fraction(str(res.targets.tolerance))
    # independent checks of the laid-out strips: the PAR engine and brute force
    result = par(tuned, 1)
    assert abs(result.rtp - target) <= tol
    assert result.rtp == res.after[1]["rtp"]
    rtp, hf = brute_rtp_hf(tuned)
    assert rtp == result.rtp and hf == res.after[1]["hit_frequency"]
    # what may not move did not: STAR count and places, strip lengths
    for a, b in zip(small.strips(), tuned.strips(), strict=True):
        assert len(a) == len(b)
        assert [i for i, s in enumerate(a.symbols) if s == "STAR"] == [
            i for i, s in enumerate(b.symbols) if s == "STAR"
        ]
    # the moves table describes the strips exactly
    for _, m in res.moves.iterrows():
        strip = tuned.strips()[m["reel"] - 1]
        assert strip.symbols.count(m["unit"]) == m["after"]
    # the same run gives the same strips
    again = tune(small, Targets(target), FREE, **SHAPE_OFF)
    assert again.tuned.strips() == tuned.strips()


def test_tune_with_hit_frequency_and_vi_bands(mid):
    targets = Targets(Fraction("0.95"), bands={"hit_frequency": (0.34, 0.36), "vi": (6.0, 7.0)})
    res = tune(mid, targets, FREE, **SHAPE_OFF)
    assert res.feasible, res.text()
    result = par(res.tuned, 1)  # the engine on the laid-out strips
    assert abs(float(result.rtp) - 0.95) <= 5e-5
    assert 0.34 <= result.hit_frequency <= 0.36
    assert 6.0 <= result.volatility_index["90"] <= 7.0
    table = res.figures
    assert table.loc[(table.level == 1) & (table.figure == "vi"), "met"].item() is True


def test_same_rtp_at_every_bet_level_on_weighted_reels(classic):
    # the top award is 150 coins at 1 coin and 400 at 2: RTP(2) - RTP(1) = 50 P(7 7 7),
    # so both levels can be within 0.005 pp of the target only if P(7 7 7) <= 2e-6,
    # i.e. the total weight must grow: allow 64..256 per reel
    res = tune(
        classic,
        Targets(Fraction("0.92")),
        Bounds(lengths={None: (64, 256)}, weight_factor=None, symbol_share=None),
        **SHAPE_OFF,
    )
    assert res.feasible, res.text()
    for level in (1, 2):
        r = par(res.tuned, level)
        assert abs(r.rtp - Fraction("0.92")) <= Fraction("0.00005")
    # weights mode: the symbol sequences never change
    for a, b in zip(classic.strips(), res.tuned.strips(), strict=True):
        assert a.symbols == b.symbols and a.weights != b.weights


def test_infeasible_targets_are_reported(classic):
    # with the total weight fixed at 64, P(7 7 7) >= 64**-3 and the two levels differ by
    # at least 50 / 64**3 = 1.9e-4 > 2 x tolerance: no solution exists
    res = tune(classic, Targets(Fraction("0.92")), max_evaluations=60)
    assert not res.feasible
    assert "NO" in res.text()
    diff = abs(res.after[2]["rtp"] - res.after[1]["rtp"])
    assert diff >= Fraction(50, 64**3)


def test_count_limits_and_held_symbols_are_respected(mid):
    bounds = Bounds(
        fixed=("SEVEN",),
        counts={(None, "BAR"): (4, 6), (2, "LEMON"): (7, 9)},
        weight_factor=None,
        symbol_share=None,
    )
    res = tune(mid, Targets(Fraction("0.9")), bounds, **SHAPE_OFF)
    assert res.feasible
    for a, b in zip(mid.strips(), res.tuned.strips(), strict=True):
        assert 4 <= b.symbols.count("BAR") <= 6
        assert b.symbols.count("SEVEN") == a.symbols.count("SEVEN") == 3
        assert b.symbols.count("STAR") == 2
    assert 7 <= res.tuned.strips()[2].symbols.count("LEMON") <= 9
