"""Benchmark: a shape-award lock-it in the round of ``rules: lines``.

Run: ``.venv/bin/python benchmarks/bench_lockit_round.py [--repeat 3]``.
The game is :mod:`stress_games`' ``piggy_lines`` (Piggy Bankin' Superlock's
base reels, 20 lines and base-game lock-it, 5x3, cycle 2,886,699,816).
Medians of fresh runs (every cached result forgotten, numba kernels
compiled):

* RTP by component: the key odds, the chain run backward once per group of
  final screens (float64) and the line RTP;
* PAR: the whole round (joint base win and key by the line engine, the
  award laws of the groups, the round's win distribution);
* ``slotmath par --json`` in a fresh process: wall time and peak memory;
* sampler: rounds per second of the compiled round (base spin + lock-it,
  the lock-it a slot of :mod:`slotmath.montecarlo.roundsim`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench_memory import peak_rss
from stress_games import stress_game

from slotmath.montecarlo.run import run_chunk
from slotmath.rules import linegame

from timing import forget_cached_results, median_time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2_000_000)
    args = ap.parse_args(argv)
    scratch = Path(tempfile.mkdtemp())
    game = stress_game("piggy_lines", scratch)
    linegame.analyse(game, 1)  # compile the kernels
    sampler = linegame.round_sampler(game, 1)
    run_chunk(sampler, 0, 0, 10_000)
    print(f"load average: {os.getloadavg()[0]:.2f}")

    def fresh(fn):
        def run():
            forget_cached_results()
            return fn(stress_game("piggy_lines", scratch))

        return run

    t = median_time(fresh(lambda g: linegame.components(g, 1)), args.repeat)
    print(f"RTP by component              {t:8.2f} s")
    t = median_time(fresh(lambda g: linegame.analyse(g, 1)), args.repeat)
    print(f"PAR (round distribution)      {t:8.2f} s")
    status, seconds, mb = peak_rss(["par", scratch / "piggy_lines", "--json"])
    print(f"slotmath par --json           {seconds:8.2f} s, peak {mb:.0f} MB (exit {status})")
    start = time.perf_counter()
    run_chunk(sampler, 1, 0, args.rounds)
    rate = args.rounds / (time.perf_counter() - start)
    print(f"sampler                       {rate:12,.0f} rounds/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
