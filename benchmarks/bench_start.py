"""Start-up benchmark: whole-process time of the light commands.

Median of ``--repeat`` runs (default 5) of each command as a fresh process,
beside ``python -c pass`` (the interpreter alone): ``slotmath --help``,
``--version`` and ``validate GAME`` for the seed games.  These commands
import neither numba, pandas nor scipy (``tests/test_architecture.py``), so
their time is the interpreter, PyYAML, jsonschema and the game file.

Usage: ``python benchmarks/bench_start.py [--repeat K]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
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
