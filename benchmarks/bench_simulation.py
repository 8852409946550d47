"""Simulation benchmark: rounds per second per core, exact PAR time, and the
simulation time needed to match the exact RTP to +-0.01 pp at 95 %.

For every game in ``data/games`` (lowest bet level):

* ``rounds/s/core``: one process plays chunks of the game's compiled round
  sampler (:mod:`slotmath.montecarlo.run`, statistics included); median over
  repeats of the wall-clock rate, and of the rate per CPU-second of the
  process (the two agree on an idle machine; on a busy one the CPU rate is
  the per-core speed and the wall rate what this machine gave).  ``kernel``
  is the sampler alone per CPU-second (the chunk statistics' cost is the
  difference).
* ``PAR [s]``: median time of the full exact analysis (``slotmath.rules.par.par``
  on a freshly loaded game; numba kernels compiled beforehand).
* ``N``: rounds for the 95 % interval of the RTP to be +-0.01 pp,
  ``(1.96 sigma / 0.0001)**2`` with the exact SD of the round win, and the
  time those rounds take on one core and on all cores of this machine.

Then, on one game, the speed-up of 2 local worker processes over 1 and the
overhead of a Dask ``LocalCluster`` (2 worker processes) against the local
pool, for the same run (identical results are checked).

Usage: ``python benchmarks/bench_simulation.py [GAME ...] [--rounds N]
[--repeat K] [--parallel-game G] [--parallel-rounds N] [--no-parallel]``
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from slotmath.analysis import simulation
from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.montecarlo import run as mc
from slotmath.montecarlo.convergence import exact_figures, rounds_for_precision
from slotmath.rules.par import par

from timing import forget_cached_results


def machine() -> dict:
    """The machine the figures come from."""
    import numba

    model = "unknown"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in open("/proc/meminfo", encoding="utf-8"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
                break
    except OSError:
        pass
    try:
        import distributed

        dask = distributed.__version__
    except ImportError:
        dask = "not installed"
    return {
        "cores": mc.default_workers(),
        "cpu": model,
        "memory": mem,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "dask": dask,
        "load": os.getloadavg(),
    }


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def single_core_rate(sampler, rounds: int, repeat: int) -> tuple:
    """Median (wall, CPU) rounds per second of one process over ``repeat``
    chunks, and the median CPU rate of the kernel alone (one call of
    ``rounds`` rounds: no chunk statistics, no per-block calls)."""
    mc.run_chunk(sampler, 0, 0, 1000)  # compile / load the kernel
    wall, cpu, kernel = [], [], []
    for i in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        mc.run_chunk(sampler, 1, i, rounds)
        wall.append(rounds / (time.perf_counter() - t))
        cpu.append(rounds / (time.process_time() - c))
        c = time.process_time()
        sampler.kernel(mc.chunk_rng(2, i), rounds, *sampler.args)
        kernel.append(rounds / (time.process_time() - c))
    return statistics.median(wall), statistics.median(cpu), statistics.median(kernel)


def par_time(name: str, level: int, repeat: int) -> tuple:
    """(median seconds of the exact analysis of a freshly loaded game, every
    cached result forgotten, its ParResult); an analysis slower than 10 s
    after the warm-up is timed once."""
    par(load_game(name), level)  # warm-up: compile and load kernels
    times = []
    while len(times) < repeat and sum(times) < 10:
        forget_cached_results()
        game = load_game(name)
        t = time.perf_counter()
        result = par(game, level)
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def bench_game(name: str, rounds: int, repeat: int, cores: int) -> dict:
    game = load_game(name)
    level = game.levels[0]
    row = {
        "game": name,
        "rules": game.rules,
        "level": level,
        "par_s": None,
        "sd": None,
        "n": None,
        "wall": None,
        "cpu": None,
        "kernel": None,
        "note": "",
    }
    try:
        row["par_s"], exact = par_time(name, level, min(repeat, 3))
        row["sd"] = exact_figures(exact)["sd"]
        row["n"] = rounds_for_precision(row["sd"])
    except Exception as exc:  # a rules module still being written
        row["note"] = f"no exact analysis ({type(exc).__name__}: {exc}); "
    try:
        sampler = simulation.round_sampler(game, level)
    except Exception as exc:
        sampler, row["note"] = None, row["note"] + f"sampler failed ({exc})"
    if sampler is None:
        row["note"] = row["note"] or "no compiled round sampler yet"
        if "sampler" not in row["note"]:
            row["note"] += "no compiled round sampler yet"
        return row
    row["wall"], row["cpu"], row["kernel"] = single_core_rate(sampler, rounds, repeat)
    if row["n"] is not None:
        row["t_core"] = row["n"] / row["cpu"]
        row["t_machine"] = row["n"] / (row["cpu"] * cores)
    return row


def bench_parallel(name: str, rounds: int, chunk: int) -> dict:
    """Wall time of one run on 1 and 2 local processes and on a 2-worker
    Dask LocalCluster (each warmed up first; results must be identical)."""
    game = load_game(name)
    sampler = simulation.round_sampler(game, game.levels[0])
    out = {"game": name, "rounds": rounds, "chunk": chunk}
    mc.run(sampler, chunk, seed=0, chunk=chunk, workers=1, progress=False)
    one = mc.run(sampler, rounds, seed=1, chunk=chunk, workers=1, progress=False)
    two = mc.run(sampler, rounds, seed=1, chunk=chunk, workers=2, progress=False)
    out["t1"], out["t2"] = one.elapsed, two.elapsed
    out["identical"] = one.stats == two.stats
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        return out
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        mc.run(sampler, 2 * chunk, seed=0, chunk=chunk, scheduler=client, progress=False)
        dask = mc.run(sampler, rounds, seed=1, chunk=chunk, scheduler=client, progress=False)
    out["t_dask"] = dask.elapsed
    out["identical"] = out["identical"] and dask.stats == one.stats
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="default: every game in data/games")
    ap.add_argument("--rounds", type=int, default=2_000_000, help="rounds per timed chunk")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--parallel-game", default="video20")
    ap.add_argument("--parallel-rounds", type=int, default=40_000_000)
    ap.add_argument("--no-parallel", action="store_true")
    args = ap.parse_args(argv)
    games = args.games or sorted(p.parent.name for p in GAMES_DIR.glob("*/game.yaml"))
    m = machine()
    print(
        f"Simulation benchmark: {m['cores']} cores ({m['cpu']}), {m['memory']}, "
        f"Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}, "
        f"distributed {m['dask']}, "
        f"load average at start {m['load'][0]:.2f}"
    )
    rows = [bench_game(g, args.rounds, args.repeat, m["cores"]) for g in games]
    all_cores = f"{m['cores']} cores"
    print(
        f"{'game':<24}{'rounds/s/core':>15}{'(wall)':>12}{'kernel':>10}{'PAR [s]':>10}{'SD':>9}"
        f"{'N for 0.01pp':>14}{'1 core':>10}{all_cores:>10}"
    )
    for r in rows:
        line = f"{r['game']:<24}"
        line += (
            f"{'-':>15}{'-':>12}{'-':>10}"
            if r["cpu"] is None
            else f"{r['cpu'] / 1e6:>13.2f} M{r['wall'] / 1e6:>10.2f} M{r['kernel'] / 1e6:>8.2f} M"
        )
        line += (
            f"{'-':>10}{'-':>9}{'-':>14}"
            if r["n"] is None
            else f"{r['par_s']:>10.3f}{r['sd']:>9.3f}{r['n']:>14.3g}"
        )
        if r["cpu"] is not None and r["n"] is not None:
            line += f"{_duration(r['t_core']):>10}{_duration(r['t_machine']):>10}"
        print(line + (f"  {r['note']}" if r["note"] else ""))
    print(
        "rounds/s/core: per CPU-second of one process (wall-clock rate in brackets); "
        f"medians of {args.repeat} chunks of {args.rounds:,} rounds, statistics included; "
        "kernel: the sampler alone per CPU-second (one call, no chunk statistics). "
        "PAR: full exact analysis, lowest bet level."
    )
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    if not args.no_parallel and args.parallel_game in games:
        p = bench_parallel(args.parallel_game, args.parallel_rounds, mc.CHUNK)
        print(
            f"\nParallel ({p['game']}, {p['rounds']:,} rounds in chunks of {p['chunk']:,}): "
            f"1 process {p['t1']:.2f} s, 2 processes {p['t2']:.2f} s "
            f"(speed-up {p['t1'] / p['t2']:.2f}x)",
            end="",
        )
        if "t_dask" in p:
            print(
                f", Dask LocalCluster 2 workers {p['t_dask']:.2f} s "
                f"({p['t_dask'] / p['t2'] - 1:+.1%} vs the local pool)",
                end="",
            )
        print(f"; results identical: {p['identical']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
