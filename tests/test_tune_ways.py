"""Tuning a ways game: the ways form (the pay rule's fast figures for tuning)
against a plain-Python brute force over every stop vector of a tiny 3x2 ways
game, and a tuned small ways game's exact RTP recomputed on the written game."""

import copy
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from slotmath.engine.payrule import pay_rule
from slotmath.io.gamefile import load_game
from slotmath.tuning.linearmodels import WaysForms, fast_forms
from slotmath.tuning.reelspace import ReelSpace
from slotmath.tuning.tune import Targets, tune

from conftest import run_cli

# 3 reels x 2 rows; W substitutes for A and B and counts 2 ways per cell
# (per_wild 2); pays are coins per way, the bet 5 coins.
TINY = {
    "name": "tiny_ways",
    "pays_by": "ways",
    "grid": {"reels": 3, "rows": 2},
    "bet": {"levels": [1], "lines": 5},
    "symbols": [
        {"name": "W", "kind": "wild", "substitutes": "all", "multiplier": {"per_wild": 2}},
        {"name": "A"},
        {"name": "B"},
        {"name": "X"},
    ],
    "reels": {
        "base": [
            ["A", "A", "B", "X", "W", "B"],
            ["B", "W", "A", "X", "X", "A", "B"],
            ["A", "B", "B", "X", "W", "X"],
        ]
    },
    "pays": [
        {"symbol": "A", "count": 2, "pay": 1},
        {"symbol": "A", "count": 3, "pay": 4},
        {"symbol": "B", "count": 3, "pay": 3},
    ],
}
PAY = {("A", 2): 1, ("A", 3): 4, ("B", 3): 3}
CELL = {"W": 2}  # ways a wild cell counts


def brute_rtp(strips, weights, rows=2, bet=5) -> Fraction:
    """Ways RTP by every stop vector: per paying symbol, the matching cells
    (wild cells count 2) of each reel from the left, the run, its ways."""
    total, cycle = 0, 0
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        w = 1
        for r, s in enumerate(stops):
            w *= weights[r][s]
        cycle += w
        windows = [[strips[r][(s + k) % len(strips[r])] for k in range(rows)] for r, s in enumerate(stops)]
        for sym in ("A", "B"):
            ways, n = 1, 0
            for win in windows:
                c = sum(CELL.get(x, 1) for x in win if x in (sym, "W"))
                if c == 0:
                    break
                ways, n = ways * c, n + 1
            total += w * ways * PAY.get((sym, n), 0)
    return Fraction(total, cycle * bet)


def weighted(data, weights):
    d = copy.deepcopy(data)
    d["reels"]["base"] = [
        {"symbols": s, "weights": w} for s, w in zip(d["reels"]["base"], weights, strict=True)
    ]
    return d


WEIGHTS = [[3, 1, 2, 5, 1, 2], [1, 2, 4, 1, 3, 2, 2], [2, 2, 1, 3, 1, 4]]


def test_ways_form_is_the_brute_force_rtp(write_game):
    # E and Z per reel by hand from the windows, then the form's RTP and its
    # one-reel coefficients against every stop vector of the tiny game
    strips = TINY["reels"]["base"]
    game = load_game(write_game(weighted(TINY, WEIGHTS)))
    form = pay_rule(game).tuning_form(game, 1)
    assert form.exact
    E = np.zeros((3, 2))
    Z = np.zeros((3, 2))
    for r, strip in enumerate(strips):
        W = sum(WEIGHTS[r])
        for s in range(len(strip)):
            win = [strip[(s + k) % len(strip)] for k in range(2)]
            for p, sym in enumerate(("A", "B")):
                c = sum(CELL.get(x, 1) for x in win if x in (sym, "W"))
                E[r, p] += WEIGHTS[r][s] * c / W
                Z[r, p] += WEIGHTS[r][s] * (c == 0) / W
    want = brute_rtp(strips, WEIGHTS)
    assert form.rtp(E, Z) == pytest.approx(float(want), rel=1e-12)
    assert want == pay_rule(game).channel_rtp(game, 1)[0]  # the engine agrees
    for r in range(3):
        ce, cz, c0 = form.reel_coefficients(E, Z, r)
        assert c0 + ce @ E[r] + cz @ Z[r] == pytest.approx(float(want), rel=1e-12)


def test_ways_forms_exact_in_stop_weights(write_game):
    # weighted reels: the form at moved weights on several reels is the brute
    # force of the game with those weights, and each reel's coefficients
    # give it with the others held
    game = load_game(write_game(weighted(TINY, WEIGHTS)))
    space = ReelSpace(game, "base")
    forms = fast_forms(space, [1])
    assert isinstance(forms, WaysForms) and forms.exact
    xs = [np.array(w, dtype=np.int64) for w in WEIGHTS]
    xs[0][1] += 3
    xs[2][4] = 7
    xs[1][0] += 1
    want = brute_rtp(TINY["reels"]["base"], [x.tolist() for x in xs])
    assert forms.value("win", 1, xs) == pytest.approx(float(want), rel=1e-12)
    for r in range(3):
        a, K = forms.coefficients("win", 1, xs, r)
        assert float(a @ xs[r]) / (K * xs[r].sum()) == pytest.approx(float(want), rel=1e-12)


