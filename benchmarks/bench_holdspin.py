"""Benchmark: the hold-and-spin example game's exact RTP, PAR and sampler speed.

Run: ``.venv/bin/python benchmarks/bench_holdspin.py [--repeat 3]``.  Medians
of fresh runs (every cached result forgotten, numba kernels compiled):

* exact RTP: key odds from the base strips, the chain on the total count of
  held coins (16 states, Fractions) and the exact line and scatter RTP;
* award laws: the total-count chain's final-count laws and the convolved
  prize laws of every key (before the chain on counts: the 2**15-mask chain
  run backwards once per final count, float64);
* PAR: the whole round (combination table, RTP, round win distribution),
  by the line rules' generic round (``slotmath par``) and by the standalone
  round PAR (direct convolutions);
* sampler: rounds per second of the compiled round sampler (base spin +
  feature, :mod:`slotmath.montecarlo.roundsim`).
"""

from __future__ import annotations

import argparse
import os
import time

from slotmath.features.holdspin import hold_and_spin_awards, load_hold_and_spin
from slotmath.io.gamefile import load_game
from slotmath.montecarlo.run import run_chunk
from slotmath.rules.linegame import round_sampler
from slotmath.rules.par import par
from slotmath.testing.holdspin_round import hold_and_spin_par, hold_and_spin_rtp

from timing import forget_cached_results, median_time


def fresh(fn):
    def run():
        forget_cached_results()
        game = load_game("hold_and_spin")
        return fn(game)

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2_000_000)
    args = ap.parse_args()
    game = load_game("hold_and_spin")
    hold_and_spin_par(game, 1)  # compile the line engine's kernels
    sampler = round_sampler(game, 1)
    run_chunk(sampler, 0, 0, 10_000)  # compile the sampler
    print(f"load average: {os.getloadavg()[0]:.2f}")
    t = median_time(fresh(lambda g: hold_and_spin_rtp(g, 1, load_hold_and_spin(g))), args.repeat)
    print(f"exact RTP (Fraction)          {t:8.2f} s")
    t = median_time(fresh(lambda g: hold_and_spin_awards(g, 1, load_hold_and_spin(g))), args.repeat)
    print(f"award laws of every key       {t:8.2f} s")
    t = median_time(fresh(lambda g: par(g, 1)), args.repeat)
    print(f"PAR, generic round            {t:8.2f} s")
    t = median_time(fresh(lambda g: hold_and_spin_par(g, 1)), args.repeat)
    print(f"PAR, standalone round         {t:8.2f} s")
    start = time.perf_counter()
    run_chunk(sampler, 1, 0, args.rounds)
    rate = args.rounds / (time.perf_counter() - start)
    print(f"sampler                       {rate:12,.0f} rounds/s")


if __name__ == "__main__":
    main()
