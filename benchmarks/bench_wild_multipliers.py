"""Drawn wild multipliers without the reel rewrite (issue 23, point 6; issue 30, point 2).

The game: ``tests/data/drawn_wild_lines`` (5x3, 20 lines, Video 20's base
game; 4 or 5 SCATTER give 8 or 15 free spins on their own reels, whose wild
M draws x2 / x3 / x5 / x10 added on a line; the draws written as stops give
a free cycle of 3.7e+19).  Times, medians of ``--repeat`` runs with every
memoised result cleared (compiled kernels warm):

* the exact RTP by component (:func:`slotmath.rules.linegame.components`:
  the counted wilds' law on the base and free reels, the free games by
  Wald's identity from the free spin without the draws);
* the counted wilds' line figures of the free reels alone
  (:func:`slotmath.features.wilddraws.drawn_line_figures`) as the symbol
  count ``S`` grows (extra paying symbols on every strip): the pass is over
  the ``S**5`` symbol tuples of a line, independent of the strips' length
  and of the table.

Usage: ``python benchmarks/bench_wild_multipliers.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import resource
from dataclasses import replace
from pathlib import Path

from slotmath.features.wilddraws import drawn_line_figures
from slotmath.io.gamefile import load_game
from slotmath.model import LinePay, Strip, Symbol
from slotmath.rules.linegame import components

from timing import forget_cached_results, median_time

GAME = Path(__file__).resolve().parent.parent / "tests" / "data" / "drawn_wild_lines"


def with_symbols(game, extra: int):
    """``game`` with ``extra`` more paying symbols, each on every 10th stop of every strip."""
    if not extra:
        return game
    names = [f"X{i}" for i in range(extra)]
    symbols = game.symbols + tuple(Symbol(n) for n in names)
    wilds = {s.name for s in game.symbols if s.wild}
    symbols = tuple(
        replace(s, wild=replace(s.wild, substitutes=s.wild.substitutes | set(names)))
        if s.name in wilds
        else s
        for s in symbols
    )
    pays = game.line_pays + tuple(
        LinePay(f"{c} x {n}", tuple(frozenset({n}) for _ in range(c)), (10 * c,) * len(game.levels))
        for n in names
        for c in (3, 4, 5)
    )

    def strip(s: Strip) -> Strip:
        out = list(s.symbols)
        for k in range(0, len(out), 10):
            if out[k] not in wilds and out[k] != "SCATTER":
                out[k] = names[(k // 10) % extra]
        return Strip(tuple(out), s.weights)

    sets = {name: tuple(strip(s) for s in strips) for name, strips in game.reel_sets.items()}
    return replace(game, symbols=symbols, line_pays=pays, reel_sets=sets)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    game = load_game(GAME)
    exact = components(game, 1)
    parts = ", ".join(f"{k} {float(v):.6%}" for k, v in exact.items())
    print(f"{game.name}: exact RTP {float(sum(exact.values())):.6%} ({parts})")

    def rtp():
        forget_cached_results()
        components(game, 1)

    print(f"  exact RTP by component (median of {args.repeat}): {median_time(rtp, args.repeat):.2f} s")
    for extra in (0, 3, 7):
        g = with_symbols(game, extra)
        drawn_line_figures(g, 1, "free")

        def lines(g=g):
            forget_cached_results()
            drawn_line_figures(g, 1, "free")

        t = median_time(lines, args.repeat)
        tuples = len(g.symbols) ** 5
        print(f"  S = {len(g.symbols)} symbols ({tuples:,} line tuples): free reels' line figures {t:.2f} s")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")


if __name__ == "__main__":
    main()
