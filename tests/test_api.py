"""The curated top level (``slotmath.load``, ``par``, ...): lazy, documented,
and the same figures as the modules it delegates to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import slotmath

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ["load", "par", "simulate", "tune", "report", "validate"]


def run_python(code: str) -> subprocess.CompletedProcess:
    """``python -c code`` in a fresh interpreter on this checkout; it must succeed."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_import_is_light():
    """``import slotmath`` and a look at its names import no numerics."""
    code = (
        "import json, sys\nimport slotmath\nnames = dir(slotmath)\nslotmath.load\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = run_python(code)
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert not loaded & {"numba", "pandas", "scipy", "numpy"}, loaded & {"numba", "pandas", "scipy"}


def test_all_lists_the_api_first_and_dir_shows_it():
    assert slotmath.__all__[: len(PUBLIC)] == PUBLIC
    assert set(slotmath.__all__) <= set(dir(slotmath))
    for name in slotmath.__all__:
        assert getattr(slotmath, name) is not None


def test_every_function_has_a_numpydoc_docstring():
    from slotmath import api

    for name in PUBLIC:  # (slotmath.report is the report package once that is imported)
        doc = getattr(api, name).__doc__
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
    components = slotmath.par(game, what="components")
    assert sum(components.values()) == expected.rtp
    assert slotmath.par(game, what="figures")["rtp"] == expected.rtp


def test_par_of_a_bet_mode_is_its_mode_result():
    """``slotmath.par(game, mode=NAME)`` is the mode's figures: the buy of
    modes_free_spins costs 100 and its RTP per unit of cost is the round's
    mean win over 100; "base" is every game's implicit mode (cost 1)."""
    from slotmath.errors import GameFileError
    from slotmath.rules.modepar import mode_par

    game = slotmath.load("modes_free_spins")
    buy = slotmath.par(game, mode="buy")
    assert buy.cost == 100 and buy.rtp == buy.par.rtp / 100
    assert buy.rtp == mode_par(game, "buy").rtp
    assert slotmath.par("fruit_classic", mode="base").rtp == slotmath.par("fruit_classic").rtp
    with pytest.raises(GameFileError, match="no mode 'turbo'"):
        slotmath.par(game, mode="turbo")
    with pytest.raises(ValueError, match="whole PAR"):
        slotmath.par(game, mode="buy", what="components")


def test_par_refuses_bad_what_and_level():
    from slotmath.io.gamefile import GameFileError

    game = slotmath.load("fruit_classic")
    with pytest.raises(ValueError, match="what must be one of"):
        slotmath.par(game, what="estimate")
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


# ---------------------------------------------------------------- errors
ERROR_HOMES = {
    "slotmath.io.gamefile": ["GameFileError"],
    "slotmath.io.arguments": ["UsageError"],
    "slotmath.io.gamewriter": ["GameWriteError"],
    "slotmath.engine.limits": ["EngineTooLarge"],
    "slotmath.rules.registry": ["UnknownRules"],
    "slotmath.rules.figures": ["EngineMismatch"],
    "slotmath.testing.conformance": ["ConformanceError"],
    "slotmath.montecarlo.run": ["SetupError", "SchedulerError"],
    "slotmath.tuning.reelspace": ["BoundsError"],
    "slotmath.report.notebook": ["ReportError"],
}


@pytest.mark.parametrize("module", sorted(ERROR_HOMES))
def test_every_error_is_a_slotmath_error_importable_where_it_was(module):
    import importlib

    from slotmath import errors

    for name in ERROR_HOMES[module]:
        cls = getattr(importlib.import_module(module), name)
        assert cls is getattr(errors, name) and issubclass(cls, slotmath.SlotmathError), name
        assert cls.__doc__, name


def test_errors_keep_the_builtin_base_they_replace():
    from slotmath import errors

    for cls in (errors.GameFileError, errors.SetupError, errors.BoundsError, errors.InfeasibleTuning):
        assert issubclass(cls, ValueError), cls
    assert issubclass(errors.EngineTooLarge, RuntimeError)
    assert issubclass(errors.UnknownRules, LookupError)
    assert issubclass(errors.ConformanceError, AssertionError)


def test_error_carries_file_field_and_the_line_the_cli_prints(tmp_path):
    """A game file with a bad strip: the error names file, field and problem,
    and ``slotmath validate`` prints exactly ``slotmath: error: <str(error)>``."""
    from slotmath.cli import main
    from slotmath.errors import GameFileError

    bad = tmp_path / "game.yaml"
    bad.write_text("title: x\n", encoding="utf-8")
    with pytest.raises(GameFileError) as info:
        slotmath.load(bad)
    err = info.value
    assert err.file == str(bad) and err.problem
    assert str(err) == ": ".join(p for p in (err.file, err.field, err.problem) if p)
    proc = subprocess.run(
        [sys.executable, "-m", "slotmath", "validate", str(bad)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2 and proc.stderr == f"slotmath: error: {err}\n"
    assert main is not None


def test_ensure_raises_the_named_error():
    from slotmath.errors import GameFileError, InternalError, ensure

    ensure(1 + 1 == 2, "arithmetic")
    with pytest.raises(InternalError, match="weights do not add up"):
        ensure(3 == 4, "weights do not add up")
    with pytest.raises(GameFileError) as info:
        ensure(
            False,
            "must be positive",
            lambda p, **w: GameFileError(w["file"], w["field"], p),
            file="g.yaml",
            field="reels",
        )
    assert str(info.value) == "g.yaml: reels: must be positive"


def test_no_assert_in_the_package():
    """``python -O`` removes asserts: production checks use ``ensure`` or raise."""
    import ast

    found = [
        f"{p.relative_to(ROOT)}:{n.lineno}"
        for p in sorted((ROOT / "slotmath").rglob("*.py"))
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(n, ast.Assert)
    ]
    assert found == []


# ---------------------------------------------------------------- results
def test_par_result_is_frozen():
    import dataclasses

    result = slotmath.par("fruit_classic")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.rtp = 0  # type: ignore[misc]
    changed = dataclasses.replace(result, notes=[*result.notes, "a note"])
    assert changed.notes[-1] == "a note" and "a note" not in result.notes


def test_summary_is_numbers_with_units_and_display_formats_them(capsys):
    """The summary frame holds floats keyed by figure [unit]: its RTP is the
    exact RTP, its component rows sum to it, and the hit frequency is the
    distribution's; the percent text appears only in print_summary and HTML."""
    result = slotmath.par("classic_free_spins")
    s = result.summary
    assert s.index.name == "figure" and list(s.columns) == ["value"]
    assert s["value"].dtype == float
    assert s.loc["RTP [x total bet]", "value"] == float(result.rtp)
    parts = [f"RTP {k} [x total bet]" for k in result.components]
    assert s.loc[parts, "value"].sum() == pytest.approx(float(result.rtp), rel=1e-12)
    assert s.loc["hit frequency [probability]", "value"] == result.hit_frequency
    assert s.loc["SD [x total bet]", "value"] == result.sd
    assert s.loc["cycle [outcomes]", "value"] == result.cycle
    # classic_free_spins retriggers without a limit: no largest win exists (NaN),
    # while the distribution shows its largest resolved win
    assert result.true_max_win.value is None
    assert np.isnan(s.loc["max win [x total bet]", "value"])
    assert s.loc["largest win shown in the distribution [x total bet]", "value"] == float(
        result.distribution.max_win
    )
    assert all("[" in name and name.endswith("]") for name in s.index)
    rtp_text = f"{float(result.rtp):.6%}"
    result.print_summary()
    assert rtp_text in capsys.readouterr().out
    assert rtp_text in result._repr_html_()


def test_errors_survive_pickling():
    """Errors raised in worker processes come back whole."""
    import pickle

    from slotmath.errors import GameFileError, ReportError, SetupError

    for err in (
        GameFileError("g.yaml", "reels", "too short"),
        ReportError("g", "run", "why", 2),
        SetupError("x"),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err) and back.__dict__ == err.__dict__


@pytest.mark.parametrize("first", ["slotmath.report", "slotmath"])
def test_report_is_callable_whichever_is_imported_first(first):
    """``slotmath/report/`` is also a subpackage: once it is imported,
    ``slotmath.report`` is the package, which calls the same function; a
    game that does not exist is a ReportError of status 2 either way."""
    code = (
        f"import importlib\nimportlib.import_module({first!r})\nimport slotmath\n"
        "from slotmath.errors import ReportError\nkind = type(slotmath.report).__name__\n"
        "try:\n    slotmath.report('no_such_game_here', progress=False)\n"
        "except ReportError as exc:\n    print(kind, exc.status, exc.step)\n"
    )
    proc = run_python(code)
    kind = "_CallablePackage" if first == "slotmath.report" else "function"
    assert proc.stdout.strip() == f"{kind} 2 load game"


def test_simulate_is_the_cross_check():
    """``slotmath.simulate`` is ``cross_check`` (same seed, same rounds:
    the same estimate), and its RTP is within 4 standard errors of the exact."""
    from slotmath.analysis.simulation import cross_check

    game = slotmath.load("fruit_classic")
    ours = slotmath.simulate(game, 20_000, seed=1, workers=1, progress=False)
    theirs = cross_check(game, None, 20_000, 1, workers=1, progress=False)
    ours, theirs = ours.to_dict(), theirs.to_dict()
    for figure in ("rtp", "hit_frequency", "sd"):
        assert ours[figure] == theirs[figure], figure
    assert ours["rounds"] == 20_000 and abs(ours["rtp"]["z"]) < 4


def test_tune_takes_a_number_as_the_target_rtp(monkeypatch):
    """A bare number becomes ``Targets(rtp=...)``, the rest is passed through."""
    from fractions import Fraction

    from slotmath.tuning import tune as tune_module
    from slotmath.tuning.targets import Targets

    seen = {}
    monkeypatch.setattr(tune_module, "tune", lambda game, targets, bounds, **kw: seen.update(locals()))
    slotmath.tune("fruit_classic", 0.93, max_evaluations=5)
    assert seen["targets"] == Targets(rtp=Fraction("0.93")) and seen["kw"] == {"max_evaluations": 5}
    assert seen["game"].name == "fruit_classic" and seen["bounds"] is None


def test_report_builds_the_report_folder(tmp_path, monkeypatch):
    """``slotmath.report`` runs the report steps into ``out/<game>/`` (the
    notebook kernel replaced by one writing the four files)."""
    import nbformat
    import papermill

    from slotmath.report import notebook

    def execute(source, executed, parameters, **kw):
        for name in notebook.REPORT_FILES:
            (Path(parameters["out"]) / name).write_text("new " + name)
        nbformat.write(nbformat.v4.new_notebook(), executed)

    monkeypatch.setattr(papermill, "execute_notebook", execute)
    folder = slotmath.api.report(ROOT / "tests" / "data" / "report_toy", tmp_path, spins=0, progress=False)
    assert folder == tmp_path / "report_toy"
    assert sorted(p.name for p in folder.iterdir()) == sorted(notebook.REPORT_FILES)
    assert (folder / "par.json").read_text() == "new par.json"
