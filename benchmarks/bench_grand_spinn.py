"""Benchmark: the full exact analysis of Grand Spinn Superpot.

Prints medians over repeated runs (after one run that compiles the numba
kernels): the whole ``analyse`` (enumeration of every stop combination with
its nudges, the nudge chains, the distribution, combination table and
jackpot figures), its parts, and the Monte Carlo sampler's rounds per
CPU-second of this process (the per-core figure) and per wall second.
Goals: the full exact analysis under 1 s; the sampler at least 2 million
rounds per second per core.

    .venv/bin/python benchmarks/bench_grand_spinn.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

from timing import median_time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2_000_000)
    parser.add_argument("--sim-repeat", type=int, default=5)
    args = parser.parse_args(argv)

    from slotmath.io.gamefile import load_game
    from slotmath.rules.grand_spinn_superpot import analysis as gs

    game = load_game("grand_spinn_superpot")
    t0 = time.perf_counter()
    res = gs.analyse(game, 1)  # compiles (or loads) the kernels
    first = time.perf_counter() - t0

    def fresh_rules():
        gs.compile_rules.cache_clear()
        return gs.compile_rules(game, 1)

    rules = fresh_rules()
    rows = [
        (
            "full exact analysis (analyse)",
            median_time(lambda: (gs.compile_rules.cache_clear(), gs.analyse(game, 1)), args.repeat),
        ),
        ("  compile arrays", median_time(fresh_rules, args.repeat)),
        ("  enumerate every stop combination", median_time(lambda: gs.enumerate_cycle(rules), args.repeat)),
        ("  nudge Markov chains", median_time(lambda: gs.nudge_chain(rules), args.repeat)),
    ]
    sampler = gs.round_sampler(game, 1)
    sampler.kernel(np.random.default_rng(0), 1000, *sampler.args)
    rng = np.random.default_rng(1)
    wall, cpu = [], []
    for _ in range(args.sim_repeat):
        t, c = time.perf_counter(), time.process_time()
        sampler.kernel(rng, args.rounds, *sampler.args)
        wall.append(args.rounds / (time.perf_counter() - t))
        cpu.append(args.rounds / (time.process_time() - c))

    n = int(np.prod(rules.lengths))
    print(f"Grand Spinn Superpot: {n:,} stop combinations, cycle {game.cycle():,}")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"python {platform.python_version()}; load average "
        f"{os.getloadavg()[0]:.1f}"
        if hasattr(os, "getloadavg")
        else ""
    )
    print(f"first analysis (numba compile or cache load): {first:.2f} s")
    print(f"{'step':<40} {'median [s]':>11}")
    for name, t in rows:
        print(f"{name:<40} {t:>11.4f}")
    print(f"{'enumeration rate [combinations/s]':<40} {n / rows[2][1]:>11,.0f}")
    print(f"{'Monte Carlo [rounds per CPU-second]':<40} {statistics.median(cpu):>11,.0f}")
    print(f"{'Monte Carlo [rounds per wall second]':<40} {statistics.median(wall):>11,.0f}")
    print(
        f"  (sampler kernel alone, medians of {args.sim_repeat} runs of {args.rounds:,} rounds; "
        f"load average at end {os.getloadavg()[0]:.1f}; goal 2 M per core -> "
        f"{'meets' if statistics.median(cpu) >= 2e6 else 'MISSES'})"
    )
    verdict = "meets" if rows[0][1] < 1.0 else "MISSES"
    print(f"goal: full exact analysis < 1 s -> {verdict} ({rows[0][1]:.3f} s); RTP {float(res.rtp):.6%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
