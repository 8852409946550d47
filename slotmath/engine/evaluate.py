"""Reference window evaluator, written straight from the rules.

This is deliberately a second, independent implementation of the line and
scatter rules: it reads the :class:`~slotmath.model.Game` directly (no
compiled pay tensor) and evaluates whole batches of windows with numpy.
The Monte Carlo simulator and the brute-force tests use it to cross-check
the exact engine.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.model import Game


def line_symbols(game: Game, windows: np.ndarray) -> np.ndarray:
    """Symbols along every payline: (n, R, H) windows -> (n, L, R)."""
    lines = np.array(game.paylines)
    reels = np.arange(game.reels)
    return windows[:, reels[None, :], lines]


def line_wins(game: Game, level: int, windows: np.ndarray) -> np.ndarray:
    """Coin win of every payline of every window, shape (n, L) [coins].

    For each pay-table entry the line either matches (naturals, or wilds
    that substitute for an allowed symbol) or not; wild multipliers are
    applied per wild kind (the summed kinds' added together); the line pays
    the highest candidate.
    """
    li = game.level_index(level)
    idx = game.symbol_index
    x = line_symbols(game, windows)
    best = np.zeros(x.shape[:2], dtype=np.int64)
    wilds = [s for s in game.symbols if s.wild]
    for lp in game.line_pays:
        pay = lp.pays[li]
        if pay <= 0:
            continue
        if lp.anywhere is not None:
            hit = (x == idx[lp.anywhere]).sum(axis=2) == lp.exactly
            best = np.maximum(best, np.where(hit, pay, 0))
            continue
        ok = np.ones(x.shape[:2], dtype=bool)
        mult = np.ones(x.shape[:2], dtype=np.int64)
        wild_count = {w.name: np.zeros(x.shape[:2], dtype=np.int64) for w in wilds}
        for i, allowed in enumerate(lp.positions):
            col = x[:, :, i]
            natural = np.isin(col, [idx[a] for a in allowed])
            matched = natural.copy()
            for w in wilds:
                is_w = col == idx[w.name]
                if lp.wild_own and w.wild.multiply_own_pays and w.name in allowed:
                    wild_count[w.name] += is_w
                if w.name not in allowed and allowed & w.wild.substitutes:
                    matched |= is_w
                    wild_count[w.name] += is_w
            ok &= matched
        added = np.zeros(x.shape[:2], dtype=np.int64)
        for w in wilds:
            factor, summand = np.array([w.wild.factors(c) for c in range(game.reels + 1)]).T
            mult *= factor[wild_count[w.name]]
            added += summand[wild_count[w.name]]
        mult = np.where(added > 0, mult * added, mult)
        best = np.maximum(best, np.where(ok, pay * mult, 0))
    return best


def scatter_wins(game: Game, level: int, windows: np.ndarray) -> np.ndarray:
    """Scatter win of every window [x total bet], as float."""
    out = np.zeros(windows.shape[0])
    for sym in scatter_symbols(game):
        n = (windows == game.symbol_index[sym]).sum(axis=(1, 2))
        table = np.array([float(scatter_pay(game, sym, c)) for c in range(windows[0].size + 1)])
        out += table[n]
    return out


def total_wins(game: Game, level: int, windows: np.ndarray) -> np.ndarray:
    """Total win of every window [x total bet]."""
    bet = game.bet(level)
    return line_wins(game, level, windows).sum(axis=1) / bet.total_bet + scatter_wins(game, level, windows)


def window_at(game: Game, stops, reel_set: str = "base") -> np.ndarray:
    """The (R, H) window of symbol indices shown at ``stops``."""
    idx = game.symbol_index
    out = np.zeros((game.reels, game.rows), dtype=np.int64)
    for r, (strip, s) in enumerate(zip(game.strips(reel_set), stops, strict=True)):
        for k in range(game.rows):
            out[r, k] = idx[strip.symbols[(s + k) % len(strip)]]
    return out


def brute_force_distribution(game: Game, level: int, reel_set: str = "base") -> dict:
    """Every stop combination evaluated: {total win [x total bet] as Fraction: weight}.

    Only for small games (the full cycle is enumerated).
    """
    from itertools import product

    bet = game.bet(level)
    strips = game.strips(reel_set)
    combos = list(product(*[range(len(s)) for s in strips]))
    windows = np.array([window_at(game, c, reel_set) for c in combos])
    lw = line_wins(game, level, windows).sum(axis=1)
    out: dict = {}
    for c, coins, w in zip(combos, lw, windows, strict=True):
        weight = 1
        for strip, s in zip(strips, c, strict=True):
            weight *= strip.stop_weights()[s]
        win = Fraction(int(coins), bet.total_bet)
        for sym in scatter_symbols(game):
            win += scatter_pay(game, sym, int((w == game.symbol_index[sym]).sum()))
        out[win] = out.get(win, 0) + int(weight)
    return out
