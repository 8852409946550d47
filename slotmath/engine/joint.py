"""Exact distribution of the total win of a spin (all lines and scatters).

Method: depth-first enumeration of the reel stops, reel by reel, with
pruning.  After reels 1..k every payline's win may already be fixed by its
k-symbol prefix (a run that has ended; :func:`slotmath.engine.lines.prefix_determined`
tabulates this for every prefix).  Once all lines are fixed the line total is
known and the remaining reels can only change the scatter win, whose
distribution over the suffix reels is pre-convolved; the subtree is then
added to the histogram in one step with its integer weight.

Complexity: O(sum over visited nodes of L) + O(leaves x scatter support),
where the visited nodes are the stop prefixes with at least one live line.
For typical video reels the tree is pruned after reel 2 or 3 for most
prefixes, so the cost is far below the full cycle prod N_r.  Counts are
int64 (exact while the cycle is below 2**62, which is checked).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.distribution import WinDistribution
from slotmath.engine.lines import pay_tensor, prefix_determined
from slotmath.model import Game
from slotmath.engine.reels import reel_windows
from slotmath.engine.scatters import scatter_counts, win_denominator


@nb.njit(cache=True)
def _dfs_chunk(first_lo, first_hi, win, n_stops, weights, lines, tables, offsets, S,
               codes, suffix, suffix_nz, pay_units, unit, hist):
    R = n_stops.shape[0]
    L = lines.shape[0]
    pidx = np.zeros((R + 1, L), dtype=np.int64)
    wprod = np.ones(R + 1, dtype=np.int64)
    code = np.zeros(R + 1, dtype=np.int64)
    stop = np.full(R, -1, dtype=np.int64)
    level = 0
    stop[0] = first_lo - 1
    while level >= 0:
        stop[level] += 1
        hi = first_hi if level == 0 else n_stops[level]
        if stop[level] >= hi:
            level -= 1
            continue
        s = stop[level]
        w = wprod[level] * weights[level, s]
        if w == 0:
            continue
        c = code[level] + codes[level, s]
        acc = 0
        fixed = True
        off = offsets[level]
        for l in range(L):
            p = pidx[level, l] * S + win[level, s, lines[l, level]]
            pidx[level + 1, l] = p
            v = tables[off + p]
            if v < 0:
                fixed = False
            else:
                acc += v
        if fixed:
            base = acc * unit
            for j in range(suffix_nz[level + 1].shape[0]):
                c2 = suffix_nz[level + 1, j]
                if c2 < 0:
                    break
                hist[base + pay_units[c + c2]] += w * suffix[level + 1, c2]
        else:
            level += 1
            wprod[level] = w
            code[level] = c
            stop[level] = -1


@nb.njit(parallel=True, cache=True)
def _dfs(n_chunks, win, n_stops, weights, lines, tables, offsets, S, codes, suffix,
         suffix_nz, pay_units, unit, size):
    hists = np.zeros((n_chunks, size), dtype=np.int64)
    n0 = n_stops[0]
    for ch in nb.prange(n_chunks):
        lo = ch * n0 // n_chunks
        hi = (ch + 1) * n0 // n_chunks
        _dfs_chunk(lo, hi, win, n_stops, weights, lines, tables, offsets, S, codes, suffix,
                   suffix_nz, pay_units, unit, hists[ch])
    return hists.sum(axis=0)


def pack_reels(game: Game, reel_set: str):
    """Windows and weights padded into (R, Nmax, H) / (R, Nmax) arrays."""
    wins = reel_windows(game, reel_set)
    strips = game.strips(reel_set)
    R, H = game.reels, game.rows
    nmax = max(len(s) for s in strips)
    win = np.zeros((R, nmax, H), dtype=np.int64)
    weights = np.zeros((R, nmax), dtype=np.int64)
    for r, (w, s) in enumerate(zip(wins, strips)):
        win[r, :len(s)] = w
        weights[r, :len(s)] = s.stop_weights()
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    return win, weights, n_stops


def suffix_scatter(codes: list, weights: np.ndarray, size: int):
    """Weighted distribution of scatter codes over reels k..R-1, for k = 0..R."""
    R = len(codes)
    suffix = np.zeros((R + 1, size), dtype=np.int64)
    suffix[R, 0] = 1
    for k in range(R - 1, -1, -1):
        per = np.zeros(size, dtype=np.int64)
        np.add.at(per, codes[k], weights[k, :len(codes[k])])
        nxt = suffix[k + 1]
        for a in np.flatnonzero(per):
            nz = np.flatnonzero(nxt)
            np.add.at(suffix[k], a + nz, per[a] * nxt[nz])
    nz_lists = [np.flatnonzero(row) for row in suffix]
    width = max(len(z) for z in nz_lists)
    suffix_nz = np.full((R + 1, width), -1, dtype=np.int64)
    for k, z in enumerate(nz_lists):
        suffix_nz[k, :len(z)] = z
    return suffix, suffix_nz


def spin_distribution(game: Game, level: int, reel_set: str = "base") -> WinDistribution:
    """Exact distribution of the total win of one spin (lines + scatters).

    Returns
    -------
    WinDistribution
        Integer hit counts over the full cycle by total win, with the win
        unit [coins] and the total bet [coins] of ``level``.
    """
    bet = game.bet(level)
    tensor = pay_tensor(game, level)
    prefix = prefix_determined(tensor)
    tables = np.concatenate(prefix)
    offsets = np.cumsum([0] + [len(t) for t in prefix[:-1]]).astype(np.int64)
    unit_den = win_denominator(game, bet.total_bet)
    sc = scatter_counts(game, reel_set, bet.total_bet, unit_den)
    win, weights, n_stops = pack_reels(game, reel_set)
    cycle = game.cycle(reel_set)
    if cycle >= 2 ** 62:
        raise OverflowError(f"cycle {cycle} is too large for exact int64 enumeration")
    code_size = len(sc.pay_units)
    codes = np.zeros((game.reels, win.shape[1]), dtype=np.int64)
    for r, c in enumerate(sc.codes):
        codes[r, :len(c)] = c
    suffix, suffix_nz = suffix_scatter(sc.codes, weights, code_size)
    lines = np.array(game.paylines, dtype=np.int64)
    max_total = int(tensor.wins.max()) * len(lines) * unit_den + int(sc.pay_units.max())
    n_chunks = min(int(n_stops[0]), 4 * nb.get_num_threads())
    hist = _dfs(n_chunks, win, n_stops, weights, lines, tables, offsets,
                len(game.symbols), codes, suffix, suffix_nz, sc.pay_units, unit_den,
                max_total + 1)
    assert int(hist.sum()) == cycle
    return WinDistribution.from_histogram(hist, unit_den, bet.total_bet)
