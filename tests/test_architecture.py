"""The package's shape: the layer contract (import-linter), a light command
line, and no module over 800 lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "slotmath"
HEAVY = ("numba", "pandas", "scipy", "matplotlib")


def test_layer_contract_is_kept():
    """``lint-imports`` (contracts in pyproject.toml): every layer imports only
    the layers below it, and the games do not import each other."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    proc = subprocess.run(
        [exe, "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def imported_after(args: list[str], cwd=ROOT) -> set[str]:
    """The top-level modules in ``sys.modules`` after ``slotmath ARGS`` ran in
    a fresh interpreter."""
    code = (
        "import json, sys\nfrom slotmath.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["validate", "video20"],
        ["validate", "grand_spinn_superpot"],
        ["validate", "piggy_bankin_superlock"],
    ],
)
def test_light_commands_import_no_numerics(args):
    """--help, --version and validate import neither numba, pandas, scipy nor
    matplotlib (the rules packages' checks are light; the analysis is not
    imported to validate a game file)."""
    assert not imported_after(args) & set(HEAVY)


GAME_FOLDERS = sorted(
    p.parent
    for p in [*(ROOT / "data" / "games").glob("*/game.yaml"), *(ROOT / "tests" / "data").glob("*/game.yaml")]
    if p.parent.name != "tune_hook"  # its rules are registered by the test that uses it
)


@pytest.mark.parametrize("folder", GAME_FOLDERS, ids=lambda p: p.name)
def test_validate_is_light_on_every_game(folder):
    """``slotmath validate`` on every valid game folder (data/games/*, tests/data/*
    but bad/) says ok, imports neither numba, pandas nor scipy, and takes under
    1 s of CPU: measured inside the process (``time.process_time``, so a busy
    machine does not count) from before ``import slotmath.cli`` to the end of
    ``main`` (interpreter start excluded)."""
    code = (
        "import json, sys, time\nt0 = time.process_time()\nfrom slotmath.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "t = time.process_time() - t0\n"
        "print(json.dumps([t, sorted({m.split('.')[0] for m in sys.modules})]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "validate", str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    seconds, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not set(modules) & {"numba", "pandas", "scipy"}
    assert seconds < 1.0, seconds


def test_version():
    proc = subprocess.run(
        [sys.executable, "-m", "slotmath", "--version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    import slotmath

    assert proc.returncode == 0 and proc.stdout.strip() == f"slotmath {slotmath.__version__}"


def test_help_lists_every_command():
    """The upper layers' commands are listed without importing their modules."""
    proc = subprocess.run(
        [sys.executable, "-m", "slotmath", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0
    for command in ("validate", "par", "simulate", "report", "tune", "sensitivities"):
        assert command in proc.stdout


def test_modules_under_800_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert not long, long
