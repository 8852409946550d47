"""Design of the Grand Spinn Superpot reel strips: the layout and its tuned stop weights.

Run ``python -m slotmath.games.grand_spinn_superpot_strips`` to rebuild
``data/games/grand_spinn_superpot/reels.csv`` from the layout below (a few
minutes; it prints the exact figures after every sweep).

Layout (hand-made, :data:`LAYOUT`): classic fruit reels, mostly cherries,
lemons, oranges and plums in stacks of 2 and 3, the higher symbols in
pairs, blanks between blocks; up arrows and jackpot symbols sit directly on
top of stacks (an arrow or a jackpot symbol only acts on top of the
winning symbol's stack): Minis over low-fruit stacks, Midis over grapes,
melons and bells, one Super per reel over a pair of sevens; three lone
multiplier wilds per reel.

Weights (solved): every stop gets an integer weight, each reel's total
fixed at :data:`REEL_WEIGHT`.  With the other reels fixed, every figure of
the game (RTP, hit frequency, jackpot odds) is linear in one reel's
weights, so each reel in turn is solved as a small integer programme
(``scipy.optimize.milp``): the RTP inside :data:`RTP_BAND` of its target,
the other figures near :data:`TARGETS`, weights near the hand-made ones
(:func:`initial_weights`); sweeps repeat until nothing changes.  The
per-stop coefficients come from playing out every stop combination
(:func:`stop_values`), so the figures are the exact ones.  The Super, its
sevens and the two stops that show it from above keep weights of at most
:data:`SUPER_WEIGHT` (the Super must stay rare).
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.optimize import LinearConstraint, Bounds, milp

from ..gamefile import GAMES_DIR, load_game
from .grand_spinn_superpot import PATH_LINE, PATH_NUDGE, compile_rules, play_all

GAME = "grand_spinn_superpot"

#: Reel strips as blocks separated by a blank; symbols within a block are
#: adjacent ("SYMBOL*k" is a stack of k) and a cap (ARROW, MINI, MIDI,
#: SUPER) sits directly on top of the stack that follows it.
LAYOUT = (
    "MINI CHERRY*3 LEMON | ORANGE*2 CHERRY | LEMON*3 | PLUM*2 CHERRY | WILD | "
    "MIDI GRAPES*2 LEMON | CHERRY*2 ORANGE | MELON*2 | MINI LEMON*2 CHERRY | BELL*2 | ORANGE*3 | "
    "BAR CHERRY | MINI ORANGE*2 LEMON | SEVEN*2 | CHERRY*2 PLUM | SUPER SEVEN*2 | "
    "LEMON*2 ORANGE | ARROW PLUM*3 | WILD | CHERRY LEMON | MIDI MELON*2 | ORANGE CHERRY | "
    "ARROW GRAPES*2 | MINI PLUM*2 | CHERRY*3 | LEMON ORANGE | MIDI BELL*2 | CHERRY LEMON*2 | "
    "BAR*2 | "
    "GRAPES ORANGE | WILD",

    "CHERRY*3 | LEMON*2 ORANGE | MINI LEMON*3 | CHERRY PLUM*2 | MIDI MELON*2 | WILD | "
    "ORANGE*2 CHERRY | ARROW GRAPES*2 | MINI CHERRY*2 LEMON | BELL*2 | LEMON ORANGE*2 | SEVEN*2 | "
    "CHERRY*2 | MINI ORANGE*3 | BAR | PLUM*2 LEMON | SUPER SEVEN*2 | CHERRY LEMON | MINI PLUM*2 | "
    "WILD | GRAPES*2 CHERRY | MIDI BELL*2 | ORANGE CHERRY*2 | LEMON*2 | MIDI GRAPES*2 | "
    "CHERRY ORANGE | ARROW MELON*2 | LEMON CHERRY | BAR*2 | PLUM ORANGE | WILD",

    "MINI CHERRY*2 LEMON | ORANGE*2 | ARROW PLUM*2 | CHERRY*2 LEMON | WILD | MIDI GRAPES*2 | "
    "LEMON*3 | MINI LEMON*2 ORANGE | CHERRY*2 | BELL*2 | CHERRY*3 | ORANGE*2 PLUM | SEVEN*2 | "
    "LEMON CHERRY | BAR*2 | SUPER SEVEN*2 | MINI ORANGE*2 CHERRY | PLUM*2 | WILD | MIDI MELON*2 | "
    "LEMON*2 CHERRY | ARROW GRAPES*2 | MINI PLUM*2 | ORANGE LEMON | MIDI BELL*2 | CHERRY*2 | "
    "MELON*2 | "
    "ORANGE CHERRY | BAR | LEMON ORANGE",
)

#: Total stop weight of each reel (the cycle is REEL_WEIGHT ** 3).
REEL_WEIGHT = 1024
#: Largest weight of a free stop.
MAX_WEIGHT = 48
#: Largest weight of the stops around a Super (the Super, its stack and
#: the two stops above it, which show the Super in the window).
SUPER_WEIGHT = 8
#: Cost per unit of moving a weight away from its hand-made value (keeps
#: the solved reels close to the design).
STEADY = 0.05

#: The RTP without the Super must lie within RTP_BAND of this (a hard
#: constraint); 93.51 % + the Super's 2.70 % = the published 96.21 %.
RTP_TARGET, RTP_BAND = 0.9351, 1e-5

#: Branch-and-bound nodes per integer programme (a work limit, not a time
#: limit, so the result does not depend on the machine's speed).
NODE_LIMIT = 500

#: Soft targets: (figure, target, scale); the solver minimises the sum of
#: |figure - target| / scale plus STEADY per unit of weight moved.
TARGETS = (
    ("hit_frequency", 0.24, 5e-3),
    ("landing", 0.40, 1e-2),
    ("Mini after nudges", 1 / 500, 2e-5),
    ("Mini on a line", 1 / 5000, 2e-5),
    ("Midi after nudges", 1 / 5000, 1e-5),
    ("Midi on a line", 1 / 60000, 3e-6),
    ("Super", 1 / 3_000_000, 2e-8),
)


def parse_layout(layout=LAYOUT) -> list:
    """Symbol names of every reel's strip (a blank after every block)."""
    reels = []
    for text in layout:
        strip = []
        for block in text.split("|"):
            for tok in block.split():
                name, _, k = tok.partition("*")
                strip += [name] * int(k or 1)
            strip.append("BLANK")
        reels.append(strip)
    return reels


