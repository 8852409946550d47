"""The curated top level (``slotmath.load``, ``par``, ...): lazy, documented,
and the same figures as the modules it delegates to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import slotmath

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ["load", "par", "simulate", "tune", "report", "validate"]


def test_import_is_light():
    """``import slotmath`` and a look at its names import no numerics."""
    code = (
        "import json, sys\nimport slotmath\nnames = dir(slotmath)\nslotmath.load\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert not loaded & {"numba", "pandas", "scipy", "numpy"}, loaded & {"numba", "pandas", "scipy"}


def test_all_lists_the_api_first_and_dir_shows_it():
    assert slotmath.__all__[: len(PUBLIC)] == PUBLIC
    assert set(slotmath.__all__) <= set(dir(slotmath))
    for name in slotmath.__all__:
        assert getattr(slotmath, name) is not None


def test_every_function_has_a_numpydoc_docstring():
    for name in PUBLIC:
        doc = getattr(slotmath, name).__doc__
        assert "Parameters\n    ----------" in doc and "Returns\n    -------" in doc, name


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        slotmath.no_such_name  # noqa: B018


def test_subpackages_load_on_demand():
    assert slotmath.model.Game.__name__ == "Game"


def test_par_is_the_rules_par():
    """``slotmath.par`` gives the figures of :func:`slotmath.rules.par.par`,
    from a spec or a Game; "components" sums to the exact RTP."""
    from slotmath.rules.par import par

    game = slotmath.load("fruit_classic")
    expected = par(game, game.levels[0])
    result = slotmath.par("fruit_classic")
    assert result.rtp == expected.rtp and isinstance(result.rtp, Fraction)
    components = slotmath.par(game, mode="components")
    assert sum(components.values()) == expected.rtp
    assert slotmath.par(game, mode="figures")["rtp"] == expected.rtp


def test_par_refuses_bad_mode_and_level():
    from slotmath.io.gamefile import GameFileError

    game = slotmath.load("fruit_classic")
    with pytest.raises(ValueError, match="mode"):
        slotmath.par(game, mode="estimate")
    with pytest.raises(GameFileError, match="bet level 999"):
        slotmath.par(game, level=999)


def test_validate_returns_the_game_and_names_the_field(tmp_path):
    from slotmath.io.gamefile import GameFileError

    assert slotmath.validate("fruit_classic").name == "fruit_classic"
    bad = tmp_path / "game.yaml"
    bad.write_text("title: x\n", encoding="utf-8")
    with pytest.raises(GameFileError) as info:
        slotmath.validate(bad)
    assert info.value.file == str(bad)
