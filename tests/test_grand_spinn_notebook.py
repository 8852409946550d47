"""The Grand Spinn Superpot exploration notebook runs and draws its pictures."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.pictures.frames import Frame, draw_frames, draw_window
from slotmath.rules.grand_spinn_superpot import analysis as gs

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "grand_spinn_superpot.ipynb"


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code"
    )
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1


@pytest.mark.slow  # a notebook kernel end to end
def test_notebook_runs(tmp_path):
    params = {"level": 2, "example": "jackpot", "seed": 1}
    papermill = pytest.importorskip("papermill")
    out = tmp_path / "out.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK),
        str(out),
        parameters=params,
        cwd=str(NOTEBOOK.parent),
        progress_bar=False,
        kernel_name="python3",
    )
    nb = nbformat.read(out, as_version=4)
    images = sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
    assert images >= 6  # the round, two example rounds and four charts
    text = json.dumps(nb.dict())
    assert "96.2" in text  # the summary's RTP
    cell = next(c for c in nb.cells if c.source.startswith("if stops is None"))
    assert "jackpot" in cell.outputs[0]["data"]["text/plain"]  # the drawn jackpot round


def test_pictures_of_a_round():
    game = load_game("grand_spinn_superpot")
    stops = gs.example_stops(game, 1, "arrow", seed=3)
    steps = gs.play_steps(game, 1, stops)
    assert any(s.kind == "arrow" for s in steps)
    fig = gs.draw_round(game, 1, stops)
    drawn = [ax for ax in fig.axes if ax.patches]
    assert len(drawn) == len(steps)
    assert all(len(ax.patches) == 9 for ax in drawn)  # 3 x 3 cells per panel
    # the frame captions carry each step's pay
    assert any(str(steps[1].pay) in ax.get_title() for ax in drawn)


def test_draw_is_generic():
    """draw_window / draw_frames take any game's window of names or indices."""
    game = load_game("grand_spinn_superpot")
    window = np.array(
        [["SEVEN", "BAR", "BLANK"], ["WILD", "MINI", "CHERRY"], ["ARROW", "LEMON", "SUPER"]], dtype=object
    )
    ax = draw_window(game, window, highlight=np.eye(3, dtype=bool), caption="test")
    assert len(ax.patches) == 9 and ax.get_title() == "test"
    labels = {t.get_text() for t in ax.texts}
    assert {"7", "BAR", "W", "MINI"} <= labels
    idx = np.vectorize(game.symbol_index.get)(window)
    fig = draw_frames(game, [Frame(idx, "a"), Frame(window, "b")], ncols=1)
    assert sum(1 for a in fig.axes if a.patches) == 2
    with pytest.raises(ValueError):
        draw_frames(game, [])


@pytest.mark.parametrize("kind", list(gs.EXAMPLES) + ["Mini", "Midi", "Super"])
def test_example_stops(kind):
    game = load_game("grand_spinn_superpot")
    stops = gs.example_stops(game, 1, kind, seed=2)
    rules = gs.compile_rules(game, 1)
    w0, u, a, jp, path, x = gs.play_round(np.array(stops), *rules.round_args)
    if kind == "win":
        assert w0 > 0
    elif kind == "arrow":
        assert a > 0
    elif kind == "nudge":
        assert u > 0
    elif kind in ("Mini", "Midi", "Super"):
        assert rules.options.jackpots[jp].name == kind
