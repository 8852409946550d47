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

On ways (``--ways``): ``data/games/ways_free_spins`` (5x4, 1024 ways) with
its base WILD drawing x2 / x3 / x5 (weights 3 / 2 / 1), multiplied or
added on a way: the ways figures from the law of the drawn wilds' count
per way (:func:`slotmath.features.drawnways.drawn_ways_figures`), the exact
RTP by component without the rewrite
(:func:`slotmath.rules.linegame.drawn_components`) and, with ``--par``, the
whole PAR with the draws written as stops (or its one-line refusal).

Usage: ``python benchmarks/bench_wild_multipliers.py [--repeat N] [--ways [--par]]``
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


WAYS_GAME = Path(__file__).resolve().parent.parent / "data" / "games" / "ways_free_spins"


def ways(repeat: int, par: bool) -> None:
    """The ``--ways`` figures (module notes)."""
    import time

    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features.drawnways import drawn_ways_figures
    from slotmath.rules.linegame import analyse, drawn_components

    base = load_game(WAYS_GAME)

    def undrawn():
        forget_cached_results()
        components(base, 1)

    print(f"{WAYS_GAME.name} as committed: exact RTP by component {median_time(undrawn, repeat):.2f} s")
    for combine in ("multiply", "add"):
        table = {"symbol": "WILD", "table": [[2, 3], [3, 2], [5, 1]], "combine": combine}
        game = replace(base, options={**base.options, "wild_multipliers": table})

        def figures(game=game):
            forget_cached_results()
            drawn_ways_figures(game, 1)

        def exact(game=game):
            forget_cached_results()
            drawn_components(game, 1)

        parts = drawn_components(game, 1)
        shown = ", ".join(f"{k} {float(v):.6%}" for k, v in parts.items())
        print(f"{WAYS_GAME.name}, drawn WILD {combine}: exact RTP {float(sum(parts.values())):.6%} ({shown})")
        print(f"  base reels' ways figures (median of {repeat}): {median_time(figures, repeat) * 1e3:.1f} ms")
        print(f"  exact RTP by component (median of {repeat}): {median_time(exact, repeat):.2f} s")
        if par:
            forget_cached_results()
            start = time.perf_counter()
            try:
                result = analyse(game, 1)
                same = result.rtp == sum(parts.values())
                what = f"cycle {result.cycle:.4g}, SD {result.sd:.4f}, RTP equal to the exact one: {same}"
            except EngineTooLarge as exc:
                what = f"refused: {str(exc)[:160]}..."
            print(f"  slotmath par: {time.perf_counter() - start:.1f} s; {what}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ways", action="store_true", help="the ways game instead (module notes)")
    ap.add_argument("--par", action="store_true", help="with --ways: the whole PAR too (minutes)")
    args = ap.parse_args()
    if args.ways:
        ways(args.repeat, args.par)
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
        return
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