def weight_bounds(strip: list) -> list:
    """(lowest, highest) weight of every stop."""
    n = len(strip)
    bounds = [(1, MAX_WEIGHT)] * n
    for p, s in enumerate(strip):
        if s != "SUPER":
            continue
        near = {(p + d) % n for d in (-2, -1, 0)}
        q = p + 1
        while strip[q % n] == strip[(p + 1) % n]:
            near.add(q % n)
            q += 1
        for i in near:
            bounds[i] = (1, SUPER_WEIGHT)
    return bounds


def initial_weights(strip: list) -> list:
    """Hand-made starting weights, scaled to :data:`REEL_WEIGHT`."""
    base = {"CHERRY": 24, "LEMON": 18, "ORANGE": 14, "PLUM": 12, "GRAPES": 12, "MELON": 12,
            "BELL": 9, "BAR": 8, "SEVEN": 8, "WILD": 10, "BLANK": 8, "ARROW": 6, "MINI": 24,
            "MIDI": 10}
    bounds = weight_bounds(strip)
    w = [base.get(s, 14) for s in strip]
    for p, s in enumerate(strip):     # stacks under a Mini land more often
        if s == "MINI":
            q = p + 1
            while strip[q % len(strip)] == strip[(p + 1) % len(strip)]:
                w[q % len(strip)] = round(1.5 * w[q % len(strip)])
                q += 1
    w = [min(max(x, lo), hi) for x, (lo, hi) in zip(w, bounds)]
    free = [p for p, (lo, hi) in enumerate(bounds) if hi == MAX_WEIGHT]
    rest = REEL_WEIGHT - sum(w[p] for p in range(len(w)) if p not in set(free))
    scale = rest / sum(w[p] for p in free)
    for p in free:
        w[p] = max(1, min(MAX_WEIGHT, round(w[p] * scale)))
    diff = REEL_WEIGHT - sum(w)
    i = 0
    while diff:
        p = free[i % len(free)]
        step = 1 if diff > 0 else -1
        if 1 <= w[p] + step <= MAX_WEIGHT:
            w[p] += step
            diff -= step
        i += 1
    return w


