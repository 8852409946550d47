"""Tumbles with a strip refill (issue 26, point 2): the exact law's time.

The game: ``data/games/avalanche5`` (5x3, 20 lines, 40-stop strips, the
tumble progression x1-x2-x3-x5).  Times of the full exact law of the base
spin (every one of the 40**5 = 102,400,000 stop vectors played to the end
of its tumbles: :func:`slotmath.engine.tumble.enumerated_tumbles`), as the
median of ``--repeat`` runs, in wall time and in CPU time of this process
(one core: the kernel runs on one thread); target: under 60 s on one core.
Then the growth with strip length (every strip cut to its first N stops,
the work grows as N**5) and the compiled sampler's rounds per second of
the whole round (base tumbles and free games).  ``--plot PATH`` writes the
growth plot.  Last, pay-anywhere tumbles: ``data/games/candy_anywhere``
(6x5, nine symbols paying 8+ anywhere) with tumbles x1-x2-x3-x5, its strips
cut to 10 and 12 stops (the full 78**6 cycle is refused by the estimate):
the exact law's cell counts per second (the rate
:data:`slotmath.engine.tumble.COUNT_STEPS_PER_SECOND` states) and the
sampler's rounds per second on the full strips.  Ways tumbles:
``data/games/ways_free_spins`` cut to 5x3 (243 ways, eleven paying symbols, the
base strips only) with tumbles x1-x2-x3-x5, its strips cut to 12, 16 and 20
stops: the exact law's time and cell counts per second (the rate
:data:`slotmath.engine.tumble.WAYS_DROP_STEPS_PER_SECOND` states) and the
sampler's rounds per second on the full (74-77 stop) strips.  Fresh-draw
refills (``--fresh`` runs this part alone): the pay-anywhere chain's time,
count states and drops on ``tests/data/tumble_fresh`` and on
``tests/data/tumble_anywhere`` with fresh draws, the estimate's refusal on
candy_anywhere with fresh draws, and the sampler's rounds per second with
fresh draws on candy_anywhere (pay-anywhere) and avalanche5 (lines).

Usage: ``python benchmarks/bench_tumbles.py [--repeat N] [--plot benchmarks/tumble_growth.png] [--fresh]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import yaml

from slotmath.engine.tumble import enumerated_tumbles, tumble_cost
from slotmath.io.gamefile import load_game

from timing import forget_cached_results

GAME = Path(__file__).resolve().parent.parent / "data" / "games" / "avalanche5" / "game.yaml"
CANDY = GAME.parent.parent / "candy_anywhere" / "game.yaml"
WAYS = GAME.parent.parent / "ways_free_spins" / "game.yaml"


def timed(fn, repeat: int) -> tuple:
    """(median wall time, median CPU time) [s] of ``repeat`` calls of ``fn()``, and its last result."""
    wall, cpu, out = [], [], None
    for _ in range(repeat):
        forget_cached_results()
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu), out


def cut_game(stops: int, folder: Path):
    """avalanche5 with every strip cut to its first ``stops`` stops (no free games)."""
    raw = yaml.safe_load(GAME.read_text())
    raw["reels"] = {"base": [s[:stops] for s in raw["reels"]["base"]]}
    del raw["options"]["free_games"]
    del raw["options"]["tumble"]["free_multipliers"]
    path = folder / f"cut{stops}" / "game.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_game(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--plot", default=None)
    ap.add_argument("--fresh", action="store_true", help="the fresh-draw part only")
    args = ap.parse_args()
    if args.fresh:
        fresh_part(args.repeat)
        return
    game = load_game(GAME)
    enumerated_tumbles(cut_game(8, Path(tempfile.mkdtemp())), 1)  # compile
    vectors, mean, steps, _, _ = tumble_cost(game, 1)
    print(
        f"avalanche5 base: {vectors:,} stop vectors, {mean:.3f} evaluations per spin, {steps:.3g} line steps"
    )
    wall, cpu, law = timed(lambda: enumerated_tumbles(game, 1), args.repeat)
    wins, _, counts, unit_den, total_bet, cycle = law
    rtp = Fraction(
        sum(int(w) * int(c) for w, c in zip(wins, counts, strict=True)), unit_den * total_bet * cycle
    )
    print(
        f"  full exact law (median of {args.repeat}): wall {wall:.1f} s, CPU {cpu:.1f} s on one core "
        f"(target < 60 s); {len(wins):,} distinct wins, spin RTP {float(rtp):.6%}, "
        f"{steps / cpu:.3g} line steps/s"
    )
    sizes, cpus = [10, 20, 30, 40], []
    folder = Path(tempfile.mkdtemp())
    for n in sizes:
        g = cut_game(n, folder)
        w, c, _ = timed(lambda g=g: enumerated_tumbles(g, 1), 1)
        cpus.append(c)
        print(f"  strips of {n} stops: {n**5:,} stop vectors, wall {w:.2f} s, CPU {c:.2f} s")
    slope = np.polyfit(np.log(sizes[1:]), np.log(cpus[1:]), 1)[0]
    print(f"  growth: CPU ~ stops**{slope:.2f} (stop vectors grow as stops**5)")
    from slotmath.rules.linegame import round_sampler

    sampler = round_sampler(game, 1)
    sampler.kernel(np.random.default_rng(1), 1000, *sampler.args)
    n = 2_000_000
    c = time.process_time()
    sampler.kernel(np.random.default_rng(2), n, *sampler.args)
    c = time.process_time() - c
    print(f"  sampler (whole round, free games included): {n / c / 1e6:.2f} M rounds/s per core")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.loglog(sizes, cpus, "o-", label="exact tumble law (CPU s)")
        ax.loglog(sizes, [cpus[-1] * (s / sizes[-1]) ** 5 for s in sizes], "--", label="stops**5")
        ax.axhline(60, color="grey", lw=0.8, label="60 s target")
        ax.set_xlabel("stops per strip")
        ax.set_ylabel("CPU time [s]")
        ax.set_title("avalanche5: exact tumble law")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"  plot: {args.plot}")
    anywhere_part(args.repeat)
    ways_part(args.repeat)
    fresh_part(args.repeat)


def ways_tumbles(stops: int | None, folder: Path):
    """ways_free_spins on 3 rows (243 ways) with tumbles x1-x2-x3-x5, its base
    strips cut to their first ``stops`` stops (None: whole), no free games."""
    raw = yaml.safe_load(WAYS.read_text())
    raw["grid"]["rows"] = 3
    raw["reels"] = {"base": [s[:stops] for s in raw["reels"]["base"]]}
    raw["options"] = {"tumble": {"refill": "strip", "multipliers": [1, 2, 3, 5]}}
    path = folder / f"ways{stops}" / "game.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_game(path)


def ways_part(repeat: int) -> None:
    """The ways tumbles' time, rate and sampler speed (module notes)."""
    from slotmath.rules.linegame import round_sampler

    folder = Path(tempfile.mkdtemp())
    enumerated_tumbles(ways_tumbles(6, folder), 1)  # compile
    for n in (12, 16, 20):
        g = ways_tumbles(n, folder)
        vectors, mean, steps, name, _ = tumble_cost(g, 1)
        wall, cpu, law = timed(lambda g=g: enumerated_tumbles(g, 1), repeat)
        wins, _, counts, unit_den, total_bet, cycle = law
        rtp = sum(int(w) * int(c) for w, c in zip(wins.tolist(), counts.tolist(), strict=True))
        print(
            f"ways tumbles 5x3 (243 ways), strips of {n}: {vectors:,} stop vectors x {mean:.3f} evaluations "
            f"x {name}: wall {wall:.2f} s, CPU {cpu:.2f} s, {steps / cpu:.3g} cell counts/s, "
            f"RTP {float(Fraction(rtp, unit_den * total_bet * cycle)):.6f} (exact)"
        )
    sampler = round_sampler(ways_tumbles(None, folder), 1)
    sampler.kernel(np.random.default_rng(1), 1000, *sampler.args)
    n = 1_000_000
    c = time.process_time()
    sampler.kernel(np.random.default_rng(2), n, *sampler.args)
    print(f"  sampler (full strips): {n / (time.process_time() - c) / 1e6:.2f} M rounds/s per core")


