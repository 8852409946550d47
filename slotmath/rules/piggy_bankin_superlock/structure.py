"""Piggy Bankin' Superlock: the game's compiled structure (bet independent) and
the award tables per bet."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numba as nb
import numpy as np

from slotmath.engine.cache import all_sets, game_cache, no_sets
from slotmath.features import wheel as wheel_mod
from slotmath.features.expanding import nudged_game
from slotmath.features.options import Features, load_features, lockit_chain, shape_counts
from slotmath.model import Game
from slotmath.rules.piggy_bankin_superlock.cache import feature_sets, this_set
from slotmath.rules.piggy_bankin_superlock.check import BASE, BASE_REELS, FREE


# ===========================================================================
# the game's compiled structure (bet independent)
# ===========================================================================
def symbol_set(game, names):
    idx = np.zeros(len(game.symbols), dtype=bool)
    for n in names:
        idx[game.symbol_index[n]] = True
    return idx


@dataclass(frozen=True, eq=False)
class ReelData:
    """Per reel and stop of one reel set: window symbols, PIGGY pattern, WHEEL
    flag and BONUS count, padded to (R, Nmax, ...)."""

    sym: np.ndarray  # (R, Nmax, H) symbol indices
    weight: np.ndarray  # (R, Nmax) stop weights (0 = padding)
    n_stops: np.ndarray  # (R,)
    pattern: np.ndarray  # (R, Nmax) held-symbol rows, bit k = row k
    mark: np.ndarray  # (R, Nmax) 1 if a WHEEL shows
    bonus: np.ndarray  # (R, Nmax) BONUS symbols in the window


def reel_data(game: Game, reel_set: str) -> ReelData:
    from slotmath.engine.joint import pack_reels

    f = features_of(game)
    win, weights, n_stops = pack_reels(game, reel_set)
    held = symbol_set(game, f.lockit.symbols)
    mark = symbol_set(game, [f.lockit.mark] if f.lockit.mark else [])
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
    return reel_set_screen_counts(game, reel_set)


@nb.njit(cache=True)
def joint_screen_counts(pattern, mark, bonus, weight, n_stops, H):
    """Joint weighted counts [flag, mask, BONUS] of independent reels; reel r's
    pattern fills mask bits ``H r .. H r + H - 1``."""
    R = pattern.shape[0]
    B = R * H + 1
    acc = np.zeros((2, 1, B), dtype=np.int64)
    acc[0, 0, 0] = 1
    for r in range(R):
        size = acc.shape[1]
        new = np.zeros((2, size << H, B), dtype=np.int64)
        for p, mk, bb, w in reel_classes(pattern, mark, bonus, weight, n_stops[r], r, H):
            hi = p * size
            for f in range(2):
                for m in range(size):
                    for b in range(B - bb):
                        v = acc[f, m, b]
                        if v != 0:
                            new[f | mk, hi + m, b + bb] += v * w
        acc = new
    return acc


@nb.njit(cache=True)
def reel_classes(pattern, mark, bonus, weight, n_stops, r, H):
    """Reel ``r``'s stops by (PIGGY pattern, WHEEL flag, BONUS count): rows
    ``(pattern, flag, bonus, weight)`` of the classes it shows."""
    c = np.zeros((1 << H, 2, H + 1), dtype=np.int64)
    for s in range(n_stops):
        c[pattern[r, s], mark[r, s], bonus[r, s]] += weight[r, s]
    out = []
    for p in range(1 << H):
        for mk in range(2):
            for bb in range(H + 1):
                if c[p, mk, bb]:
                    out.append((p, mk, bb, c[p, mk, bb]))
    return out


@game_cache(this_set, maxsize=16)
def reel_set_screen_counts(game, reel_set):
    d = reel_data(game, reel_set)
    return joint_screen_counts(d.pattern, d.mark, d.bonus, d.weight, d.n_stops, game.rows)


def popcount15(n_cells: int = 15) -> np.ndarray:
    """Held cells of every mask of ``n_cells`` cells (:mod:`slotmath.features.landing`)."""
    from slotmath.features.landing import popcount

    return popcount(n_cells)


@dataclass(frozen=True, eq=False)
class ScreenTotals:
    """Sums of the screen counts [flag, mask, BONUS] of one spin: ``by_bonus``
    over flag and mask, ``by_state`` [flag, mask] over BONUS, ``starts`` the
    stop combinations that start a feature (lock-it trigger or selection)."""

    by_bonus: np.ndarray
    by_state: np.ndarray
    starts: int


@nb.njit(cache=True)
def screen_totals(screens, pigs, min_bonus):
    """(by BONUS, by (flag, mask), feature starts) of screen counts [flag, mask,
    BONUS]; ``pigs[mask]`` True where the mask triggers the lock-it."""
    F, M, B = screens.shape
    by_b = np.zeros(B, dtype=np.int64)
    by_state = np.zeros((F, M), dtype=np.int64)
    starts = 0
    for fl in range(F):
        for m in range(M):
            total = 0
            for b in range(B):
                c = screens[fl, m, b]
                total += c
                by_b[b] += c
                if pigs[m] or b >= min_bonus:
                    starts += c
            by_state[fl, m] = total
    return by_b, by_state, starts


@nb.njit(cache=True)
def weighted_total(counts, values):
    """sum(counts * values) of two arrays of one shape, without a temporary."""
    c, v = counts.ravel(), values.ravel()
    total = 0.0
    for i in range(c.shape[0]):
        if c[i]:
            total += c[i] * v[i]
    return total


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
    def base_totals(self) -> ScreenTotals:
        """Sums of :attr:`base_screens` (one pass)."""
        f = self.features
        by_b, by_state, starts = screen_totals(
            self.base_screens, self.pc >= f.lockit.trigger, f.selection.min_count
        )
        return ScreenTotals(by_b, by_state, int(starts))

    @cached_property
    def fg_screens(self) -> np.ndarray:
        return screen_counts(self.fg_game, self.features.free_games.reels)

    @cached_property
    def pc(self) -> np.ndarray:
        return popcount15(self.game.reels * self.game.rows)

    @cached_property
    def shape_counts(self) -> np.ndarray:
        return lockit_shape_counts(self.game)

    # -- lock-it chains --------------------------------------------------------
    def chain(self, source: str, spins: int | None = None):
        return game_lockit_chain(self.game, source, spins)

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
        return final_law(self.game, key)


@game_cache(all_sets, maxsize=8)
def structure(game: Game) -> Structure:
    return Structure(game, features_of(game))


@game_cache(no_sets, maxsize=16)
def features_of(game: Game) -> Features:
    """:func:`slotmath.features.options.load_features`, shared by games with the same rules."""
    return load_features(game)


@game_cache(no_sets)
def lockit_shape_counts(game):
    return shape_counts(game, features_of(game).lockit)


@game_cache(feature_sets)
def game_lockit_chain(game, source, spins):
    return lockit_chain(game, features_of(game).lockit, source, spins)


def final_sets(game, key) -> tuple:
    """A lock-it start read from base-game screens reads the base reels too."""
    return feature_sets(game) + ((BASE_REELS,) if key[1] == BASE else ())


@game_cache(final_sets, maxsize=64)
def final_law(game, key):

    st = structure(game)
    source, screens, bonus, spins = key
    scr = st.base_screens if screens == BASE else st.fg_screens
    start = st.start(scr, bonus, pigs=bonus is None).astype(float)
    p = start.sum()
    if p == 0:
        return None, 0.0, 0.0
    res = st.chain(source, spins).run(start / p)
    mark_paid = features_of(game).lockit.sources[source].mark_award
    final = res.final if mark_paid else np.stack([res.final.sum(axis=0), 0 * res.final[0]])
    return final, p, res.spins_mean


# ===========================================================================
# award tables per bet
# ===========================================================================
@dataclass(frozen=True, eq=False)
class Prizes:
    """Per-state mean prize [x total bet] of one award table at one bet."""

    mean: np.ndarray  # per shape
    second: np.ndarray
    wheel_mean: float
    wheel_second: float
    labels: dict  # jackpot label -> per-shape probability array

    def f(self, counts) -> np.ndarray:
        """E[prize | final (flag, mask)], shape (2, masks)."""
        shapes = counts @ self.mean
        return np.stack([shapes, shapes + self.wheel_mean])


def prizes(game: Game, table: str, level: int) -> Prizes:
    return prize_moments(game, table, level)


@game_cache(no_sets, maxsize=256)
def prize_moments(game, table, level):
    f = features_of(game)
    m1, m2 = f.lockit.awards.moments(table, level)
    wm, w2 = wheel_mod.moments(f.wheel)
    labels = {}
    for s, awards in enumerate(f.lockit.awards.table(table, level)):
        total = sum(a.weight for a in awards)
        for a in awards:
            if a.label in f.jackpots:
                labels.setdefault(a.label, np.zeros(len(f.lockit.shapes)))
                labels[a.label][s] += a.weight / total
    return Prizes(
        np.array([float(x) for x in m1]), np.array([float(x) for x in m2]), float(wm), float(w2), labels
    )
