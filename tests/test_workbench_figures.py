"""Where the workbench's figures come from after a change.

* Line games: from the contraction and the exact moments, never the joint
  distribution or ``par()`` (both are made to fail here), and equal to
  ``par()`` of the laid-out strips; "Full figures" adds the max win from
  the joint distribution.
* A rules module with ``tuning_figures`` (Grand Spinn Superpot): from the
  hook, never ``par()``, and equal to ``par()``.
* A rules module without it: nothing is computed on a change; the figures
  read "on request" until "Full figures" runs ``par()``.
"""

from __future__ import annotations

import shutil

import pytest

import slotmath.analysis.metrics as figures
import slotmath.rules.figures as line_figures_module
from slotmath.analysis.metrics import par_figures
from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.rules import registry
from slotmath.rules.contract import Rules
from slotmath.rules.linegame import analyse
from slotmath.rules.par import par
from slotmath.rules.registry import rules_for
from slotmath.workbench import ON_REQUEST, ReelTuner

from conftest import TEST_DATA


def shown(tuner, name):
    html = tuner.figures_html.value
    start = html.index(f"slotmath-fig-{name}")
    return html[html.index(">", start) + 1 : html.index("</span>", start)]


def forbid(monkeypatch, game, distribution=False):
    """Make the full analysis of ``game``'s rules (and, with
    ``distribution``, the line engine's joint distribution) fail."""

    def boom(*args, **kwargs):
        raise AssertionError("the workbench called the full analysis on a change")

    monkeypatch.setattr(type(rules_for(game)), "analyse", boom)
    if distribution:
        monkeypatch.setattr(line_figures_module, "spin_distribution", boom)


@pytest.mark.parametrize("game", ["tune_video", "tune_small"])
def test_line_game_changes_use_the_moments(monkeypatch, game):
    tuner = ReelTuner(TEST_DATA / game, plot=False)
    forbid(monkeypatch, tuner.game, distribution=True)
    box = next(b for b in tuner.controls.values() if b.value > 1)
    box.value += 1
    monkeypatch.undo()
    full = par(tuner.current_game, tuner.level)
    for name, want in (
        ("rtp", full.rtp),
        ("hit_frequency", full.distribution.hit_frequency),
        ("sd", full.sd),
        ("vi", full.distribution.volatility_index(0.90)),
    ):
        assert tuner.figures[name] == want, name
    assert "max_win" not in tuner.figures  # only the full analysis gives it
    tuner.full_button.click()
    assert tuner.figures["max_win"] == full.distribution.max_win
    assert shown(tuner, "max_win") == f"{float(full.distribution.max_win):.6g}"
    assert tuner.last_status.startswith("full figures")


@pytest.mark.skipif(
    not (GAMES_DIR / "grand_spinn_superpot" / "game.yaml").is_file(),
    reason="data/games/grand_spinn_superpot is not there",
)
def test_grand_spinn_changes_use_its_hook(monkeypatch):
    tuner = ReelTuner("grand_spinn_superpot", plot=False)
    forbid(monkeypatch, tuner.game)
    box = tuner.control(1, next(label for (reel, label) in tuner.controls if reel == 1))
    box.value += 3
    monkeypatch.undo()
    full = par_figures(par(tuner.current_game, tuner.level))
    for name in ("rtp", "hit_frequency", "sd", "vi"):
        assert tuner.figures[name] == full[name], name
    assert tuner.figures["rtp"] != tuner.saved_figures["rtp"]
    assert "feature_frequency" in tuner.figures
    assert shown(tuner, "rtp") == f"{float(full['rtp']):.6%}"
    # Full figures: par() over the hook's figures
    tuner.full_button.click()
    assert tuner.figures["max_win"] == full["max_win"]
    assert tuner.figures["feature:super.meter_rate"] == full["feature:super.meter_rate"]
    assert "feature_frequency" in tuner.figures


CALLS = {"analyse": 0}


