"""Feature games tuned by product-rule models (slotmath.tuning.componentmodels).

Two tiny random free-games games (3x3, five lines, 18 stops a reel; free
games started by 3 SCAT on the base reels, retriggered) written by
``slotmath.tuning.randgame`` from their seeds:

* ``rand32`` weighted: 54 stop weights.  The general models (the RTP and
  each component following the line RTP one for one, finite differences
  one evaluation per stop) spent 40 exact evaluations at 95.33 % without
  meeting 96 % (measured before the change); the product-rule models meet
  it in 11, with 30 allowed.
* ``rand32`` unweighted: SCAT held, strip lengths fixed, so the trigger
  odds do not move and the RTP is affine in the line RTP ``L``:
  ``RTP = R0 + a (L - L0)``, ``a = 1 + p G m`` (worked below), which
  proves the reach and the clash of the bands.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import slotmath
from slotmath.io.gamefile import load_game
from slotmath.tuning.componentmodels import line_form_scales, unit_classes
from slotmath.tuning.randgame import random_game
from slotmath.tuning.reelspace import Bounds, ReelSpace
from slotmath.tuning.tune import Targets, tune

FREE = ("free",)


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("featuregames")
    kw = {"reels": 3, "lines": 5, "length": 18, "features": FREE}
    return {w: random_game(root / f"rand32{'w' if w else 'u'}", 32, weighted=w, **kw) for w in (True, False)}


def _targets(path, rtp=Fraction(96, 100)):
    hf = float(slotmath.par(path, 1).hit_frequency)
    return Targets(rtp, bands={"hit_frequency": (hf - 0.015, hf + 0.015)})


def test_a_weighted_free_games_game_is_met_within_a_small_budget(games, tmp_path):
    path = games[True]
    targets = _targets(path)
    res = tune(load_game(path), targets, max_evaluations=30, progress=False)
    assert res.feasible and res.evaluations <= 30
    out = tmp_path / "game.yaml"
    res.write(out, backup=False)
    # the exact figures of the written game, recomputed by the PAR engine
    for level in (1, 2, 5):
        par = slotmath.par(out, level)
        assert abs(par.rtp - targets.rtp) <= Fraction(5, 100_000)
        lo, hi = targets.bands["hit_frequency"]
        assert lo <= par.hit_frequency <= hi
        for name, (b_lo, b_hi) in res.component_bands.items():
            assert b_lo <= float(par.components[name[4:]]) <= b_hi, name
        assert par.rtp == res.after[level]["rtp"]


def test_the_free_games_ride_the_line_rtp_in_the_reach(games):
    # Worked: one SCAT on each 18-stop reel, so p = (3/18)^3 = 1/216; 8 games
    # retriggered by p give G = 8 / (1 - 8/216) = 8 * 216/208; multiplier 2:
    # a = 1 + p G 2 = 1 + 16/208 = 14/13.  The RTP reach is the line RTP's
    # (relaxation) times 14/13, not the line RTP's plus a fixed rest.
    path = games[False]
    game = load_game(path)
    assert game.options["free_games"]["awards"] == {3: {"games": 8}}
    assert game.options["free_games"]["multiplier"] == 2
    assert all(s.symbols.count("SCAT") == 1 and len(s) == 18 for s in game.strips("base"))
    res = tune(game, Targets(Fraction(4)), progress=False)
    f = res.feasibility
    assert f["verdict"] == "infeasible" and not res.reach_unproven
    (l_lo, l_hi), (lo, hi) = res.rtp_range[1], res.reachable_rtp()[1]
    assert (hi - lo) == pytest.approx((l_hi - l_lo) * 14 / 13, rel=1e-9)
    draft = res.before[1]
    rest = float(draft["rtp"]) - float(draft["rtp:lines"])
    assert hi > l_hi + rest + 0.1  # the line RTP's range plus the draft's rest would miss the ride
    assert f"{hi:.4%}" in f["statement"] and "above the highest" in f["statement"]
    assert "product rule" in f["statement"] and f["binds"]
    # the relaxation's highest end, in whole units, evaluated by the PAR engine
    x_hi = res.reach_points[1][1]
    top = slotmath.par(res.space.game_for(x_hi), 1).rtp
    assert float(top) <= hi + 1e-12 and float(top) == pytest.approx(hi, abs=0.01)


def test_a_fixed_component_outside_its_band_is_proven_infeasible(games):
    # SCAT held: the scatter pays are fixed, S = sum over counts of pay x
    # P(count); at 150 % their share band (+-25 % of the draft's share of
    # the RTP, times 150 %) lies above S whatever the strips: infeasible.
    path = games[False]
    game = load_game(path)
    res = tune(game, Targets(Fraction(3, 2)), progress=False)
    par = slotmath.par(path, 1)
    scat = par.components["scatters"]
    share = scat / par.rtp
    lo = float(share * Fraction(3, 4) * Fraction(3, 2))
    assert float(scat) < lo
    f = res.feasibility
    assert f["verdict"] == "infeasible" and "rtp:scatters is fixed at" in f["statement"]
    assert f"{float(scat):.6%}" in f["statement"] and f"{lo:.6%}" in f["statement"]
    assert f["binds"] == [f for f in f["binds"] if f.startswith("rtp:scatters band")]
    # the tuner still reached the RTP (the band is what cannot hold)
    assert abs(float(res.after[1]["rtp"]) - 1.5) <= res.targets.tolerance


def test_weighted_reels_do_not_prove_a_reach(games):
    # stop weights move the windows of the held SCAT (the trigger odds): the
    # reach is the models' only and nothing is called infeasible
    res = tune(load_game(games[True]), Targets(Fraction(4)), max_evaluations=40, progress=False)
    f = res.feasibility
    assert f["verdict"] in ("stopped", "stalled")
    assert "not proven" in f["statement"] and "stop weights around them" in res.reach_unproven


def test_a_strip_length_that_may_change_proves_nothing(games):
    # the trigger odds of an unweighted reel are 3 SCAT / length: a length
    # released moves them, so the reach is the models' only
    game = load_game(games[False])
    bounds = Bounds(lengths={None: (16, 20)})
    res = tune(game, Targets(Fraction(4)), bounds=bounds, max_evaluations=20, progress=False)
    f = res.feasibility
    assert f["verdict"] != "infeasible" and "strip lengths may change" in res.reach_unproven
    assert "not proven" in f["statement"]


def test_product_rule_scales_of_each_component(games):
    # p G m = (1/216) (8 x 216/208) 2 = 1/13 for the free games, 1 for the
    # lines, 0 for the fixed scatter pays, 14/13 for the RTP (worked above);
    # one class of units a reel (SCAT held, the rest all alike)
    game = load_game(games[False])
    space = ReelSpace(game, "base")
    targets = Targets(Fraction(96, 100))
    figs = slotmath.par(game, 1, what="figures")
    scales = line_form_scales(space, targets, figs)
    assert scales == pytest.approx(
        {"rtp:lines": 1.0, "rtp:scatters": 0.0, "rtp:free_games": 1 / 13, "rtp": 14 / 13}, rel=1e-12
    )
    assert [len(unit_classes(space, r)) for r in range(3)] == [1, 1, 1]
    # weighted: the stops whose window shows the one SCAT (3 of 18) are a class apart
    wspace = ReelSpace(load_game(games[True]), "base")
    for r in range(3):
        sizes = sorted(len(c) for c in unit_classes(wspace, r))
        held = sum(wspace.reels[r].lo == wspace.reels[r].hi)
        assert sum(sizes) == 18 - held and len(sizes) >= 2
