"""Exact-engine benchmark: full PAR time against a naive brute-force baseline.

Prints a table per game: the exact RTP alone (pay tensor built, then the
contraction with the reel marginals), the full exact PAR (combination table
and the joint distribution of the total spin win), and a naive baseline that
evaluates every line of every window of the full cycle with the same
compiled line evaluator.  Times are medians of repeated runs after a warm-up
(numba compilation excluded).  For games whose cycle is large the baseline
runs on a slice of reel-1 stops and is scaled up; the table says so.

``--stress`` times the whole PAR of the stress variants of
:mod:`stress_games` (long strips, 50 lines, 5x4 40 lines, a 1e7 award, a
1/999983 scatter pay) and of the example games, each in a fresh process
(peak RSS from ``getrusage``); ``--growth`` fits the growth exponents of the
full PAR time in strip length and in lines and draws a log-log plot.

Usage: ``python benchmarks/bench_engine.py [GAME ...] [--repeat N] [--full-baseline]``
       ``python benchmarks/bench_engine.py --stress | --growth [--repeat N]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numba as nb
import numpy as np

from slotmath.engine.combinations import line_rtp
from slotmath.engine.joint import pack_reels
from slotmath.engine.lines import compile_pays, line_pay_scratch
from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.rules.par import par

from timing import median_time

DEFAULT_GAMES = ("video20", "fruit_classic")


@nb.njit(parallel=True, cache=True)
def _naive(stop_hi, win, n_stops, weights, lines, rule):
    """Sum of line wins over every stop combination (reel 1 limited to ``stop_hi``)."""
    R = n_stops.shape[0]
    total = 0
    for s0 in nb.prange(stop_hi):
        stops = np.zeros(R, dtype=np.int64)
        x = np.zeros(R, dtype=np.int64)
        counts = np.zeros(rule[8].shape[0], dtype=np.int64)
        stops[0] = s0
        sub = 0
        n_rest = 1
        for r in range(1, R):
            n_rest *= n_stops[r]
        for j in range(n_rest):
            rem = j
            w = weights[0, s0]
            for r in range(R - 1, 0, -1):
                stops[r] = rem % n_stops[r]
                rem //= n_stops[r]
                w *= weights[r, stops[r]]
            spin = 0
            for line in range(lines.shape[0]):
                for r in range(R):
                    x[r] = win[r, stops[r], lines[line, r]]
                spin += line_pay_scratch(x, counts, rule)[0]
            sub += w * spin
        total += sub
    return total


def bench_game(name: str, repeat: int, full_baseline: bool) -> dict:
    game = load_game(name)
    level = game.levels[0]
    par(game, level)  # warm-up: compile and load kernels

    def rtp_alone():
        fresh = load_game(name)
        line_rtp(fresh, level)

    def rtp_cached_tensor():
        line_rtp(game, level)

    def full_par():
        par(load_game(name), level)

    win, weights, n_stops = pack_reels(game, "base")
    cp = compile_pays(game, level)
    lines = np.array(game.paylines, dtype=np.int64)
    cycle = game.cycle()
    work = cycle * len(lines)
    hi = int(n_stops[0]) if full_baseline or work < 2e8 else max(2, int(n_stops[0]) // 10)
    _naive(1, win, n_stops, weights, lines, cp.arrays)
    t = time.perf_counter()
    _naive(hi, win, n_stops, weights, lines, cp.arrays)
    naive = (time.perf_counter() - t) * n_stops[0] / hi
    return {
        "game": name,
        "reels x rows": f"{game.reels}x{game.rows}",
        "lines": len(lines),
        "stops": "/".join(str(int(n)) for n in n_stops),
        "cycle": cycle,
        "rtp_s": median_time(rtp_alone, repeat),
        "rtp_cached_s": median_time(rtp_cached_tensor, repeat),
        "par_s": median_time(full_par, repeat),
        "naive_s": naive,
        "naive_note": "" if hi == n_stops[0] else f"(scaled from {hi}/{n_stops[0]} reel-1 stops)",
    }


STRESS = (
    "video20",
    "fruit_classic",
    "grand_spinn_superpot",
    "piggy_bankin_superlock",
    "video20_x4",
    "video20_x4_50",
    "grid54_40",
    "video20_bigpay",
    "video20_scatter_prime",
    "grand_spinn_x4",
)
GROWTH_STOPS = (50, 100, 200, 400)
GROWTH_LINES = (5, 10, 20, 50)

_CHILD = """
import json, resource, sys, tempfile, time
sys.path.insert(0, {bench!r})
from stress_games import stress_game
from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.rules.par import par
from timing import forget_cached_results, median_time
name, repeat = {name!r}, {repeat}
scratch = tempfile.mkdtemp()
get = (lambda: load_game(name)) if (GAMES_DIR / name).exists() else (lambda: stress_game(name, scratch))
game = get()
result = par(game, game.levels[0])          # warm-up: numba kernels loaded
def run():
    forget_cached_results()
    par(get(), game.levels[0])
