"""Reel-tuning benchmark: workbench latency, sensitivities and solver runs.

``python benchmarks/bench_tuning.py [--games a,b] [--changes N] [--solve]``
``python benchmarks/bench_tuning.py --features N``

1. Workbench: for each game's base reels, the time from a changed count
   (or stop weight) to updated figures in :class:`slotmath.workbench.ReelTuner`,
   median over N changes (+1 then -1 on a cycle of symbols).  Two modes:
   all live figures (RTP, hit frequency, SD, VI, feature frequency: a line
   game's contraction and exact moments, or the rules' fast
   ``figures``) and RTP-only live.  The plot is timed separately,
   and the "Full figures" button (joint distribution or ``par()``) once.
   Goal: <= 100 ms from a change to updated figures on the seed games'
   base reels.  A game without a fast source shows its figures on request
   (nothing is computed on a change); it is listed as such.
2. Cold RTP of a line game (the pay tensor's cache): a new game object
   with a pay table seen before (a new strip), and a pay table never seen
   (one pay changed); medians.
3. Sensitivities: time for the +-1 RTP table of every symbol on every reel.
4. With ``--solve``: ``tune()`` on each game to a nearby target RTP
   (the saved RTP - 0.5 pp, 0.005 pp tolerance, lowest bet level):
   result, moves, evaluations and time.
5. With ``--random N``: the tuning test bench.  N seeded random but
   plausible games (:mod:`slotmath.tuning.randgame`: 5x3 and 3x3, 9-25 lines,
   weighted and unweighted, with and without a scatter), each a draft
   1-2 pp below 96 %, tuned with the default shape bounds to 96 % +-
   0.005 pp at every bet level with a hit-frequency band of +-1.5 pp
   around the draft's; per game: targets met, seconds (wall clock and the
   process's CPU time: one core), exact evaluations,
   units moved, largest weight ratio (after / before, or before / after,
   over the moved units), largest change of a component's share of the
   RTP [pp of share].  ``--time-limit`` caps each run.

6. With ``--features N``: feature games' evaluation (issue 28 point 5).
   For Hold and Spin, Classic Free Spins, Piggy Bankin' Superlock and the
   25-line hold-and-spin with free games of ``stress_games.py`` (free games
   on their own reel set, and on the base reels), the median over N
   distinct candidates (one unit moved, reel after reel) of one tuning
   evaluation (the figures a run asks for: RTP, hit frequency and the RTP
   components, by the rules' fast figures; a feature round's without its
   distribution) and of the full figures (``par()``: every feature round's
   evaluation before), and of one workbench update (a changed count to the
   updated table, plot off).  Goal: under 1 s each.  The evaluation's
   process CPU time is shown beside its wall time (a shared machine).

7. With ``--tables``: feature weight tables (``slotmath tune --table``,
   issue 28 point 1).  Hold and Spin's coin values and jackpots
   (``options.hold_and_spin.values``) tuned to 96 % and to 94 % +-
   0.005 pp at every bet level, the strips held, the default shape bounds
   (each weight within x2, each table's total held, each RTP component's
   share within +-25 %), and to 110 % (beyond the weights' reach: the run
   says so); Pick and Wheel's wheel segments and selection weights
   (``--table all``) to 97 %.  Per run: met or the verdict, seconds (wall
   and CPU), exact evaluations, units moved and what moved.
8. With ``--random-features N`` (issue 28 point 6): N seeded random
   feature games (:mod:`slotmath.tuning.randgame`, 5x3, 20 or 25 lines,
   weighted and not; free games, a hold-and-spin, or both), each a draft
   1-2 pp below 96 %, tuned like 5 (every bet level, hit frequency within
   +-1.5 pp of the draft's, the default shape bounds: each component's
   share of the RTP within +-25 % of its own); per game: met, or not met
   with the run's verdict (``infeasible`` and its proof's statement), else
   the RTP reachable within the bounds (``models, not proven`` where the
   proof does not apply) and why the search stopped; seconds, CPU
   seconds, evaluations, units moved, each feature's share before and after.
9. With ``--hold-share``: the 25-line hold-and-spin game with free games of
   ``stress_games.py`` (``hold_and_spin_free25``, 103.97 %) tuned to 96 % +-
   0.005 pp at every bet level with the hold-and-spin's share of the RTP
   held within +-2 pp of the draft's, its COIN released (the hold-and-spin's
   trigger odds then move with the base strips), the base strips and the
   coin values (``options.hold_and_spin.values``) tuned together
   (``slotmath.tuning.jointtune``); goal under 60 s.

The machine's load average is printed first: on a shared machine every
time is inflated by the other work running on it.

Timings are wall-clock medians on this machine; they are not tests.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from slotmath.analysis.metrics import fast_figures, full_figures, game_figures, line_rtp_parts  # noqa: E402
from slotmath.io.gamefile import GAMES_DIR, load_game  # noqa: E402
from slotmath.rules.registry import rules_for  # noqa: E402
from slotmath.tuning.linearmodels import Evaluator  # noqa: E402
from slotmath.tuning.reelspace import Bounds, ReelSpace  # noqa: E402
from slotmath.tuning.sensitivity import sensitivities  # noqa: E402
from slotmath.tuning.tune import Targets, tune  # noqa: E402
from slotmath.workbench import ReelTuner, available_games  # noqa: E402

HOLD_VALUES = "options.hold_and_spin.values"  # the coin values and jackpots
TEST_GAMES = [ROOT / "tests" / "data" / n for n in ("tune_mid", "tune_video")]


def game_specs(names):
    if names:
        return [n if (GAMES_DIR / n).is_dir() else Path(n) for n in names]
    return available_games() + TEST_GAMES


def label(spec) -> str:
    return Path(str(spec)).name


def workbench_latency(spec, changes: int, live: bool) -> dict:
    """Medians over ``changes`` changes; the RTP-only run (``live`` False)
    walks the controls in the other order, so that it never meets strips the
    live run evaluated (a rules module caches results by strips)."""
    tuner = ReelTuner(spec, plot=True, live_distribution=live)
    boxes = [b for b in tuner.controls.values() if b.value > 1][:changes]
    if not live:
        boxes = boxes[::-1]
    figs, plots, totals = [], [], []
    for i in range(changes):
        box = boxes[i % len(boxes)]
        box.value = box.value + (1 if i % 2 == 0 else -1)
        figs.append(tuner.timings["figures_ms"])
        plots.append(tuner.timings["plot_ms"])
        totals.append(tuner.timings["total_ms"])
    return {
        "figures_ms": statistics.median(figs),
        "plot_ms": statistics.median(plots),
        "total_ms": statistics.median(totals),
    }


def full_seconds(spec) -> float:
    """One "Full figures" evaluation of the saved strips [s]."""
    game = load_game(spec)
    t0 = time.perf_counter()
    full_figures(game, game.levels[0])
    return time.perf_counter() - t0


def source(game) -> str:
    if rules_for(game).rtp_is_line_form:
        return "moments"
    if game.rules == "lines":
        return "round"
    return "hook" if fast_figures(game) else "on request"


FEATURE_GAMES = ("hold_and_spin", "classic_free_spins", "piggy_bankin_superlock")
FEATURE_STRESS = ("hold_and_spin_free25", "hold_and_spin_free25_base")


def candidates(space, n: int) -> list:
    """``n`` distinct variable values of ``space``: candidate ``i`` moves one
    unit on reel ``i % reels`` from its largest unit to the next, ``i //
    reels + 1`` times."""
    out = []
    for i in range(n):
        xs = [x.copy() for x in space.x0]
        x = xs[i % len(xs)]
        u = int(x.argmax())
        k = min(i // len(xs) + 1, int(x[u]) - 1)
        x[u] -= k
        x[(u + 1) % len(x)] += k
        out.append(xs)
    return out


def feature_evaluations(game, n: int) -> dict:
    """Median seconds of one tuning evaluation (fast figures) and of the full
    figures on distinct candidates (alternating, so that both meet the same
    load), and median ms of one workbench update (module notes, 6)."""
    level = game.levels[0]
    space = ReelSpace(game, "base")
    figs0 = game_figures(game, level, needed={"rtp"})
    targets = Targets(Fraction(96, 100), bands={"hit_frequency": (0.0, 1.0)})
    ev = Evaluator(space, targets, (level,))
    needed = {"rtp", "hit_frequency"} | {k for k in figs0 if k.startswith("rtp:")}
    full_too = game.rules == "lines"  # another rules module's full analysis is not its tuning figures
    fast, fast_cpu, full = [], [], []
    for i, xs in enumerate(candidates(space, 2 * n if full_too else n)):
        t0, c0 = time.perf_counter(), time.process_time()
        if full_too and i % 2:
            game_figures(space.game_for(xs), level)
            full.append(time.perf_counter() - t0)
        else:
            ev.figures(xs, needed)
            fast.append(time.perf_counter() - t0)
            fast_cpu.append(time.process_time() - c0)
    tuner = ReelTuner(game, plot=False)
    boxes = [b for b in tuner.controls.values() if b.value > 1]
    updates = []
    for i in range(n):
        box = boxes[i % len(boxes)]
        box.value = box.value + (1 if (i // len(boxes)) % 2 == 0 else -1)
        updates.append(tuner.timings["total_ms"])
    return {
        "fast_s": statistics.median(fast),
        "fast_cpu_s": statistics.median(fast_cpu),
        "full_s": statistics.median(full) if full else None,
        "workbench_ms": statistics.median(updates),
    }


def feature_bench(n: int) -> int:
    """Feature games' evaluation (module notes, 6); prints a markdown table."""
    import tempfile

    from stress_games import stress_game

    print(f"Feature games: median over {n} candidates (load {os.getloadavg()[0]:.2f})")
    print(
        "| game | figures source | tuning evaluation [s] | its CPU [s] | full figures, par() [s] "
        "| workbench update [ms] |"
    )
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        games = [load_game(g) for g in FEATURE_GAMES] + [stress_game(g, Path(tmp)) for g in FEATURE_STRESS]
        for game in games:
            r = feature_evaluations(game, n)
            full = f"{r['full_s']:.3f}" if r["full_s"] is not None else "(its own rules' figures)"
            print(
                f"| {game.name} | {source(game)} | {r['fast_s']:.3f} | {r['fast_cpu_s']:.3f} | {full} "
                f"| {r['workbench_ms']:.0f} |",
                flush=True,
            )
    return 0


