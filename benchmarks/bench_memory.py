"""Peak memory of ``slotmath par GAME --json``, one fresh process per game.

For every example game in ``data/games`` and for the memory stress cases of
:mod:`stress_games` (video20 with one 1e7-coin pay, video20 with a scatter
pay of 1/999983 total bet, Grand Spinn Superpot with every strip repeated
four times), runs the installed command in its own process and reads that
process's peak resident set size from ``os.wait4`` (the kernel's
``ru_maxrss`` of the child, its whole life: interpreter, imports, numba
kernels loaded from the cache, the analysis and the JSON output).  The
first row, ``slotmath validate video20``, is the floor: start-up and
imports without the numeric engine.

Usage: ``python benchmarks/bench_memory.py [NAME ...] [--repeat N]``
(names: example games or stress cases; wall time is the median of N runs,
peak RSS the largest).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stress_games import stress_game

from slotmath.io.gamefile import GAMES_DIR

#: Stress cases and their goals (issue 14, point 3).
STRESS = {
    "video20_bigpay": "< 500 MB",
    "video20_scatter_prime": "< 500 MB",
    "grand_spinn_x4": "< 1 GB",
}


def slotmath_command() -> list:
    """The ``slotmath`` console script beside this interpreter, else ``python -m slotmath``."""
    script = Path(sys.executable).parent / "slotmath"
    return [str(script)] if script.exists() else [sys.executable, "-m", "slotmath"]


#: a small launcher: forks ``slotmath`` from itself, waits for it and writes
#: its ``ru_maxrss`` [KiB] to the file named first.  A process exec'd straight
#: from a large one (a test session) reports that one's resident size in
#: ``ru_maxrss`` (Linux keeps the old memory's high-water mark across exec);
#: forked from this small launcher the measure is the command's own.
LAUNCHER = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def peak_rss(args: list, timeout: float = 600, stdout=None) -> tuple:
    """Run ``slotmath ARGS`` in a fresh process (its output written to the
    open file ``stdout``, else discarded).

    Returns ``(exit status, wall time [s], peak RSS [MB])``; the peak is the
    command's own ``ru_maxrss``, measured by :data:`LAUNCHER`.
    """
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "wb") as null:
        report = Path(tmp) / "maxrss"
        command = [sys.executable, "-c", LAUNCHER, str(report)] + slotmath_command() + [str(a) for a in args]
        start = time.perf_counter()
        p = subprocess.Popen(command, stdout=stdout or null, stderr=null, start_new_session=True)
        try:
            status = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            status = p.wait()
        seconds = time.perf_counter() - start
        kib = int(report.read_text()) if report.exists() else 0
    return status, seconds, kib / 1024


def game_folder(name: str, scratch: Path) -> Path:
    """Folder of example game or stress case ``name`` (stress cases written under ``scratch``)."""
    if (GAMES_DIR / name).is_dir():
        return GAMES_DIR / name
    stress_game(name, scratch)
    return Path(scratch) / name


def measure(name: str, scratch: Path, repeat: int = 1) -> dict:
    """Peak RSS and wall time of ``slotmath par NAME --json`` (``repeat`` runs)."""
    folder = game_folder(name, scratch)
    runs = [peak_rss(["par", folder, "--json"]) for _ in range(repeat)]
    return {
        "game": name,
        "status": max(r[0] for r in runs),
        "seconds": statistics.median(r[1] for r in runs),
        "peak_mb": max(r[2] for r in runs),
        "goal": STRESS.get(name, ""),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    examples = sorted(p.name for p in GAMES_DIR.iterdir() if (p / "game.yaml").is_file())
    ap.add_argument("names", nargs="*", default=examples + list(STRESS))
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    status, seconds, floor = peak_rss(["validate", "video20"])
    print("| command | exit | wall [s] | peak RSS [MB] | goal |\n|---|---:|---:|---:|---|")
    print(f"| `slotmath validate video20` (floor) | {status} | {seconds:.2f} | {floor:,.0f} | |", flush=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="slotmath-memory-") as scratch:
        for name in args.names:
            r = measure(name, Path(scratch), args.repeat)
            failed |= r["status"] != 0
            print(
                f"| `slotmath par {name} --json` | {r['status']} | {r['seconds']:.2f} "
                f"| {r['peak_mb']:,.0f} | {r['goal']} |",
                flush=True,
            )
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