t = median_time(run, repeat)
print(json.dumps({{"game": name, "par_s": t, "rtp": float(result.rtp), "cycle": game.cycle(),
                  "wins": len(result.distribution.wins), "lines": len(game.paylines),
                  "stops": [len(s) for s in game.strips()],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def par_in_child(name: str, repeat: int) -> dict:
    """Median whole-PAR time and peak RSS of game or stress variant ``name``
    in a fresh Python process."""
    code = _CHILD.format(bench=str(Path(__file__).parent), name=name, repeat=repeat)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def stress(repeat: int) -> None:
    print(f"Whole PAR, fresh process per game (medians of {repeat}; peak RSS of the process)")
    print(f"{'game':<24}{'lines':>6}{'stops':>20}{'cycle':>20}{'wins':>7}{'PAR [s]':>9}{'RSS [MB]':>10}")
    for name in STRESS:
        r = par_in_child(name, repeat)
        print(
            f"{name:<24}{r['lines']:>6}{'/'.join(map(str, r['stops'])):>20}{r['cycle']:>20,}"
            f"{r['wins']:>7}{r['par_s']:>9.2f}{r['rss_mb']:>10.0f}",
            flush=True,
        )


def growth(repeat: int, plot: Path) -> None:
    """Fit t ~ stops^a (20 lines) and t ~ lines^b (100 stops); plot both."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, xs, label, names in (
        (axes[0], GROWTH_STOPS, "stops per strip (20 lines)", [f"rand{n}_20" for n in GROWTH_STOPS]),
        (axes[1], GROWTH_LINES, "paylines (100-stop strips)", [f"rand100_{n}" for n in GROWTH_LINES]),
    ):
        ts = [par_in_child(n, repeat)["par_s"] for n in names]
        slope = np.polyfit(np.log(xs), np.log(ts), 1)[0]
        print(
            f"{label}: "
            + ", ".join(f"{x}: {t:.2f} s" for x, t in zip(xs, ts, strict=True))
            + f"; growth exponent {slope:.2f}",
            flush=True,
        )
        ax.loglog(xs, ts, "o-", label=f"exponent {slope:.2f}")
        ax.set_xlabel(label)
        ax.set_ylabel("whole PAR [s]")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("Exact engine: whole PAR time (5x3, video20 pays, random strips)")
    fig.tight_layout()
    fig.savefig(plot, dpi=110)
    print(f"plot: {plot}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=list(DEFAULT_GAMES))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--full-baseline", action="store_true")
    ap.add_argument("--stress", action="store_true")
    ap.add_argument("--growth", action="store_true")
    args = ap.parse_args(argv)
    if args.stress or args.growth:
        if args.stress:
            stress(args.repeat)
        if args.growth:
            growth(args.repeat, Path(__file__).parent / "engine_growth.png")
        return 0
    rows = [bench_game(g, args.repeat, args.full_baseline) for g in args.games if (GAMES_DIR / g).exists()]
    print(f"Exact engine ({nb.get_num_threads()} threads; medians of {args.repeat} runs)")
    print(
        f"{'game':<16}{'grid':>6}{'lines':>6}{'stops':>16}{'cycle':>14}{'RTP [ms]':>10}"
        f"{'RTP warm':>10}{'full PAR [s]':>14}{'naive [s]':>11}{'speed-up':>10}"
    )
    for r in rows:
        print(
            f"{r['game']:<16}{r['reels x rows']:>6}{r['lines']:>6}{r['stops']:>16}{r['cycle']:>14,}"
            f"{r['rtp_s'] * 1e3:>10.1f}{r['rtp_cached_s'] * 1e3:>10.1f}{r['par_s']:>14.3f}"
            f"{r['naive_s']:>11.2f}{r['naive_s'] / r['par_s']:>10.1f} {r['naive_note']}"
        )
    print("RTP: new game object (pay tensor built + contraction); RTP warm: pay tensor cached.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
