"""The Piggy Bankin' Superlock exploration notebook runs and draws its pictures."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.piggy_bankin_superlock import analysis as pbs

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "piggy_bankin_superlock.ipynb"


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code"
    )
    assert sum("parameters" in c.metadata.get("tags", []) for c in nb.cells) == 1


@pytest.mark.slow  # a notebook kernel end to end
def test_notebook_runs(tmp_path):
    params = {"level": 10, "seed": 5}
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
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 4
    assert re.search(r"94\.0(29|30)\d*%", json.dumps(nb.dict()))  # the RTP table


def test_play_lockit_follows_the_rules():
    game = load_game("piggy_bankin_superlock")
    steps = pbs.play_lockit(game, 1, start="XX.X. X..XW .X...", seed=1)
    assert steps[0].held.sum() == 7 and steps[0].wheel == (1, 4)  # 3 + 3 (W) + 1
    for a, b in itertools.pairwise(steps):
        assert (b.held >= a.held).all()  # held cells stay held
        assert (b.new == (b.held & ~a.held)).all()
    assert len(steps) <= 5 + 2  # 5 spins, start and end
    end = steps[-1]
    cells = sum(int(n.split("x")[0]) * int(n.split("x")[1]) for n, *_ in end.shapes)
    assert cells == end.held.sum()  # each PIGGY in one shape
    assert "wheel" in end.caption  # WHEEL on screen -> wheel
    fig = pbs.draw_lockit(game, steps)
    assert sum(1 for ax in fig.axes if ax.patches) == len(steps)
    cov = pbs.coverage(game)
    assert cov.shape == (3, 5) and np.all((cov > 0) & (cov < 1))
