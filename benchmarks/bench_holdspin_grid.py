"""Benchmark: the value-per-coin hold-and-spin's exact PAR as the grid grows.

Run: ``.venv/bin/python benchmarks/bench_holdspin_grid.py [--repeat 1]``.
The games are ``data/games/hold_and_spin`` on a larger grid (written to a
scratch folder, nothing into ``data/games``): its symbols, pays, base and
feature strips (reel ``r`` of the larger grid is reel ``r mod 5`` of the
game), and one straight payline per row (on more than 6 reels, five line symbols
merged into others, :data:`MERGE`, so that the line engine fits).  Every empty cell lands a COIN with
probability 1/20 on every reel, so the chain runs on the total count of held
coins (``cells + 1`` states); the ``reels differ`` rows declare per-reel
probabilities 1/20, 1/25, 1/30, ... instead (per-reel counts, ``(H + 1)**R``
states).  Per grid, in a fresh process each (numba kernels from the cache):

* ``validate``: the light check, with the chain's cost (:func:`check_cost`);
* ``RTP by component``: exact, in the round of ``rules: lines``
  (:func:`slotmath.rules.linegame.components`: line RTP, key odds, the chain's means);
* ``par``: ``slotmath par`` of the whole round (line engine, feature, round
  law), its time and the process's peak memory.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

GRIDS = ((3, 5), (4, 5), (5, 6), (8, 8))  # (rows, reels): 5x3, 5x4, 6x5, 8x8 as reels x rows
SOURCE = Path(__file__).resolve().parents[1] / "data" / "games" / "hold_and_spin"
PYTHON = sys.executable
#: on grids of more than 6 reels, these line symbols become others (5 paying symbols are left)
MERGE = {"H3": "H1", "H4": "H2", "K": "A", "Q": "A", "J": "TEN"}


def grid_game(rows: int, reels: int, folder: Path, reels_differ: bool = False) -> Path:
    """Write the hold-and-spin game on a ``rows`` x ``reels`` grid into ``folder``."""
    data = yaml.safe_load((SOURCE / "game.yaml").read_text())
    data["name"] = f"hold_and_spin_{rows}x{reels}"
    data["grid"] = {"reels": reels, "rows": rows}
    data["paylines"] = [[row] * reels for row in range(rows)]
    hs = data["options"]["hold_and_spin"]
    if reels_differ:
        del hs["reels"]
        hs["probabilities"] = [[f"1/{20 + 5 * r}" for r in range(reels)]] * rows
        data["reels"].pop("feature")
    merge = MERGE if reels > 6 else {}
    if merge:  # fewer line symbols: the line engine's pay tensor has S**R entries
        data["symbols"] = [s for s in data["symbols"] if s["name"] not in merge]
        data["pays"] = [p for p in data["pays"] if p["symbol"] not in merge]
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("reels_base.csv", "reels_feature.csv"):
        with open(SOURCE / name) as fh:
            columns = list(zip(*csv.reader(fh), strict=True))
        with open(folder / name, "w", newline="") as fh:
            out = csv.writer(fh)
            cols = [[merge.get(x, x) for x in columns[r % len(columns)][1:]] for r in range(reels)]
            out.writerow([f"reel{r + 1}" for r in range(reels)])
            out.writerows(zip(*cols, strict=True))
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder / "game.yaml"


FEATURE = """
import sys, time
from slotmath.io.gamefile import load_game
from slotmath.features.holdspin import chain_state, load_hold_and_spin
from slotmath.rules.linegame import components
game = load_game(sys.argv[1]); spec = load_hold_and_spin(game); state = chain_state(game, spec)
t = time.perf_counter(); rtp = components(game, 1)["hold_and_spin"]
print(time.perf_counter() - t, float(rtp), state.kind, state.states)
"""


def timed(args: list) -> tuple:
    """(wall seconds, peak RSS [MB], stdout, exit status, CPU seconds) of one
    fresh process (CPU = user + system, from ``/usr/bin/time``)."""
    env = {**os.environ, "PYTHONPATH": str(SOURCE.parents[2])}
    t = time.perf_counter()
    cmd = ["/usr/bin/time", "-f", "%M %U %S", PYTHON, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - t
    last = done.stderr.strip().splitlines()[-1].split() if done.stderr.strip() else []
    nan = float("nan")
    rss, cpu = (int(last[0]) / 1024, float(last[1]) + float(last[2])) if len(last) == 3 else (nan, nan)
    if done.returncode not in (0, 2):
        raise RuntimeError(done.stderr[-2000:])
    return elapsed, rss, done.stdout, done.returncode, cpu


def plot(points: list, path: Path) -> None:
    """CPU time and peak memory of ``slotmath par`` against the grid's cells,
    one line per landing (``points``: (landing, cells, CPU-s, RSS MB))."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for landing, style in (("all alike", "o-"), ("reels differ", "s--")):
        pts = sorted((c, t, m) for kind, c, t, m in points if kind == landing)
        if pts:
            cells, cpu, rss = zip(*pts, strict=True)
            axes[0].plot(cells, cpu, style, label=landing)
            axes[1].plot(cells, rss, style, label=landing)
    axes[0].axhline(10, color="grey", lw=0.8, ls=":")
    for ax, label in zip(axes, ("whole PAR [CPU-s]", "peak RSS [MB]"), strict=True):
        ax.set_xlabel("cells of the grid (5x3, 5x4, 6x5, 8x8)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Hold-and-spin by counts: slotmath par as the grid grows (dotted: 10 s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-par", action="store_true", help="validate and the feature only")
    ap.add_argument("--plot", type=Path, help="write the growth plot (CPU-s and peak RSS of par) here")
    args = ap.parse_args(argv)
    points = []
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(
        "| grid | cells | landing | state | states | validate | feature RTP "
        "| RTP by component | par | par CPU | par peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for differ in (False, True):
            for rows, reels in GRIDS:
                game = grid_game(rows, reels, Path(scratch) / f"g{rows}x{reels}{'d' * differ}", differ)
                tv, _, out, rc, _ = timed(["-m", "slotmath", "validate", str(game)])
                landing = "reels differ" if differ else "all alike"
                head = f"| {reels}x{rows} | {rows * reels} | {landing} |"
                if rc == 2:
                    print(f"{head} refused | | {tv:.2f} s | | | | | |  ({out.strip() or 'see validate'})")
                    continue
                tf, _, out, _, _ = timed(["-c", FEATURE, str(game)])
                t, rtp, kind, states = out.split()
                row = f"{head} {kind} | {int(states):,} | {tv:.2f} s | {float(rtp):.6%} | {float(t):.2f} s |"
                if args.skip_par:
                    print(row + " | | |")
                    continue
                tp, rss, out, rc, cpu = timed(["-m", "slotmath", "par", str(game), "--json"])
                rtp_round = json.loads(out)["rtp"] if rc == 0 else float("nan")
                cells = f"{tp:.2f} s (RTP {rtp_round:.4%}) | {cpu:.1f} CPU-s | {rss:.0f} MB |"
                print(f"{row} {cells}", flush=True)
                points.append((landing, rows * reels, cpu, rss))
    if args.plot:
        plot(points, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
