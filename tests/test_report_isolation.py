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
    # kernel imports the installed package, which a folder in the working
    # directory would shadow if that directory were on its sys.path
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
