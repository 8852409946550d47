"""Pays anywhere by count (issue 26, point 1): exact one-drop RTP and law.

The game: ``data/games/candy_anywhere`` (6x5, nine symbols paying 8-9,
10-11, 12+ anywhere, 4+ SCATTER).  Times, as medians of ``--repeat`` runs
(compiled kernels warm):

* the exact RTP of the count pays (one count law per symbol);
* the exact law of the spin win (inclusion-exclusion over the sets of at
  most 3 paying symbols) and the (win, SCATTER count) law the free games read;
* how the law's cost grows with the grid: the same symbol mix on 5x5, 6x5,
  6x6 and 7x7 windows (strips: the game's, lengthened for more reels), with
  the estimate of :func:`slotmath.engine.anywhere.state_estimate` and the
  lowest paying count scaled with the cells (8 per 30 cells).

Usage: ``python benchmarks/bench_pay_anywhere.py [--repeat N] [--plot FILE]``
(``--plot``: the law's CPU time and the estimate against the cells).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from slotmath.engine.anywhere import (
    anywhere_distribution,
    anywhere_key_distribution,
    anywhere_rtp,
    compile_anywhere,
    most_payers,
    state_estimate,
)
from slotmath.engine.limits import EngineTooLarge
from slotmath.features.round import Trigger
from slotmath.io.gamefile import load_game

from timing import median_time

GAME = "candy_anywhere"


def grid_game(game, reels: int, rows: int):
    """``game`` on a ``reels`` x ``rows`` window: its strips cycled over the
    reels, every count row scaled to the cells (8-9, 10-11, 12+ on 30)."""
    strips = tuple(game.strips()[r % game.reels] for r in range(reels))
    scale = reels * rows / 30
    pays = tuple(
        replace(lp, positions=lp.positions[:1] * max(1, round(len(lp.positions) * scale)))
        for lp in game.line_pays
    )
    return replace(game, reels=reels, rows=rows, reel_sets={"base": strips}, line_pays=pays, options={})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--plot", help="write the growth plot here")
    args = ap.parse_args()
    points = []
    game = load_game(GAME)
    anywhere_distribution(game, 1)  # compile
    rtp = anywhere_rtp(game, 1)
    t_rtp = median_time(lambda: anywhere_rtp(game, 1), args.repeat)
    t_law = median_time(lambda: anywhere_distribution(game, 1), args.repeat)
    trig = (Trigger("SCATTER"),)
    t_key = median_time(lambda: anywhere_key_distribution(game, 1, trig), args.repeat)
    d = anywhere_distribution(game, 1)
    print(f"{GAME}: count pays RTP {float(rtp):.6%} = {rtp}")
    print(f"  exact RTP (median of {args.repeat}): {t_rtp * 1e3:.1f} ms")
    print(
        f"  exact law of the spin win: {t_law:.2f} s ({len(d.wins)} distinct wins, mean {float(d.mean):.6%})"
    )
    print(f"  exact (win, SCATTER count) law: {t_key:.2f} s")
    print("growth with the grid (law of the spin win, one run each):")
    for reels, rows in ((5, 5), (6, 5), (6, 6), (7, 7)):
        g = grid_game(game, reels, rows)
        subsets, states, steps = state_estimate(g, 1)
        m = most_payers(compile_anywhere(g, 1), reels * rows)
        t, c = time.perf_counter(), time.process_time()
        try:
            anywhere_distribution(g, 1)
            took = f"{time.perf_counter() - t:.2f} s ({time.process_time() - c:.2f} CPU-s)"
            points.append((reels * rows, time.process_time() - c, steps))
        except EngineTooLarge as exc:
            took = f"refused in {time.perf_counter() - t:.2f} s ({str(exc)[:60]}...)"
        print(f"  {reels}x{rows}: at most {m} payers, {subsets} sets, estimate {steps:.2e} steps; {took}")
    if args.plot and points:
        plot(points, args.plot)


def plot(points: list, path: str) -> None:
    """CPU time of the law and the engine's step estimate against the cells."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells, cpu, steps = zip(*points, strict=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(cells, cpu, "o-", label="law of the spin win [CPU-s]")
    ax.semilogy(cells, [s / 1e8 for s in steps], "s--", label="estimate [1e8 steps]")
    ax.set_xlabel("cells of the window (5x5, 6x5, 6x6, 7x7)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Pays anywhere: the exact law as the grid grows", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
