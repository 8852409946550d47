"""Tuning per bet mode (``slotmath tune --mode``, ``--target-rtp MODE=RTP``):
the tuned mode's RTP per unit of cost meets its target, several modes'
targets are met at once on the reels they share, a miss names the mode and
by how much, and bad mode names end with one line and exit status 2.  Every
figure is checked against ``par`` of the mode on the written file
(:func:`slotmath.rules.modepar.mode_par`, itself checked against brute force
in tests/test_modes.py)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import slotmath
from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.modepar import mode_par
from slotmath.tuning.reelspace import Bounds
from slotmath.tuning.targets import Targets

from conftest import TEST_DATA

MODES = TEST_DATA / "tune_modes"  # base; ante (cost 5/4, base spin on 'ante'); buy (free games on 'base')


def tune_json(args, capsys) -> tuple:
    status = main(["tune", str(MODES), *args, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_tune_mode_meets_its_target_and_the_written_file_agrees(tmp_path, capsys):
    """``--mode ante`` tunes the reel set the ante's base spin plays
    (``ante``) to the ante's RTP per unit of its cost; ``par --mode ante``
    of the written file gives that RTP, and the other modes do not move."""
    out = tmp_path / "game.yaml"
    status, data = tune_json(
        ["--mode", "ante", "--target-rtp", "105%", "--tolerance", "0.05%", "--out", str(out)], capsys
    )
    assert status == 0 and data["targets_met"], data
    assert data["reel_set"] == "ante" and data["mode"] == "ante" and data["written"]
    game, tuned = load_game(MODES), load_game(out)
    assert tuned.strips("base") == game.strips("base") and tuned.strips("ante") != game.strips("ante")
    for level in game.levels:
        ante = mode_par(tuned, "ante", level)
        assert abs(ante.rtp - Fraction("1.05")) <= Fraction("0.0005")
        # the figure the tuner reported is the mode's par figure, exactly
        row = next(r for r in data["figures"] if r["level"] == level and r["figure"] == "rtp")
        assert row["after exact"] == f"{ante.rtp.numerator}/{ante.rtp.denominator}"
        assert ante.rtp == ante.par.rtp / Fraction(5, 4)  # per unit of the ante's cost
        for other in ("base", "buy"):
            assert mode_par(tuned, other, level).rtp == mode_par(game, other, level).rtp


def test_two_modes_sharing_the_reels_are_tuned_at_once(tmp_path, capsys):
    """The base game and the buy both play reel set ``base`` (the free games
    run on it): lowering the line pays moves both RTPs, and the buy's RTP
    relative to the base's is set by the STAR frequency (the buy plays no
    base spin), so with STAR released both targets are met together."""
    out = tmp_path / "game.yaml"
    args = ["--target-rtp", "base=96%", "--target-rtp", "buy=87.4%", "--tolerance", "0.05%"]
    args += ["--free", "STAR", "--component-share", "off", "--out", str(out)]
    status, data = tune_json(args, capsys)
    assert status == 0 and data["targets_met"], data
    assert data["mode"] == "base" and data["mode_targets"] == {"buy": 0.874}
    tuned = load_game(out)
    for level in tuned.levels:
        for mode, target in (("base", Fraction("0.96")), ("buy", Fraction("0.874"))):
            rtp = mode_par(tuned, mode, level).rtp
            assert abs(rtp - target) <= Fraction("0.0005"), (mode, level, float(rtp))
            name = "rtp" if mode == "base" else "buy/rtp"
            row = next(r for r in data["figures"] if r["level"] == level and r["figure"] == name)
            assert Fraction(row["after exact"]) == rtp and row["met"] is True


def buy_over_base(game) -> Fraction:
    return mode_par(game, "buy").rtp / mode_par(game, "base").rtp


def test_a_miss_names_the_mode_and_by_how_much():
    """With STAR held, the buy's RTP over the base's is fixed.  Hand-worked:
    a spin's mean win is ``w`` on the shared strips, 3 STAR show with
    ``p = (3/18)^3 = 1/216`` and retrigger 5 more games, so 5 bought games
    last ``5 / (1 - 5p)`` games and pay ``2 w 5 / (1 - 5p)``; the base
    round is ``w + p 10 w / (1 - 5p) = w (1 + 5p) / (1 - 5p)``; over the
    costs 10.5 and 1: buy / base ``= 1 / (1.05 + 5.25 p) = 1440/1547``.
    Base 96 % and buy 96 % (ratio 1 +- 0.1 %) therefore cannot both hold:
    the result says which mode misses and by how much, and that is the
    distance of the mode's par RTP from its target band."""
    ratio = 1 / (Fraction("1.05") + Fraction("5.25") / 216)
    assert ratio == Fraction(1440, 1547) and buy_over_base(load_game(MODES)) == ratio
    targets = Targets(Fraction("0.96"), 5e-4, mode_rtp={"buy": Fraction("0.96")})
    res = slotmath.tune(MODES, targets, component_share=None, max_evaluations=30, progress=False)
    assert not res.feasible and buy_over_base(res.tuned) == ratio
    missed = res.binding[res.binding["note"].str.startswith("missed")]
    assert len(missed)
    for _, row in missed.iterrows():
        level = int(row["what"].split("(bet ")[1].rstrip(")"))
        mode = row["note"].split("(mode ")[1].rstrip(")")
        assert row["what"].startswith("target " + ("rtp" if mode == "base" else f"{mode}/rtp"))
        rtp = mode_par(res.tuned, mode, level).rtp
        by = abs(float(rtp) - 0.96) - 5e-4
        assert row["note"].startswith(f"missed by {by:.6%}")
    assert "buy" in set(missed["note"].str.extract(r"\(mode (\w+)\)")[0])
    # the headline says it too, mode by mode
    rows = dict(zip(res.summary["item"], res.summary["value"], strict=True))
    by = abs(float(mode_par(res.tuned, "buy").rtp) - 0.96) - 5e-4
    assert f"rtp missed by {by:.6%} (bet 1, 2)" in rows["mode buy"]


