"""A feature round's tuning figures without its distribution (issue 28, point 5).

* ``round_figures`` (what tuning and the workbench read for ``needed``
  figures without the max win) equals ``par()``: the RTP, every RTP
  component and every feature figure exactly (the same Fractions), hit
  frequency, SD and VI from the round's moments to the float law's
  precision (the law drops points below 1e-15, so it is the one that is
  off: on a game whose law is exact enough they agree to 1e-9).
* The moments against a literal sum over every outcome of a tiny round.
* A candidate that moves only base strips reuses the free games cached on
  their own reel set and the hold-and-spin's chain cached on its respin
  reels, and its figures still equal ``par()`` of a fresh cache.
* The workbench shows every feature's odds.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.engine import cache
from slotmath.engine.distribution import WinDistribution
from slotmath.features.round import Feature, Trigger, round_moments
from slotmath.io.gamefile import load_game
from slotmath.rules.figures import par_figures, round_figures
from slotmath.rules.par import par
from slotmath.tuning.reelspace import ReelSpace
from slotmath.workbench import ReelTuner

from conftest import TEST_DATA

MOMENTS = {"rtp", "hit_frequency", "sd", "vi"}  # what a tuning run asks for


def check_equal(fast: dict, full: dict, rel: float) -> None:
    """``fast`` has every figure of ``full`` but the max win: exact ones
    equal, the moments' within ``rel``."""
    assert set(fast) == set(full) - {"max_win"}
    for name, want in full.items():
        if name in ("hit_frequency", "sd", "vi"):
            assert fast[name] == pytest.approx(float(want), rel=rel, abs=1e-15), name
        elif name != "max_win":
            assert fast[name] == want, name
            assert type(fast[name]) is type(want), name
    assert isinstance(fast["rtp"], Fraction)


@pytest.mark.parametrize(
    "game, rel",
    [
        ("hold_and_spin", 1e-8),
        ("classic_free_spins", 1e-6),
        ("modes_free_spins", 1e-6),
        (TEST_DATA / "classic_free_games", 1e-9),
        (TEST_DATA / "format_example", 1e-8),
    ],
    ids=lambda g: getattr(g, "name", None) or str(g),
)
def test_round_figures_equal_par(game, rel):
    g = load_game(game)
    for level in (g.levels[0], g.levels[-1]):
        fast = game_figures(g, level, needed=MOMENTS)
        check_equal(fast, par_figures(par(g, level)), rel)
        assert fast == round_figures(g, level)


def test_max_win_asks_for_the_full_analysis():
    g = load_game("classic_free_spins")
    assert game_figures(g, 1, needed={"rtp", "max_win"})["max_win"] == par(g, 1).distribution.max_win


def test_a_game_the_fast_figures_do_not_cover_falls_back():
    g = load_game(TEST_DATA / "classic_free_games")
    capped = dataclasses.replace(g, options={**g.options, "round_cap": 50})
    assert round_figures(capped, 1) is None
    assert game_figures(capped, 1, needed=MOMENTS) == par_figures(par(capped, 1))


def law(pairs) -> WinDistribution:
    """An exact award law from ``[(win [x total bet], weight)]``."""
    return WinDistribution.from_pairs(pairs, 1, 1)


def test_round_moments_against_every_outcome():
    """Two features on one key, one of which may award nothing, over a
    base law by key: E[T^2] and P(T > 0) summed over every outcome."""
    from slotmath.engine.joint import KeyedWins

    keyed = KeyedWins(
        wins=np.array([0, 2, 0, 5, 0, 1]),
        keys=[(0,), (0,), (1,), (1,), (2,), (2,)],
        counts=[5, 3, 2, 1, 2, 3],
        unit_den=1,
        total_bet=1,
        cycle=16,
    )
    a = {1: law([(0, 1), (4, 1)]), 2: law([(3, 2), (6, 1)])}  # feature A: keys 1, 2
    b = {2: law([(0, 3), (10, 1)])}  # feature B: key 2

    def feature(name, awards, **kw):
        return Feature(
            name,
            Trigger("S"),
            lambda k: k in awards,
            lambda k: awards[k].mean,
            awards.__getitem__,
            **kw,
        )

    fa = feature("a", a)
    fb = feature("b", b, second_moment=lambda k: b[k].second_moment)  # its own second moment
    second, hit = Fraction(0), Fraction(0)
    for w, (k,), c in zip(keyed.wins.tolist(), keyed.keys, keyed.counts, strict=True):
        awards = [d for d in (a.get(k), b.get(k)) if d is not None]
        outcomes = [(Fraction(w), Fraction(c, keyed.cycle))]
        for d in awards:
            probs = [Fraction(int(n), int(d.total)) for n in d.weights]
            outcomes = [
                (x + y, p * q) for x, p in outcomes for y, q in zip(d.wins.tolist(), probs, strict=True)
            ]
        second += sum(x * x * p for x, p in outcomes)
        hit += sum(p for x, p in outcomes if x > 0)
    m = round_moments(keyed, [fa, fb])
    assert m.second_moment == pytest.approx(float(second), rel=1e-14)
    assert m.hit_frequency == pytest.approx(float(hit), rel=1e-14)