def cold_rtp(game, repeat: int) -> tuple:
    """Median ms of the RTP of (a) a new game object with a known pay table
    (reel 1 rotated by k stops) and (b) a never-seen pay table (first pay + k)."""
    level = game.levels[0]
    line_rtp_parts(game, level)
    seen, new = [], []
    for k in range(1, repeat + 1):
        strips = list(game.strips("base"))
        s0 = strips[0]
        strips[0] = dataclasses.replace(
            s0,
            symbols=s0.symbols[k:] + s0.symbols[:k],
            weights=None if s0.weights is None else s0.weights[k:] + s0.weights[:k],
        )
        g1 = dataclasses.replace(game, reel_sets={**game.reel_sets, "base": tuple(strips)})
        t0 = time.perf_counter()
        line_rtp_parts(g1, level)
        seen.append(time.perf_counter() - t0)
        lps = list(game.line_pays)
        lps[0] = dataclasses.replace(lps[0], pays=tuple(p + 1000 + k for p in lps[0].pays))
        g2 = dataclasses.replace(game, line_pays=tuple(lps))
        t0 = time.perf_counter()
        line_rtp_parts(g2, level)
        new.append(time.perf_counter() - t0)
    return statistics.median(seen) * 1e3, statistics.median(new) * 1e3


