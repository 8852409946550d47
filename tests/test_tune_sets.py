"""Tuning several reel sets in one run (``slotmath tune --reel-set base
--reel-set free``, ``--reel-set all``, ``slotmath.tune(..., reel_set=(...))``):
targets on the base game and on a buy of its free games, which no one set
can meet together, are met by moving the base spin's set and the free
games' set at once; the written file's ``par --mode`` figures are the
targets; bad reel-set input ends with one line and exit status 2."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import slotmath
from slotmath.cli import main
from slotmath.errors import BoundsError
from slotmath.io.gamefile import load_game
from slotmath.rules.modepar import mode_par
from slotmath.tuning.targets import Targets
from slotmath.tuning.tune import tuned_reel_sets

from conftest import ROOT, TEST_DATA

SETS = TEST_DATA / "tune_sets"  # base spin on 'base', free games on 'free', ante on 'ante', a buy of 5 games
BASE, BUY, TOL = Fraction("0.96"), Fraction("0.962"), Fraction("0.0005")
TARGETS = ["--target-rtp", "base=96%", "--target-rtp", "buy=96.2%", "--tolerance", "0.05%"]
P3 = Fraction(3, 18) ** 3  # 3 STAR in view (one STAR on each 18-stop reel, 3 rows): 1/216
COST = Fraction("10.5")  # the buy's cost; it buys the 5 games 3 STAR award


def base_spin(game, level=1) -> Fraction:
    """The base spin's mean win (lines and scatters), from the base game's par."""
    par = mode_par(game, "base", level).par
    return par.components["lines"] + par.components["scatters"]


def tune_json(args, capsys) -> tuple:
    status = main(["tune", str(SETS), *args, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_no_one_set_meets_the_base_and_the_buy():
    """Hand-worked: the base round is the base spin (mean ``w``, read from
    'base') plus, with probability ``p = 1/216`` (STAR held), the 5 free
    games the buy sells at 10.5, so ``base = w + p 10.5 buy = w + (7/144)
    buy`` exactly, whatever 'free' holds.  Tuning 'free' alone leaves ``w``
    at its value, which puts the base far from 96 % when the buy is at
    96.2 %; tuning 'base' alone is refused (the buy does not play it)."""
    game = load_game(SETS)
    assert P3 * COST == Fraction(7, 144)
    for level in game.levels:
        base, buy = mode_par(game, "base", level).rtp, mode_par(game, "buy", level).rtp
        assert base == base_spin(game, level) + Fraction(7, 144) * buy
    # 'free' alone: the highest base RTP the targets allow needs w below its value
    w_needed_max = BASE + TOL - Fraction(7, 144) * (BUY - TOL)
    assert base_spin(game) - w_needed_max > Fraction(7, 100)  # 7.9 pp too high
    with pytest.raises(BoundsError, match="bet mode 'buy' does not play reel set 'base'"):
        tuned_reel_sets(game, Targets(BASE, 5e-4, mode_rtp={"buy": BUY}), "base")


def test_one_set_run_reports_the_miss(capsys):
    """``--reel-set free`` alone: the buy is met, the base misses by what
    the ratio above says, and nothing is written."""
    status, data = tune_json([*TARGETS, "--reel-set", "free", "--max-evaluations", "12"], capsys)
    assert status == 1 and not data["targets_met"] and data["reel_set"] == "free"
    game = load_game(SETS)
    w = base_spin(game)
    missed = [r for r in data["binding"] if r["what"].startswith("target rtp (bet")]
    assert missed, data["binding"]
    # whatever the buy reached, the base is w + (7/144) buy, above its band
    row = next(r for r in data["figures"] if r["level"] == 1 and r["figure"] == "buy/rtp")
    base = w + Fraction(7, 144) * Fraction(row["after exact"])
    after = next(r for r in data["figures"] if r["level"] == 1 and r["figure"] == "rtp")
    assert Fraction(after["after exact"]) == base and base > BASE + TOL


def test_two_sets_meet_base_and_buy_at_once(tmp_path, capsys):
    """``--reel-set base --reel-set free``: both targets met; ``par --mode``
    of the written file gives each mode's RTP within the tolerance, equal
    to the figures the run reported; the moves name their reel set; the
    ante's set is untouched."""
    out = tmp_path / "game.yaml"
    status, data = tune_json(
        [*TARGETS, "--reel-set", "base", "--reel-set", "free", "--out", str(out)], capsys
    )
    assert status == 0 and data["targets_met"] and data["written"], data
    assert data["reel_sets"] == ["base", "free"] and data["reel_set"] is None
    assert set(data["strips_by_set"]) == {"base", "free"}
    moved = {m["reel set"] for m in data["moves"]}
    assert moved == {"base", "free"}, data["moves"]  # each set had to move
    # a move on 'free' that lowers its line RTP serves the buy (the one mode only 'free' moves)
    assert any(m["why"].startswith("buy/rtp down") for m in data["moves"] if m["reel set"] == "free")
    game, tuned = load_game(SETS), load_game(out)
    assert tuned.strips("ante") == game.strips("ante")
    for rs in ("base", "free"):
        strips = data["strips_by_set"][rs]
        assert [list(s.symbols) for s in tuned.strips(rs)] == [strips[f"reel{r + 1}"] for r in range(3)]
    for level in game.levels:
        for mode, target, name in (("base", BASE, "rtp"), ("buy", BUY, "buy/rtp")):
            rtp = mode_par(tuned, mode, level).rtp
            assert abs(rtp - target) <= TOL, (mode, level, float(rtp))
            row = next(r for r in data["figures"] if r["level"] == level and r["figure"] == name)
            assert Fraction(row["after exact"]) == rtp and row["met"] is True
        # the relation still holds: 'base' moved the base spin's mean
        base = mode_par(tuned, "base", level).rtp
        assert base == base_spin(tuned, level) + Fraction(7, 144) * mode_par(tuned, "buy", level).rtp


