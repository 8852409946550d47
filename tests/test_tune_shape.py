"""Shape-preserving tuning: the default bounds keep a game's character,
an unreachable target says what binds, progress and the time limit.

The game is a seeded random 5x3 25-line game with weighted reels, a wild
and a scatter (:mod:`slotmath.tuning.randgame`), drafted about 1.5 pp below 96 %.
Every tuned game is checked by the independent path ``par()``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par
from slotmath.tuning.randgame import random_game
from slotmath.tuning.reelspace import Bounds
from slotmath.tuning.targets import rtp_components
from slotmath.tuning.tune import Targets, tune


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    path = random_game(tmp_path_factory.mktemp("rand") / "g", 100, target=0.96, gap=0.015)
    return load_game(path)


def test_default_tuning_keeps_the_shape(drafted):
    seen = []
    res = tune(drafted, Targets(Fraction(96, 100)), progress=seen.append)
    assert res.feasible, res.text()
    # the exact engine agrees on the laid-out strips, at every bet level
    for lv in drafted.levels:
        assert abs(par(res.tuned, lv).rtp - Fraction(96, 100)) <= Fraction(5, 100000)
    # every stop weight within a factor 2 of the draft's (or +-1 for weight 1)
    for before, after in zip(drafted.strips(), res.tuned.strips(), strict=True):
        for a, b in zip(before.weights, after.weights, strict=True):
            assert min(-(-a // 2), a - 1) <= b <= max(2 * a, a + 1)  # ratio <= 2 (or +-1)
        # each symbol's share of the reel within +-50 % of the draft's
        tb, ta = sum(before.weights), sum(after.weights)
        for sym in set(before.symbols):
            wb = sum(w for s, w in zip(before.symbols, before.weights, strict=True) if s == sym)
            wa = sum(w for s, w in zip(after.symbols, after.weights, strict=True) if s == sym)
            lo, hi = min(wb / tb * 0.5, (wb - 1) / tb), max(wb / tb * 1.5, (wb + 1) / tb)
            assert lo - 1e-12 <= wa / ta <= hi + 1e-12, sym
    # the scatter's share of the RTP stays within +-25 % of the draft's
    c0, c1 = rtp_components(res.before[1], res.targets), rtp_components(res.after[1], res.targets)
    s0 = float(c0["rtp:scatters"]) / float(res.before[1]["rtp"])
    s1 = float(c1["rtp:scatters"]) / float(res.after[1]["rtp"])
    assert 0.75 * s0 <= s1 <= 1.25 * s0
    assert set(res.component_bands) == {"rtp:lines", "rtp:scatters"}
    # what moved says why; progress was reported with evaluations and the best RTP
    assert len(res.moves) and res.moves["why"].str.len().min() > 0
    assert seen and seen[-1]["evaluations"] == res.evaluations
    assert abs(seen[-1]["best_rtp"] - 0.96) <= 5e-5


def test_an_unreachable_target_names_what_binds(drafted, tmp_path, capsys):
    """Nearly doubling the RTP is out of reach with each weight within a factor 2: not
    met, nothing written, exit 1, and the report shows the reachable RTP
    (relaxation) with the target outside it."""
    res = tune(drafted, Targets(Fraction(199, 100)), max_evaluations=30, progress=False)
    assert not res.feasible
    b = res.binding
    reach = b[b["what"].str.startswith("reachable RTP")]
    assert len(reach) and (reach["note"] == "target outside: the limits bind").all()
    hi = float(reach["value"].iloc[0].split("..")[1].strip().rstrip("%")) / 100
    assert float(res.after[1]["rtp"]) <= hi + 1e-6  # the best found is inside the reachable range
    assert float(res.before[1]["rtp"]) < hi < 1.99  # above the draft, below the target
    out = tmp_path / "x.yaml"
    status = main(
        ["tune", str(drafted.source), "--target-rtp", "199%", "--max-evaluations", "30", "--out", str(out)]
    )
    text = capsys.readouterr().out
    assert status == 1 and not out.exists()
    assert "Why the targets are not met" in text and "reachable RTP" in text


def test_time_limit_and_released_shape(drafted):
    res = tune(drafted, Targets(Fraction(96, 100)), time_limit=0.0, progress=False)
    assert res.stopped.startswith("time limit") and not res.feasible
    # released shape: no share bands, the weights only need be >= 1
    free = tune(
        drafted,
        Targets(Fraction(96, 100)),
        Bounds(weight_factor=None, symbol_share=None),
        component_share=None,
        progress=False,
    )
    assert free.component_bands == {} and free.feasible
    assert all(np.all(rv.lo[rv.lo < rv.hi] == 1) for rv in free.space.reels)


def test_time_limit_is_honoured_within_ten_percent(drafted, monkeypatch):
    """Each exact evaluation made to take 0.3 s longer: with a 3 s limit the
    whole run (the report's evaluations included) ends within 3.3 s, no
    evaluation having started that would end past the limit at the longest
    evaluation time, and keeps the best point reached."""
    import time

    import slotmath.tuning.linearmodels as lm

    real = lm.game_figures

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(lm, "game_figures", slow)
    res = tune(drafted, Targets(Fraction(96, 100), Fraction(1, 10**7)), time_limit=3.0, progress=False)
    assert res.stopped.startswith("time limit (3 s)"), res.stopped
    assert res.seconds <= 3.3, res.seconds
    assert res.evaluations >= 2
    assert abs(float(res.after[drafted.levels[0]]["rtp"]) - 0.96) <= abs(
        float(res.before[drafted.levels[0]]["rtp"]) - 0.96
    )
