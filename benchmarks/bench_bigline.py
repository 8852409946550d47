"""The line engine on large grids (issue 30, point 3): whole ``par()`` CPU time
and peak memory against lines and strip length.

Games: ``big{R}{H}_{L}_{N}`` of :mod:`stress_games` (ten paying symbols
paying 3 to R of a kind, a WILD on the inner reels, a SCATTER; strips of N
stops drawn with a fixed seed).  Each game runs in a fresh process: a small
game first (numba kernels loaded), then one whole ``par()`` of the game timed
in CPU seconds of the process (the machine is shared, so wall time is not the
engine's); peak RSS from ``getrusage``.  An example game of ``data/games``
named instead is warmed up on itself and timed on a second, uncached run.  ``--tree DIR`` runs the same games
on another checkout of slotmath (e.g. the commit before the line-set pass) for
the "before" column; a refusal is reported with its CPU time.

Usage: ``python benchmarks/bench_bigline.py [--tree DIR] [--timeout S] [--plot] [GAME ...]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

GROWTH = {
    "5x4, 400-stop strips: lines": ["big54_10_400", "big54_20_400", "big54_40_400"],
    "5x4, 40 lines: stops": ["big54_40_100", "big54_40_200", "big54_40_400"],
    "6x5, 200-stop strips: lines": ["big65_25_200", "big65_50_200", "big65_100_200"],
    "6x5, 50 lines: stops": ["big65_50_50", "big65_50_100", "big65_50_200"],
}

_CHILD = """
import json, resource, sys, tempfile, time
sys.path.insert(0, {bench!r})
from stress_games import stress_game
from slotmath.errors import EngineTooLarge
from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.rules.par import par
from timing import forget_cached_results
scratch = tempfile.mkdtemp()
name = {name!r}
if (GAMES_DIR / name).exists():              # an example game: warmed up on itself
    game = load_game(name)
    par(game, game.levels[0])
    forget_cached_results()
    game = load_game(name)
else:                                        # a stress game: kernels loaded on a small one
    par(stress_game("big54_5_30", scratch), 1)
    game = stress_game(name, scratch)
t = time.process_time()
out = {{"game": name, "lines": len(game.paylines), "stops": len(game.strips()[0]), "cycle": game.cycle()}}
try:
    result = par(game, game.levels[0])
    out.update(rtp=str(result.rtp), wins=len(result.distribution.wins))
except EngineTooLarge as e:
    out.update(refused=str(e))
out.update(cpu_s=time.process_time() - t, rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def run(name: str, tree: str | None, timeout: float) -> dict:
    """One game's whole ``par()`` in a fresh process on ``tree`` (default: this one)."""
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    code = _CHILD.format(bench=str(Path(__file__).parent), name=name)
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"game": name, "timeout_s": timeout}
    return json.loads(out.stdout.strip().splitlines()[-1])


def show(r: dict) -> str:
    if "timeout_s" in r:
        return f"{r['game']:<16} more than {r['timeout_s']:.0f} s wall (stopped)"
    what = "refused" if "refused" in r else f"{r['wins']:>6} wins"
    return f"{r['game']:<16}{r['cycle']:>12.2e}{r['cpu_s']:>9.1f} CPU-s{r['rss_mb']:>8.0f} MB  {what}"


def plot(rows: dict, path: Path) -> None:
    """Log-log CPU time against lines and strip length, one panel per growth series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    for ax, (label, names) in zip(axes, GROWTH.items(), strict=True):
        key = "lines" if label.endswith("lines") else "stops"
        for tag, style in (("before", "s--"), ("after", "o-")):
            pts = [
                (rows[tag][n][key], rows[tag][n]["cpu_s"])
                for n in names
                if n in rows.get(tag, {}) and "cpu_s" in rows[tag][n] and "refused" not in rows[tag][n]
            ]
            if pts:
                ax.loglog(*zip(*pts, strict=True), style, label=tag)
        ax.axhline(60, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(label.split(": ")[1])
        ax.set_title(label.split(": ")[0], fontsize=9)
        ax.set_ylabel("whole PAR [CPU-s]")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Line engine on large grids (random strips); dotted: 60 s; missing 'before' points: refused")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def memory_plot(rows: dict, path: Path) -> None:
    """Peak memory (RSS of the process, imports included) against lines and
    strip length, one panel per growth series, from one run's rows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    for ax, (label, names) in zip(axes, GROWTH.items(), strict=True):
        key = "lines" if label.endswith("lines") else "stops"
        pts = [(rows[n][key], rows[n]["rss_mb"]) for n in names if n in rows and "rss_mb" in rows[n]]
        if pts:
            ax.plot(*zip(*pts, strict=True), "o-")
        ax.set_xlabel(label.split(": ")[1])
        ax.set_title(label.split(": ")[0], fontsize=9)
        ax.set_ylabel("peak RSS [MB]")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    fig.suptitle("Line engine on large grids: peak memory of the whole PAR (about 200 MB of it imports)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*")
    ap.add_argument("--tree", help="checkout to run instead of this one (PYTHONPATH)")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--json", type=Path, help="append each result as a JSON line here")
    ap.add_argument("--plot", type=Path, help="draw the growth plot from --json files BEFORE,AFTER")
    ap.add_argument("--memory-plot", type=Path, help="draw the peak memory plot from one --json file")
    args = ap.parse_args(argv)
    if args.memory_plot:
        (one,) = (Path(p) for p in args.games)
        memory_plot({r["game"]: r for r in map(json.loads, one.read_text().splitlines())}, args.memory_plot)
        return 0
    if args.plot:
        before, after = (Path(p) for p in args.games)
        rows = {
            tag: {r["game"]: r for r in map(json.loads, f.read_text().splitlines())}
            for tag, f in (("before", before), ("after", after))
        }
        plot(rows, args.plot)
        return 0
    names = args.games or list(dict.fromkeys(n for ns in GROWTH.values() for n in ns))
    for name in names:
        r = run(name, args.tree, args.timeout)
        print(show(r), flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