class CountedRules(Rules):
    """The tune_hook test game's line round with the contract's defaults
    only (no fast figures); counts its analyses."""

    def analyse(self, game, level):
        CALLS["analyse"] += 1
        return analyse(game, level)


class LiveRules(CountedRules):
    """The same rules with fast figures (the line figures)."""

    fast_figures = True

    def figures(self, game, level, reel_set="base", needed=None):
        return figures.line_figures(game, level, needed=figures.LIVE_FIGURES)


@pytest.fixture
def hookless(tmp_path):
    """The tune_hook test game under rules without fast figures."""
    registry.register("tune_hook_toy", CountedRules)
    shutil.copytree(TEST_DATA / "tune_hook", tmp_path / "tune_hook")
    yield tmp_path / "tune_hook"
    registry.unregister("tune_hook_toy")


def test_without_a_fast_source_figures_are_on_request(hookless):
    path = hookless
    CALLS["analyse"] = 0
    tuner = ReelTuner(path, plot=False)
    assert CALLS["analyse"] == 0  # loading computes nothing
    assert shown(tuner, "rtp") == ON_REQUEST
    assert "Full figures" in tuner.last_status
    box = next(b for b in tuner.controls.values() if b.value > 1)
    box.value += 1
    assert CALLS["analyse"] == 0 and shown(tuner, "rtp") == ON_REQUEST
    tuner.full_button.click()
    full = par(tuner.current_game, tuner.level)
    assert tuner.figures["rtp"] == full.rtp
    assert tuner.figures["hit_frequency"] == full.distribution.hit_frequency
    assert tuner.saved_figures["rtp"] == par(load_game(path), tuner.level).rtp
    assert shown(tuner, "rtp") == f"{float(full.rtp):.6%}"
    # a later change is on request again (nothing stale is shown as current)
    box.value -= 1
    assert shown(tuner, "rtp") == ON_REQUEST
    # with fast figures the same game is live
    registry.register("tune_hook_toy", LiveRules)
    live = ReelTuner(path, plot=False)
    box = next(b for b in live.controls.values() if b.value > 1)
    box.value += 1
    assert live.figures["rtp"] == par(live.current_game, live.level).rtp


def test_distribution_top_is_not_labelled_the_max_win(tmp_path):
    # 4x1 game, C on reels 1 and 2 only: 1+ C start a hold-and-spin (1
    # countdown respin, each empty cell lands a coin with 1e-8, prize 1, a
    # full screen adds 1000).  A A A (5) and a coin exclude each other, so
    # the largest win is a full screen, 4 + 1000 = 1004: at most 2 coins at
    # the start, then reels 3 and 4 both land, (1/9) x 1e-16, below the float
    # law's resolution (1e-15).  The figure "max_win" the workbench shows is
    # the distribution's top, 5, and is worded as the sheet words it, not
    # "max win" (the sheet's max win is 1004)
    import yaml

    from slotmath.report.figure_sections import SHOWN_TOP

    data = {
        "name": "shown_top",
        "grid": {"reels": 4, "rows": 1},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "X", "kind": "blank"}, {"name": "C", "kind": "special"}],
        "reels": {"base": [["A", "X", "C"], ["A", "X", "C"], ["A", "X"], ["A", "X"]]},
        "paylines": [[0, 0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": 5}],
        "options": {
            "hold_and_spin": {
                "symbol": "C",
                "trigger": 1,
                "respins": 1,
                "rule": "countdown",
                "probabilities": [["1/100000000"] * 4],
                "values": [{"prize": 1, "weight": 1}],
                "full_screen": 1000,
            }
        },
    }
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(data))
    result = par(load_game(path))
    assert result.true_max_win.value == 1004 and result.distribution.max_win == 5
    tuner = ReelTuner(path, plot=False)
    tuner.full_figures()
    html = tuner.figures_html.value
    assert f"{SHOWN_TOP} [x total bet]" in html
    assert ">max win [x total bet]<" not in html
    assert float(shown(tuner, "max_win").replace(",", "")) == float(result.distribution.max_win)
