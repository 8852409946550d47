"""Time of the test suite by tier: ``python benchmarks/bench_test_tiers.py``.

* the fast tier, ``make check`` (``pytest -m "not slow"``): wall and CPU
  time [s] of one run, and the tests of that run that took ``--threshold``
  seconds or more (candidates for ``tests/slow_tests.txt``; ``--write``
  appends them);
* with ``--all``, the slow tier too (``pytest -m slow``) and the whole
  suite's time as their sum (``make test`` runs both in one process).

Each tier runs in a fresh ``pytest`` process from the project root with the
numba cache warm (``make install`` compiled the kernels).  The figures go to
``benchmarks/results.md`` by hand, with the machine and its load.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOW_LIST = ROOT / "tests" / "slow_tests.txt"
DURATION = re.compile(r"^([0-9.]+)s call\s+(\S.*)$")


def run_tier(marker: str) -> tuple:
    """(wall [s], CPU of the pytest process and its children [s], pytest's
    closing line, {node id: call time [s]}) of ``pytest -m MARKER``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", marker, "-q", "-p", "no:randomly", "--durations=0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = done.stdout.splitlines()
    ends = [line for line in lines if " in " in line and "passed" in line]
    closing = ends[-1] if ends else "no closing line"
    times = {}
    for line in lines:
        m = DURATION.match(line.strip())
        if m:
            times[m.group(2)] = float(m.group(1))
    return wall, cpu, closing, times


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="time the slow tier too")
    parser.add_argument("--threshold", type=float, default=2.5, help="a fast test this slow is listed [s]")
    parser.add_argument("--write", action="store_true", help="append those tests to tests/slow_tests.txt")
    args = parser.parse_args(argv)
    wall, cpu, closing, times = run_tier("not slow")
    print(f"fast tier (make check): {wall:.0f} s wall, {cpu:.0f} s CPU; {closing}")
    heavy = sorted((t, node) for node, t in times.items() if t >= args.threshold)
    for t, node in reversed(heavy):
        print(f"  {t:6.2f} s  {node}")
    if args.write and heavy:
        with SLOW_LIST.open("a", encoding="utf-8") as f:
            f.writelines(f"{node}\n" for _, node in sorted(heavy, key=lambda x: x[1]))
    if args.all:
        slow_wall, slow_cpu, slow_closing, _ = run_tier("slow")
        print(f"slow tier: {slow_wall:.0f} s wall, {slow_cpu:.0f} s CPU; {slow_closing}")
        print(f"whole suite (make test's pytest): {wall + slow_wall:.0f} s wall, {cpu + slow_cpu:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
