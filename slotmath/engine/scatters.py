"""Scatter pays: wins by the number of scatter symbols anywhere in the window."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numpy as np

from slotmath.engine.reels import convolve_int, count_distribution, pack_reels, window_symbol_count
from slotmath.engine.topreel import has_top, mix_arrays, top_games
from slotmath.errors import ensure
from slotmath.model import Game


def scatter_symbols(game: Game) -> list:
    """Scatter symbols that have pays, in first-listed order."""
    out = []
    for sp in game.scatter_pays:
        if sp.symbol not in out:
            out.append(sp.symbol)
    return out


def scatter_pay(game: Game, symbol: str, count: int) -> Fraction:
    """Pay for ``count`` ``symbol`` in the window [x total bet]: the highest
    listed count not above ``count`` applies; 0 below the smallest."""
    best_count, best = 0, Fraction(0)
    for sp in game.scatter_pays:
        if sp.symbol == symbol and best_count < sp.count <= count:
            best_count, best = sp.count, sp.pay
    return best


def scatter_entry(game: Game, symbol: str, count: int) -> str | None:
    """Combination-table name of the scatter pay that ``count`` ``symbol``
    win ("3 x S"; the top listed count reads "5+ x S"), None when unpaid."""
    if not scatter_pay(game, symbol, count):
        return None
    entry = max(sp.count for sp in game.scatter_pays if sp.symbol == symbol and sp.count <= count)
    top = max(sp.count for sp in game.scatter_pays if sp.symbol == symbol)
    return f"{entry}{'+' if entry == top else ''} x {symbol}"


def win_denominator(game: Game, total_bet: int) -> int:
    """Smallest d such that every scatter win is a whole number of 1/d coins."""
    return lcm(1, *((sp.pay * total_bet).denominator for sp in game.scatter_pays))


@dataclass(frozen=True)
class ScatterCounts:
    """Per-reel scatter counts for the joint engine.

    ``codes[r][s]``: mixed-radix code of the scatter counts in the window of
    stop ``s`` of reel ``r`` (digit j counts ``symbols[j]``); codes add
    without carry.  ``pay_units[code]``: total scatter win [win units].
    """

    symbols: tuple
    codes: list
    radix: tuple
    pay_units: np.ndarray


def scatter_counts(game: Game, reel_set: str, total_bet: int, unit_den: int) -> ScatterCounts:
    """Scatter codes per stop and the win of every code [1/unit_den coins]."""
    syms = scatter_symbols(game)
    strips = game.strips(reel_set)
    max_n = [game.reels * game.rows] * len(syms)
    radix = tuple(m + 1 for m in max_n)
    place = np.cumprod((1,) + radix[:-1]).astype(np.int64) if syms else np.zeros(0, np.int64)
    codes = []
    for strip in strips:
        c = np.zeros(len(strip), dtype=np.int64)
        for j, sym in enumerate(syms):
            c += window_symbol_count(game, strip, sym) * place[j]
        codes.append(c)
    size = int(np.prod(radix)) if syms else 1
    pay_units = np.zeros(size, dtype=np.int64)
    for code in range(size):
        rem, total = code, Fraction(0)
        for j, sym in enumerate(syms):
            total += scatter_pay(game, sym, rem % radix[j])
            rem //= radix[j]
        units = total * total_bet * unit_den
        ensure(units.denominator == 1, "scatters.py: expected units.denominator == 1")
        pay_units[code] = int(units)
    return ScatterCounts(tuple(syms), codes, radix, pay_units)


def count_distribution_window(game: Game, reel_set: str, symbol: str) -> np.ndarray:
    """Weighted count of outcomes by the number of ``symbol`` in the window
    (with a top reel the mix over its windows, :mod:`slotmath.engine.topreel`)."""
    if has_top(game):
        return mix_arrays(
            [(w, count_distribution_window(g, reel_set, symbol)) for w, g in top_games(game, reel_set)]
        )
    size = game.rows + 1
    dist = np.ones(1, dtype=np.int64)
    for strip in game.strips(reel_set):
        per_reel = count_distribution(window_symbol_count(game, strip, symbol), strip.stop_weights(), size)
        dist = convolve_int(dist, per_reel)
    return dist


def suffix_scatter(codes: list, weights: np.ndarray, size: int):
    """Weighted distribution of scatter codes over reels k..R-1, for k = 0..R."""
    R = len(codes)
    suffix = np.zeros((R + 1, size), dtype=np.int64)
    suffix[R, 0] = 1
    for k in range(R - 1, -1, -1):
        per = np.zeros(size, dtype=np.int64)
        np.add.at(per, codes[k], weights[k, : len(codes[k])])
        nxt = suffix[k + 1]
        for a in np.flatnonzero(per):
            nz = np.flatnonzero(nxt)
            np.add.at(suffix[k], a + nz, per[a] * nxt[nz])
    nz_lists = [np.flatnonzero(row) for row in suffix]
    width = max(len(z) for z in nz_lists)
    suffix_nz = np.full((R + 1, width), -1, dtype=np.int64)
    for k, z in enumerate(nz_lists):
        suffix_nz[k, : len(z)] = z
    return suffix, suffix_nz


def scatter_code_distribution(game: Game, reel_set: str, total_bet: int):
    """Exact distribution of the scatter code over the cycle and each code's win.

    Returns
    -------
    counts : ndarray of int64
        Weighted number of outcomes per scatter code.
    pay_units : ndarray of int64
        Scatter win of each code [1/unit_den coins].
    unit_den : int
    """
    if has_top(game):  # the mix over the top reel's windows (slotmath.engine.topreel)
        parts = [(w, scatter_code_distribution(g, reel_set, total_bet)) for w, g in top_games(game, reel_set)]
        _, pay_units, unit_den = parts[0][1]
        return mix_arrays([(w, p[0]) for w, p in parts]), pay_units, unit_den
    unit_den = win_denominator(game, total_bet)
    sc = scatter_counts(game, reel_set, total_bet, unit_den)
    _, weights, _ = pack_reels(game, reel_set)
    suffix, _ = suffix_scatter(sc.codes, weights, len(sc.pay_units))
    return suffix[0], sc.pay_units, unit_den
