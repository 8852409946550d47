"""``slotmath simulate`` as a whole process against its sampling time.

Runs ``slotmath simulate GAME --spins N --json --no-progress`` ``--repeat``
times as a fresh process (default: Piggy Bankin' Superlock, 2e7 rounds, 3
runs) and reports the medians of the whole-process wall time and of the
sampling time the command reports (``elapsed_s``: the chunked run alone),
and their ratio.  The rest is start-up, loading the game, compiling or
loading the kernels and the exact figures the comparison needs (the RTP
and its components, the cheap hit frequency and SD).

Usage: ``python benchmarks/bench_simulate_command.py [--game G] [--spins N]
[--repeat K] [--root DIR]`` (``--root``: the source tree to time, default
this one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(root: Path, game: str, spins: str) -> tuple:
    """(whole-process wall time, sampling time) of one command [s]."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, "-m", "slotmath", "simulate", game, "--spins", spins]
    command += ["--json", "--no-progress"]
    t = time.perf_counter()
    proc = subprocess.run(command, check=True, capture_output=True, cwd=root, env=env, text=True)
    whole = time.perf_counter() - t
    return whole, float(json.loads(proc.stdout)["elapsed_s"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="piggy_bankin_superlock")
    ap.add_argument("--spins", default="2e7")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT)
    args = ap.parse_args(argv)
    one_run(args.root, args.game, "1e4")  # compile or load the kernels once
    runs = [one_run(args.root, args.game, args.spins) for _ in range(args.repeat)]
    whole = statistics.median(w for w, _ in runs)
    sampling = statistics.median(s for _, s in runs)
    print(f"slotmath simulate {args.game} --spins {args.spins} (median of {args.repeat})")
    print(f"  runs [whole s / sampling s]: {', '.join(f'{w:.1f}/{s:.1f}' for w, s in runs)}")
    print(f"  whole process {whole:.1f} s, sampling {sampling:.1f} s, ratio {whole / sampling:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