def stop_values(rules) -> dict:
    """Per-stop coefficients of every figure: ``out[name][r][s]`` is the
    sum over the other reels' stops of their weight product times the
    figure's value in the round, for stop ``s`` of reel ``r``.

    Figures: ``rtp`` (coin win / total bet), ``hit_frequency`` (win > 0),
    ``landing`` (landing line win / total bet), and per jackpot its
    probability, after the nudges and on a line without a win."""
    rounds = play_all(rules)
    R = rules.game.reels
    tb = rules.total_bet
    metrics = {"rtp": rounds.win / tb, "hit_frequency": (rounds.win > 0) * 1.0,
               "landing": rounds.landing / tb}
    for k, j in enumerate(rules.options.jackpots):
        nudge = ((rounds.jackpot == k) & (rounds.path == PATH_NUDGE)) * 1.0
        line = ((rounds.jackpot == k) & (rounds.path == PATH_LINE)) * 1.0
        metrics[j.name] = nudge + line
        metrics[f"{j.name} after nudges"] = nudge
        metrics[f"{j.name} on a line"] = line
    w = [rules.weights[r, :rules.lengths[r]].astype(np.float64) for r in range(R)]
    out = {}
    for name, m in metrics.items():
        per = []
        for r in range(R):
            t = m
            for q in range(R - 1, -1, -1):   # contract the other reels, highest axis first
                if q != r:
                    t = np.tensordot(t, w[q], axes=([q], [0]))
            per.append(np.asarray(t))
        out[name] = per
    return out


def write_csv(path: Path, strips: list, weights: list) -> None:
    """Write the reel set atomically (columns reel1, weight1, reel2, ...)."""
    n = max(len(s) for s in strips)
    header = []
    for r in range(len(strips)):
        header += [f"reel{r + 1}", f"weight{r + 1}"]
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".reels-", suffix=".csv")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(header)
            for i in range(n):
                row = []
                for s, w in zip(strips, weights):
                    row += [s[i], w[i]] if i < len(s) else ["", ""]
                out.writerow(row)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def figures(game, level=1) -> dict:
    """Exact figures the targets refer to (from the full analysis)."""
    from .grand_spinn_superpot import analyse

    res = analyse(game, level)
    out = {"rtp": float(res.distribution.mean), "hit_frequency": res.hit_frequency,
           "rtp_total": res.rtp}
    out.update({f"RTP {k}": float(v) for k, v in res.components.items()})
    for name, j in res.features["jackpots"].items():
        out[name] = j["probability"]
        out[f"{name} after nudges"] = j["after_nudge_probability"]
        out[f"{name} on a line"] = j["on_line_without_win_probability"]
    return out


