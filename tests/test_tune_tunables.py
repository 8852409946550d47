"""Features state their tunable tables; the exact derivatives of the figures
with respect to each weight (:func:`slotmath.tuning.sensitivity.table_derivatives`).

The conformance check (tests/test_feature_kinds.py, checks ``tunables`` and
``sensitivity``) moves every feature's tables on its example game; here the
derivatives are checked against hand-worked formulas.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.io.gamefile import load_game
from slotmath.tuning.sensitivity import table_derivatives
from slotmath.tuning.tablespace import TableSpace, weight_tables

from conftest import TEST_DATA

HOLD = TEST_DATA / "tune_hold"
VALUES = (1, 2, 5, 10, 50)  # tune_hold's coin values [x total bet] (MINI 10, MAJOR 50)
WEIGHTS = (600, 300, 80, 15, 5)


def test_only_tables_a_feature_reads_are_offered():
    # lockit_tiny's shapes [[2, 2], [2, 1], [1, 1]] look like [value, weight]
    # pairs but are sizes: no feature states them; its award tables (one per
    # table, bet level and shape) and the mark's wheel are stated
    tables = weight_tables(load_game(TEST_DATA / "lockit_tiny"))
    assert "options.lockit.shapes" not in tables
    awards = {p: t.tunable.levels for p, t in tables.items() if p.startswith("options.lockit.awards")}
    assert awards == {
        f"options.lockit.awards.trigger.{lv}.{shape}": (lv,)
        for lv in (1, 2)
        for shape in ("2x2", "2x1", "1x1")
    }
    assert tables["options.wheel.segments"].tunable.components == ("lockit",)
    # the awards at bet level 2 in the written game (the keys are numbers in the file)
    space = TableSpace(load_game(TEST_DATA / "lockit_tiny"), ["options.lockit.awards.trigger.2.1x1"])
    game = space.game_for([np.array([5, 1])])
    assert game.options["lockit"]["awards"]["trigger"][2]["1x1"] == [[1, 5], [2, 1]]
    # Piggy Bankin' plays its own features: its wheel is offered, with no statement
    # of components or degree (they are the line round's)
    piggy = weight_tables(load_game("piggy_bankin_superlock"))["options.wheel.segments"].tunable
    assert (piggy.components, piggy.degree) == ((), None)


def test_hold_and_spin_derivative_by_hand():
    # the feature's RTP is T N E[V] + F GRAND (tests/test_tune_tables.py), E[V] = sum(w v) / W:
    #   d RTP / d w_i = T N (v_i - E[V]) / W,  W = 1000,
    #   E[V] = (600 x 1 + 300 x 2 + 80 x 5 + 15 x 10 + 5 x 50) / 1000 = 2000 / 1000 = 2
    game = load_game(HOLD)
    figs = game_figures(game, 1)
    rate = figs["feature:hold_and_spin.trigger_probability"] * figs["feature:hold_and_spin.coins_at_end_mean"]
    mean = Fraction(sum(w * v for w, v in zip(WEIGHTS, VALUES, strict=True)), 1000)
    assert mean == 2
    d = table_derivatives(game, 1, "options.hold_and_spin.values")
    assert d["rtp:lines"] == (0,) * 5
    assert d["rtp"] == d["rtp:hold_and_spin"]
    assert d["rtp"][1] == 0  # the value 2 is the mean: moving weight onto it changes nothing
    for got, v in zip(d["rtp"], VALUES, strict=True):
        assert float(got) == pytest.approx(rate * float(v - mean) / 1000, rel=1e-12, abs=1e-18)
    # exactly, in Fractions: a unit moved from 1 to MAJOR (the total held) adds (50 - 1) / 1000 x T N,
    # which is D_MAJOR - D_1 exactly since the RTP is linear in the draw probabilities
    space = TableSpace(game, ["options.hold_and_spin.values"], None)
    moved = game_figures(space.game_for([np.array([599, 300, 80, 15, 6])]), 1)["rtp"]
    assert moved - figs["rtp"] == d["rtp"][4] - d["rtp"][0]


def test_drawn_multipliers_of_degree_two_by_hand():
    # tune_wildmult2 (its file): RTP = 1/2 (1/2 + m/2)**2, m = (2 w1 + 4 w2) / (w1 + w2) = 3:
    #   d RTP / d m = 1/2 (1/2 + m/2) = 1,  d m / d w_i = (v_i - m) / W = (v_i - 3) / 2
    #   so d RTP / d w = (-1/2, +1/2) exactly
    game = load_game(TEST_DATA / "tune_wildmult2")
    (t,) = weight_tables(game).values()
    # at most one counted wild per reel: degree 3 stated (an upper bound; 2 here)
    assert t.tunable.degree == 3 and t.tunable.components == ("lines",)
    d = table_derivatives(game, 1, t.path)
    assert d["rtp"] == (Fraction(-1, 2), Fraction(1, 2))
    # a slope of a straight line through f(w) and f(w + e_1) would be wrong here:
    # f(2, 1): m = 8/3, RTP = 1/2 (11/6)**2 = 121/72, and (121/72 - 2) is no derivative
    space = TableSpace(game, [t.path], None)
    assert game_figures(space.game_for([np.array([2, 1])]), 1)["rtp"] == Fraction(121, 72)


def test_a_table_of_another_bet_level_moves_nothing():
    game = load_game(TEST_DATA / "lockit_tiny")
    d = table_derivatives(game, 1, "options.lockit.awards.trigger.2.1x1")
    assert all(v == (0, 0) for v in d.values())
    d2 = table_derivatives(game, 2, "options.lockit.awards.trigger.2.1x1")
    assert d2["rtp:lockit"][1] > 0 > d2["rtp:lockit"][0]  # the award 2 is above the mean 5/4, 1 below


def test_a_lockit_award_table_of_one_bet_level_is_tuned_and_written(tmp_path):
    # lockit_tiny's 1x1 awards at bet level 1: [[1, 3], [2, 1]] (mean 5/4); with the
    # total 4 held and each weight within a factor 2, [2, 2] (mean 3/2) is reachable
    from slotmath.tuning.tabletune import tune_tables
    from slotmath.tuning.targets import Targets

    path = "options.lockit.awards.trigger.1.1x1"
    game = load_game(TEST_DATA / "lockit_tiny")
    goal = game_figures(TableSpace(game, [path]).game_for([np.array([2, 2])]), 1)["rtp"]
    res = tune_tables(game, Targets(goal, tolerance=1e-12), [path], component_share=None, progress=False)
    assert res.feasible and [int(w) for w in res.x_after[0]] == [2, 2]
    written = load_game(res.write(tmp_path / "game.yaml"))
    awards = written.options["lockit"]["awards"]["trigger"]
    assert awards[1]["1x1"] == [[1, 2], [2, 2]] and awards[2]["1x1"] == [[1, 3], [2, 1]]
    assert game_figures(written, 1)["rtp"] == goal
    assert game_figures(written, 2)["rtp"] == game_figures(game, 2)["rtp"]  # level 2 untouched


def test_a_round_cap_leaves_no_known_degree():
    # min(win, cap) of a round summed over many coin draws is no polynomial of a
    # degree the feature knows: no exact derivative, refused in one line
    import dataclasses

    from slotmath.errors import BoundsError

    game = load_game(HOLD)
    capped = dataclasses.replace(game, options={**game.options, "round_cap": 100})
    assert weight_tables(game)["options.hold_and_spin.values"].tunable.degree == 1
    assert weight_tables(capped)["options.hold_and_spin.values"].tunable.degree is None
    with pytest.raises(BoundsError, match=r"no polynomial of known degree .* \(a round cap"):
        table_derivatives(capped, 1, "options.hold_and_spin.values")
