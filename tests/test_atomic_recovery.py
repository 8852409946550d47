"""Killed writers: a ``report`` or a ``tune --out`` killed at a random moment
leaves the old result or the new one at the target, never neither; the next
run removes what the killed one left; written files honour the umask."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from slotmath.io.files import install_dir, leftovers, remove_leftovers

from conftest import ROOT, TEST_DATA

TRIALS = 20

# The killing harness: imports once, then forks one writer per trial and
# SIGKILLs it at a random moment of a run (uniform over one run's length),
# and prints, after each kill, the texts of the files in the target (a
# folder's files, or the one file).  Forking keeps a trial at the cost of
# the write itself, not of the imports.
HARNESS = r"""
import json, os, random, signal, sys, time
from pathlib import Path

mode, trials, seed, source, target = sys.argv[1:6]
target = Path(target)
if mode == "report":
    import nbformat, papermill
    from slotmath.report import notebook as report

    def execute(notebook, executed, parameters, **kw):
        # the kernel takes seconds: the notebook step writes the four files;
        # the export, the check and the install are the real ones
        out = Path(parameters["out"])
        for name in report.REPORT_FILES:
            (out / name).write_text("new " + name)
        nbformat.write(nbformat.v4.new_notebook(), executed)

    papermill.execute_notebook = execute

    def write():
        report.run_report(source, target.parent, spins=0, progress=False)
else:
    from slotmath.io.gamefile import load_game
    from slotmath.io.gamewriter import write_game
    from slotmath.model import Strip
    game = load_game(source)
    strips = tuple(Strip(tuple(reversed(s.symbols)), s.weights and tuple(reversed(s.weights)))
                   for s in game.strips("base"))

    def write():
        write_game(game, {"base": strips}, target, backup=False)


def state():
    if target.is_dir():
        return {p.name: p.read_text() for p in sorted(target.iterdir())}
    return {target.name: target.read_text()} if target.exists() else {}


def run(kill_after=None):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            write()
        finally:
            os._exit(0)
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return time.perf_counter() - start


full = run()                       # one whole run: its length bounds the kill moments
new = state()
rng = random.Random(int(seed))
for trial in range(int(trials)):
    if mode == "tune":             # start from the old file or the new one
        target.write_text("old" if trial % 2 == 0 else new[target.name])
    run(rng.uniform(0, full))
    print(json.dumps(state()), flush=True)
run()                              # an unkilled run removes what the killed ones left
print(json.dumps(sorted(p.name for p in target.parent.iterdir())))
"""


def kill_trials(mode: str, source: Path, target: Path, seed: int) -> tuple:
    """States after each of TRIALS kills, and the folder's names after a last run."""
    proc = subprocess.run(
        [sys.executable, "-c", HARNESS, mode, str(TRIALS), str(seed), str(source), str(target)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return lines[:-1], lines[-1]


def test_killed_reports_leave_old_or_new(tmp_path):
    target = tmp_path / "reports" / "report_toy"
    target.mkdir(parents=True)
    for name in ("par.html", "par.xlsx", "par.json", "par.txt"):
        (target / name).write_text("old " + name)
    states, names = kill_trials("report", TEST_DATA / "report_toy", target, 14)
    assert len(states) == TRIALS
    for texts in states:
        assert sorted(texts) == ["par.html", "par.json", "par.txt", "par.xlsx"], texts
        kinds = {t.split()[0] for n, t in texts.items() if n != "par.html"}
        assert kinds in ({"old"}, {"new"}), texts  # one result, whole
    assert names == ["report_toy"]  # leftovers removed
    assert (target / "par.json").read_text() == "new par.json"


def test_killed_tune_out_leaves_old_or_new(tmp_path):
    target = tmp_path / "tuned.yaml"
    states, names = kill_trials("tune", TEST_DATA / "tune_small" / "game.yaml", target, 15)
    new = target.read_text()
    assert "old" != new and len(states) == TRIALS
    for trial, texts in enumerate(states):
        before = "old" if trial % 2 == 0 else new
        assert texts in ({"tuned.yaml": before}, {"tuned.yaml": new}), texts
    assert names == ["tuned.yaml"]


def child(code: str, *args, umask: int = 0o022) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        umask=umask,
    )


TUNE_CHILD = r"""
import sys
from slotmath.io.gamefile import load_game
from slotmath.io.gamewriter import write_game
game = load_game(sys.argv[1])
write_game(game, {"base": game.strips("base")[::-1]}, sys.argv[2], backup=False)
"""


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_honour_the_umask(tmp_path, umask):
    target = tmp_path / "tuned.yaml"
    p = child(TUNE_CHILD, TEST_DATA / "tune_small" / "game.yaml", target, umask=umask)
    assert p.wait(timeout=300) == 0, p.stderr.read().decode()
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_leftovers_of_dead_processes_only(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    mine = tmp_path / f".x.tmp-{os.getpid()}-abc"
    gone = tmp_path / f".x.partial-{dead.pid}-abc"
    mine.write_text("in progress")
    gone.mkdir()
    assert leftovers(tmp_path, "x", ".partial-") == [gone]
    remove_leftovers(tmp_path, "x")
    assert mine.exists() and not gone.exists()


def test_interrupted_two_rename_install_is_repaired(tmp_path, monkeypatch):
    # a run killed between the fallback's two renames leaves only .x.old-<pid>:
    # the next run puts it back
    dead = subprocess.Popen(["true"])
    dead.wait()
    old = tmp_path / f".x.old-{dead.pid}"
    old.mkdir()
    (old / "par.json").write_text("old")
    remove_leftovers(tmp_path, "x")
    assert (tmp_path / "x" / "par.json").read_text() == "old"
    work = tmp_path / "work"
    work.mkdir()
    (work / "par.json").write_text("new")
    install_dir(work, tmp_path / "x")
    assert (tmp_path / "x" / "par.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]