#: the board multiplier table of :func:`board_part` (values and weights in the style of the common 6x5 games)
BOARD_VALUES = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 50, 100, 250, 500]
BOARD_WEIGHTS = [300, 200, 150, 100, 80, 60, 40, 30, 20, 10, 8, 5, 2, 1, 1]


def candy_tumbles(stops: int | None, folder: Path, board: bool = False):
    """candy_anywhere with tumbles x1-x2-x3-x5, its base strips cut to their
    first ``stops`` stops (None: whole) and no free games; with ``board`` a
    BOMB multiplier symbol (:data:`BOARD_VALUES`) on every strip's stop 3
    and every 15th stop after it."""
    raw = yaml.safe_load(CANDY.read_text())
    raw["reels"] = {"base": [s[:stops] for s in raw["reels"]["base"]]}
    raw["options"] = {"tumble": {"multipliers": [1, 2, 3, 5]}}
    if board:
        raw["symbols"].append({"name": "BOMB"})
        for strip in raw["reels"]["base"]:
            for at in range(3, len(strip), 15):
                strip[at] = "BOMB"
        table = [{"value": v, "weight": w} for v, w in zip(BOARD_VALUES, BOARD_WEIGHTS, strict=True)]
        raw["options"]["tumble"]["multiplier_symbols"] = {"symbol": "BOMB", "values": table, "in": ["base"]}
    path = folder / f"candy{stops}{'b' if board else ''}" / "game.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_game(path)


