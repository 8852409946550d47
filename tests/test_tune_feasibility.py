"""A missed target says whether it is out of reach under the bounds (and
which limits bind) or whether the budget ran out with the best point reached.

Both on tiny games: ``tune_small`` (3x3, 18 stops) cannot fall to 20 %
with its default shape bounds; ``tune_mid`` (3x3, 36 stops) can reach 94 %
with the shape released but not in two exact evaluations.
"""

from __future__ import annotations

import json
from fractions import Fraction

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.tuning.reelspace import Bounds
from slotmath.tuning.tune import Targets, tune

from conftest import TEST_DATA

SMALL, MID = TEST_DATA / "tune_small", TEST_DATA / "tune_mid"


def test_an_infeasible_target_names_the_bound_that_binds():
    res = tune(load_game(SMALL), Targets(Fraction(20, 100)), max_evaluations=30, progress=False)
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "infeasible"
    lo, hi = res.reachable_rtp()[1]
    assert 0.20 + res.targets.tolerance < lo < float(res.before[1]["rtp"]) < hi
    # the best point reached is inside the reachable range, no lower than its low end
    assert lo - 1e-9 <= f["best_rtp"] == float(res.after[1]["rtp"])
    assert f"{lo:.4%}" in f["statement"] and "below the lowest" in f["statement"]
    # each bound named is one the relaxation's lowest point sits on: a unit
    # at its lower limit there, strictly below the draft's count
    x_low = res.reach_points[1][0]
    units = [b for b in f["binds"] if b.split()[3:5] == ["at", "its"]]
    assert units
    for text in units:
        reel, unit, limit = text.split()[1], text.split()[2], int(text.rsplit(" ", 1)[1])
        rv = res.space.reels[int(reel) - 1]
        u = rv.labels.index(unit)
        assert x_low[int(reel) - 1][u] == rv.lo[u] == limit < rv.x0[u]


def test_a_spent_budget_is_not_called_infeasible():
    game = load_game(MID)
    res = tune(
        game,
        Targets(Fraction(94, 100)),
        max_evaluations=2,
        component_share=None,
        progress=False,
        bounds=Bounds(weight_factor=None, symbol_share=None, symmetric=False),
    )
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "stopped"
    assert res.stopped == "evaluation budget (2) spent" and res.stopped in f["statement"]
    lo, hi = res.reachable_rtp()[1]
    assert lo < 0.94 < hi and "not shown infeasible" in f["statement"]
    best = float(res.after[1]["rtp"])
    assert f["best_rtp"] == best and f"RTP {best:.6%}" in f["statement"]
    miss = abs(best - 0.94) - res.targets.tolerance
    assert f"rtp (bet 1) missed by {miss:.6%}" in f["statement"]


def test_feasibility_on_the_command_line(capsys):
    status = main(["tune", str(SMALL), "--target-rtp", "20%", "--max-evaluations", "30", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["feasibility"]["verdict"] == "infeasible"
    assert data["feasibility"]["binds"]
    status = main(["tune", str(MID), "--target-rtp", "94%", "--shape", "off", "--max-evaluations", "2"])
    text = capsys.readouterr().out
    assert status == 1
    line = next(ln for ln in text.splitlines() if ln.startswith("feasibility: "))
    assert "not shown infeasible" in line and "evaluation budget (2) spent" in line
