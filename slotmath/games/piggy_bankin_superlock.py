"""Piggy Bankin' Superlock: 5x3, 20 lines, lock-it feature, free games, wheel.

The numbered rules are in ``docs/games/piggy_bankin_superlock.md``; this
module implements them from the features the game file declares
(:mod:`slotmath.features`): lock-it chains (:mod:`slotmath.lockit`) with
shape packing (:mod:`slotmath.shapes`), free games with retriggers
(:mod:`slotmath.freegames`) and the Superlock wheel (:mod:`slotmath.wheel`).

Units
-----
Line pays are linear in the bet multiplier, so a line win is a whole number
of *line-bet units* ``u`` = 1/20 of the total bet, the same at every bet.
Feature awards are whole multiples of the total bet (= 20 u).  Round
distributions are built on the ``u`` grid.

Structure of a round (rule numbers refer to the rules document)
--------------------------------------------------------------
base spin -> line wins + (6+ PIGGY: lock-it from the base game)
          + (3+ BONUS: selection prize + chosen feature (lock-it or free games)).
Every quantity that depends on the screen depends on it through
``(line win, PIGGY mask, WHEEL flag, BONUS count)``; the exact RTP uses the
per-reel factorisation of ``(mask, flag, count)`` (integer stop counts) and
linearity; the distribution conditions on the line win by enumerating every
stop combination that starts a feature.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import numba as nb
import numpy as np
import pandas as pd
from numba import types
from numba.typed import Dict

from ..combinations import combination_table, line_rtp
from ..distribution import WinDistribution
from ..features import Features, feature_landing, load_features, lockit_chain, nudged_game, \
    shape_counts
from ..gamefile import GameFileError
from ..joint import spin_distribution
from ..lines import pay_tensor
from ..model import Game
from ..par import ParResult, fraction_str
from .. import wheel as wheel_mod

LINES = 20
POLICIES = ("lockit", "free_games")
BASE, FREE, SELECT = "base_game", "free_games", "selection"
BASE_REELS = "base"


# ===========================================================================
# checks
# ===========================================================================
def check(game: Game) -> None:
    """Rule-specific checks of the game file (GameFileError naming the field)."""
    def fail(where, problem):
        raise GameFileError(game.source, where, problem)

    if len(game.paylines) != LINES:
        fail("paylines", f"the rules need {LINES} paylines, got {len(game.paylines)}")
    if game.rows != 3 or game.reels != 5:
        fail("grid", "the rules need 5 reels x 3 rows")
    f = load_features(game)
    for name in ("lockit", "free_games", "selection", "wheel"):
        if getattr(f, name) is None:
            fail(f"options.{name}", "is required by the piggy_bankin_superlock rules")
    for src in (BASE, FREE, f.selection.lockit_source):
        if src not in f.lockit.sources:
            fail(f"options.lockit.sources.{src}", "is required")
    if f.selection.symbol != f.free_games.symbol:
        fail("options.selection.symbol", "must be the free-games scatter symbol")
    for name in ("WILD", "WILD_3"):
        if name not in game.symbol_index:
            fail("symbols", f"symbol {name} is required")
    # WILD and WILD_3 only on reels 2-5 (rules 1.3, 1.4), in every reel set with lines
    for set_name in (BASE_REELS, f.free_games.reels):
        first = game.strips(set_name)[0].symbols
        for k, s in enumerate(first):
            if s in ("WILD", "WILD_3"):
                fail(f"reels.{set_name}[0][{k}]", f"{s} may only appear on reels 2-5")


# ===========================================================================
# the game's compiled structure (bet independent)
# ===========================================================================
def _symbol_set(game, names):
    idx = np.zeros(len(game.symbols), dtype=bool)
    for n in names:
        idx[game.symbol_index[n]] = True
    return idx


@dataclass(frozen=True, eq=False)
class ReelData:
    """Per reel and stop of one reel set: window symbols, PIGGY pattern, WHEEL
    flag and BONUS count, padded to (R, Nmax, ...)."""

    sym: np.ndarray        # (R, Nmax, H) symbol indices
    weight: np.ndarray     # (R, Nmax) stop weights (0 = padding)
    n_stops: np.ndarray    # (R,)
    pattern: np.ndarray    # (R, Nmax) held-symbol rows, bit k = row k
    mark: np.ndarray       # (R, Nmax) 1 if a WHEEL shows
    bonus: np.ndarray      # (R, Nmax) BONUS symbols in the window


def reel_data(game: Game, reel_set: str) -> ReelData:
    from ..joint import pack_reels

    f = load_features(game)
    win, weights, n_stops = pack_reels(game, reel_set)
    held = _symbol_set(game, f.lockit.symbols)
    mark = _symbol_set(game, [f.lockit.mark] if f.lockit.mark else [])
    bits = 1 << np.arange(game.rows)
    pattern = (held[win] * bits).sum(axis=2)
    marks = mark[win].any(axis=2).astype(np.int64)
    bonus = (win == game.symbol_index[f.free_games.symbol]).sum(axis=2)
    pattern[weights == 0] = 0
    return ReelData(win, weights, n_stops, pattern.astype(np.int64), marks, bonus.astype(np.int64))


def screen_counts(game: Game, reel_set: str) -> np.ndarray:
    """Exact joint stop counts of (WHEEL flag, PIGGY mask, BONUS count) of one spin.

    Returns
    -------
    ndarray of int64, shape (2, 2**15, 16)
        ``[flag, mask, bonus]`` = stop combinations (weighted) showing it.
    """
    return _screen_counts(game, reel_set)


@lru_cache(maxsize=16)
def _screen_counts(game, reel_set):
    d = reel_data(game, reel_set)
    R, H = game.reels, game.rows
    P = 1 << H
    B = R * H + 1
    acc = np.zeros((1, 2, B), dtype=np.int64)   # [mask so far, flag, bonus]
    acc[0, 0, 0] = 1
    for r in range(R):
        c = np.zeros((P, 2, H + 1), dtype=np.int64)
        n = d.n_stops[r]
        np.add.at(c, (d.pattern[r, :n], d.mark[r, :n], d.bonus[r, :n]), d.weight[r, :n])
        new = np.zeros((P, acc.shape[0], 2, B), dtype=np.int64)
        for m in range(2):
            for bb in range(H + 1):
                col = c[:, m, bb]
                if not col.any():
                    continue
                for f in range(2):
                    src = acc[:, f, :B - bb]
                    new[:, :, f | m, bb:] += col[:, None, None] * src[None, :, :]
        acc = new.reshape(P * acc.shape[0], 2, B)      # new mask = pattern << 3r | old
    return np.ascontiguousarray(acc.transpose(1, 0, 2))


def popcount15(n_cells: int = 15) -> np.ndarray:
    pc = np.zeros(1 << n_cells, dtype=np.int64)
    for b in range(n_cells):
        pc[1 << b:2 << b] = pc[:1 << b] + 1
    return pc


@dataclass(frozen=True, eq=False)
class Structure:
    """Bet-independent parts of the exact analysis (cached per game)."""

    game: Game
    features: Features

    # -- base and free-game screens -------------------------------------------
    @cached_property
    def fg_game(self) -> Game:
        """The game with the free-game reels replaced by their WILD_3-expanded windows."""
        fg = self.features.free_games
        return nudged_game(self.game, fg.reels, fg.nudge)

    @cached_property
    def base_screens(self) -> np.ndarray:
        return screen_counts(self.game, BASE_REELS)

    @cached_property
    def fg_screens(self) -> np.ndarray:
        return screen_counts(self.fg_game, self.features.free_games.reels)

    @cached_property
    def pc(self) -> np.ndarray:
        return popcount15(self.game.reels * self.game.rows)

    @cached_property
    def shape_counts(self) -> np.ndarray:
        return shape_counts(self.game, self.features.lockit)

    # -- lock-it chains --------------------------------------------------------
    def chain(self, source: str, spins: int | None = None):
        return _chain(self.game, source, spins)

    def start(self, screens: np.ndarray, bonus: int | None = None, pigs: bool = False):
        """Stop counts of start states (flag, mask): screens with ``bonus`` BONUS
        (None: any) restricted to the lock-it trigger when ``pigs``."""
        s = screens[:, :, bonus] if bonus is not None else screens.sum(axis=2)
        if pigs:
            s = s * (self.pc >= self.features.lockit.trigger)[None, :]
        return s

    @cached_property
    def cycles(self) -> dict:
        return {BASE: self.game.cycle(BASE_REELS), FREE: self.fg_game.cycle(self.features.free_games.reels)}

    def final(self, key: tuple) -> tuple:
        """Final (flag, mask) distribution and spins of a lock-it start (cached):
        ``key = (source, screens, bonus, spins)``, conditional on the start."""
        return _final(self.game, key)


@lru_cache(maxsize=8)
def structure(game: Game) -> Structure:
    return Structure(game, load_features(game))


@lru_cache(maxsize=32)
def _chain(game, source, spins):
    return lockit_chain(game, load_features(game).lockit, source, spins)


@lru_cache(maxsize=64)
def _final(game, key):
    st = structure(game)
    source, screens, bonus, spins = key
    scr = st.base_screens if screens == BASE else st.fg_screens
    start = st.start(scr, bonus, pigs=bonus is None).astype(float)
    p = start.sum()
    if p == 0:
        return None, 0.0, 0.0
    res = st.chain(source, spins).run(start / p)
    mark_paid = load_features(game).lockit.sources[source].mark_award
    final = res.final if mark_paid else np.stack([res.final.sum(axis=0), 0 * res.final[0]])
    return final, p, res.spins_mean


# ===========================================================================
# award tables per bet
# ===========================================================================
@dataclass(frozen=True, eq=False)
class Prizes:
    """Per-state mean prize [x total bet] of one award table at one bet."""

    mean: np.ndarray            # per shape
    second: np.ndarray
    wheel_mean: float
    wheel_second: float
    labels: dict                # jackpot label -> per-shape probability array

    def f(self, counts) -> np.ndarray:
        """E[prize | final (flag, mask)], shape (2, masks)."""
        shapes = counts @ self.mean
        return np.stack([shapes, shapes + self.wheel_mean])


def prizes(game: Game, table: str, level: int) -> Prizes:
    return _prizes(game, table, level)


@lru_cache(maxsize=256)
def _prizes(game, table, level):
    f = load_features(game)
    m1, m2 = f.lockit.awards.moments(table, level)
    wm, w2 = wheel_mod.moments(f.wheel)
    labels = {}
    for s, awards in enumerate(f.lockit.awards.table(table, level)):
        total = sum(a.weight for a in awards)
        for a in awards:
            if a.label in f.jackpots:
                labels.setdefault(a.label, np.zeros(len(f.lockit.shapes)))
                labels[a.label][s] += a.weight / total
    return Prizes(np.array([float(x) for x in m1]), np.array([float(x) for x in m2]),
                  float(wm), float(w2), labels)


# ===========================================================================
# exact RTP
# ===========================================================================
@dataclass
class Breakdown:
    """RTP by channel under each selection policy, plus feature odds."""

    components: dict            # policy -> {name: value [x total bet]}
    rtp: dict                   # policy -> RTP
    odds: dict                  # name -> probability or expected count per round
    values: dict                # name -> expected value of a feature [x total bet]
    shapes: pd.DataFrame        # per source and shape: expected count and RTP


def _fg_per_spin(st: Structure, level: int) -> dict:
    """Per free spin (before the x multiplier): mean line win, prize and lock-it,
    and the retrigger statistics."""
    g, fgs = st.game, st.features.free_games
    lines, _ = line_rtp(st.fg_game, level, fgs.reels)
    cyc = st.cycles[FREE]
    by_bonus = st.fg_screens.sum(axis=(0, 1))
    p_b = [Fraction(int(c), cyc) for c in by_bonus]
    prize = sum((p * fgs.prize(b) for b, p in enumerate(p_b)), Fraction(0))
    games = np.array([fgs.games(b) if fgs.retrigger else 0 for b in range(len(p_b))])
    ek = sum(p * int(k) for p, k in zip(p_b, games))
    final, p_trig, _ = st.final((FREE, FREE, None, None))
    pz = prizes(g, st.features.lockit.sources[FREE].awards, level)
    lock = p_trig / cyc * float((final * pz.f(st.shape_counts)).sum()) if final is not None else 0.0
    shape_n = (final.sum(axis=0) @ st.shape_counts) * p_trig / cyc if final is not None \
        else np.zeros(len(pz.mean))
    return {"lines": lines, "prize": prize, "lockit": lock, "ek": ek, "p_b": p_b,
            "p_lockit": p_trig / cyc, "shape_n": shape_n, "final": final,
            "full": (final.sum(axis=0)[-1] * p_trig / cyc) if final is not None else 0.0}


def breakdown(game: Game, level: int) -> Breakdown:
    """Exact RTP components at bet ``level`` under both selection policies.

    Line and selection-prize parts are Fractions; lock-it, wheel and free-game
    parts are float64 (relative error below 1e-12: sums of products of
    non-negative terms, see :mod:`slotmath.lockit`)."""
    st = structure(game)
    f = st.features
    lk, sel, fgs = f.lockit, f.selection, f.free_games
    cyc = st.cycles[BASE]
    comps = {p: {} for p in POLICIES}
    base_lines, _ = line_rtp(game, level, BASE_REELS)
    by_bonus = st.base_screens.sum(axis=(0, 1))
    p_b = [Fraction(int(c), cyc) for c in by_bonus]
    sel_prize = sum((p * sel.option(b).prize for b, p in enumerate(p_b) if sel.option(b)),
                    Fraction(0))
    wm = wheel_mod.outcomes(f.wheel)
    pre = float(f.wheel.pre_prize * f.wheel.pre_probability)
    wheel_mean = float(wheel_mod.moments(f.wheel)[0])
    rows, odds, values = [], {}, {}
    counts = st.shape_counts

    def lockit_part(final, weight, table, source_label, policy_list):
        """Add shape and wheel components of a lock-it with conditional final
        distribution ``final`` occurring ``weight`` times per round."""
        pz = prizes(game, table, level)
        n = final.sum(axis=0) @ counts * weight
        flag = final[1].sum() * weight
        for pol in policy_list:
            c = comps[pol]
            for s, name in enumerate(lk.shape_names):
                key = f"lock-it {source_label}: {name}"
                c[key] = c.get(key, 0.0) + n[s] * pz.mean[s]
            c["wheel"] = c.get("wheel", 0.0) + flag * (wheel_mean - pre)
            c["Superlock jackpot"] = c.get("Superlock jackpot", 0.0) + flag * pre
        for s, name in enumerate(lk.shape_names):
            rows.append({"source": source_label, "shape": name, "count": n[s],
                         "mean_award": pz.mean[s], "rtp": n[s] * pz.mean[s],
                         "policies": ",".join(policy_list)})
        jack = {}
        for label, per_shape in pz.labels.items():
            jack[label] = float(n @ per_shape)
        return n, flag, jack

    for pol in POLICIES:
        comps[pol]["base lines"] = base_lines
        comps[pol]["selection prizes"] = sel_prize

    # lock-it from the base game (rule 5.1)
    final, p_trig, spins = st.final((BASE, BASE, None, None))
    w_base = p_trig / cyc
    n_base, flag_base, jack_base = lockit_part(final, w_base, lk.sources[BASE].awards,
                                               "base game", list(POLICIES))
    odds["lockit base game"] = w_base
    full = {"base game": final.sum(axis=0)[-1] * w_base}
    flags = {pol: flag_base for pol in POLICIES}
    jackpots = {pol: dict(jack_base) for pol in POLICIES}

    # selection (rule 4): policy lock-it
    p_sel = 0.0
    fg_stats = _fg_per_spin(st, level)
    mult = float(fgs.multiplier)
    one_fg = (float(fg_stats["lines"]) + float(fg_stats["prize"]) + fg_stats["lockit"]) \
        / (1 - float(fg_stats["ek"]))              # per awarded game, incl. retriggers
    fg_count = 0.0
    for b in range(len(p_b)):
        opt = sel.option(b)
        if opt is None or p_b[b] == 0:
            continue
        pb = float(p_b[b])
        p_sel += pb
        final_s, p_s, _ = st.final((sel.lockit_source, BASE, b, opt.lockit_spins))
        n, flag, jack = lockit_part(final_s, pb, opt.lockit_awards, f"selection {b}", ["lockit"])
        flags["lockit"] += flag
        for k, v in jack.items():
            jackpots["lockit"][k] = jackpots["lockit"].get(k, 0.0) + v
        full[f"selection {b}"] = final_s.sum(axis=0)[-1] * pb
        pz = prizes(game, opt.lockit_awards, level)
        values[f"lockit selection {b}"] = float((final_s * pz.f(counts)).sum())
        # free games: mean played games and value
        games = opt.free_games / (1 - float(fg_stats["ek"]))
        values[f"free games selection {b}"] = mult * opt.free_games * one_fg
        c = comps["free_games"]
        c["free games lines"] = c.get("free games lines", 0.0) + pb * mult * games * float(fg_stats["lines"])
        c["free games prizes"] = c.get("free games prizes", 0.0) + pb * mult * games * float(fg_stats["prize"])
        fg_count += pb * games
    # lock-it in free games: shapes by type, x multiplier
    pz_fg = prizes(game, lk.sources[FREE].awards, level)
    for s, name in enumerate(lk.shape_names):
        v = fg_count * mult * fg_stats["shape_n"][s] * pz_fg.mean[s]
        comps["free_games"][f"lock-it free games: {name}"] = v
        rows.append({"source": "free games", "shape": name,
                     "count": fg_count * fg_stats["shape_n"][s], "mean_award": pz_fg.mean[s] * mult,
                     "rtp": v, "policies": "free_games"})
    for label, per_shape in pz_fg.labels.items():
        jackpots["free_games"][label] = jackpots["free_games"].get(label, 0.0) + \
            fg_count * float(fg_stats["shape_n"] @ per_shape)
    full["free games"] = fg_count * fg_stats["full"]
    odds["selection"] = p_sel
    odds["free games (policy free_games)"] = p_sel
    odds["lockit in free games (policy free_games)"] = fg_count * fg_stats["p_lockit"]
    odds["lockit selection (policy lockit)"] = p_sel
    for pol in POLICIES:
        fs = full["base game"] + (full["free games"] if pol == "free_games" else
                                  sum(v for k, v in full.items() if k.startswith("selection")))
        odds[f"full screen (policy {pol})"] = fs
        odds[f"wheel (policy {pol})"] = flags[pol]
        odds[f"Superlock jackpot (policy {pol})"] = flags[pol] * float(f.wheel.pre_probability)
        wheel_j = {lab: float(p) for lab, _, p in wm if lab in f.jackpots}
        for lab in f.jackpots:
            odds[f"{lab} (policy {pol})"] = jackpots[pol].get(lab, 0.0) + \
                flags[pol] * wheel_j.get(lab, 0.0)
    values["lockit base game"] = float((final * prizes(game, lk.sources[BASE].awards, level)
                                        .f(counts)).sum())
    values["free game (one, incl. retriggers)"] = mult * one_fg
    rtp = {pol: sum(float(v) for v in comps[pol].values()) for pol in POLICIES}
    return Breakdown(comps, rtp, odds, values, pd.DataFrame(rows))