def anywhere_part(repeat: int) -> None:
    """The pay-anywhere tumbles' rate and sampler speed (module notes)."""
    from slotmath.rules.linegame import round_sampler

    folder = Path(tempfile.mkdtemp())
    enumerated_tumbles(candy_tumbles(5, folder), 1)  # compile
    for n in (10, 12):
        g = candy_tumbles(n, folder)
        vectors, mean, steps, name, _ = tumble_cost(g, 1)
        _, cpu, _ = timed(lambda g=g: enumerated_tumbles(g, 1), repeat)
        print(
            f"candy_anywhere tumbles, strips of {n}: {vectors:,} stop vectors x {mean:.3f} evaluations x "
            f"{name}: CPU {cpu:.2f} s, {steps / cpu:.3g} cell counts/s"
        )
    sampler = round_sampler(candy_tumbles(None, folder), 1)
    sampler.kernel(np.random.default_rng(1), 1000, *sampler.args)
    n = 1_000_000
    c = time.process_time()
    sampler.kernel(np.random.default_rng(2), n, *sampler.args)
    print(f"  sampler (78-stop strips): {n / (time.process_time() - c) / 1e6:.2f} M rounds/s per core")
    board_part(repeat, folder)


def board_part(repeat: int, folder: Path) -> None:
    """Board multipliers (a BOMB on the strips, :data:`BOARD_VALUES`): the
    exact law's time (the enumeration keyed by the BOMBs on the final board,
    then the mix with the convolutions of the value table,
    :func:`slotmath.engine.tumble.board_mix`), its entries, and the
    sampler's rounds per second on the full strips."""
    from slotmath.engine.tumble_spec import tumble_spec
    from slotmath.rules.linegame import round_sampler

    for n in (10, 12):
        g = candy_tumbles(n, folder, board=True)
        wall, cpu, law = timed(lambda g=g: enumerated_tumbles(g, 1), repeat)
        wins, _, counts, unit_den, total_bet, cycle = law
        rtp = sum(int(w) * int(c) for w, c in zip(wins.tolist(), counts.tolist(), strict=True))
        rtp = Fraction(rtp, unit_den * total_bet * cycle)
        plain = candy_tumbles(n, folder)
        _, cpu0, _ = timed(lambda g=plain: enumerated_tumbles(g, 1), repeat)
        print(
            f"candy_anywhere tumbles + BOMB (mean x{float(tumble_spec(g).board.mean()):.4g}), strips of {n}: "
            f"{len(wins):,} (win, key) entries, CPU {cpu:.2f} s (without the BOMB: {cpu0:.2f} s), "
            f"RTP {float(rtp):.6f} (exact; cycle x {cycle.bit_length()} bits)"
        )
    sampler = round_sampler(candy_tumbles(None, folder, board=True), 1)
    sampler.kernel(np.random.default_rng(1), 1000, *sampler.args)
    n = 1_000_000
    c = time.process_time()
    sampler.kernel(np.random.default_rng(2), n, *sampler.args)
    print(
        f"  sampler with the BOMB (78-stop strips): {n / (time.process_time() - c) / 1e6:.2f} M rounds/s "
        "per core"
    )