def test_ways_forms_of_counts_are_exact_at_their_anchor(write_game):
    # symbol counts: E is exact anywhere, Z at the layout of the anchor, so
    # the form is the rule's RTP there (and not claimed exact elsewhere)
    game = load_game(write_game(TINY))
    space = ReelSpace(game, "base")
    forms = fast_forms(space, [1])
    assert not forms.exact and forms.alone.endswith("model]")
    want = brute_rtp(TINY["reels"]["base"], [[1] * len(s) for s in TINY["reels"]["base"]])
    assert forms.value("win", 1, space.x0) == pytest.approx(float(want), rel=1e-12)
    xs = space.x0
    a, K = forms.coefficients("win", 1, xs, 1)
    assert float(a @ xs[1]) / (K * xs[1].sum()) == pytest.approx(float(want), rel=1e-12)


SMALL_WAYS = {
    "name": "small_ways",
    "pays_by": "ways",
    "grid": {"reels": 3, "rows": 3},
    "bet": {"levels": [1, 2], "lines": 10},
    "symbols": [
        {"name": "W", "kind": "wild", "substitutes": "all"},
        {"name": "S", "kind": "scatter"},
        {"name": "H"},
        {"name": "A"},
        {"name": "K"},
        {"name": "Q"},
    ],
    "reels": {
        "base": [
            "Q H K A Q K S Q A K Q H A K Q A K Q H K".split(),
            "K A W Q K H A Q S K A Q H K Q A W K Q A".split(),
            "A Q K H Q A K S Q K A H Q K A Q K H A Q".split(),
        ]
    },
    "pays": [
        {"symbol": "H", "count": 3, "pay": 30},
        {"symbol": "A", "count": 3, "pay": 10},
        {"symbol": "K", "count": 3, "pay": 6},
        {"symbol": "Q", "count": 3, "pay": 5},
    ],
    "scatters": [{"symbol": "S", "count": 3, "pay": 20}],
}


def test_tuned_ways_game_meets_its_target(write_game, tmp_path):
    # the tuned game is written, then its RTP recomputed by slotmath par on
    # the written file: within the tolerance of the target
    path = write_game(SMALL_WAYS)
    game = load_game(path)
    rtp0 = pay_rule(game).channel_rtp(game, 1)[0] + pay_rule(game).scatter_rtp(game, 1)
    target = Fraction(rtp0) - Fraction(3, 100)
    res = tune(path, Targets(rtp=target, tolerance=0.0005), progress=False)
    assert res.feasible and len(res.moves)
    out = tmp_path / "tuned.yaml"
    res.write(out)
    proc = run_cli("par", out, "--json")
    assert proc.returncode == 0, proc.stderr
    rtp = Fraction(json.loads(proc.stdout)["rtp_exact"])
    assert abs(rtp - target) <= Fraction(5, 10000)
    assert abs(float(res.after[1]["rtp"]) - float(rtp)) < 1e-15  # the reported figure is the exact one


def test_tune_refuses_anywhere_pays_in_one_line(write_game):
    from slotmath.io.gamefile import GameFileError

    data = copy.deepcopy(SMALL_WAYS)
    data["pays_by"] = "anywhere"
    data["pays"] = [{"symbol": "H", "count": 3, "pay": 5}]
    with pytest.raises(GameFileError, match="slotmath tune is for line and ways games"):
        tune(write_game(data), Targets(rtp=Fraction(9, 10)), progress=False)


def test_ways_tuning_figures_are_the_par_figures(write_game):
    # the tuner's quick exact figures of a plain ways game (the rule's fast
    # RTP and the scatter pays, no distribution) are the full analysis's
    from slotmath.analysis.metrics import game_figures

    game = load_game(write_game(SMALL_WAYS))
    quick = game_figures(game, 1, "base", {"rtp", "rtp:ways", "rtp:scatters"})
    full = game_figures(game, 1, "base")
    assert "hit_frequency" not in quick and "hit_frequency" in full
    assert quick == {k: full[k] for k in ("rtp", "rtp:ways", "rtp:scatters")}


def test_unreachable_target_is_not_called_proven_on_counts(write_game):
    # symbol counts: the ways form's reach is the approximation's, so a
    # missed target is not declared infeasible from it
    res = tune(write_game(SMALL_WAYS), Targets(rtp=Fraction(5, 100)), time_limit=20, progress=False)
    assert not res.feasible
    verdict = res.feasibility
    assert verdict["verdict"] != "infeasible"
    assert "ways form is an approximation" in verdict["statement"]