def test_the_api_and_all_tune_every_set_the_modes_judged_play(capsys):
    """``reel_set="all"`` is every set a judged mode plays (not 'ante', which
    only the ante plays); the API run meets both targets and its text shows
    the moves per reel set."""
    game = load_game(SETS)
    targets = Targets(BASE, 5e-4, mode_rtp={"buy": BUY})
    assert tuned_reel_sets(game, targets, "all") == ("base", "free")
    assert tuned_reel_sets(game, Targets(BASE, 5e-4, mode="ante"), "all") == ("free", "ante")
    res = slotmath.tune(SETS, targets, reel_set="all", progress=False, max_evaluations=40)
    assert res.feasible and res.reel_sets == ("base", "free")
    for mode, target in (("base", BASE), ("buy", BUY)):
        assert abs(mode_par(res.tuned, mode).rtp - target) <= TOL
    text = res.text()
    assert "reel sets base, free" in text and "reel set  reel" in text


@pytest.mark.parametrize(
    "sets, message",
    [
        (["base", "bonus"], "no reel set 'bonus' (reel sets: base, free, ante)"),
        (["base", "base"], "reel set 'base' named twice"),
        (["base", "ante"], "reel set 'ante' is played by no bet mode judged (base, buy)"),
        (["all", "base"], "reel set 'all' names every set: give it alone"),
        (
            ["base", "free", "--draft", "draft.csv"],
            "--draft: a draft is one reel set's strips (2 sets tuned)",
        ),
    ],
)
def test_bad_reel_sets_exit_2_with_one_line(sets, message, capsys):
    extra = sets[sets.index("--draft") :] if "--draft" in sets else []
    args = [a for rs in sets[: len(sets) - len(extra)] for a in ("--reel-set", rs)] + extra
    status = main(["tune", str(SETS), *TARGETS, *args])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert message in err, err


def test_a_mode_playing_none_of_the_sets_is_refused(capsys):
    """Every set is played by a judged mode, but the buy plays neither."""
    args = [*TARGETS, "--target-rtp", "ante=97%", "--reel-set", "base", "--reel-set", "ante"]
    status = main(["tune", str(SETS), *args])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "bet mode 'buy' plays none of the reel sets tuned (base, ante; it plays free)" in err, err


def test_sets_sharing_a_csv_file_are_not_rewritten_in_place(tmp_path):
    """modes_free_spins reads reels.csv as both 'base' and 'free': written
    over itself, a change of one would change the other (or two changes
    would overwrite each other), so it is refused in one line; written to
    another file, each set is inline and reads back as tuned."""
    import shutil

    from slotmath.errors import GameFileError
    from slotmath.io.gamewriter import write_game
    from slotmath.model import Strip

    folder = tmp_path / "mfs"
    shutil.copytree(ROOT / "data" / "games" / "modes_free_spins", folder)
    game = load_game(folder)
    strips = list(game.strips("free"))
    strips[0] = Strip(strips[0].symbols[1:] + strips[0].symbols[:1], None)  # a rotation: new strip text
    with pytest.raises(GameFileError, match="reels.csv also holds reel set base"):
        write_game(game, {"free": tuple(strips)}, backup=False)
    assert load_game(folder).strips("free") == game.strips("free")  # nothing written
    out = write_game(game, {"free": tuple(strips)}, tmp_path / "out" / "game.yaml", backup=False)
    tuned = load_game(out)
    assert tuned.strips("free") == tuple(strips) and tuned.strips("base") == game.strips("base")


def test_several_sets_without_modes_tune_the_game_as_declared():
    """No mode named: the figures are the game's (its base spin on 'base',
    the free games on 'free'), and both sets may move to meet them."""
    targets = Targets(Fraction("0.97"), 5e-4)
    res = slotmath.tune(SETS, targets, reel_set=("base", "free"), progress=False, max_evaluations=40)
    assert res.feasible and res.reel_sets == ("base", "free") and res.targets.modes == ()
    for level in res.tuned.levels:
        rtp = mode_par(res.tuned, "base", level).rtp
        assert abs(rtp - Fraction("0.97")) <= TOL and res.after[level]["rtp"] == rtp
