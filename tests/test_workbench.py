"""The reel-tuning workbench driven headlessly: set values, click buttons, read outputs.

Every figure the workbench shows is compared with ``par()`` of the game it
claims to show (the laid-out strips of the current counts).
"""

from __future__ import annotations

import shutil
from fractions import Fraction

import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.par import par
from slotmath.workbench import ReelTuner, available_games

from conftest import TEST_DATA


@pytest.fixture
def games(tmp_path):
    """A games folder with copies of two test games (saving must not touch tests/data)."""
    for name in ("tune_small", "tune_classic"):
        shutil.copytree(TEST_DATA / name, tmp_path / name)
    return tmp_path


def shown(tuner, name):
    """The 'now' value of a figure as the HTML shows it."""
    html = tuner.figures_html.value
    start = html.index(f"slotmath-fig-{name}")
    return html[html.index(">", start) + 1 : html.index("</span>", start)]


def test_change_a_count_and_read_the_exact_figures(games):
    tuner = ReelTuner("tune_small", games_dir=games, plot=True)
    assert available_games(games) == ["tune_classic", "tune_small"]
    assert tuner.game_picker.value == "tune_small"
    saved = par(load_game(games / "tune_small"), 1)
    assert tuner.figures["rtp"] == saved.rtp
    assert shown(tuner, "rtp") == f"{float(saved.rtp):.6%}"
    assert 'class="slotmath-rtp ' in tuner.figures_html.value
    png0 = bytes(tuner.plot_image.value)
    assert png0.startswith(b"\x89PNG")

    tuner.control(1, "WILD").value = 2  # one more WILD on reel 1
    now = par(tuner.current_game, 1)
    assert tuner.current_game.strips()[0].symbols.count("WILD") == 2
    assert tuner.figures["rtp"] == now.rtp != saved.rtp
    assert tuner.figures["hit_frequency"] == now.distribution.hit_frequency
    assert shown(tuner, "rtp") == f"{float(now.rtp):.6%}"
    assert shown(tuner, "sd") == f"{now.sd:.6g}"
    assert len(tuner.history) == 2 and bytes(tuner.plot_image.value) != png0
    assert "WILD" in tuner.diff_html.value and "(tuned)" in tuner.diff_html.value
    assert set(tuner.timings) == {"figures_ms", "plot_ms", "diff_ms", "total_ms"}

    tuner.revert_button.click()
    assert tuner.figures["rtp"] == saved.rtp
    assert "no change" in tuner.diff_html.value


def test_solve_then_save_writes_the_file_with_a_backup(games):
    tuner = ReelTuner("tune_small", games_dir=games, plot=False)
    tuner.target_rtp.value = 95.0
    assert tuner.progress_text.value.startswith("target RTP 95.0000 %")  # the solver's aim, said at once
    tuner.shape_box.value = False  # 18-stop toy reels 4.3 pp from the target: reshape freely
    tuner.solve_button.click()
    assert tuner.last_status.startswith("targets met"), tuner.last_status
    result = par(tuner.current_game, 1)
    assert abs(result.rtp - Fraction("0.95")) <= Fraction("0.00005")
    assert tuner.figures["rtp"] == result.rtp
    strips = tuner.current_game.strips()

    tuner.save_button.click()
    assert tuner.last_status.startswith("saved"), tuner.last_status
    assert load_game(games / "tune_small").strips() == strips
    backups = list((games / "tune_small").glob("game.yaml.*.bak"))
    assert len(backups) == 1
    assert backups[0].read_text() == (TEST_DATA / "tune_small" / "game.yaml").read_text()
    # the saved file is now the reference
    assert tuner.saved_figures["rtp"] == result.rtp and "no change" in tuner.diff_html.value
    tuner.save_button.click()
    assert tuner.last_status.startswith("nothing to save")


def test_bands_from_the_boxes_and_bad_band_text(games):
    tuner = ReelTuner("tune_small", games_dir=games, plot=False)
    tuner.hf_band.value = "29:31"
    tuner.vi_band.value = "5:"
    t = tuner.targets()
    assert t.bands == {"hit_frequency": (0.29, 0.31), "vi": (5.0, None)}
    assert t.levels == (1,)
    tuner.hf_band.value = "lots"
    tuner.solve_button.click()
    assert "expected LO:HI" in tuner.last_status


