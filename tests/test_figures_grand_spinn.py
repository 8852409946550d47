"""Grand Spinn Superpot's ``tuning_figures`` hook (the workbench's and the
tuner's figures) equals the figures of the full analysis, exactly.

The hook skips the Markov-chain cross-check and the report tables and
reuses the play-out of every stop combination while only stop weights
change; these tests compare it with ``par_figures(par(game))`` on the saved
game, after weight changes (the play-out reused) and after a physical strip
change (a new play-out), and check its feature frequency against the
rounds themselves.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from slotmath.analysis.metrics import VI_CONFIDENCE, game_figures, par_figures
from slotmath.engine.distribution import z_value
from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.model import Strip
from slotmath.rules.grand_spinn_superpot import analysis as gs
from slotmath.rules.par import par
from slotmath.tuning.reelspace import ReelSpace

pytestmark = pytest.mark.skipif(
    not (GAMES_DIR / "grand_spinn_superpot" / "game.yaml").is_file(),
    reason="data/games/grand_spinn_superpot is not there",
)


@pytest.fixture(scope="module")
def game():
    return load_game("grand_spinn_superpot")


def assert_matches_par(game, level):
    hook = game_figures(game, level)  # through the hook
    full = par_figures(par(game, level))
    shared = set(hook) & set(full)
    assert {"rtp", "hit_frequency", "sd", "vi", "max_win"} <= shared
    assert any(k.startswith("rtp:") for k in shared)
    assert any(k.startswith("feature:nudge.") for k in shared)
    for k in shared:
        assert hook[k] == full[k], k
    assert hook["vi"] == z_value(VI_CONFIDENCE) * hook["sd"]
    return hook


def test_saved_game(game):
    for level in (game.levels[0], game.levels[-1]):
        assert_matches_par(game, level)


def test_weight_changes_reuse_the_play_out(game):
    level = game.levels[0]
    space = ReelSpace(game, "base")
    gs.tuning_figures(game, level)
    before = gs.played_out()
    xs = [x.copy() for x in space.x0]
    xs[0][3] += 5
    xs[2][7] = max(int(xs[2][7]) - 1, 0) + 2
    changed = space.game_for(xs)
    figs = assert_matches_par(changed, level)
    assert gs.played_out() == before  # same play-out, new weights
    assert figs["rtp"] != game_figures(game, level)["rtp"]


def test_physical_change_plays_out_again(game):
    """Rotating reel 1's strip (symbols and weights together) keeps every
    figure but moves every stop; a play-out reused by mistake would pair
    the new weights with the old stops."""
    level = game.levels[0]
    strips = list(game.strips("base"))
    s = strips[0]
    strips[0] = Strip(
        s.symbols[1:] + s.symbols[:1], None if s.weights is None else s.weights[1:] + s.weights[:1]
    )
    rotated = dataclasses.replace(game, reel_sets={**game.reel_sets, "base": tuple(strips)})
    gs.tuning_figures(game, level)
    figs = assert_matches_par(rotated, level)
    assert figs["rtp"] == game_figures(game, level)["rtp"]


def test_feature_frequency_is_the_re_pay_probability(game):
    """P(a spin is paid again by a nudge or an arrow), read off the rounds."""
    level = game.levels[0]
    rules = gs.compile_rules(game, level)
    rounds = gs.play_all(rules)
    repaid = (rounds.landing > 0) & ((rounds.nudges + rounds.arrow_pays) > 0)
    expected = Fraction(int(rounds.weight[repaid].sum()), game.cycle())
    assert gs.tuning_figures(game, level)["feature_frequency"] == expected
    assert 0 < expected < 1
