"""Reel-tuning benchmark: workbench latency, sensitivities and solver runs.

``python benchmarks/bench_tuning.py [--games a,b] [--changes N] [--solve]``

1. Workbench: for each game's base reels, the time from a changed count
   (or stop weight) to updated figures in :class:`slotmath.workbench.ReelTuner`,
   median over N changes (+1 then -1 on a cycle of symbols).  Two modes:
   all figures live (RTP, hit frequency, SD, VI, feature frequency; the
   joint distribution is recomputed) and RTP-only live (hit frequency, SD
   and VI on demand).  The plot is timed separately.  Goal: <= 100 ms from
   a change to updated figures on the seed games' base reels.
2. Sensitivities: time for the +-1 RTP table of every symbol on every reel.
3. With ``--solve``: ``tune()`` on each game to a nearby target RTP
   (the saved RTP - 0.5 pp, 0.005 pp tolerance, lowest bet level):
   result, moves, evaluations and time.

Games whose single exact evaluation is slower than ``--max-seconds`` are
reported and skipped (a rules module without a fast ``tuning_figures``).

Timings are wall-clock medians on this machine; they are not tests.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from slotmath.figures import game_figures  # noqa: E402
from slotmath.gamefile import GAMES_DIR, load_game  # noqa: E402
from slotmath.sensitivity import sensitivities  # noqa: E402
from slotmath.tune import Targets, tune  # noqa: E402
from slotmath.workbench import ReelTuner, available_games  # noqa: E402

TEST_GAMES = [ROOT / "tests" / "data" / n for n in ("tune_mid", "tune_video")]


def game_specs(names):
    if names:
        return [n if (GAMES_DIR / n).is_dir() else Path(n) for n in names]
    return available_games() + TEST_GAMES


def label(spec) -> str:
    return spec if isinstance(spec, str) else Path(spec).name


def workbench_latency(spec, changes: int, live: bool) -> dict:
    tuner = ReelTuner(spec, plot=True, live_distribution=live)
    boxes = [b for b in tuner.controls.values() if b.value > 1][:changes]
    figs, plots, totals = [], [], []
    for i in range(changes):
        box = boxes[i % len(boxes)]
        box.value = box.value + (1 if i % 2 == 0 else -1)
        figs.append(tuner.timings["figures_ms"])
        plots.append(tuner.timings["plot_ms"])
        totals.append(tuner.timings["total_ms"])
    return {"figures_ms": statistics.median(figs), "plot_ms": statistics.median(plots),
            "total_ms": statistics.median(totals)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="", help="comma-separated names or paths (default: all)")
    ap.add_argument("--changes", type=int, default=7)
    ap.add_argument("--solve", action="store_true", help="also run the solver on each game")
    ap.add_argument("--max-seconds", type=float, default=5.0,
                    help="skip games whose one exact evaluation takes longer (default 5 s)")
    args = ap.parse_args(argv)
    specs = game_specs([g for g in args.games.split(",") if g])

    print("Workbench: median ms from a changed count to updated figures "
          f"({args.changes} changes; plot and whole update shown apart)")
    print(f"{'game':28s} {'all live: figures':>18s} {'plot':>8s} {'total':>8s} "
          f"{'RTP live: figures':>18s} {'total':>8s}")
    for spec in specs:
        game = load_game(spec)
        t0 = time.perf_counter()
        game_figures(game, game.levels[0])
        one = time.perf_counter() - t0
        if one > args.max_seconds:
            print(f"{label(spec):28s} one exact evaluation takes {one:.1f} s: not timed "
                  f"(limit --max-seconds {args.max_seconds:g})")
            continue
        try:
            full = workbench_latency(spec, args.changes, live=True)
            fast = workbench_latency(spec, args.changes, live=False)
        except Exception as exc:                       # report and go on
            print(f"{label(spec):28s} failed: {exc}")
            continue
        print(f"{label(spec):28s} {full['figures_ms']:18.1f} {full['plot_ms']:8.1f} "
              f"{full['total_ms']:8.1f} {fast['figures_ms']:18.1f} {fast['total_ms']:8.1f}", flush=True)

    print("\nSensitivities: +-1 RTP table, every symbol (stop) on every reel")
    for spec in specs:
        game = load_game(spec)
        t0 = time.perf_counter()
        game_figures(game, game.levels[0], needed={"rtp"})
        if time.perf_counter() - t0 > args.max_seconds / 10:
            print(f"{label(spec):28s} skipped (one RTP evaluation takes over {args.max_seconds / 10:g} s)")
            continue
        t0 = time.perf_counter()
        table = sensitivities(game, figures=("rtp",))
        print(f"{label(spec):28s} {len(table):4d} rows {time.perf_counter() - t0:8.2f} s", flush=True)

    if args.solve:
        print("\nSolver: target = saved RTP - 0.5 pp, tolerance 0.005 pp, lowest bet level")
        print(f"{'game':28s} {'from':>10s} {'target':>10s} {'reached':>10s} {'met':>4s} "
              f"{'moved':>6s} {'evals':>6s} {'seconds':>8s}")
        for spec in specs:
            game = load_game(spec)
            rtp0 = game_figures(game, game.levels[0], needed={"rtp"})["rtp"]
            target = Fraction(round(float(rtp0) * 10000) - 50, 10000)
            t0 = time.perf_counter()
            game_figures(game, game.levels[0], needed={"rtp"})
            if time.perf_counter() - t0 > args.max_seconds / 10:
                print(f"{label(spec):28s} skipped (one RTP evaluation takes over "
                      f"{args.max_seconds / 10:g} s)")
                continue
            res = tune(game, Targets(target, levels=(game.levels[0],)))
            moved = int(res.moves["change"].abs().sum()) if len(res.moves) else 0
            reached = float(res.after[game.levels[0]]["rtp"])
            print(f"{label(spec):28s} {float(rtp0):10.4%} {float(target):10.4%} {reached:10.4%} "
                  f"{'yes' if res.feasible else 'NO':>4s} {moved:6d} {res.evaluations:6d} "
                  f"{res.seconds:8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