# (reels, lines, weighted, scatter, stops per reel) by game number, cycled
BENCH_KINDS = [
    (5, 25, True, True, 40),
    (5, 20, False, True, 40),
    (3, 9, True, False, 30),
    (5, 9, True, False, 36),
    (3, 9, False, True, 32),
    (5, 15, False, False, 40),
]


def random_bench(n: int, time_limit) -> int:
    """The tuning test bench (module notes, 5); prints a markdown table."""
    import tempfile

    from slotmath.tuning.randgame import random_game
    from slotmath.tuning.targets import rtp_components

    print(
        "| game | reels x lines | weighted | scatter | draft RTP | target | met | seconds | "
        "CPU seconds | evaluations | units moved | largest weight ratio | component share change [pp] |"
    )
    print("|---|---|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            reels, lines, weighted, scatter, length = BENCH_KINDS[i % len(BENCH_KINDS)]
            seed = 100 + i
            gap = 0.01 + 0.01 * ((seed * 7919) % 11) / 10  # 1.0-2.0 pp, from the seed
            path = random_game(
                Path(tmp) / f"g{seed}",
                seed,
                target=0.96,
                gap=gap,
                reels=reels,
                lines=lines,
                weighted=weighted,
                scatter=scatter,
                length=length,
            )
            game = load_game(path)
            f0 = game_figures(game, 1, needed={"rtp", "hit_frequency"})
            hf = float(f0["hit_frequency"])
            targets = Targets(Fraction(96, 100), bands={"hit_frequency": (hf - 0.015, hf + 0.015)})
            cpu = time.process_time()
            res = tune(game, targets, time_limit=time_limit, progress=False)
            cpu = time.process_time() - cpu
            moved = res.moves
            units = int(moved["change"].abs().sum()) if len(moved) else 0
            ratio = max(
                [max(a, b) / max(min(a, b), 1) for a, b in zip(moved["before"], moved["after"], strict=True)],
                default=1.0,
            )
            lv = next(iter(res.after))
            c0 = rtp_components(res.before[lv], res.targets)
            c1 = rtp_components(res.after[lv], res.targets)
            r0, r1 = float(res.before[lv]["rtp"]), float(res.after[lv]["rtp"])
            share = max(
                [abs(float(c1.get(k, 0)) / r1 - float(v) / r0) * 100 for k, v in c0.items()], default=0.0
            )
            print(
                f"| rand{seed} | {reels}x3, {lines} | {'yes' if weighted else 'no'} | "
                f"{'yes' if scatter else 'no'} | {float(f0['rtp']):.4%} | 96 % +- 0.005 pp, HF "
                f"{hf - 0.015:.1%}-{hf + 0.015:.1%} | {'yes' if res.feasible else 'NO'}"
                f"{' (' + res.stopped + ')' if res.stopped else ''} | {res.seconds:.1f} | {cpu:.1f} | "
                f"{res.evaluations} | {units} | {ratio:.2f} | {share:.2f} |",
                flush=True,
            )
    return 0


TABLE_RUNS = (
    ("hold_and_spin", ("options.hold_and_spin.values",), Fraction(96, 100)),
    ("hold_and_spin", ("options.hold_and_spin.values",), Fraction(94, 100)),
    ("hold_and_spin", ("options.hold_and_spin.values",), Fraction(110, 100)),
    ("pick_and_wheel", ("all",), Fraction(97, 100)),
)


def table_bench() -> int:
    """Feature weight tables tuned (module notes, 7); prints a markdown table."""
    from slotmath.tuning.tabletune import tune_tables
    from slotmath.tuning.targets import Targets

    print(
        "| game | tables | target | before | after | met / verdict | seconds | CPU s | evaluations "
        "| units moved | what moved |"
    )
    print("|---|---|---|---:|---:|---|---:|---:|---:|---:|---|")
    for name, tables, target in TABLE_RUNS:
        cpu, t0 = time.process_time(), time.perf_counter()
        res = tune_tables(name, Targets(target), tables, progress=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu
        lv = next(iter(res.after))
        moved = ", ".join(
            f"{m['entry']} {m['before']}->{m['after']}" for m in res.moves.to_dict(orient="records")
        )
        print(
            f"| {name} | {', '.join(t.path for t in res.space.tables)} | {float(target):.2%} "
            f"| {float(res.before[lv]['rtp']):.6%} | {float(res.after[lv]['rtp']):.6%} "
            f"| {'met' if res.feasible else res.feasibility['verdict']} | {wall:.1f} | {cpu:.1f} "
            f"| {res.evaluations} | {res.units_moved} | {moved} |",
            flush=True,
        )
    return 0


# (lines, weighted, features) by game number, cycled
FEATURE_KINDS = [
    (25, True, ("free",)),
    (20, False, ("hold",)),
    (25, True, ("free", "hold")),
    (20, True, ("free",)),
    (25, False, ("hold",)),
    (20, False, ("free", "hold")),
]


def _units(res) -> int:
    moved = res.moves
    return int(moved["change"].abs().sum()) if len(moved) else 0


def _shares(figs: dict, targets) -> str:
    """Each feature's share of the RTP [%], e.g. ``free_games 31.2``."""
    from slotmath.tuning.targets import rtp_components

    rtp = float(figs["rtp"])
    parts = rtp_components(figs, targets)
    return ", ".join(
        f"{k[4:]} {float(v) / rtp:.1%}" for k, v in parts.items() if k not in ("rtp:lines", "rtp:scatters")
    )


def _outcome(res) -> str:
    """``yes``, or why not: the run's feasibility verdict (``infeasible``
    with its proof's statement), the RTP reachable within the bounds at the
    first level and the stop reason."""
    if res.feasible:
        return "yes"
    f = res.feasibility
    if f["verdict"] == "infeasible":
        return "NO (infeasible: " + f["statement"].removeprefix("infeasible under the bounds: ") + ")"
    why = [res.stopped] if res.stopped else []
    reach = res.reachable_rtp()
    if reach:
        level, (lo, hi) = next(iter(reach.items()))
        proven = "" if not res.reach_unproven else " (models, not proven)"
        why.append(f"reachable {float(lo):.2%}-{float(hi):.2%}{proven} at level {level}")
    return "NO (" + "; ".join(why or ["the search stalled"]) + ")"


def random_feature_bench(n: int, time_limit) -> int:
    """Random feature games tuned (module notes, 8); prints a markdown table."""
    import tempfile

    from slotmath.tuning.randgame import random_game

    print(
        "| game | lines | weighted | features | draft RTP | feature shares before | met | seconds | "
        "CPU seconds | evaluations | units moved | RTP after | feature shares after |"
    )
    print("|---|---:|---|---|---:|---|---|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            lines, weighted, features = FEATURE_KINDS[i % len(FEATURE_KINDS)]
            seed = 200 + i
            gap = 0.01 + 0.01 * ((seed * 7919) % 11) / 10  # 1.0-2.0 pp, from the seed
            path = random_game(
                Path(tmp) / f"g{seed}",
                seed,
                target=0.96,
                gap=gap,
                lines=lines,
                weighted=weighted,
                features=features,
            )
            game = load_game(path)
            f0 = game_figures(game, 1, needed={"rtp", "hit_frequency"})
            hf = float(f0["hit_frequency"])
            targets = Targets(Fraction(96, 100), bands={"hit_frequency": (hf - 0.015, hf + 0.015)})
            cpu = time.process_time()
            res = tune(game, targets, time_limit=time_limit, progress=False)
            cpu = time.process_time() - cpu
            lv = next(iter(res.after))
            print(
                f"| rand{seed} | {lines} | {'yes' if weighted else 'no'} | {' + '.join(features)} | "
                f"{float(res.before[lv]['rtp']):.4%} | {_shares(res.before[lv], targets)} | "
                f"{_outcome(res)} | "
                f"{res.seconds:.1f} | {cpu:.1f} | {res.evaluations} | {_units(res)} | "
                f"{float(res.after[lv]['rtp']):.4%} | {_shares(res.after[lv], targets)} |",
                flush=True,
            )
    return 0


def hold_share_bench(time_limit) -> int:
    """The hold-and-spin game held within +-2 pp of share (module notes, 9):
    the base strips and the coin-value weights tuned together."""
    import tempfile

    from stress_games import stress_game

    from slotmath.tuning.jointtune import tune_joint

    with tempfile.TemporaryDirectory() as tmp:
        game = stress_game("hold_and_spin_free25", Path(tmp))
        level = game.levels[0]
        f0 = game_figures(game, level, needed={"rtp", "rtp:hold_and_spin"})
        share = float(f0["rtp:hold_and_spin"]) / float(f0["rtp"])
        band = ((share - 0.02) * 0.96, (share + 0.02) * 0.96)
        targets = Targets(Fraction(96, 100), bands={"rtp:hold_and_spin": band})
        bounds = Bounds(fixed=tuple(Bounds().held(game) - {"COIN"}))
        cpu = time.process_time()
        res = tune_joint(game, targets, [HOLD_VALUES], bounds, time_limit=time_limit, progress=False)
        cpu = time.process_time() - cpu
        print(f"{game.name}: draft {float(f0['rtp']):.4%}, hold-and-spin share {share:.2%} (band +-2 pp)")
        for lv, figs in res.strips.after.items():
            after = float(figs["rtp:hold_and_spin"]) / float(figs["rtp"])
            print(f"  level {lv}: RTP {float(figs['rtp']):.6%}, hold-and-spin share {after:.2%}")
        units = res.units_moved
        verdict = "yes" if res.feasible else f"NO ({res.feasibility['statement']})"
        print(
            f"  strips + {HOLD_VALUES} together, met: {verdict}; {res.seconds:.1f} s wall, {cpu:.1f} CPU-s, "
            f"{res.evaluations} evaluations, {units['strips']} units moved on the strips, "
            f"{units['tables']} in the table; rounds:"
        )
        for r in res.rounds:
            print(f"    {r}")
        for moves, what in ((res.strips.moves, "strip"), (res.tables.moves, "table weight")):
            print(moves.to_string(index=False) if len(moves) else f"  (no {what} moved)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="", help="comma-separated names or paths (default: all)")
    ap.add_argument("--changes", type=int, default=7)
    ap.add_argument("--solve", action="store_true", help="also run the solver on each game")
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=5.0,
        help="skip games whose one exact evaluation takes longer (default 5 s)",
    )
    ap.add_argument(
        "--random", type=int, default=0, metavar="N", help="only the tuning test bench on N random games"
    )
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per random-game run")
    ap.add_argument(
        "--features",
        type=int,
        default=0,
        metavar="N",
        help="only the feature games' evaluation, N candidates",
    )
    ap.add_argument("--tables", action="store_true", help="only the feature weight tables tuned")
    ap.add_argument(
        "--random-features", type=int, default=0, metavar="N", help="only N random feature games tuned"
    )
    ap.add_argument("--hold-share", action="store_true", help="only the hold-and-spin share run")
    args = ap.parse_args(argv)
    specs = game_specs([g for g in args.games.split(",") if g])
    load1, load5, load15 = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {load1:.2f} {load5:.2f} {load15:.2f} "
        "(other work running inflates every time)\n"
    )
    if args.random:
        return random_bench(args.random, args.time_limit)
    if args.random_features:
        return random_feature_bench(args.random_features, args.time_limit)
    if args.hold_share:
        return hold_share_bench(args.time_limit)
    if args.features:
        return feature_bench(args.features)
    if args.tables:
        return table_bench()

    print(
        "Workbench: median ms from a changed count to updated figures "
        f"({args.changes} changes; plot and whole update shown apart); "
        "Full figures button once [s]"
    )
    print(
        f"{'game':28s} {'source':>10s} {'live: figures':>14s} {'plot':>8s} {'total':>8s} "
        f"{'RTP live: figures':>18s} {'full [s]':>9s}"
    )
    for spec in specs:
        game = load_game(spec)
        if not fast_figures(game):
            print(
                f"{label(spec):28s} {'on request':>10s} (no fast figures: nothing is "
                "computed on a change; Full figures runs par())"
            )
            continue
        try:
            live = workbench_latency(spec, args.changes, live=True)
            fast = workbench_latency(spec, args.changes, live=False)
            full = full_seconds(spec)
        except Exception as exc:  # report and go on
            print(f"{label(spec):28s} failed: {exc}")
            continue
        print(
            f"{label(spec):28s} {source(game):>10s} {live['figures_ms']:14.1f} "
            f"{live['plot_ms']:8.1f} {live['total_ms']:8.1f} {fast['figures_ms']:18.1f} "
            f"{full:9.2f}",
            flush=True,
        )

    print(
        "\nCold RTP of a line game: median ms, new game object with a known pay "
        "table / a never-seen pay table"
    )
    for spec in specs:
        game = load_game(spec)
        if game.rules != "lines":
            continue
        seen, new = cold_rtp(game, args.changes)
        print(f"{label(spec):28s} {seen:8.1f} {new:8.1f}", flush=True)

    print("\nSensitivities: +-1 RTP table, every symbol (stop) on every reel")
    for spec in specs:
        game = load_game(spec)
        if not fast_figures(game):
            print(f"{label(spec):28s} skipped (no fast figures)")
            continue
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
        print(
            f"{'game':28s} {'from':>10s} {'target':>10s} {'reached':>10s} {'met':>4s} "
            f"{'moved':>6s} {'evals':>6s} {'seconds':>8s}"
        )
        for spec in specs:
            game = load_game(spec)
            if not fast_figures(game):
                print(f"{label(spec):28s} skipped (no fast figures)")
                continue
            rtp0 = game_figures(game, game.levels[0], needed={"rtp"})["rtp"]
            target = Fraction(round(float(rtp0) * 10000) - 50, 10000)
            t0 = time.perf_counter()
            game_figures(game, game.levels[0], needed={"rtp"})
            if time.perf_counter() - t0 > args.max_seconds / 10:
                print(
                    f"{label(spec):28s} skipped (one RTP evaluation takes over {args.max_seconds / 10:g} s)"
                )
                continue
            res = tune(game, Targets(target, levels=(game.levels[0],)))
            moved = int(res.moves["change"].abs().sum()) if len(res.moves) else 0
            reached = float(res.after[game.levels[0]]["rtp"])
            print(
                f"{label(spec):28s} {float(rtp0):10.4%} {float(target):10.4%} {reached:10.4%} "
                f"{'yes' if res.feasible else 'NO':>4s} {moved:6d} {res.evaluations:6d} "
                f"{res.seconds:8.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
