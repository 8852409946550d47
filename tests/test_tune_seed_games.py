"""The documented tuning check of the seed games: their committed strips meet
the published RTP, so ``slotmath tune`` reports the target met with nothing
moved (docs/games/grand_spinn_superpot.md, section 8).  Skipped while a game
is not in data/games."""
from __future__ import annotations

from fractions import Fraction

import pytest

from slotmath.gamefile import load_game
from slotmath.tune import Targets, tune

from conftest import GAMES


@pytest.mark.skipif(not (GAMES / "grand_spinn_superpot" / "game.yaml").is_file(),
                    reason="data/games/grand_spinn_superpot is not there yet")
def test_grand_spinn_committed_strips_meet_the_target():
    game = load_game("grand_spinn_superpot")
    res = tune(game, Targets(Fraction("0.9621")))
    assert res.feasible, res.text()
    assert len(res.moves) == 0 and res.tuned.strips() == game.strips()
    assert set(res.after) == set(game.levels)
    for level in game.levels:
        assert abs(res.after[level]["rtp"] - Fraction("0.9621")) <= Fraction("0.00005")
