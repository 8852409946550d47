"""Reels alike in the file move together: the same change on each reel of a
group, unless released (``--asymmetric``, ``Bounds(symmetric=False)``,
``--shape off``); a run that cannot meet its targets with them together
releases them and says so.

``tune_video`` (5x3, 20 lines) has reels 2, 3 and 4 alike (the same symbol
counts on 47 stops), reels 1 and 5 each their own.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import numpy as np

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par
from slotmath.tuning.reelspace import Bounds, ReelSpace
from slotmath.tuning.tune import Targets, tune

from conftest import TEST_DATA

VIDEO, MODES = TEST_DATA / "tune_video", TEST_DATA / "tune_modes"


def test_reels_with_the_same_symbol_counts_form_a_group():
    game = load_game(VIDEO)
    counts = [Counter(s.symbols) for s in game.strips()]
    assert counts[1] == counts[2] == counts[3] and counts[0] != counts[1] != counts[4] != counts[0]
    assert ReelSpace(game).alike == ((0,), (1, 2, 3), (4,))
    assert ReelSpace(game, bounds=Bounds(symmetric=False)).alike == tuple((r,) for r in range(5))
    # a limit on one reel alone sets it apart
    apart = ReelSpace(game, bounds=Bounds(counts={(2, "H1"): (1, 3)}))
    assert apart.alike == ((0,), (1, 3), (2,), (4,))


def test_a_group_moves_together_and_the_figures_are_exact():
    game = load_game(VIDEO)
    res = tune(game, Targets(Fraction(91, 100)), progress=False)
    assert res.feasible and res.untied is None, res.text()
    change = [a - b for a, b in zip(res.x_after, res.x_before, strict=True)]
    assert change[1].any() and np.array_equal(change[1], change[2]) and np.array_equal(change[1], change[3])
    for lv in game.levels:
        assert abs(par(res.tuned, lv).rtp - Fraction(91, 100)) <= Fraction(5, 100000)
    tuned = [Counter(s.symbols) for s in res.tuned.strips()]
    assert tuned[1] == tuned[2] == tuned[3]
    assert "reels moved together: (2, 3, 4)" in res.text()


def test_asymmetric_releases_the_groups_on_the_command_line(capsys):
    status = main(["tune", str(VIDEO), "--target-rtp", "91%", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["reels_alike"] == [{"reel_set": "base", "reels": [2, 3, 4]}]
    assert data["reels_released"] is False
    for flags in (["--asymmetric"], ["--shape", "off"]):
        status = main(["tune", str(VIDEO), "--target-rtp", "91%", "--json", *flags])
        data = json.loads(capsys.readouterr().out)
        assert status == 0 and data["reels_alike"] == []
    main(["tune", str(VIDEO), "--target-rtp", "91%", "--asymmetric"])
    assert "reels tuned on their own" in capsys.readouterr().out


def test_groups_that_cannot_meet_the_target_together_are_released_and_said_so():
    """``tune_modes``'s ante reels 1 and 2 are alike (two STAR each); with
    them together the ante's 105 % +- 0.05 pp is missed, so they are
    released, the run meets it and the summary says so."""
    game = load_game(MODES)
    res = tune(game, Targets(Fraction(105, 100), 0.0005, mode="ante"), progress=False)
    assert res.space.tied(alike=True) == ((0, 1),)
    assert res.untied is not None and res.feasible, res.text()
    tied_rtp = float(res.untied[1])
    assert abs(tied_rtp - 1.05) > 0.0005  # missed with the reels together
    assert abs(float(res.after[1]["rtp"]) - 1.05) <= 0.0005
    assert res.untied_why == "the search stalled"
    assert (
        "RELEASED" in res.text() and f"(the search stalled; best RTP {tied_rtp:.6%} at bet 1)" in res.text()
    )