#: the fresh-draw table of tumble_anywhere in :func:`fresh_part`
ANYWHERE_TABLE = [["A", 2], ["B", 2], ["C", 2], ["WILD", 1], ["SCATTER", 3]]


def fresh_variant(path: Path, folder: Path, table=None):
    """The game at ``path`` with ``refill: fresh``: every reel set it tumbles
    on draws from ``table`` (default: each regular symbol weight 1)."""
    raw = yaml.safe_load(path.read_text())
    regular = [s["name"] for s in raw["symbols"] if s.get("kind", "regular") == "regular"]
    table = table or [[s, 1] for s in regular]
    sets = ["base"] + ([raw["options"]["free_games"]["reels"]] if "free_games" in raw["options"] else [])
    tumble = raw["options"].setdefault("tumble", {"multipliers": [1, 2, 3, 5]})
    tumble.update(refill="fresh", draws={name: table for name in sets})
    out = folder / f"fresh_{raw['name']}" / "game.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_game(out)


def fresh_part(repeat: int) -> None:
    """Fresh-draw refills (module notes): the chain's time and size, the
    estimate's refusal, the sampler's rounds per second."""
    from slotmath.engine.tumble_fresh import fresh_cost, fresh_tumbles
    from slotmath.errors import EngineTooLarge
    from slotmath.rules.linegame import round_sampler

    folder = Path(tempfile.mkdtemp())
    tests = GAME.parent.parent.parent.parent / "tests" / "data"
    games = [
        ("tumble_fresh", load_game(tests / "tumble_fresh" / "game.yaml")),
        ("tumble_anywhere", fresh_variant(tests / "tumble_anywhere" / "game.yaml", folder, ANYWHERE_TABLE)),
    ]
    for name, g in games:
        states, outcomes = fresh_cost(g)
        wall, cpu, law = timed(lambda g=g: fresh_tumbles(g, 1), repeat)
        rtp = sum(int(w) * int(c) for w, c in zip(law.wins.tolist(), law.counts.tolist(), strict=True))
        print(
            f"{name} fresh draws: estimate {states:,} states x {outcomes:,} outcomes; {law.states:,} states "
            f"reached, {law.drops} drops, exact={law.exact}, stopped {law.stopped:.2e}: wall {wall:.2f} s, "
            f"CPU {cpu:.2f} s; RTP {rtp / (law.unit_den * law.total_bet * law.cycle):.6%}"
        )
    candy = fresh_variant(CANDY, folder)
    t = time.process_time()
    try:
        fresh_tumbles(candy, 1)
    except EngineTooLarge as e:
        print(f"candy_anywhere fresh draws: refused in {time.process_time() - t:.2f} CPU-s: {e}")
    for name, g in (("candy_anywhere", candy), ("avalanche5", fresh_variant(GAME, folder))):
        sampler = round_sampler(g, 1)
        sampler.kernel(np.random.default_rng(1), 1000, *sampler.args)
        n = 1_000_000
        c = time.process_time()
        sampler.kernel(np.random.default_rng(2), n, *sampler.args)
        print(
            f"  sampler with fresh draws ({name}, whole round): "
            f"{n / (time.process_time() - c) / 1e6:.2f} M rounds/s per core"
        )


if __name__ == "__main__":
    main()
