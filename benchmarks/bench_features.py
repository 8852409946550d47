"""Feature objects (issue 23 point 2): the cost of a cached lookup's game key,
and the pick bonus's exact law as its board grows.

* Game key: :func:`slotmath.engine.cache.game_key` of every reel set, the key
  each cached result of a game is looked up by, per lookup (median of
  ``--repeat`` batches of 200 lookups on one game object): the rules' text
  and the files the options name are computed once per game object.
* Pick bonus: ``tests/data/pick_collect`` with ``n`` distinct odd prizes
  (1, 3, 5, ...) and 2 collect tiles, ``n`` in ``--tiles``: the (shown, sum)
  states of its award law and the time of the exact analysis
  (:func:`slotmath.rules.linegame.analyse`, every memoised result cleared).

Usage: ``python benchmarks/bench_features.py [--repeat N] [--tiles 10 25 50 98]``
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import yaml

from timing import forget_cached_results, median_time

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("video20", "hold_and_spin", "piggy_bankin_superlock")


def key_lookup_ms(name: str, repeat: int) -> float:
    from slotmath.engine.cache import all_sets, game_key
    from slotmath.io.gamefile import load_game

    game = load_game(name)
    return median_time(lambda: [game_key(game, all_sets(game)) for _ in range(200)], repeat) / 200 * 1e3


def pick_row(tiles: int, folder: Path) -> dict:
    from slotmath.features.pick import load_pick
    from slotmath.io.gamefile import load_game
    from slotmath.rules.linegame import analyse

    doc = yaml.safe_load((ROOT / "tests/data/pick_collect/game.yaml").read_text())
    prizes = [{"prize": 2 * i + 1} for i in range(tiles)]
    doc["options"]["pick"]["tiles"] = [*prizes, {"collect": True, "count": 2}]
    (folder / "game.yaml").write_text(yaml.safe_dump(doc))
    game = load_game(folder)
    spec = load_pick(game)
    states = min(2**tiles, (tiles + 1) * (sum(int(v) for v in spec.prizes) + 1))
    forget_cached_results()
    t = time.perf_counter()
    par = analyse(game, 1)
    seconds = time.perf_counter() - t
    return {"tiles": tiles, "states": states, "seconds": seconds, "pick": float(par.components["pick"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tiles", type=int, nargs="+", default=[10, 25, 50, 98])
    args = parser.parse_args()
    print("game key per lookup [ms]")
    for name in GAMES:
        print(f"  {name:<24} {key_lookup_ms(name, args.repeat):.4f}")
    print("pick bonus: distinct prizes, (shown, sum) states, exact analysis [s], pick RTP [x total bet]")
    folder = Path(tempfile.mkdtemp())
    try:
        for n in args.tiles:
            row = pick_row(n, folder)
            print(f"  {row['tiles']:>4} {row['states']:>10,} {row['seconds']:8.2f} {row['pick']:14.4f}")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
