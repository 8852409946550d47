"""The wheel carries the example games: built from this tree and installed in
a fresh virtual environment, ``slotmath par video20`` runs outside any
project (the games are found through importlib.resources)."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    """Run a command without PYTHONPATH / SLOTMATH_GAMES (nothing of this tree)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SLOTMATH_GAMES")}
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=600, env=env
    )


def test_wheel_installs_and_finds_bundled_games(tmp_path):
    # build from a copy (the link slotmath/examples -> data/games becomes files)
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "slotmath", src / "slotmath", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    dist = tmp_path / "dist"
    proc = run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-q",
        "-w",
        dist,
        src,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(dist.glob("slotmath-*.whl"))

    # a fresh environment; its dependencies (numba, pandas, ...) are read from
    # this interpreter's site-packages, after its own (no download)
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", "--without-pip", venv).returncode == 0
    python = venv / "bin" / "python"
    own = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    (own / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    proc = run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel
    )
    assert proc.returncode == 0, proc.stderr[-2000:]

    elsewhere = tmp_path / "elsewhere"  # no data/games here or above
    elsewhere.mkdir()
    where = run(python, "-c", "import slotmath; print(slotmath.__file__)", cwd=elsewhere)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr
    proc = run(venv / "bin" / "slotmath", "par", "video20", "--json", cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    committed = json.loads((ROOT / "reports" / "video20" / "par.json").read_text())
    assert result["rtp_exact"] == committed["rtp_exact"]
