"""``slotmath warmup``: compile the numba kernels into numba's on-disk cache.

Every compiled kernel of slotmath is declared with ``cache=True``, so numba
keeps its machine code beside the source (``__pycache__/kernels-HASH``, one
folder per version of the kernels' source: :mod:`slotmath.kernelcache`) and a later
process loads it instead of compiling.  A fresh install has no such cache:
its first ``slotmath par`` would spend most of its time compiling.
``make install`` therefore runs this command once, so that the first
``slotmath par`` after an install costs about what a warm one does
(``benchmarks/bench_start.py`` measures both).

The command plays what the bundled example games use: the exact PAR
(:func:`slotmath.rules.par.par`) of each light example and a short simulation
of every example (exact figures skipped), which compiles the line, ways,
feature-round, hold-and-spin, lock-it and seed-game kernels.
"""

from __future__ import annotations

import time

from slotmath.io.search import bundled_games

#: examples whose exact PAR is computed (the seed games' PAR, minutes cold,
#: compile few kernels of their own: their samplers are run instead)
PAR_GAMES = ("fruit_classic", "video20", "ways4096", "classic_free_spins", "hold_and_spin", "pick_and_wheel")
ROUNDS = 20_000


def warm_up(say=print) -> float:
    """Compile the kernels the bundled examples use; returns the seconds spent."""
    from slotmath.analysis.simulation import simulate_game
    from slotmath.io.gamefile import load_game
    from slotmath.rules.par import par

    t0 = time.perf_counter()
    for folder in sorted(p for p in bundled_games().iterdir() if (p / "game.yaml").is_file()):
        t = time.perf_counter()
        game = load_game(folder)
        if folder.name in PAR_GAMES:
            par(game, game.bet(None).level)
        simulate_game(game, ROUNDS, 0, exact=False, workers=1, progress=False)
        say(f"  {folder.name}: {time.perf_counter() - t:.1f} s")
    return time.perf_counter() - t0


def cmd_warmup(args) -> int:
    print("Compiling the numba kernels into the cache (once per install):")
    print(f"done in {warm_up():.1f} s")
    return 0


def register_cli(sub) -> None:
    p = sub.add_parser(
        "warmup",
        help="compile the numba kernels into the cache (make install runs it)",
        description="Compile the numba kernels into the cache, so that the first simulate or report "
        "does not wait for them.",
    )
    p.set_defaults(func=cmd_warmup)
