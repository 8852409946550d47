"""How the Piggy Bankin' Superlock data were made (draft strips, award tables, tuning).

Run from the repository root: ``.venv/bin/python data/games/piggy_bankin_superlock/design.py``
rewrites the CSV files of this folder: the draft base reels, the other reel
sets, the award tables, and then ``reels_base.csv`` by the documented tuning
run (:data:`TUNE_ARGS`; docs/games/piggy_bankin_superlock.md).

* Strips (seed 4): symbols placed at random under the constraints of the
  rules document: PIGGY runs at most 2 long on the base and free-game reels,
  no BONUS within 2 positions of a PIGGY (so one spin never has 6+ PIGGY and
  3+ BONUS), WILD_3 in 3-high blocks on reels 2-5, PIGGY_WHEEL only on reel 3.
  The base reels are the designer's draft (``draft/reels_base.csv``); the
  free-game and feature reels are final.
* Award tables: per shape a mean award ``MEAN x F`` (shapes 1-8), jackpot
  chances growing with the bet, cash weights tilted exponentially to hit the
  mean exactly at every bet (W = 1,000,000).  ``F`` of the trigger table is
  the designer's :data:`TRIGGER_SCALE`; ``F`` of each selection table makes
  the lock-it option worth the free games for that BONUS count (linear,
  solved once on the draft; tuning never moves a PIGGY or BONUS, so the
  balance holds for the tuned reels too).
* Base reels: ``slotmath tune`` moves symbol counts on the draft base reels
  (PIGGY, PIGGY_WHEEL and BONUS held in place, strip lengths kept) until the
  RTP is 94.03 % +- 0.005 pp at every bet under both selection policies.
"""

import csv
import itertools
import random
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent
DRAFT = OUT / "draft" / "reels_base.csv"
GAME = "piggy_bankin_superlock"
#: Scale of the trigger table's mean awards (shapes 1-8), chosen by the designer.
TRIGGER_SCALE = 1.5
#: The documented tuning run: ``slotmath tune`` arguments after the game.
TUNE_ARGS = (
    "--draft",
    f"data/games/{GAME}/draft/reels_base.csv",
    "--target-rtp",
    "94.03%",
    "--shape",
    "off",
    "--out",
    f"data/games/{GAME}/game.yaml",
)
LEVELS = [1, 2, 3, 5, 10]
JACKPOTS = {"MINI": 10, "MINOR": 100, "MAJOR": 1000, "GRAND": 2500}
LEVEL_FACTOR = {1: 1.0, 2: 1.5, 3: 2.0, 5: 3.0, 10: 5.0}
SEL_JP = {3: 1.0, 4: 1.25, 5: 1.5}

SHAPES = ["3x5", "3x4", "2x5", "3x3", "2x4", "3x2", "2x3", "2x2", "3x1", "2x1", "1x1"]
CASH = {
    "3x5": [100, 150, 200, 250, 500, 750, 1000, 2500],
    "3x4": [50, 75, 100, 150, 200, 250, 500, 1000],
    "2x5": [40, 50, 75, 100, 150, 250, 500, 1000],
    "3x3": [30, 40, 50, 75, 100, 250, 500, 1000],
    "2x4": [15, 20, 25, 30, 40, 50, 75, 100],
    "3x2": [12, 15, 20, 25, 30, 50, 75, 100],
    "2x3": [12, 15, 20, 25, 30, 50, 75, 100],
    "2x2": [4, 5, 6, 8, 10, 15, 20, 25, 50, 100],
    "3x1": [5],
    "2x1": [3],
    "1x1": [1],
}
JP = {  # probability at bet multiplier 1
    "3x5": {"GRAND": 0.01, "MAJOR": 0.02, "MINOR": 0.04},
    "3x4": {"MAJOR": 0.005, "MINOR": 0.04},
    "2x5": {"MAJOR": 0.002, "MINOR": 0.02, "MINI": 0.06},
    "3x3": {"MINOR": 0.006, "MINI": 0.04},
    "2x4": {"MINOR": 0.002, "MINI": 0.02},
    "3x2": {"MINOR": 0.0015, "MINI": 0.015},
    "2x3": {"MINOR": 0.0015, "MINI": 0.015},
    "2x2": {"MINOR": 0.0004, "MINI": 0.008},
}
MEAN = {
    "3x5": 600,
    "3x4": 230,
    "2x5": 150,
    "3x3": 100,
    "2x4": 30,
    "3x2": 25,
    "2x3": 25,
    "2x2": 9.5,
    "3x1": 5,
    "2x1": 3,
    "1x1": 1,
}
W = 1_000_000


