"""Cluster pays (issue 26, point 4): exact law of a small cluster game and
the sampler's speed.

The game: 5x5, six symbols H1-H2, L1-L4 paying clusters of 5-6, 7-8, 9-11,
12-14, 15+, a wild W joining every cluster, a scatter S (3+ pay 2x); strips
of ``--stops`` stops (seeded shuffles of fixed symbol counts, each
symbol twice in a row).  Times, as
CPU seconds of one run (compiled kernels warm):

* the exact law of the spin win (every merged stop vector flood-filled),
  with the estimate of :func:`slotmath.engine.cluster.cost_estimate`;
* the compiled spin sampler on 60-stop strips [rounds/s per core];
* the 7x7 example game ``data/games/cluster7`` (cluster pays with tumbles
  and free spins): its exact ``par`` [CPU s] and its compiled round
  sampler [rounds/s per core].

Usage: ``python benchmarks/bench_cluster.py [--stops N ...] [--no-par]``
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from slotmath.analysis import simulation
from slotmath.engine.cluster import cluster_distribution, cost_estimate
from slotmath.io.gamefile import build_game, load_game
from slotmath.montecarlo.run import RoundSampler
from slotmath.rules.linegame import round_sampler
from slotmath.rules.par import par

MIX = {"H1": 3, "H2": 4, "L1": 5, "L2": 5, "L3": 6, "L4": 6, "W": 1, "S": 1}


def cluster_game(stops: int):
    """The 5x5 benchmark game on strips of ``stops`` stops."""
    unit = sum(MIX.values())
    strips = []
    for r in range(5):
        pairs = [s for s, n in MIX.items() for _ in range(n)] * (stops // unit + 1)
        random.Random(r).shuffle(pairs)  # each symbol twice in a row: clusters form
        strips.append([s for s in pairs for _ in range(2)][:stops])
    pays = [
        {"symbol": s, "count": c, "pay": p * k}
        for s, k in zip(("H1", "H2", "L1", "L2", "L3", "L4"), (5, 4, 2, 2, 1, 1), strict=True)
        for c, p in ((5, 10), (7, 25), (9, 60), (12, 200), (15, 1000))
    ]
    data = {
        "name": f"cluster5x5_{stops}",
        "pays_by": "cluster",
        "grid": {"reels": 5, "rows": 5},
        "bet": {"levels": [1], "lines": 100},
        "symbols": [{"name": s} for s in ("H1", "H2", "L1", "L2", "L3", "L4")]
        + [{"name": "W", "kind": "wild"}, {"name": "S", "kind": "scatter"}],
        "reels": {"base": strips},
        "pays": pays,
        "scatters": [{"symbol": "S", "count": 3, "pay": 2}],
    }
    return build_game(data, Path("bench.yaml"), "bench")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stops", type=int, nargs="+", default=[12, 16, 20])
    ap.add_argument("--no-par", dest="par", action="store_false", help="skip the 7x7 example's exact par")
    args = ap.parse_args()
    cluster_distribution(cluster_game(5), 1)  # compile
    for stops in args.stops:
        game = cluster_game(stops)
        vectors, steps = cost_estimate(game)
        c = time.process_time()
        d = cluster_distribution(game, 1)
        cpu = time.process_time() - c
        print(
            f"5x5 cluster game, strips of {stops}: {vectors:,} stop vectors, {steps:.3g} steps: "
            f"CPU {cpu:.2f} s ({steps / cpu:.3g} steps/s), RTP {float(d.mean):.6f}, {len(d.wins):,} wins"
        )
    speed = rounds_per_second(round_sampler(cluster_game(60), 1))
    print(f"  sampler (60-stop strips): {speed / 1e6:.2f} M rounds/s per core")
    game = load_game("cluster7")
    if args.par:
        c = time.process_time()
        sheet = par(game)
        cpu = time.process_time() - c
        print(f"cluster7 (7x7, tumbles, free spins): exact par CPU {cpu:.1f} s, RTP {float(sheet.rtp):.6%}")
    sampler = simulation.round_sampler(game)
    print(f"  cluster7 round sampler: {rounds_per_second(sampler) / 1e6:.2f} M rounds/s per core")


def rounds_per_second(sampler: RoundSampler, n: int = 1_000_000) -> float:
    """Rounds per CPU second of ``sampler``'s compiled kernel (compiled first) [1/s]."""
    sampler.kernel(np.random.default_rng(1), 1000, *sampler.args)
    c = time.process_time()
    sampler.kernel(np.random.default_rng(2), n, *sampler.args)
    return n / (time.process_time() - c)


if __name__ == "__main__":
    main()