def test_weighted_reels_levels_and_on_demand_distribution(games):
    tuner = ReelTuner(games / "tune_classic", plot=False, games_dir=games)
    assert (
        tuner.game_picker.value == str(games / "tune_classic" / "game.yaml")
        or tuner.game_picker.value == "tune_classic"
    )
    box = tuner.control(1, "stop 0 SEVEN")
    box.value = 1
    assert tuner.current_game.strips()[0].weights[0] == 1
    assert tuner.figures["rtp"] == par(tuner.current_game, 1).rtp
    # the pay table is not linear in the level: level 2 has its own RTP
    tuner.level_picker.value = 2
    assert tuner.figures["rtp"] == par(tuner.current_game, 2).rtp
    assert tuner.saved_figures["rtp"] == par(load_game(games / "tune_classic"), 2).rtp
    # hit frequency on demand only: RTP stays live, the rest is marked
    tuner.live_box.value = False
    box.value = 2
    assert tuner.figures["rtp"] == par(tuner.current_game, 2).rtp
    assert "not refreshed" in tuner.figures_html.value
    tuner.refresh_button.click()
    assert "not refreshed" not in tuner.figures_html.value
    assert tuner.figures["hit_frequency"] == par(tuner.current_game, 2).distribution.hit_frequency


def test_pick_another_game_and_reel_set(games):
    tuner = ReelTuner("tune_small", games_dir=games, plot=False)
    tuner.game_picker.value = "tune_classic"
    assert tuner.game.name == "tune_classic"
    assert (1, "stop 11 BLANK") in tuner.controls
    assert tuner.level_picker.options == (1, 2)
    assert tuner.reel_set_picker.options == ("base",)


def test_switching_game_resets_everything_that_belongs_to_the_game(games):
    """Targets follow the new game's RTP (working: the saved RTP of tune_classic
    at bet 1, rounded to 4 decimals in %), bands are cleared, the history
    restarts, the diff and the sensitivities are the new game's."""
    from slotmath.analysis.metrics import game_figures

    tuner = ReelTuner("tune_small", games_dir=games, plot=False)
    tuner.hf_band.value = "30:34"
    tuner.target_rtp.value = 95.0
    tuner.control(1, "BAR").value += 1
    tuner.show_sensitivities()
    assert "Tune Small" in tuner.sensitivity_html.value and len(tuner.history) == 2
    tuner.game_picker.value = "tune_classic"
    mid = load_game(games / "tune_classic")
    rtp = game_figures(mid, 1, needed={"rtp"})["rtp"]
    assert tuner.target_rtp.value == round(float(rtp) * 100, 4) != 95.0
    assert tuner.hf_band.value == "" and len(tuner.history) == 1
    assert tuner.figures["rtp"] == rtp and "no change" in tuner.diff_html.value
    assert "Tune Small" not in tuner.sensitivity_html.value
    tuner.show_sensitivities()
    assert mid.title in tuner.sensitivity_html.value


def test_a_game_whose_figures_are_refused_opens_with_the_refusal(games, monkeypatch):
    """A game the engine refuses (here any figure of tune_classic, as a
    refused distribution would be) opens, or is picked, with the refusal in
    the status line, not a traceback; the other game then works again."""
    from slotmath import workbench
    from slotmath.errors import EngineTooLarge

    real = workbench.game_figures

    def figures(game, *args, **kwargs):
        if game.name == "tune_classic":
            raise EngineTooLarge("options.x: the round distribution is not computed", file="game.yaml")
        return real(game, *args, **kwargs)

    monkeypatch.setattr(workbench, "game_figures", figures)
    tuner = ReelTuner("tune_classic", games_dir=games, plot=False)
    said = tuner.last_status
    assert "cannot evaluate: game.yaml: options.x: the round distribution is not computed" in said
    tuner.game_picker.value = "tune_small"
    assert tuner.figures["rtp"] == real(load_game(games / "tune_small"), 1, needed={"rtp"})["rtp"]
    tuner.game_picker.value = "tune_classic"
    assert tuner.last_status.startswith("cannot evaluate:") and tuner.saved_figures == {}


def test_symbol_rows_line_up_across_reels():
    """tune_video carries WILD on reels 2-4 only: reels 1 and 5 keep an
    empty row there, so row k shows the same symbol on every reel."""
    tuner = ReelTuner(TEST_DATA / "tune_video", plot=False)
    columns = tuner.reels_box.children
    assert len({len(c.children) for c in columns}) == 1
    names = tuner.game.symbol_names
    wild = names.index("WILD") + 1  # row 0 is the reel's title
    for r, col in enumerate(columns):
        row = col.children[wild]
        assert ("slotmath-count-absent" in row._dom_classes) == (r in (0, 4))
        for k, name in enumerate(names):
            box = col.children[k + 1]
            if "slotmath-count-absent" not in box._dom_classes:
                assert box.description == name


def test_solve_reports_progress_and_can_be_cancelled(games):
    tuner = ReelTuner("tune_small", games_dir=games, plot=False)
    tuner.target_rtp.value = 95.0
    tuner.shape_box.value = False
    seen = []
    show = tuner._progress
    tuner._progress = lambda st: (seen.append(st), show(st), tuner.cancel())
    tuner.solve_button.click()
    assert seen and "exact evaluations" in tuner.progress_text.value
    assert "cancelled" in tuner.last_status and "NOT met" in tuner.last_status
