"""The report notebook's kernel imports the slotmath package, never a
``slotmath/`` folder that happens to sit in the working directory
(PYTHONPATH is still honoured)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, TEST_DATA


@pytest.mark.slow  # a whole report in a notebook kernel
def test_report_kernel_ignores_the_working_directory(tmp_path):
    impostor = tmp_path / "cwd" / "slotmath"
    impostor.mkdir(parents=True)
    (impostor / "__init__.py").write_text("raise ImportError('the impostor package was imported')\n")
    out = tmp_path / "reports"
    # this checkout's command, but no PYTHONPATH for the kernel to inherit: the
    # kernel imports the command's package (its folder put on the kernel's
    # sys.path), which a folder in the working directory would shadow if that
    # directory were on its sys.path
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from slotmath.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "report",
            str(TEST_DATA / "report_toy"),
            "--out",
            str(out),
            "--spins",
            "0",
            "--quiet",
        ],
        cwd=impostor.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert "impostor" not in p.stderr
    data = json.loads((out / "report_toy" / "par.json").read_text())
    assert data["game"] == "report_toy"
    assert sorted(x.name for x in out.iterdir()) == ["report_toy"]


@pytest.mark.slow  # a notebook kernel
def test_report_kernel_imports_the_package_the_command_runs(tmp_path):
    # a checkout run as `PYTHONPATH=$PWD python -m slotmath report ...` from
    # its own folder (how a worktree beside an installed one is run): the
    # kernel drops its working directory from sys.path (ignore_cwd), and with
    # it the PYTHONPATH entry naming the same folder, so it imported the
    # installed package -- another checkout's code, whose commit the sheet
    # then named.  The checkout here is a folder whose `slotmath` links to
    # this package: the kernel must import it from there.
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "slotmath").symlink_to(ROOT / "slotmath", target_is_directory=True)
    seen = tmp_path / "kernel_imported.txt"
    notebook = tmp_path / "which.ipynb"
    source = f"import slotmath\nopen({str(seen)!r}, 'w').write(slotmath.__file__)\n"
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}]
    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    notebook.write_text(json.dumps({"cells": cells, "metadata": kernel, "nbformat": 4, "nbformat_minor": 5}))
    code = (
        "from pathlib import Path; from slotmath.errors import ReportError; "
        "from slotmath.report.notebook import run_report\n"
        f"try: run_report({str(TEST_DATA / 'report_toy')!r}, Path({str(tmp_path / 'out')!r}), None, 0, 0, "
        f"notebook=Path({str(notebook)!r}), progress=False)\n"
        "except ReportError: pass  # the notebook writes no report files"
    )
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    p = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, env=env, capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert seen.read_text() == str(checkout / "slotmath" / "__init__.py")