def solve_reel(values: dict, r: int, current: np.ndarray, start: np.ndarray, bounds: list,
               others: float) -> np.ndarray:
    """Integer weights of reel ``r`` (total :data:`REEL_WEIGHT`): the RTP in
    its band, minimising ``sum |figure - target| / scale`` over
    :data:`TARGETS` plus :data:`STEADY` per unit moved from ``start``.
    Every figure is linear in this reel's weights when the other reels are
    fixed.  Keeps ``current`` when no solution is found.

    Variables: the n weights, one slack per target, one |move| per stop.
    """
    n = len(start)
    C = REEL_WEIGHT * others
    k = len(TARGETS)
    nv = n + k + n
    c = np.concatenate([np.zeros(n), np.ones(k), np.full(n, STEADY)])
    A, lo, hi = [], [], []
    a = np.zeros(nv)
    a[:n] = values["rtp"][r] / (C * RTP_BAND)      # RTP in units of the band
    A.append(a)
    lo.append(RTP_TARGET / RTP_BAND - 1)
    hi.append(RTP_TARGET / RTP_BAND + 1)
    for i, (name, target, scale) in enumerate(TARGETS):
        coef = values[name][r] / (C * scale)  # rows in units of the target's scale
        for sign in (-1.0, 1.0):              # |coef.x - target/scale| <= slack
            a = np.zeros(nv)
            a[:n] = coef
            a[n + i] = sign
            A.append(a)
            lo.append(-np.inf if sign < 0 else target / scale)
            hi.append(target / scale if sign < 0 else np.inf)
    for p in range(n):                        # move_p >= |x_p - start_p|
        for sign in (-1.0, 1.0):
            a = np.zeros(nv)
            a[p] = sign
            a[n + k + p] = -1.0
            A.append(a)
            lo.append(-np.inf)
            hi.append(sign * start[p])
    a = np.zeros(nv)
    a[:n] = 1
    A.append(a)
    lo.append(REEL_WEIGHT)
    hi.append(REEL_WEIGHT)
    lb = np.array([b[0] for b in bounds] + [0] * (k + n), dtype=float)
    ub = np.array([b[1] for b in bounds] + [np.inf] * (k + n), dtype=float)
    integrality = np.concatenate([np.ones(n), np.zeros(k + n)])
    res = milp(c, constraints=LinearConstraint(np.array(A), lo, hi), bounds=Bounds(lb, ub),
               integrality=integrality,
               options={"node_limit": NODE_LIMIT, "time_limit": 600, "mip_rel_gap": 1e-6})
    if res.x is None:
        return np.asarray(current, dtype=np.int64)
    return np.round(res.x[:n]).astype(np.int64)


def tune(folder: Path, sweeps: int = 8, verbose: bool = True) -> None:
    """Solve the stop weights of :data:`LAYOUT` and write ``reels.csv``.

    Starts from the weights in ``reels.csv`` when its strips match the
    layout, otherwise from :func:`initial_weights`.
    """
    strips = parse_layout()
    csv_path = folder / "reels.csv"
    start = [initial_weights(s) for s in strips]
    try:
        current = [list(s.symbols) for s in load_game(folder).strips()]
    except Exception:  # noqa: BLE001 -- a missing or stale CSV: start afresh
        current = None
    if current != strips:
        write_csv(csv_path, strips, start)
    game = load_game(folder)
    bounds = [weight_bounds(s) for s in strips]
    for sweep in range(sweeps):
        changed = False
        for r in range(game.reels):
            compile_rules.cache_clear()
            rules = compile_rules(game, game.levels[0])
            weights = [rules.weights[q, :rules.lengths[q]].copy() for q in range(game.reels)]
            values = stop_values(rules)
            others = float(np.prod([weights[q].sum() for q in range(game.reels) if q != r]))
            new = solve_reel(values, r, weights[r], np.array(start[r]), bounds[r], others)
            if not np.array_equal(new, weights[r]):
                changed = True
                weights[r] = new
                write_csv(csv_path, strips, [list(map(int, w)) for w in weights])
                game = load_game(folder)
        if verbose:
            compile_rules.cache_clear()
            f = figures(game)
            print(f"sweep {sweep + 1}: " + ", ".join(
                f"{k} {float(v):.6g}" for k, v in f.items() if k != "rtp_total"),
                file=sys.stderr)
        if not changed:
            break


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(GAMES_DIR / GAME))
    parser.add_argument("--sweeps", type=int, default=8)
    args = parser.parse_args(argv)
    tune(Path(args.folder), args.sweeps)
    compile_rules.cache_clear()
    game = load_game(args.folder)
    f = figures(game)
    rtp = f["rtp_total"]
    print(f"exact RTP {float(rtp):.6%} ({rtp.numerator}/{rtp.denominator})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