def cash_weights(values, target, total):
    """Integer weights summing to total with mean as close to target as possible."""
    v = np.array(values, float)
    if len(v) == 1:
        return [total]
    if not v[0] < target < v[-1]:
        raise ValueError(f"target {target} outside {values}")
    base = 0.55 ** np.arange(len(v))

    def mean(t):
        w = base * np.exp(t * (v - v.mean()) / np.ptp(v))
        return (w * v).sum() / w.sum(), w

    lo, hi = -200.0, 200.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mean(mid)[0] < target:
            lo = mid
        else:
            hi = mid
    w = mean(lo)[1]
    w = w / w.sum() * total
    iw = np.floor(w).astype(int)
    rem = total - iw.sum()
    order = np.argsort(-(w - iw))
    iw[order[:rem]] += 1
    return iw.tolist()


def tables(factors):
    """factors: {table name: (mean factor for shapes 1-8, jackpot factor shapes 1-3)}"""
    rows = []
    for tname, (mf, jf) in factors.items():
        for lv in LEVELS:
            for i, s in enumerate(SHAPES):
                jp = JP.get(s, {})
                scale = LEVEL_FACTOR[lv] * (jf if i < 3 else 1.0)
                jw = {k: int(round(p * scale * W)) for k, p in jp.items()}
                target = MEAN[s] * (mf if i < 8 else 1.0)
                rest = W - sum(jw.values())
                jsum = sum(JACKPOTS[k] * w for k, w in jw.items())
                cash_target = (target * W - jsum) / rest
                cw = cash_weights(CASH[s], cash_target, rest)
                for v, w in zip(CASH[s], cw, strict=True):
                    rows.append((tname, lv, s, v, w))
                for k, w in jw.items():
                    rows.append((tname, lv, s, k, w))
    with open(OUT / "awards.csv", "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["table", "level", "shape", "award", "weight"])
        wr.writerows(rows)


# ---------------------------------------------------------------- strips
REG = ["GUARD", "DOG", "SAFE", "BULLION", "DOLLARSIGN", "A", "K", "Q", "J"]


def build_strip(rng, counts, pig_runs, bonus, wild3_blocks, pw=0, max_tries=20000):
    """counts: regular+WILD singles; pig_runs: list of run lengths (<= 2)."""
    for _ in range(max_tries):
        items = []
        for s, c in counts.items():
            items += [[s]] * c
        for L in pig_runs:
            items.append(["PIGGY"] * L)
        for _ in range(pw):
            items.append(["PIGGY_WHEEL"])
        items += [["BONUS"]] * bonus
        items += [["WILD_3"] * 3] * wild3_blocks
        rng.shuffle(items)
        strip = [x for it in items for x in it]
        if ok(strip):
            return strip
    raise RuntimeError("no valid strip")


def ok(strip, max_pigs=2):
    n = len(strip)
    pig = [s in ("PIGGY", "PIGGY_WHEEL") for s in strip]
    for i in range(n):
        w = [strip[(i + k) % n] for k in range(3)]
        p = sum(pig[(i + k) % n] for k in range(3))
        b = w.count("BONUS")
        if p > max_pigs:
            return False
        if b > 1 or (b and p):
            return False
        if b and ("WILD_3" in w or "WILD" in w):
            pass
        if w.count("PIGGY_WHEEL") > 1:
            return False
    # WILD_3 blocks must not merge into runs > 3 (keep blocks separate)
    for i in range(n):
        if all(strip[(i + k) % n] == "WILD_3" for k in range(4)):
            return False
    return True


def feature_strip(rng, n, runs, pw=0):
    """PIGGY runs (any length <= 3) placed on BLANK, separated by >= 1 BLANK."""
    for _ in range(10000):
        gaps = n - sum(runs) - pw
        items = [["PIGGY"] * L for L in runs] + [["PIGGY_WHEEL"]] * pw
        rng.shuffle(items)
        k = len(items)
        if gaps < k:
            raise ValueError
        cuts = sorted(rng.sample(range(1, gaps), k - 1)) if k > 1 else []
        sizes = [b - a for a, b in itertools.pairwise([0, *cuts, gaps])]
        strip = []
        for it, g in zip(items, sizes, strict=True):
            strip += it + ["BLANK"] * g
        rot = rng.randrange(n)
        strip = strip[rot:] + strip[:rot]
        pig = [s != "BLANK" for s in strip]
        good = all(
            not (pig[i] and pig[(i + 1) % n] and pig[(i + 2) % n] and pig[(i + 3) % n]) for i in range(n)
        )
        if good:
            return strip
    raise RuntimeError


def write_csv(name, strips):
    n = max(len(s) for s in strips)
    with open(OUT / name, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow([f"reel{r + 1}" for r in range(len(strips))])
        for i in range(n):
            wr.writerow([s[i] if i < len(s) else "" for s in strips])


def make_strips(seed=4):
    rng = random.Random(seed)
    base = []
    # reel 1: no wilds
    reg1 = dict(GUARD=4, DOG=5, SAFE=6, BULLION=7, DOLLARSIGN=8, A=9, K=9, Q=10, J=10)
    regw = dict(GUARD=4, DOG=5, SAFE=6, BULLION=6, DOLLARSIGN=7, A=8, K=9, Q=9, J=10, WILD=2)
    for r in range(5):
        counts = dict(reg1 if r == 0 else regw)
        base.append(build_strip(rng, counts, [2, 2, 1, 1, 1], 2, 0 if r == 0 else 1, pw=1 if r == 2 else 0))
    fg = []
    for r in range(5):
        counts = dict(reg1 if r == 0 else regw)
        if r:
            counts["WILD"] = 0
            counts["J"] += 2
            counts["Q"] += 2
        fg.append(build_strip(rng, counts, [2, 2, 1, 1], 2, 0 if r == 0 else 2))
    fw, fp = [], []
    for r in range(5):
        fp.append(feature_strip(rng, 80, [3, 3, 2, 1, 1]))
        fw.append(feature_strip(rng, 240, [3, 3, 2, 1, 1] * 3, pw=1) if r == 2 else fp[-1])
    DRAFT.parent.mkdir(exist_ok=True)
    write_csv(DRAFT.relative_to(OUT), base)
    write_csv("reels_free_games.csv", fg)
    write_csv("reels_feature_wheel.csv", fw)
    write_csv("reels_feature.csv", fp)


def draft():
    """The game with the draft base reels."""
    from slotmath.gamefile import load_game
    from slotmath.tune import draft_game

    return draft_game(load_game(str(OUT)), DRAFT, "base")


def selection_factors(Ft=TRIGGER_SCALE):
    """``F`` of each selection table (by BONUS count) that makes the lock-it
    option worth the free games, the trigger table at scale ``Ft``."""
    from slotmath import wheel as wm
    from slotmath.combinations import line_rtp
    from slotmath.games import piggy_bankin_superlock as m

    st = m.structure(draft())
    f = st.features
    counts = st.shape_counts
    wheel_mean = float(wm.moments(f.wheel)[0])
    fixed = np.array([0] * 8 + [5, 3, 1], float)
    scal = np.array([MEAN[s] if i < 8 else 0 for i, s in enumerate(SHAPES)], float)

    def AB(final):
        n = final.sum(axis=0) @ counts
        return float(n @ scal), float(n @ fixed + final[1].sum() * wheel_mean)

    ff, pf_, _ = st.final((m.FREE, m.FREE, None, None))
    A_fg, B_fg = AB(ff)
    fgs = f.free_games
    lines_fg = float(line_rtp(st.fg_game, 1, fgs.reels)[0])
    cyc_fg = st.cycles[m.FREE]
    p_lk_fg = pf_ / cyc_fg
    byb = st.fg_screens.sum(axis=(0, 1)) / cyc_fg
    prize_fg = sum(byb[b] * float(fgs.prize(b)) for b in range(len(byb)))
    ek = sum(byb[b] * fgs.games(b) for b in range(len(byb)))
    sel = f.selection
    AB_sel = {}
    for b in (3, 4, 5):
        opt = sel.option(b)
        fs, _, _ = st.final((sel.lockit_source, m.BASE, b, opt.lockit_spins))
        AB_sel[b] = AB(fs)

    def vfg(b):
        y = lines_fg + prize_fg + p_lk_fg * (Ft * A_fg + B_fg)
        return 2 * sel.option(b).free_games * y / (1 - ek)

    return {b: (vfg(b) - AB_sel[b][1]) / AB_sel[b][0] for b in (3, 4, 5)}


def main(seed=4):
    """Draft strips, award tables, then the documented tuning run."""
    from slotmath.cli import main as cli_main

    make_strips(seed)
    Fb = selection_factors(TRIGGER_SCALE)
    tables({"trigger": (TRIGGER_SCALE, 1.0), **{f"selection_{b}": (Fb[b], SEL_JP[b]) for b in (3, 4, 5)}})
    return cli_main(["tune", GAME, *TUNE_ARGS])


if __name__ == "__main__":
    sys.exit(main())
