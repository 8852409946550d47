"""Tuning reel strips and weight tables together (``slotmath tune --reel-set base --table PATH``).

The game is ``tune_hold`` (3x3, 5 lines, 3 COIN start a hold-and-spin;
coin values 1, 2, 5, MINI 10, MAJOR 50 x total bet weighted 600, 300, 80,
15, 5): RTP 89.634199 % (lines 37.442130 %, hold-and-spin 52.192069 %),
hit frequency 47.337963 %.  The pair of targets: RTP 97 % and a hit
frequency of at least 49 %, the strips' WILD and A held (``--fix``).

* The tables alone cannot: the hit frequency is a figure of the base
  strips, which they do not move (it stays 47.337963 %).
* The strips alone cannot: with the COIN held (a special symbol) and each
  strip's length held, the trigger probability and so the hold-and-spin's
  RTP ``T N E[V] + F 200`` do not move, and the lines, with WILD and A
  held, reach at most 95.94 % in all (the relaxation).
* Together they can: the strips raise the hit frequency and the lines, the
  coin values the feature's RTP.

Every figure checked is recomputed exactly on the written game file.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.tuning.jointtune import tune_joint
from slotmath.tuning.reelspace import Bounds
from slotmath.tuning.targets import Targets

from conftest import TEST_DATA

HOLD = TEST_DATA / "tune_hold"
TABLE = "options.hold_and_spin.values"
VALUES = (1, 2, 5, 10, 50)  # x total bet: the prizes and the MINI / MAJOR jackpots
GRAND = 200
PAIR = ["--target-rtp", "97%", "--hit-frequency", "49%:60%", "--fix", "WILD", "--fix", "A"]
TOL = 0.00005  # the default tolerance, 0.005 pp


def feature_rtp(figs: dict, weights) -> float:
    """The hold-and-spin RTP by hand: ``T N E[V] + F 200`` (``E[V] = sum w v / sum w``)."""
    mean = Fraction(sum(w * v for w, v in zip(weights, VALUES, strict=True)), sum(weights))
    t = figs["feature:hold_and_spin.trigger_probability"]
    n = figs["feature:hold_and_spin.coins_at_end_mean"]
    f = figs["feature:hold_and_spin.full_screen_probability"]
    return t * n * float(mean) + f * GRAND


def count(strip, symbol: str) -> int:
    return sum(1 for s in strip.symbols if s == symbol)


def run_json(args, capsys) -> tuple:
    code = main(["tune", str(HOLD), *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_each_alone_is_infeasible(capsys):
    figs0 = game_figures(load_game(HOLD), 1)
    # the strips alone: the RTP target is above their reach (the relaxation)
    code, res = run_json(PAIR, capsys)
    f = res["feasibility"]
    assert code == 1 and f["verdict"] == "infeasible" and "above the highest" in f["statement"]
    after = {r["figure"]: r["after"] for r in res["figures"] if r["level"] == 1}
    assert after["rtp:hold_and_spin"] == pytest.approx(float(figs0["rtp:hold_and_spin"]), abs=1e-15)
    # the tables alone: no weight moves the hit frequency, so its band cannot hold
    code, res = run_json([*PAIR[:4], "--table", TABLE], capsys)
    f = res["feasibility"]
    assert code == 1 and f["verdict"] == "infeasible"
    assert f["binds"] == ["hit_frequency at its lower limit 49.000000%"]


def test_both_together_meet_the_pair(tmp_path, capsys):
    out = tmp_path / "tuned" / "game.yaml"
    code, res = run_json([*PAIR, "--reel-set", "base", "--table", TABLE, "--out", str(out)], capsys)
    assert code == 0 and res["targets_met"] and res["written"] == str(out)
    assert res["units_moved"]["strips"] > 0 and res["units_moved"]["tables"] > 0
    # the written game's exact figures, recomputed
    game, draft = load_game(out), load_game(HOLD)
    for level in game.levels:
        figs = game_figures(game, level)
        assert abs(float(figs["rtp"]) - 0.97) <= TOL
        assert 0.49 <= float(figs["hit_frequency"]) <= 0.60
    # the strips written are the reported ones; WILD, A and COIN held, lengths held
    for r, (a, b) in enumerate(zip(draft.strips("base"), game.strips("base"), strict=True)):
        assert list(b.symbols) == res["strips"][f"reel{r + 1}"]
        assert len(a.symbols) == len(b.symbols)
        assert all(count(a, s) == count(b, s) for s in ("WILD", "A", "COIN"))
    # the weights written are the reported ones: total held, each within x2 of the file's
    before, after = res["tables_before"][TABLE], res["tables"][TABLE]
    assert after != before and sum(after) == sum(before) == 1000
    assert all(-(-b // 2) <= a <= 2 * b for a, b in zip(after, before, strict=True))
    assert [row["weight"] for row in game.options["hold_and_spin"]["values"]] == after
    # the feature's RTP by the hand formula on the written weights (T, N, F of the written strips)
    figs = game_figures(game, 1)
    assert feature_rtp(figs, after) == pytest.approx(float(figs["rtp:hold_and_spin"]), rel=1e-12)
    # the file keeps its layout: one strip per line, only strip and weight lines changed
    old, new = (HOLD / "game.yaml").read_text().splitlines(), out.read_text().splitlines()
    assert len(old) == len(new)
    changed = [b for a, b in zip(old, new, strict=True) if a != b]
    assert changed and all(line.lstrip().startswith(("- [", "- {prize:")) for line in changed)


def test_a_share_band_needs_the_bands_first_step(tmp_path, capsys):
    # RTP 92 % with the hold-and-spin at 56-58 %: the lines must fall to
    # 34-36 % (from 37.44 %) and the feature rise (from 52.19 %).  The strips
    # alone cannot move the feature (COIN and the lengths held: T fixed); the
    # tables alone cannot move the lines (37.44 % + 56 % > 92 %).  With the
    # RTP on target a table block cannot raise the feature's share (one for
    # one with the total), so a bands-first table block (the RTP free) is
    # needed, after which the strips bring the RTP back.
    figs0 = game_figures(load_game(HOLD), 1)
    band = ["--target-rtp", "92%", "--figure", "rtp:hold_and_spin=56%:58%"]
    code, res = run_json(band, capsys)
    after = {r["figure"]: r["after"] for r in res["figures"] if r["level"] == 1}
    assert code == 1 and after["rtp:hold_and_spin"] == pytest.approx(
        float(figs0["rtp:hold_and_spin"]), abs=1e-15
    )
    code, res = run_json([*band, "--table", TABLE], capsys)
    assert code == 1 and res["feasibility"]["verdict"] == "infeasible"
    assert res["feasibility"]["binds"] == ["rtp:hold_and_spin at its lower limit 56.000000%"]
    out = tmp_path / "game.yaml"
    code, res = run_json([*band, "--reel-set", "base", "--table", TABLE, "--out", str(out)], capsys)
    assert code == 0 and res["targets_met"]
    assert "tables, bands first" in [r["block"] for r in res["rounds"]]
    game = load_game(out)
    for level in game.levels:
        figs = game_figures(game, level)
        assert abs(float(figs["rtp"]) - 0.92) <= TOL and 0.56 <= float(figs["rtp:hold_and_spin"]) <= 0.58
    weights = [row["weight"] for row in game.options["hold_and_spin"]["values"]]
    figs = game_figures(game, 1)
    assert feature_rtp(figs, weights) == pytest.approx(float(figs["rtp:hold_and_spin"]), rel=1e-12)


def test_text_report_names_both_blocks(capsys):
    code = main(["tune", str(HOLD), *PAIR, "--reel-set", "base", "--table", TABLE])
    text = capsys.readouterr().out
    assert code == 0
    for head in ("What moved: reel strips", "What moved: weight tables", "Rounds", "Strips", "Figures"):
        assert head in text


def test_a_spent_budget_is_stated():
    res = tune_joint(
        HOLD,
        Targets(Fraction(97, 100), bands={"hit_frequency": (0.49, 0.6)}),
        [TABLE],
        Bounds(fixed=("WILD", "A", "COIN")),
        "base",
        max_evaluations=4,
        progress=False,
    )
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "stopped"
    assert "evaluation budget (4) spent" in f["statement"] and res.evaluations <= 4 + 1


def test_out_of_reach_stalls_and_names_the_limits():
    # a hit frequency of 70 %: not reached with WILD and A held (the strips
    # reach 52.4 % with the RTP near 97 %); the run ends when neither block improves
    res = tune_joint(
        HOLD,
        Targets(Fraction(97, 100), bands={"hit_frequency": (0.7, None)}),
        [TABLE],
        Bounds(fixed=("WILD", "A", "COIN")),
        "base",
        progress=False,
    )
    f = res.feasibility
    assert not res.feasible and f["verdict"] in ("stalled", "stopped")
    assert f["statement"].startswith("not shown infeasible") and f["binds"]
    # the reported figures are the tuned game's, recomputed
    figs = game_figures(res.strips.tuned, 1)
    assert float(figs["rtp"]) == pytest.approx(float(res.strips.after[1]["rtp"]), abs=1e-15)


def test_a_time_limit_is_honoured():
    res = tune_joint(
        HOLD,
        Targets(Fraction(97, 100), bands={"hit_frequency": (0.7, None)}),
        [TABLE],
        Bounds(fixed=("WILD", "A", "COIN")),
        "base",
        time_limit=3.0,
        progress=False,
    )
    assert res.seconds <= 3.0 * 1.1 and res.stopped == "time limit (3 s) reached"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table", TABLE, "--free", "COIN"], "add --reel-set NAME to tune the strips of that reel set"),
        (["--table", TABLE, "--reel-set", "nope"], "no reel set 'nope'"),
        (["--table", "nope", "--reel-set", "base"], "has no such weight table"),
    ],
)
def test_bad_input_is_one_line(args, message, capsys):
    code = main(["tune", str(HOLD), "--target-rtp", "92%", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and message in err


def test_python_api_routes_reel_set_with_tables():
    import slotmath

    res = slotmath.tune(
        HOLD,
        Targets(Fraction(97, 100), bands={"hit_frequency": (0.49, 0.6)}),
        Bounds(fixed=("WILD", "A", "COIN")),
        tables=TABLE,
        reel_set="base",
        progress=False,
    )
    assert isinstance(res.strips.tuned, type(load_game(HOLD))) and res.feasible
    assert res.units_moved["strips"] > 0 and res.units_moved["tables"] > 0


def test_nothing_moved_says_why(capsys):
    rtp = float(game_figures(load_game(HOLD), 1)["rtp"])
    code = main(["tune", str(HOLD), "--target-rtp", f"{rtp:.10f}", "--reel-set", "base", "--table", TABLE])
    text = capsys.readouterr().out
    assert code == 0 and "nothing moved on the strips: every target is met by the game file" in text
    assert "nothing moved in the tables" in text


@pytest.mark.parametrize(
    ("target", "side", "weights"),
    [
        # the highest mean coin value within the limits (tests/test_tune_tables.py): E[V] = 2.9
        (Fraction(140, 100), "above the highest", [300, 500, 160, 30, 10]),
        # the lowest: 1 up to 799 (the others at their lower limits 150, 40, 8, 3),
        #   E[V] = (799 x 1 + 150 x 2 + 40 x 5 + 8 x 10 + 3 x 50) / 1000 = 1529 / 1000
        (Fraction(50, 100), "below the lowest", [799, 150, 40, 8, 3]),
    ],
)
def test_joint_infeasible_is_proven_with_the_bound_that_binds(target, side, weights):
    # COIN, WILD and A held: the feature is T N E[V] + F 200 with T, N, F fixed by the
    # strips' relaxation class; the joint bound is the table's linear programme over
    # the strips' reach with every draw on one coin value (jointtune's notes)
    res = tune_joint(
        HOLD, Targets(target), [TABLE], Bounds(fixed=("WILD", "A", "COIN")), "base", max_evaluations=10,
        progress=False,
    )  # fmt: skip
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "infeasible" and res.reach_why == ""
    assert f"{side} RTP the strips and the tables reach together at bet 1" in f["statement"]
    lo, hi, binds_lo, binds_hi = res.reach[1]
    binds = binds_hi if side.startswith("above") else binds_lo
    assert f["binds"] == binds and binds[-1] == "the strips at their relaxation's end"
    limits = {"above the highest": ["1 at its lower limit 300", "5 at its upper limit 160",
                                    "MINI at its upper limit 30", "MAJOR at its upper limit 10"],
              "below the lowest": ["2 at its lower limit 150", "5 at its lower limit 40",
                                   "MINI at its lower limit 8", "MAJOR at its lower limit 3"]}  # fmt: skip
    assert binds[:-1] == [f"{TABLE} {b}" for b in limits[side]]
    # a valid bound: the file's strips with the table at that end lie inside it, by hand
    figs0 = game_figures(load_game(HOLD), 1)
    at_end = float(figs0["rtp:lines"]) + feature_rtp(figs0, weights)
    assert lo - 1e-12 <= at_end <= hi + 1e-12
    # and the best point the run reached, recomputed exactly, too
    best = float(game_figures(res.strips.tuned, 1)["rtp"])
    assert lo - 1e-12 <= best <= hi + 1e-12


def test_joint_reach_within_says_not_shown_infeasible():
    # 100 %: within the joint reach (about 79.4 % .. 104.8 %), missed on a budget of 4
    res = tune_joint(
        HOLD, Targets(Fraction(1)), [TABLE], Bounds(fixed=("WILD", "A", "COIN")), "base", max_evaluations=4,
        progress=False,
    )  # fmt: skip
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "stopped"
    lo, hi = res.reach[1][:2]
    assert lo < 1 < hi
    assert f["statement"].startswith("not shown infeasible (the target RTP is within the reach of strips")


def test_joint_reach_of_two_tables_bounds_their_corners():
    # tune_hold_start: tune_hold with the trigger's coins drawn from start_values
    # (1 or 5, weights 2 and 1): the RTP is affine in each table's draw
    # probabilities, so the bound is the linear programme over joint draws
    # of one entry per table (5 x 2 combinations, each one strip reach)
    game = TEST_DATA / "tune_hold_start"
    start = "options.hold_and_spin.start_values"
    res = tune_joint(
        game, Targets(Fraction(150, 100)), [TABLE, start], Bounds(fixed=("WILD", "A", "COIN")), "base",
        max_evaluations=10, progress=False,
    )  # fmt: skip
    f = res.feasibility
    assert (
        f["verdict"] == "infeasible" and "above the highest RTP the strips and the tables" in f["statement"]
    )
    lo, hi, _, binds = res.reach[1]
    # the highest means: values as in tune_hold (E[V] 2.9), start values 1 -> its lower
    # limit 1 and 5 -> its upper limit 2 (the total 3 held, each weight within x2)
    assert binds[-3:-1] == [f"{start} 1 at its lower limit 1", f"{start} 5 at its upper limit 2"]
    tops = ["1 at its lower limit 300", "5 at its upper limit 160", "MINI at its upper limit 30",
            "MAJOR at its upper limit 10"]  # fmt: skip
    assert binds[:4] == [f"{TABLE} {b}" for b in tops]
    # every corner of the two tables' limits with the file's strips lies inside, exactly evaluated
    from slotmath.tuning.tablespace import TableSpace

    space = TableSpace(load_game(game), [TABLE, start])
    for values in ([300, 500, 160, 30, 10], [799, 150, 40, 8, 3]):
        for starts in ([1, 2], [2, 1]):
            x = [np.array(values), np.array(starts)]
            rtp = float(game_figures(space.game_for(x), 1)["rtp"])
            assert lo - 1e-12 <= rtp <= hi + 1e-12
    assert lo - 1e-12 <= float(game_figures(res.strips.tuned, 1)["rtp"]) <= hi + 1e-12