def moved(space: ReelSpace, reel: int = 0) -> list:
    """The variables of ``space`` with one unit moved on ``reel``."""
    xs = [x.copy() for x in space.x0]
    i = int(xs[reel].argmax())
    xs[reel][i] -= 1
    xs[reel][(i + 1) % len(xs[reel])] += 1
    return xs


def test_a_base_candidate_reuses_the_free_games_and_stays_exact():
    """Free games on their own reel set: a candidate moving base strips
    builds no new free games, and its figures equal par() of a fresh cache."""
    from slotmath.features import freeround

    g = load_game(TEST_DATA / "format_example")
    assert g.options["free_games"]["reels"] != "base"
    level = g.levels[0]
    game_figures(g, level, needed=MOMENTS)
    built = []
    real = freeround.free_games_feature_of
    space = ReelSpace(g, "base")
    candidate = space.game_for(moved(space))
    try:
        freeround.free_games_feature_of = lambda *a: built.append(a) or real(*a)
        fast = game_figures(candidate, level, needed=MOMENTS)
    finally:
        freeround.free_games_feature_of = real
    assert not built
    cache.clear()
    check_equal(fast, par_figures(par(candidate, level)), 1e-8)


def test_workbench_shows_every_feature_odds():
    """A round with free games, a wheel and a selection: a row of odds per
    feature, no "n/a" feature frequency, the figures par()'s."""
    tuner = ReelTuner("pick_and_wheel", plot=False)
    box = next(b for b in tuner.controls.values() if b.value > 1)
    box.value += 1
    html = tuner.figures_html.value
    for name in ("free games odds", "wheel odds", "selection odds"):
        assert f"<td>{name}</td>" in html
    assert "feature frequency" not in html and "n/a" not in html
    assert "on request" not in html and "on request" not in getattr(tuner, "last_status", "")
    figs = par_figures(par(tuner.current_game, tuner.level))
    p = figs["feature:wheel.trigger_probability"]
    assert tuner.figures["feature:wheel.trigger_probability"] == p
    assert f"1 in {1 / float(p):,.2f}" in html
    assert math.isclose(tuner.figures["sd"], figs["sd"], rel_tol=1e-5)


def test_a_base_candidate_reuses_the_respin_chain(monkeypatch):
    """The hold-and-spin's chain is cached on its respin reels: a candidate
    moving base strips runs no chain, and its RTP is par()'s."""
    from slotmath.features import holdspin

    g = load_game("hold_and_spin")
    level = g.levels[0]
    before = game_figures(g, level, needed=MOMENTS)
    space = ReelSpace(g, "base")
    candidate = space.game_for(moved(space, reel=2))
    runs = []
    for name in ("total_count_laws", "total_count_values"):
        real = getattr(holdspin, name)
        monkeypatch.setattr(holdspin, name, lambda *a, real=real: runs.append(a) or real(*a))
    fast = game_figures(candidate, level, needed=MOMENTS)
    assert not runs
    monkeypatch.undo()
    assert fast["rtp"] != before["rtp"]
    cache.clear()
    full = par(candidate, level)
    assert fast["rtp"] == full.rtp and fast["rtp:hold_and_spin"] == full.components["hold_and_spin"]


def test_workbench_and_tuning_never_run_the_full_analysis_on_a_change(monkeypatch):
    """A change in the workbench and a tuning evaluation of a feature round
    read the fast figures: the full analysis is made to fail meanwhile."""
    from slotmath.rules.registry import rules_for
    from slotmath.tuning.linearmodels import Evaluator
    from slotmath.tuning.targets import Targets

    tuner = ReelTuner(TEST_DATA / "format_example", plot=False)
    ev = Evaluator(tuner.space, Targets(Fraction(96, 100), bands={"hit_frequency": (0, 1)}), (tuner.level,))

    def boom(*args, **kwargs):
        raise AssertionError("the full analysis ran on a change")

    monkeypatch.setattr(type(rules_for(tuner.game)), "analyse", boom)
    box = next(b for b in tuner.controls.values() if b.value > 1)
    box.value += 1
    figs, _ = ev(moved(tuner.space, reel=1))
    monkeypatch.undo()
    assert not getattr(tuner, "last_status", "").startswith("cannot")
    full = par_figures(par(tuner.current_game, tuner.level))
    assert tuner.figures["rtp"] == full["rtp"] and "max_win" not in tuner.figures
    assert set(figs[tuner.level]) == set(full) - {"max_win"}
