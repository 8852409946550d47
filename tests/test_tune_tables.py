"""Tuning a feature's weight tables (``slotmath tune --table``), the strips held.

``tune_hold`` is a 3x3, 5-line hold-and-spin (3 COIN start it; coin values
1, 2, 5, MINI 10, MAJOR 50 x total bet with weights 600, 300, 80, 15, 5;
GRAND 200 on a full screen): lines 37.442130 %, hold-and-spin 52.192069 %.
Its coin values are drawn independently of the rest of the round, so the
feature's RTP is ``T * N * E[V] + F * 200`` with ``T`` the trigger
probability, ``N`` the mean coins at the end, ``F`` the full-screen
probability (none of which the value weights change) and ``E[V]`` the mean
coin value ``sum(w v) / sum(w)``: the tests check the tuned file against
that hand formula, and the RTP itself with ``par`` on the written file.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.io.gamewriter import write_game
from slotmath.tuning.tablespace import weight_tables
from slotmath.tuning.tabletune import tune_tables
from slotmath.tuning.targets import Targets

from conftest import TEST_DATA

HOLD = TEST_DATA / "tune_hold"
TABLE = "options.hold_and_spin.values"
VALUES = (1, 2, 5, 10, 50)  # x total bet: the prizes and the MINI / MAJOR jackpots
GRAND = 200


def coin_mean(weights) -> Fraction:
    """E[V] of one coin [x total bet]."""
    return Fraction(sum(w * v for w, v in zip(weights, VALUES, strict=True)), sum(weights))


def feature_rtp(figs: dict, weights) -> float:
    """The hold-and-spin RTP by the hand formula of the module notes."""
    t = figs["feature:hold_and_spin.trigger_probability"]
    n = figs["feature:hold_and_spin.coins_at_end_mean"]
    f = figs["feature:hold_and_spin.full_screen_probability"]
    return t * n * float(coin_mean(weights)) + f * GRAND


def test_weight_tables_found():
    tables = weight_tables(load_game(HOLD))
    assert list(tables) == [TABLE]
    t = tables[TABLE]
    assert t.labels == ("1", "2", "5", "MINI", "MAJOR") and list(t.x0) == [600, 300, 80, 15, 5]
    wheel = weight_tables(load_game("pick_and_wheel"))
    assert set(wheel) == {"options.wheel.segments", "options.selection.choices"}
    assert list(wheel["options.wheel.segments"].x0) == [50, 30, 15, 5]


def test_hand_formula_on_the_game_file():
    figs = game_figures(load_game(HOLD), 1)
    assert feature_rtp(figs, [600, 300, 80, 15, 5]) == pytest.approx(
        float(figs["rtp:hold_and_spin"]), rel=1e-12
    )


def test_tuned_to_a_target_by_the_prize_weights_alone(tmp_path, capsys):
    out = tmp_path / "tuned" / "game.yaml"
    code = main(["tune", str(HOLD), "--target-rtp", "92%", "--table", TABLE, "--out", str(out), "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["targets_met"] and res["written"] == str(out)
    before, after = res["tables_before"][TABLE], res["tables"][TABLE]
    # total held, each weight within a factor 2 and at least 1, something moved
    assert sum(after) == sum(before) == 1000 and after != before
    assert all(max(1, -(-b // 2)) <= a <= 2 * b for a, b in zip(after, before, strict=True))
    # the written file: the weights in place, every other line as it was
    old = (HOLD / "game.yaml").read_text().splitlines()
    new = out.read_text().splitlines()
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(old) == len(new) and changed
    assert all("weight:" in a and a.split("weight:")[0] == b.split("weight:")[0] for a, b in changed)
    # its exact RTP, read back by par, within the tolerance
    tuned, game = load_game(out), load_game(HOLD)
    assert tuned.strips("base") == game.strips("base") and tuned.strips("feature") == game.strips("feature")
    figs = game_figures(tuned, 1)
    assert abs(figs["rtp"] - Fraction(92, 100)) <= Fraction(5, 100000)
    assert float(figs["rtp"]) == pytest.approx(res["feasibility"]["best_rtp"], abs=1e-15)
    # by the hand formula: lines unchanged plus T N E[V] + F GRAND with the tuned weights
    figs0 = game_figures(game, 1)
    assert figs["rtp:lines"] == figs0["rtp:lines"]
    assert float(figs["rtp:hold_and_spin"]) == pytest.approx(feature_rtp(figs0, after), rel=1e-12)
    # each component's share within +-25 % of its share in the file, at the target
    for part in ("rtp:lines", "rtp:hold_and_spin"):
        share0 = float(figs0[part] / figs0["rtp"])
        assert share0 * 0.75 * 0.92 <= float(figs[part]) <= share0 * 1.25 * 0.92


def test_infeasible_on_the_weights_alone_names_the_bound(capsys):
    # the highest mean coin value with each weight within a factor 2 and the
    # total held at 1000: the lowest value, 1, down to its limit 300 (-300);
    # 5, MINI and MAJOR up to theirs, 160, 30, 10 (+100); the other 200 to 2
    # (300 -> 500, below its limit 600, and above the mean 1.x of what it replaces):
    #   E[V] = (300 x 1 + 500 x 2 + 160 x 5 + 30 x 10 + 10 x 50) / 1000 = 2.9
    game = load_game(HOLD)
    figs0 = game_figures(game, 1)
    top = float(figs0["rtp:lines"]) + feature_rtp(figs0, [300, 500, 160, 30, 10])
    code = main(["tune", str(HOLD), "--target-rtp", "110%", "--table", TABLE, "--json"])
    res = json.loads(capsys.readouterr().out)
    f = res["feasibility"]
    assert code == 1 and not res["targets_met"] and f["verdict"] == "infeasible"
    assert "above the highest" in f["statement"] and f"{top:.6%}" in f["statement"]
    assert f["binds"] == [
        f"{TABLE} 1 at its lower limit 300",
        f"{TABLE} 5 at its upper limit 160",
        f"{TABLE} MINI at its upper limit 30",
        f"{TABLE} MAJOR at its upper limit 10",
    ]
    # the best point is no higher than the top
    assert f["best_rtp"] <= top + 1e-12


def test_a_share_band_that_binds_is_named():
    # 95 % is within the weights' reach but, with each share within +-5 %
    # of the file's (lines 41.77 %, hold-and-spin 58.23 % of 89.63 %), the
    # lines (37.44 %, held) would need at least 41.77 % x 0.95 of 95 % = 37.70 %
    figs0 = game_figures(load_game(HOLD), 1)
    lower = float(figs0["rtp:lines"] / figs0["rtp"]) * 0.95 * 0.95
    assert float(figs0["rtp:lines"]) < lower
    res = tune_tables(HOLD, Targets(Fraction(95, 100)), [TABLE], component_share=0.05, progress=False)
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "infeasible"
    assert f["binds"] == [f"rtp:lines at its lower limit {lower:.6%}"]
    assert "--component-share" in f["statement"]


def test_nothing_moved_says_why(capsys):
    rtp = float(game_figures(load_game(HOLD), 1)["rtp"])
    code = main(["tune", str(HOLD), "--target-rtp", f"{rtp:.10f}", "--table", TABLE])
    text = capsys.readouterr().out
    assert code == 0 and "nothing moved: every target is met by the weights in the game file" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table", "options.wheel.segments"], "has no such weight table (weight tables: " + TABLE + ")"),
        (["--table", TABLE, "--free", "COIN"], "--table: --free is an option of the strip tuner"),
        (["--table", TABLE, "--symbol-share", "0.01"], "--table: --symbol-share is an option of the strip"),
        (["--table", TABLE, "--verbose"], "--table: --verbose is an option of the strip tuner"),
        (["--table", TABLE, "--table", TABLE], "named twice"),
        (["--table", "all", "--table", TABLE], "give it alone"),
        (["--table", TABLE, "--table-scale", "0"], "--table-scale: 0 is below 1"),
        (
            ["--table", TABLE, "--mode", "buy"],
            "bet mode tuned 'buy': tune_hold has no such mode (modes: base)",
        ),
    ],
)
def test_bad_input_is_one_line(args, message, capsys):
    code = main(["tune", str(HOLD), "--target-rtp", "92%", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and message in err


def test_scale_refines_the_steps():
    res = tune_tables(HOLD, Targets(Fraction(92, 100)), [TABLE], scale=3, progress=False)
    assert res.feasible and sum(res.x_after[0]) == 3000 and list(res.x_before[0]) == [1800, 900, 240, 45, 15]


def test_writer_replaces_the_weights_in_place(tmp_path):
    game = load_game("pick_and_wheel")
    out = write_game(game, {}, tmp_path / "game.yaml", weights={"options.wheel.segments": [40, 40, 15, 5]})
    assert [s["weight"] for s in load_game(out).options["wheel"]["segments"]] == [40, 40, 15, 5]
    old = Path(game.source).read_text().splitlines()
    diff = [(a, b) for a, b in zip(old, out.read_text().splitlines(), strict=True) if a != b]
    assert diff == [
        ("      - {prize: 5, weight: 50}", "      - {prize: 5, weight: 40}"),
        ("      - {prize: 10, weight: 30}", "      - {prize: 10, weight: 40}"),
    ]


def test_reel_tuner_nothing_moved_says_why_and_points_to_the_tables(capsys):
    # every symbol held: no strip can move, so the reel tuner says why and
    # names the weight tables that --table tunes instead
    held = [a for s in ("WILD", "A", "K", "Q", "J") for a in ("--fix", s)]
    code = main(["tune", str(HOLD), "--target-rtp", "92%", *held, "--json", "--max-evaluations", "10"])
    res = json.loads(capsys.readouterr().out)
    assert code == 1 and res["moves"] == []
    why = res["nothing_moved_why"]
    assert why.startswith("infeasible under the bounds") and f"({TABLE}) are not reel strips: --table" in why


def test_table_sensitivities_by_hand(capsys):
    # +1 on MAJOR (50 x total bet): E[V] goes from 2000/1000 to 2050/1001,
    # i.e. up by 48/1001; -1 on 1: to 1999/999, up by 1/999; the RTP moves
    # by T N times that (lines and full screens do not move)
    figs = game_figures(load_game(HOLD), 1)
    tn = figs["feature:hold_and_spin.trigger_probability"] * figs["feature:hold_and_spin.coins_at_end_mean"]
    code = main(["sensitivities", str(HOLD), "--table", TABLE, "--figures", "rtp,hit_frequency", "--json"])
    rows = {r["entry"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert code == 0 and list(rows) == ["1", "2", "5", "MINI", "MAJOR"]
    assert rows["MAJOR"]["rtp +1"] == pytest.approx(tn * 48 / 1001, rel=1e-9)
    assert rows["1"]["rtp -1"] == pytest.approx(tn / 999, rel=1e-9)
    assert rows["2"]["rtp +1"] == pytest.approx(0, abs=1e-15)  # 2 is the mean coin value
    assert rows["MAJOR"]["hit_frequency +1"] == 0  # the weights do not change what wins
    # the exact derivative: T N (v - E[V]) / W, E[V] = 2, W = 1000
    assert rows["MAJOR"]["rtp d/dw"] == pytest.approx(tn * 48 / 1000, rel=1e-9)
    assert rows["2"]["rtp d/dw"] == 0


def test_wild_multiplier_pairs_by_hand(tmp_path, capsys):
    # tune_wildmult: RTP = 3/16 + m/8 with m the mean drawn multiplier (its
    # file's notes).  48 % needs m = (12/25 - 3/16) x 8 = 2.34, i.e. a share
    # 0.34 of x3: with the weights scaled x10 (total 400), x3 = 136, x2 = 264,
    # the only whole weights within the tolerance (one unit moves the RTP by
    # 1/400/8 = 0.03125 pp)
    out = tmp_path / "game.yaml"
    game = TEST_DATA / "tune_wildmult"
    table = "options.wild_multipliers.table"
    args = ["--target-rtp", "48%", "--table", table, "--table-scale", "10", "--out", str(out), "--json"]
    code = main(["tune", str(game), *args])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["tables_before"][table] == [300, 100] and res["tables"][table] == [264, 136]
    tuned = load_game(out)
    assert tuned.options["wild_multipliers"]["table"] == [[2, 264], [3, 136]]
    assert (
        game_figures(tuned, 1)["rtp"]
        == Fraction(3, 16) + Fraction(2 * 264 + 3 * 136, 400) / 8
        == Fraction(12, 25)
    )
    # the rows edited in place, their comments kept
    assert "      - [2, 264]   # x2\n      - [3, 136]   # x3\n" in out.read_text()


def test_a_game_the_exact_engine_refuses_is_refused_in_one_line(capsys, monkeypatch):
    # drawn_wild_lines: its drawn multipliers written as stops exceed the
    # exact counts, and with the window bound set below its free reels'
    # 3.72e+08 windows par refuses it too, giving only the RTP
    from slotmath.features import drawnlaw

    monkeypatch.setattr(drawnlaw, "MAX_DRAWN_WINDOWS", 10**8)
    code = main(["tune", str(TEST_DATA / "drawn_wild_lines"), "--target-rtp", "95%", "--table", "all"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "--table: the exact figures are refused, so the tables cannot be tuned:" in err


def test_python_api():
    import slotmath

    res = slotmath.tune(
        TEST_DATA / "tune_wildmult", 0.48, tables="options.wild_multipliers.table", scale=10, progress=False
    )
    assert res.feasible and [list(x) for x in res.x_after] == [[264, 136]]
    assert res.after[1]["rtp"] == Fraction(12, 25)


def test_a_time_limit_stops_with_the_best_point():
    res = tune_tables(HOLD, Targets(Fraction(97, 100)), [TABLE], time_limit=0.01, progress=False)
    f = res.feasibility
    assert not res.feasible and res.stopped == "time limit reached" and f["verdict"] == "stopped"
    assert "not shown infeasible" in f["statement"] and f["best_rtp"] == float(res.after[1]["rtp"])


def test_a_spent_budget_is_stated():
    res = tune_tables(HOLD, Targets(Fraction(92, 100)), [TABLE], max_evaluations=3, progress=False)
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "stopped"
    assert "evaluation budget (3) spent" in f["statement"] and "within reach" in f["statement"]


def test_nothing_moved_when_the_weights_move_no_figure(tmp_path, capsys):
    # every coin value 2 x total bet: the weights change no figure at all
    text = (HOLD / "game.yaml").read_text().replace("{MINI: 10, MAJOR: 50, GRAND: 200}", "{GRAND: 200}")
    for prize in ("1", "5", "MINI", "MAJOR"):
        text = text.replace(f"{{prize: {prize}, weight:", "{prize: 2, weight:")
    (tmp_path / "game.yaml").write_text(text)
    code = main(["tune", str(tmp_path), "--target-rtp", "95%", "--table", TABLE, "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 1 and res["units_moved"] == 0
    assert res["nothing_moved_why"].startswith("no figure judged changes with these weights")


def test_infeasible_only_where_the_figure_is_linear_in_the_weights(tmp_path):
    wild = TEST_DATA / "tune_wildmult"
    table = ["options.wild_multipliers.table"]
    # one M per line: RTP = 3/16 + m/8 is linear in P(x3); at most m = (2 x 20
    # + 3 x 20) / 40 = 5/2 (x3 at its limit 2 x 10, x2 down to 20): RTP 1/2
    res = tune_tables(wild, Targets(Fraction(60, 100)), table, progress=False)
    f = res.feasibility
    assert f["verdict"] == "infeasible" and "(50.000000%, that end evaluated exactly)" in f["statement"]
    assert f["binds"] == ["options.wild_multipliers.table x3 at its upper limit 20"]
    # an M on reel 1 too: the lines with two M pay m^2, the RTP is not linear
    # in the weights, so the relaxation's end proves nothing and is not called infeasible
    text = (wild / "game.yaml").read_text().replace("    - [A, B, A, B]", "    - [A, B, M, B]")
    (tmp_path / "game.yaml").write_text(text)
    res = tune_tables(tmp_path, Targets(Fraction(150, 100)), table, progress=False)
    f = res.feasibility
    assert not res.feasible and f["verdict"] == "stalled"
    assert "the RTP is not linear in the weights, so their reach is not proven" in f["statement"]
