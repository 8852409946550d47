"""Free-games round benchmark (issue 12, point 3).

Times, as medians of ``--repeat`` runs on a fresh game object with every
memoised result cleared (compiled kernels warm):

* the exact RTP by component of ``data/games/classic_free_spins`` (5x3, 20
  lines, 32-stop reels, cycle 33,554,432; 10 free spins x3 retriggerable on
  3+ SCATTER): :func:`slotmath.rules.linegame.components`;
* its whole round PAR (combination table, the joint law of (spin win,
  trigger count), the free games' award law, the round distribution):
  :func:`slotmath.rules.linegame.analyse`;
* the spin-win distribution of video20 (the marginal of the same forward
  pass), to compare with the time before the key dimension existed;
* the former method, listing the free-game cycle
  (:func:`slotmath.testing.freetable.free_games_table`), which refuses this
  game (cycle above 2e7).

Usage: ``python benchmarks/bench_free_games.py [--repeat N]``
"""

from __future__ import annotations

import argparse

from slotmath.engine.joint import spin_distribution
from slotmath.features.options import load_features
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, components
from slotmath.testing.freetable import free_games_table

from timing import forget_cached_results, median_time

GAME = "classic_free_spins"


def fresh(name: str):
    forget_cached_results()
    return load_game(name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    analyse(load_game(GAME), 1)  # compile and warm
    spin_distribution(load_game("video20"), 1)
    rtp = median_time(lambda: components(fresh(GAME), 1), args.repeat)
    full = median_time(lambda: analyse(fresh(GAME), 1), args.repeat)
    marginal = median_time(lambda: spin_distribution(fresh("video20"), 1), args.repeat)
    game = load_game(GAME)
    result = analyse(game, 1)
    print(f"{GAME}: cycle {game.cycle('base'):,}, RTP {float(result.rtp):.6%} = {result.rtp}")
    print(f"  exact RTP by component (median of {args.repeat}): {rtp:.3f} s")
    print(f"  whole round PAR with distribution (median of {args.repeat}): {full:.3f} s")
    print(f"  round distribution: {len(result.distribution.wins):,} distinct wins")
    print(f"video20 spin distribution (median of {args.repeat}): {marginal:.3f} s")
    try:
        free_games_table(game, 1, load_features(game).free_games)
    except ValueError as err:
        print(f"listing the free-game cycle: refused ({err})")


if __name__ == "__main__":
    main()
