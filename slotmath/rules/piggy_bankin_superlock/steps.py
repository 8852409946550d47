"""Piggy Bankin' Superlock: exploration, a lock-it feature step by step (pictures and tables)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.features import wheel as wheel_mod
from slotmath.model import Game
from slotmath.rules.piggy_bankin_superlock.check import BASE, BASE_REELS, FREE
from slotmath.rules.piggy_bankin_superlock.rtp import (
    Breakdown,
    fg_per_spin,
    per_awarded_game,
    per_free_spin,
)
from slotmath.rules.piggy_bankin_superlock.sampler import JACKPOT_ORDER
from slotmath.rules.piggy_bankin_superlock.structure import features_of, structure


# ===========================================================================
# exploration: a lock-it feature step by step
# ===========================================================================
@dataclass
class LockItStep:
    """One picture of a lock-it feature: held cells (H, R) [bool], the cells
    that landed this spin, the WHEEL cell (or None) and a caption."""

    held: np.ndarray
    new: np.ndarray
    wheel: tuple | None
    caption: str
    shapes: list = field(default_factory=list)  # (name, top, left, award label) at the end


def play_lockit(game: Game, level: int, source: str = BASE, start=None, seed: int = 0):
    """Play one lock-it feature literally with ``numpy``'s generator.

    Parameters
    ----------
    start : str or None
        Start picture (``shapes.mask_from_picture`` syntax, ``W`` marks the
        PIGGY with WHEEL); None draws base-game spins until 6+ PIGGY land.

    Returns
    -------
    list of LockItStep
        The start, every spin, and the final shapes with their awards.
    """
    from slotmath.features import shapes as shp

    f = features_of(game)
    lk = f.lockit
    src = lk.sources[source]
    H, R = game.rows, game.reels
    rng = np.random.default_rng(seed)
    pig = set(lk.symbols)
    wheel = None
    if start is None:
        while True:
            held = np.zeros((H, R), dtype=bool)
            for r, strip in enumerate(game.strips(BASE_REELS)):
                s = rng.integers(len(strip))
                for k in range(H):
                    sym = strip.symbols[(s + k) % len(strip)]
                    held[k, r] = sym in pig
                    if sym == lk.mark:
                        wheel = (k, r)
            if held.sum() >= lk.trigger:
                break
            wheel = None
    else:
        rows = [line for line in start.split() if line]
        held = np.array([[c in "XxW#" for c in line] for line in rows])
        for k, line in enumerate(rows):
            if "W" in line:
                wheel = (k, line.index("W"))
    steps = [LockItStep(held.copy(), np.zeros_like(held), wheel, "start")]
    for spin in range(1, src.spins + 1):
        if held.all():
            break
        reel_set = src.reels if wheel is None or src.after_mark is None else src.after_mark
        new = np.zeros_like(held)
        for r, strip in enumerate(game.strips(reel_set)):
            s = rng.integers(len(strip))
            for k in range(H):
                sym = strip.symbols[(s + k) % len(strip)]
                if sym in pig and not held[k, r]:
                    held[k, r] = new[k, r] = True
                    if sym == lk.mark and wheel is None:
                        wheel = (k, r)
        steps.append(LockItStep(held.copy(), new, wheel, f"spin {spin}: +{int(new.sum())} ({reel_set})"))
    mask = sum(1 << (r * H + k) for r in range(R) for k in range(H) if held[k, r])
    placed = []
    total = Fraction(0)
    awards = lk.awards.table(src.awards, level)
    for s, top, left in shp.pack(mask, H, R, lk.shapes, lk.order):
        options = awards[s]
        a = options[draw_index(rng, [o.weight for o in options])]
        total += a.value
        placed.append((lk.shape_names[s], top, left, a.label if a.label in f.jackpots else f"{a.label}x"))
    caption = f"end: {len(placed)} shapes, {float(total):g}x"
    if wheel is not None and src.mark_award:
        o = wheel_mod.outcomes(f.wheel)
        label, value, _ = o[draw_index(rng, [float(p) for _, _, p in o])]
        caption += f" + wheel {label} ({float(value):g}x)"
    steps.append(LockItStep(held.copy(), np.zeros_like(held), wheel, caption, placed))
    return steps


def draw_index(rng, weights) -> int:
    w = np.asarray(weights, dtype=float)
    return int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))


def draw_lockit(game: Game, steps, ncols: int = 4):
    """Draw :func:`play_lockit` steps as panels (new landings outlined; the last
    panel marks each cell with its shape and award)."""
    from slotmath.pictures.frames import Frame, draw_frames

    frames = []
    for st in steps:
        window = np.full((game.reels, game.rows), "BLANK", dtype=object)
        window[st.held.T] = "PIGGY"
        if st.wheel is not None:
            window[st.wheel[1], st.wheel[0]] = "PIGGY_WHEEL"
        marks = None
        if st.shapes:
            marks = np.full((game.reels, game.rows), "", dtype=object)
            for i, (name, top, left, label) in enumerate(st.shapes):
                a, b = (int(x) for x in name.split("x"))
                for r in range(left, left + b):
                    for k in range(top, top + a):
                        marks[r, k] = f"{chr(65 + i)}"
                marks[left, top] = f"{chr(65 + i)}:{label}"
        frames.append(Frame(window, st.caption, st.new.T if st.new.any() else None, marks))
    return draw_frames(game, frames, ncols=ncols, title="Piggy Bank Lock It")


def coverage(game: Game, source: str = BASE) -> np.ndarray:
    """P(cell held at the end) of a lock-it from ``source``, shape (rows, reels).

    ``source`` is ``"base_game"``, ``"free_games"`` or the selection source
    (``"selection"``: a selection lock-it of any BONUS count, each count
    weighted by its probability in a base spin)."""
    from slotmath.features.lockit import LockItResult

    st = structure(game)
    sel = st.features.selection
    if source != sel.lockit_source:
        final, _, _ = st.final((source, FREE if source == FREE else BASE, None, None))
        return LockItResult(final, 0.0, game.rows, game.reels).coverage
    by_bonus = st.base_screens.sum(axis=(0, 1))
    out, total = np.zeros((game.rows, game.reels)), 0
    for b, n in enumerate(by_bonus):
        opt = sel.option(b)
        if opt is None or n == 0:
            continue
        final, _, _ = st.final((source, BASE, b, opt.lockit_spins))
        out += int(n) * LockItResult(final, 0.0, game.rows, game.reels).coverage
        total += int(n)
    return out / total


def coverage_frame(grid: np.ndarray) -> pd.DataFrame:
    """A (rows, reels) grid as a numeric table: one row per window row (top
    first), columns ``reel 1`` to ``reel R`` (a heat map in the PAR sheet)."""
    frame = pd.DataFrame(
        np.asarray(grid, dtype=float), columns=[f"reel {j + 1}" for j in range(grid.shape[1])]
    )
    frame.attrs["heatmap"] = True
    return frame


def wheel_table(game: Game) -> pd.DataFrame:
    """The Superlock wheel, the before-wheel jackpot first: segment, prize
    [x total bet or jackpot name], weight, probability and expected value
    contribution [x total bet] (the last column sums to the wheel's mean)."""
    w = features_of(game).wheel
    frame = wheel_mod.table(w)
    jackpots = features_of(game).jackpots
    prize = [
        o if o in jackpots or o == w.pre_name else f"{v:g}x"
        for o, v in zip(frame["outcome"], frame["value"], strict=True)
    ]
    weight = [None if pd.isna(x) else int(x) for x in frame["weight"]]
    return pd.DataFrame(
        {
            "segment": frame["outcome"],
            "prize": prize,
            "value [x total bet]": frame["value"],
            "weight": pd.Series(weight, dtype=object),
            "probability": frame["probability"],
            "expected value [x total bet]": frame["rtp_share"],
        }
    )


def free_games_frame(game: Game, level: int) -> pd.DataFrame:
    """Free games by selection BONUS count: prize, games awarded, multiplier,
    expected games played, expected win per free game and per feature [x total
    bet, multiplier included] and the retrigger chances.

    A free game wins ``m (lines + BONUS prizes + lock-it)`` and retriggers
    with probability ``q`` = P(3+ BONUS); a feature of ``n`` games has at
    least one retrigger with probability ``1 - (1 - q)^n`` (the first
    retrigger must come in the first ``n`` games) and plays ``n / (1 - E[K])``
    games on average, ``K`` the games a free game adds."""
    st = structure(game)
    d = fg_per_spin(st, level)
    fgs, sel = st.features.free_games, st.features.selection
    mult = float(fgs.multiplier)
    per_game = mult * per_free_spin(d)
    ek = float(d["ek"])
    q = float(sum(p for b, p in enumerate(d["p_b"]) if fgs.retrigger_games(b) > 0))
    rows = []
    for b in sorted(sel.options):
        n = sel.options[b].free_games
        rows.append(
            {
                "BONUS": b,
                "prize [x total bet]": float(sel.options[b].prize),
                "games awarded": n,
                "multiplier": mult,
                "games played (mean)": n / (1 - ek),
                "win per free game [x total bet]": per_game,
                "win per feature [x total bet]": n / (1 - ek) * per_game,
                "retrigger probability per game": q,
                "P(at least one retrigger)": 1 - (1 - q) ** n,
            }
        )
    return pd.DataFrame(rows)


def shapes_table(b: Breakdown) -> pd.DataFrame:
    """Lock-it shape frequencies by source: mean count per feature, per round
    and 1 in N rounds, mean award and RTP contribution [x total bet]."""
    t = b.shapes
    return pd.DataFrame(
        {
            "source": t["source"],
            "shape": t["shape"],
            "per feature": t["per_feature"],
            "per round": t["count"],
            "1 in [rounds]": [float(1 / c) if c > 0 else None for c in t["count"]],
            "mean award [x total bet]": t["mean_award"],
            "rtp": t["rtp"],
            "policies": t["policies"],
        }
    )


def award_table(game: Game, table: str = "trigger") -> pd.DataFrame:
    """Mean award and jackpot chance per shape and bet [x total bet]."""
    f = features_of(game)
    rows = []
    for lv in game.levels:
        m1, _ = f.lockit.awards.moments(table, lv)
        for s, (name, awards) in enumerate(
            zip(f.lockit.shape_names, f.lockit.awards.table(table, lv), strict=True)
        ):
            total = sum(a.weight for a in awards)
            row = {"bet": lv, "shape": name, "mean": float(m1[s])}
            for j in JACKPOT_ORDER:
                row[j] = sum(a.weight for a in awards if a.label == j) / total
            rows.append(row)
    return pd.DataFrame(rows)


def free_game_summary(game: Game, level: int) -> pd.DataFrame:
    """One free spin's expected win by channel [x total bet, before the x2],
    the lock-it and retrigger chances, and the value of each award."""
    st = structure(game)
    d = fg_per_spin(st, level)
    fgs = st.features.free_games
    rows = [
        ("lines per spin", float(d["lines"])),
        ("BONUS prizes per spin", float(d["prize"])),
        ("lock-it per spin", float(d["lockit"])),
        ("P(lock-it) per spin", float(d["p_lockit"])),
        ("E[extra games] per spin", float(d["ek"])),
    ]
    one = per_awarded_game(d)
    for n in sorted(fgs.awards):
        g = fgs.games(n)
        rows.append((f"{g} games (x{fgs.multiplier}) incl. retriggers", float(fgs.multiplier) * g * one))
    return pd.DataFrame(rows, columns=["figure", "value"])
