"""Tuning a game whose rules supply their own figures and constraints.

The toy rules ``tune_hook_toy`` (:class:`ToyRules`) are defined here and
registered (:func:`slotmath.rules.registry.register`) for these tests.  Its game (tests/data/tune_hook) is the
3x3 five-line Tune Mid game plus a feature selection: 3 or more STARs in
the window offer either an instant prize of PRIZE_A x total bet (choice a)
or FREE_SPINS free spins on the same reels that pay line wins (choice b,
worth FREE_SPINS x line RTP).  The module reports

    rtp:choice_a = lines + scatters + P(3+ STAR) * PRIZE_A
    rtp:choice_b = lines + scatters + P(3+ STAR) * FREE_SPINS * lines
    rtp          = their mean (players choose half and half)
    feature_frequency = P(3+ STAR)

and states, through ``tuning_constraints``, that both choices must pay the
target RTP, which forces ``FREE_SPINS * lines = PRIZE_A`` (lines = 0.8).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from slotmath.analysis.metrics import line_rtp_parts
from slotmath.engine.scatters import count_distribution_window
from slotmath.io.gamefile import load_game
from slotmath.rules import registry
from slotmath.rules.contract import Rules
from slotmath.rules.linegame import analyse
from slotmath.tuning.reelspace import Bounds
from slotmath.tuning.tune import Targets, tune

from conftest import TEST_DATA

PRIZE_A = 8  # [x total bet]
FREE_SPINS = 10
CALLS = {"figures": 0}


def toy_figures(game, level):
    CALLS["figures"] += 1
    parts = line_rtp_parts(game, level)
    dist = count_distribution_window(game, "base", "STAR")
    p3 = Fraction(int(sum(int(c) for c in dist[3:])), game.cycle())
    base = parts["lines"] + parts["scatters"]
    a = base + p3 * PRIZE_A
    b = base + p3 * FREE_SPINS * parts["lines"]
    return {
        "rtp": (a + b) / 2,
        "rtp:choice_a": a,
        "rtp:choice_b": b,
        "rtp:lines": parts["lines"],
        "feature_frequency": p3,
    }


def toy_constraints(game):
    return {"rtp_figures": ["rtp:choice_a", "rtp:choice_b"]}


class PlainToyRules(Rules):
    """The toy game's line round, analysed by the line engine, and nothing
    else: no fast figures, no constraints (the contract's defaults)."""

    def analyse(self, game, level):
        return analyse(game, level)


class ToyRules(PlainToyRules):
    """The toy rules with their own fast figures and constraints."""

    fast_figures = True

    def figures(self, game, level, reel_set="base", needed=None):
        return toy_figures(game, level)

    def tuning_constraints(self, game):
        return toy_constraints(game)


def use_rules(rules):
    """Register ``rules`` as ``tune_hook_toy`` (for the rest of the test)."""
    registry.register("tune_hook_toy", rules)


@pytest.fixture(autouse=True)
def toy_rules():
    use_rules(ToyRules)
    yield
    registry.unregister("tune_hook_toy")


def brute_force_p3_and_lines(game, level=1):
    """P(3+ STAR) and the line RTP by enumerating every stop combination."""
    from slotmath.engine.evaluate import line_wins, window_at

    strips = game.strips("base")
    star = game.symbol_index["STAR"]
    bet = game.bet(level)
    combos = list(product(*[range(len(s)) for s in strips]))
    windows = np.array([window_at(game, c) for c in combos])
    p3 = Fraction(int(((windows == star).sum(axis=(1, 2)) >= 3).sum()), len(combos))
    lines = Fraction(int(line_wins(game, level, windows).sum()), len(combos) * bet.total_bet)
    return p3, lines


def test_hook_figures_and_stated_constraints_are_honoured():
    game = load_game(TEST_DATA / "tune_hook")
    CALLS["figures"] = 0
    targets = Targets(Fraction("0.95"), bands={"feature_frequency": (0.004, 0.009)})
    # STAR may move (it drives the feature); lengths may change by a few stops
    bounds = Bounds(fixed=(), counts={(None, "STAR"): (1, 4)}, lengths={None: (32, 42)})
    res = tune(game, targets, bounds)
    assert CALLS["figures"] > 0, "the rules module's figures were not used"
    # the stated constraint was added to the user's targets
    assert set(res.targets.rtp_figures) == {"rtp", "rtp:choice_a", "rtp:choice_b"}
    assert res.feasible, res.text()
    tol = Fraction(str(targets.tolerance))
    for level in game.levels:
        figs = res.after[level]
        for name in ("rtp", "rtp:choice_a", "rtp:choice_b"):
            assert abs(figs[name] - Fraction("0.95")) <= tol
        # equal value of the two choices: |a - b| = p3 |PRIZE_A - FREE_SPINS lines|
        assert abs(figs["rtp:choice_a"] - figs["rtp:choice_b"]) <= 2 * tol
        assert 0.004 <= figs["feature_frequency"] <= 0.009
    # the feature frequency and line RTP of the laid-out strips, by brute force
    p3, lines = brute_force_p3_and_lines(res.tuned)
    assert p3 == res.after[1]["feature_frequency"]
    assert lines == res.after[1]["rtp:lines"]
    # STAR moved (the feature part had to change), the file's other reels are intact
    assert "STAR" in set(res.moves["unit"])


def test_without_hook_the_par_figures_are_used():
    """Rules without fast figures give those of their analysis (``par()``)."""
    use_rules(PlainToyRules)
    game = load_game(TEST_DATA / "tune_hook")
    from slotmath.analysis.metrics import game_figures
    from slotmath.rules.par import par

    figs = game_figures(game, 1)
    result = par(game, 1)
    assert figs["rtp"] == result.rtp
    assert figs["hit_frequency"] == result.distribution.hit_frequency
    # a toy 3x3 game 5 pp from the target: shape bounds released
    res = tune(
        game, Targets(Fraction("0.93")), Bounds(weight_factor=None, symbol_share=None), component_share=None
    )
    assert res.feasible
    assert abs(res.after[1]["rtp"] - Fraction("0.93")) <= Fraction(str(res.targets.tolerance))


def test_numbers_in_par_features_become_figures():
    """Without fast figures, numbers in ``ParResult.features`` are figures ``feature:<key>[.<sub>]``."""

    class FeatureToyRules(PlainToyRules):
        def analyse(self, game, level):
            features = {
                "by_choice": {"lockit": 0.9403, "free_games": 0.9402},
                "one_in": 247.3,
                "flag": True,
                "note": "text",
            }
            return dataclasses.replace(analyse(game, level), features=features)

    use_rules(FeatureToyRules)
    from slotmath.analysis.metrics import game_figures

    figs = game_figures(load_game(TEST_DATA / "tune_hook"), 1)
    assert figs["feature:by_choice.lockit"] == 0.9403 and figs["feature:by_choice.free_games"] == 0.9402
    assert figs["feature:one_in"] == 247.3
    assert "feature:flag" not in figs and "feature:note" not in figs
