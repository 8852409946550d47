"""Benchmark: Piggy Bankin' Superlock exact RTP, round distribution and sampler speed.

Run: ``.venv/bin/python benchmarks/bench_piggy.py [--repeat 3]``.  Reports
medians of fresh runs (a newly loaded game: no cached pay tensors, chains or
screens) and, separately, the extra cost of another bet level once the
bet-independent parts are cached.  Targets (issue 4): exact RTP of the whole
game < 1 s, full round distribution < 30 s under each selection policy; the
tuning hook after a base-reel change < 100 ms (median).  The load average is
printed with the figures (the machine may be shared).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from dataclasses import replace

import numpy as np

from slotmath.io.gamefile import load_game
from slotmath.model import Strip
from slotmath.rules.piggy_bankin_superlock import analysis as pbs

from timing import forget_cached_results


def fresh_game():
    forget_cached_results()
    return load_game("piggy_bankin_superlock")


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2_000_000)
    args = ap.parse_args(argv)

    # warm numba caches and imports (compilation and the one-off import of
    # scipy.signal by slotmath.features.freegames, ~3 s, are not part of the figures)
    import slotmath.features.freegames  # noqa: F401

    g = load_game("piggy_bankin_superlock")
    pbs.breakdown(g, 1)
    s = pbs.round_sampler(g, 1)
    s.kernel(np.random.default_rng(0), 100, *s.args)

    rtp_cold = [timed(lambda: pbs.breakdown(fresh_game(), 1))[0] for _ in range(args.repeat)]
    g = fresh_game()
    pbs.breakdown(g, 1)
    rtp_warm = [timed(lambda lv=lv: pbs.breakdown(g, lv))[0] for lv in g.levels[1:]]
    print(
        f"exact RTP, whole game, fresh game:        median {statistics.median(rtp_cold):8.3f} s"
        f"  (target < 1 s)"
    )
    print(f"exact RTP, another bet (cached chains):   median {statistics.median(rtp_warm):8.3f} s")

    pbs.tuning_figures(g, 1)  # the feature value functions, once
    n = 2 * args.repeat + 1
    for first, label, needed in (
        (1, "RTP and feature figures", {"rtp"}),
        (n + 1, "every figure (+ round hit frequency, SD, VI)", None),
    ):
        hook = []
        for k in range(first, first + n):  # base reel 1 rotated by k stops (new each)
            sets = dict(g.reel_sets)
            s0 = g.strips("base")[0].symbols
            sets["base"] = (Strip(s0[k:] + s0[:k]),) + g.strips("base")[1:]
            hook.append(
                timed(functools.partial(pbs.tuning_figures, replace(g, reel_sets=sets), 1, needed))[0]
            )
        print(
            f"tuning_figures after a base-reel change, {label}: "
            f"median {statistics.median(hook) * 1e3:.1f} ms  (target < 100 ms)"
        )

    print(f"load average before the round distributions: {os.getloadavg()[0]:.2f}")
    g = fresh_game()
    t_dist, d = timed(lambda: pbs.win_distribution(g, 1, "lockit"))
    t_next, _ = timed(lambda: pbs.win_distribution(g, 10, "lockit"))
    print(
        f"round distribution (lock-it), fresh game: {t_dist:8.3f} s  (target < 30 s); "
        f"another bet: {t_next:.3f} s"
    )
    print(
        f"  mean {float(d.mean):.6f}  hit frequency {float(d.hit_frequency):.6f}  "
        f"SD {d.sd:.4f}  max win {float(d.max_win):g}x"
    )
    t_fg, dfg = timed(lambda: pbs.win_distribution(g, 1, "free_games"))
    print(f"round distribution (free games), base screens cached: {t_fg:8.3f} s  mean {float(dfg.mean):.6f}")
    g = fresh_game()
    t_fg, dfg = timed(lambda: pbs.win_distribution(g, 1, "free_games"))
    print(f"round distribution (free games), fresh game: {t_fg:8.3f} s  (target < 30 s)")
    print(f"load average after the round distributions: {os.getloadavg()[0]:.2f}")

    for policy in pbs.POLICIES:
        s = pbs.round_sampler(g, 1, policy)
        dt, _ = timed(lambda s=s: s.kernel(np.random.default_rng(1), args.rounds, *s.args))
        print(f"sampler ({policy}): {args.rounds / dt / 1e6:6.2f} million rounds/s (1 core)")


if __name__ == "__main__":
    main()
