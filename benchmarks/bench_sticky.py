"""Sticky wilds in free games (issue 12 point 2, issue 30 point 2): exact RTP
and round law, and their growth with ``max_games``.

The game: ``data/games/classic_free_spins`` (5x3, 20 lines, 32-stop reels,
a stack of WILD on reels 2-4, 10 free spins x3 on 3+ SCATTER, retriggered
by 10) with ``sticky: WILD`` added to its free games and ``max_games``.
Times, as medians of ``--repeat`` runs with every memoised result cleared
(compiled kernels warm):

* the exact RTP by component (:func:`slotmath.rules.linegame.components`:
  the per-mask moves and the backward recursion), ``max_games`` 20;
* the growth table: per ``max_games`` in ``--games`` (default 5, 10, 15,
  20), the whole round PAR with its law (:func:`slotmath.rules.linegame.analyse`:
  one keyed engine pass per sticky mask, the lumping, the forward DP), each
  in a fresh process (one run): wall and CPU time, peak RSS of that process, the
  masks and their classes, the DP's planned cells, the RTP and the law's mean.

With ``--ways`` the game is ``data/games/ways_free_spins`` (5x4, 1024 ways,
x2/x3 wilds on free reels 2-4; 8/15/20 free spins on 3/4/5 SCATTER,
retriggered) with ``sticky: W2`` (issue 23 point 3).

Usage: ``python benchmarks/bench_sticky.py [--repeat N] [--games 5 10 15 20] [--ways]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import replace

#: (game, its sticky wild): the line game, and with ``--ways`` the ways game
GAMES = {False: ("classic_free_spins", "WILD"), True: ("ways_free_spins", "W2")}


def sticky_game(max_games: int, ways: bool = False):
    """The game with its sticky wild and ``max_games`` in its free games (fresh caches)."""
    from slotmath.io.gamefile import load_game

    from timing import forget_cached_results

    forget_cached_results()
    name, wild = GAMES[ways]
    game = load_game(name)
    free = {**game.options["free_games"], "sticky": wild, "max_games": max_games}
    return replace(game, options={**game.options, "free_games": free})


def law_row(max_games: int, ways: bool = False) -> dict:
    """One row of the growth table, measured in this process (fresh)."""
    import resource
    import time

    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games
    from slotmath.rules.linegame import analyse

    game = sticky_game(max_games, ways)
    cpu = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    t = time.perf_counter()
    result = analyse(game, 1)
    seconds = time.perf_counter() - t
    spec = load_features(game).free_games
    sg = sticky_games(game, 1, spec)
    return {
        "max_games": max_games,
        "seconds": seconds,
        "cpu": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
        "masks": len(sg.moves),
        "classes": len(set(sg.classes.values())),
        "cells": sg.plan(spec.games(3))[0],
        "rtp": float(result.rtp),
        "law_mean": float(result.distribution.mean),
        "wins": len(result.distribution.wins),
    }


def growth(games: list, ways: bool = False) -> None:
    """Print the growth table, one fresh process per ``max_games``."""
    print(
        "| max_games | masks -> classes | planned cells | wall [s] | CPU [s] | RSS [MB] | RTP | law mean ",
        end="",
    )
    print("| wins |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in games:
        child = [sys.executable, __file__, "--law", str(n)] + (["--ways"] if ways else [])
        out = subprocess.run(child, capture_output=True, text=True)
        if out.returncode:
            print(f"| {n} | failed: {out.stderr.strip().splitlines()[-1]} |")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {n} | {r['masks']} -> {r['classes']} | {r['cells']:,} | {r['seconds']:.1f} | {r['cpu']:.1f} "
            f"| {r['peak_mb']:.0f} | {r['rtp']:.6%} | {r['law_mean']:.6%} | {r['wins']:,} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--games", type=int, nargs="*", default=[5, 10, 15, 20])
    ap.add_argument("--ways", action="store_true", help="the ways game (ways_free_spins, sticky W2)")
    ap.add_argument("--law", type=int, help=argparse.SUPPRESS)  # one growth row (the child process)
    args = ap.parse_args()
    if args.law is not None:
        print(json.dumps(law_row(args.law, args.ways)))
        return
    growth(args.games, args.ways)  # first: its children are forked from a small process
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games
    from slotmath.rules.linegame import components

    from timing import median_time

    rtp = median_time(lambda: components(sticky_game(20, args.ways), 1), args.repeat)
    game = sticky_game(20, args.ways)
    exact = components(game, 1)
    sg = sticky_games(game, 1, load_features(game).free_games)
    name, wild = GAMES[args.ways]
    print(f"{name} + sticky {wild}, max_games 20: {len(sg.moves)} sticky masks")
    parts = ", ".join(f"{k} {float(v):.6%}" for k, v in exact.items())
    digits = len(str(sum(exact.values()).denominator))
    print(
        f"  exact RTP {float(sum(exact.values())):.6%} ({parts}; a Fraction, denominator of {digits} digits)"
    )
    print(f"  exact RTP by component (median of {args.repeat}): {rtp:.2f} s")


if __name__ == "__main__":
    main()
