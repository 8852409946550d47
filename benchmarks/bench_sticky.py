"""Sticky wilds in free games (issue 12, point 2): exact RTP and round law.

The game: ``data/games/classic_free_spins`` (5x3, 20 lines, 32-stop reels,
a stack of WILD on reels 2-4, 10 free spins x3 on 3+ SCATTER, retriggered
by 10) with ``sticky: WILD`` added to its free games and ``max_games``.
Times, as medians of ``--repeat`` runs with every memoised result cleared
(compiled kernels warm):

* the exact RTP by component (:func:`slotmath.rules.linegame.components`:
  the per-mask moves and the backward recursion), ``max_games`` 20;
* the round law (:func:`slotmath.rules.linegame.analyse`) with the same
  cap: refused by its size check (the time to refuse is given);
* the round law of the same game with ``max_games`` 10 (the 10 free spins,
  retriggers forfeited), which fits: one keyed engine pass per sticky mask
  and the forward DP (one run; peak memory of the process given).

Usage: ``python benchmarks/bench_sticky.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import resource
import time
from dataclasses import replace

from slotmath.engine.limits import EngineTooLarge
from slotmath.features.options import load_features
from slotmath.features.sticky import sticky_games
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, components

from timing import forget_cached_results, median_time

GAME = "classic_free_spins"


def sticky_game(max_games: int):
    """The game with ``sticky: WILD`` and ``max_games`` in its free games (fresh caches)."""
    forget_cached_results()
    game = load_game(GAME)
    free = {**game.options["free_games"], "sticky": "WILD", "max_games": max_games}
    return replace(game, options={**game.options, "free_games": free})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    game = sticky_game(20)
    rtp = median_time(lambda: components(sticky_game(20), 1), args.repeat)
    exact = components(game, 1)
    sg = sticky_games(game, 1, load_features(game).free_games)
    print(f"{GAME} + sticky WILD, max_games 20: {len(sg.moves)} sticky masks")
    parts = ", ".join(f"{k} {float(v):.6%}" for k, v in exact.items())
    digits = len(str(sum(exact.values()).denominator))
    rtp_value = float(sum(exact.values()))
    print(f"  exact RTP {rtp_value:.6%} ({parts}; a Fraction, denominator of {digits} digits)")
    print(f"  exact RTP by component (median of {args.repeat}): {rtp:.2f} s")
    t = time.perf_counter()
    try:
        analyse(sticky_game(20), 1)
        print(f"  round law: {time.perf_counter() - t:.1f} s")
    except EngineTooLarge as err:
        print(f"  round law: refused after {time.perf_counter() - t:.2f} s ({err})")
    t = time.perf_counter()
    small = analyse(sticky_game(10), 1)
    print(
        f"max_games 10: whole round PAR with distribution {time.perf_counter() - t:.1f} s (one run), "
        f"RTP {float(small.rtp):.6%} (mean of the law {float(small.distribution.mean):.9%}), "
        f"{len(small.distribution.wins):,} distinct wins, max win {float(small.distribution.max_win):g} "
        f"x total bet, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB"
    )


if __name__ == "__main__":
    main()
