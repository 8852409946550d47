"""Start-up benchmark: whole-process time of the light commands.

Median of ``--repeat`` runs (default 5) of each command as a fresh process,
beside ``python -c pass`` (the interpreter alone): ``slotmath --help``,
``--version`` and ``validate GAME`` for the seed games.  These commands
import neither numba, pandas nor scipy (``tests/test_architecture.py``), so
their time is the interpreter, PyYAML, jsonschema and the game file.

With ``--cold``, the warm start of the exact commands: ``slotmath par GAME``
as a fresh process with an empty numba cache (``NUMBA_CACHE_DIR`` pointed at
a new folder: what a fresh install pays), after ``slotmath warmup`` into that
cache (what ``make install`` leaves), and warm (the same again); wall and CPU
seconds (the child's user + system time, which a busy machine does not inflate).

Usage: ``python benchmarks/bench_start.py [--repeat K] [--cold GAME ...]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "slotmath --help": ["-m", "slotmath", "--help"],
    "slotmath --version": ["-m", "slotmath", "--version"],
    "slotmath validate video20": ["-m", "slotmath", "validate", "video20"],
    "slotmath validate grand_spinn_superpot": ["-m", "slotmath", "validate", "grand_spinn_superpot"],
    "slotmath validate piggy_bankin_superlock": ["-m", "slotmath", "validate", "piggy_bankin_superlock"],
}


def process_time(args: list[str], repeat: int) -> float:
    """Median wall time of ``python ARGS`` as a new process [s]."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=ROOT, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def timed(args: list[str], env: dict) -> tuple:
    """(wall, CPU) seconds of ``python ARGS`` as a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def cold_start(games: list[str]) -> None:
    """``slotmath par GAME`` with an empty numba cache, after ``slotmath warmup``, and warm."""
    print("\nWarm start: slotmath par GAME as a fresh process [wall s / CPU s]")
    print(f"{'game':<24}{'empty cache':>16}{'after warmup':>16}{'warm':>16}{'after/warm CPU':>16}")
    for game in games:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": cache}
            cold = timed(["-m", "slotmath", "par", game], env)
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": cache}
            warmup = timed(["-m", "slotmath", "warmup"], env)
            first = timed(["-m", "slotmath", "par", game], env)
            warm = timed(["-m", "slotmath", "par", game], env)
        cells = "".join(f"{w:>9.2f} /{c:>5.2f}" for w, c in (cold, first, warm))
        print(f"{game:<24}{cells}{first[1] / warm[1]:>15.2f}x   (warmup {warmup[0]:.0f} s)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", nargs="*", metavar="GAME", help="also the warm start of slotmath par GAME")
    args = ap.parse_args(argv)
    if args.cold:
        cold_start(args.cold)
        return 0
    base = None
    print(f"Start-up (whole process, median of {args.repeat})")
    print(f"{'command':<44}{'time [s]':>10}{'beyond python [s]':>19}")
    for name, command in COMMANDS.items():
        t = process_time(command, args.repeat)
        base = t if base is None else base
        print(f"{name:<44}{t:>10.3f}{t - base:>19.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