def test_the_api_takes_a_mode_and_per_mode_targets():
    """``slotmath.tune(game, rtp, mode=...)`` and ``{mode: rtp}`` build the
    same targets as the command line."""
    res = slotmath.tune(
        MODES, Targets(Fraction("1.05"), 5e-4), mode="ante", max_evaluations=60, progress=False
    )
    assert res.feasible and res.reel_set == "ante" and res.targets.modes == ("ante",)
    assert abs(mode_par(res.tuned, "ante").rtp - Fraction("1.05")) <= Fraction("0.0005")
    # a mapping: the first mode is tuned, the others are targets met at once
    targets = {"buy": Fraction("0.9"), "base": Fraction("0.99")}
    res = slotmath.tune(MODES, targets, Bounds(fixed=()), max_evaluations=1, progress=False)
    assert res.targets.primary == "buy" and res.targets.mode_rtp == {"base": Fraction("0.99")}
    assert res.targets.rtp == Fraction("0.9") and res.targets.modes == ("buy", "base")
    assert res.reel_set == "base"  # the buy's free games play 'base'
    assert set(res.after[1]) >= {"rtp", "base/rtp", "base/hit_frequency"}
    assert res.after[1]["rtp"] == mode_par(res.tuned, "buy").rtp
    assert res.after[1]["base/rtp"] == mode_par(res.tuned, "base").rtp


@pytest.mark.parametrize(
    "args, message",
    [
        (["--mode", "bonus", "--target-rtp", "95%"], "bet mode tuned 'bonus': tune_modes has no such mode"),
        (
            ["--target-rtp", "95%", "--target-rtp", "bonus=95%"],
            "target for bet mode 'bonus': tune_modes has no",
        ),
        (["--target-rtp", "95%", "--figure", "bonus/vi=1:9"], "target for bet mode 'bonus'"),
        (["--mode", "ante", "--target-rtp", "95%", "--reel-set", "base"], "bet mode 'ante' does not play"),
        (
            ["--target-rtp", "95%", "--target-rtp", "ante=95%"],
            "bet mode 'ante' does not play reel set 'base'",
        ),
        (["--target-rtp", "buy=95%", "--target-rtp", "buy=96%"], "two targets for bet mode 'buy'"),
        (["--mode", "buy", "--target-rtp", "95%", "--target-rtp", "buy=9%"], "two targets for bet mode"),
        (["--mode", "buy", "--target-rtp", "base=95%"], "no target for the bet mode tuned, 'buy'"),
        (["--target-rtp", "b-1=95%"], "expected [MODE=]RTP"),
        (["--target-rtp", "buy=95"], "--target-rtp: 95 (9500 %) is outside 0 to 2 (200 %)"),
    ],
)
def test_bad_mode_input_exits_2_with_one_line(args, message, capsys):
    lines = 1
    try:
        status = main(["tune", str(MODES), *args])
    except SystemExit as exc:  # argparse's own errors: its usage, then the line
        status, lines = exc.code, None
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert lines is None or len(err.strip().splitlines()) == lines, err
    assert message in err.strip().splitlines()[-1], err


def test_reachable_rtp_of_a_mode_is_per_unit_of_its_cost():
    """A target out of reach names the tuned mode's reachable RTP per unit of
    its cost: the relaxation's range of the ante's line RTP over 1.25 plus
    the rest of its RTP, which holds the RTP the best candidate reached."""
    targets = Targets(Fraction("0.5"), 5e-4)
    res = slotmath.tune(MODES, targets, mode="ante", max_evaluations=10, progress=False)
    assert not res.feasible
    after = res.after[1]
    rest = after["rtp"] - after["rtp:lines"]
    lo, hi = res.rtp_range[1]
    assert lo + float(rest) <= float(after["rtp"]) <= hi + float(rest)
    assert float(after["rtp:lines"]) == pytest.approx(
        float(mode_par(res.tuned, "ante").par.components["lines"]) / 1.25
    )


def test_a_band_on_another_mode_is_met_and_is_that_mode_s_figure():
    """``--figure buy/vi=2:2.5`` while the base game is tuned: the buy's VI
    per unit of its cost is brought into the band, as ``par --mode buy``
    computes it."""
    targets = Targets(Fraction("0.96"), 5e-4, bands={"buy/vi": (2.0, 2.5)})
    res = slotmath.tune(MODES, targets, max_evaluations=60, progress=False)
    assert res.feasible and res.targets.modes == ("base", "buy")
    buy = mode_par(res.tuned, "buy").to_dict()
    assert res.after[1]["buy/vi"] == pytest.approx(buy["volatility_index"]["90"], rel=1e-12)
    assert 2.0 <= buy["volatility_index"]["90"] <= 2.5
    assert res.after[1]["buy/hit_frequency"] == buy["hit_frequency"]
    assert abs(mode_par(res.tuned, "base").rtp - Fraction("0.96")) <= Fraction("0.0005")
