"""Spin-win law of a line reel set with drawn wild multipliers, without
writing the draws into the stops (``options.wild_multipliers`` whose rewrite
leaves the engine's counts: :func:`slotmath.features.wildmult.rewrite_refusal`).

Every stop vector of the declared strips and, in its window, every draw of
every multiplier wild (each cell its own row of the table) is listed; the
lines are paid by the variant symbols' line rule
(:func:`slotmath.features.wildmult.drawn_symbols`: the rule of the exact
RTP and of the compiled sampler) and the scatters by their count.  The law
is float64: a term is ``prod_r (w_r / W_r) x prod_cells (t_m / T)`` (stop
weights over the reels' totals, table weights over the table's total),
each within ``(2 R + 2 k) u`` relative error (``u = 2**-53``, ``k`` the
window's drawn wilds: ``R + k`` factors each rounded once, ``R + k - 1``
rounded products), summed per win by Neumaier's compensated summation
(error ``2 u`` of the sum, plus ``n u**2``; the terms are positive), so
every probability is within :func:`error_bound` relative error.  The cost, the number of (window, draw)
pairs ``prod_r sum_s K**k_r(s)`` (``K`` table rows, ``k_r(s)`` the wilds
stop ``s`` of reel ``r`` shows), is computed first and refused above
:data:`MAX_DRAWN_PAIRS`.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm, prod

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slotmath.engine.distribution import WinDistribution
from slotmath.engine.lines import line_outcome, line_outcomes
from slotmath.engine.reels import windows
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.errors import ensure
from slotmath.features.wildmult import drawn_symbols, load_wild_multipliers, variant_name
from slotmath.model import Game

__all__ = ["MAX_DRAWN_PAIRS", "drawn_law_cost", "drawn_spin_law", "error_bound", "shows_wild"]

#: most (window, draw) pairs :func:`drawn_spin_law` lists (about 40 s
#: on one core at 20 lines)
MAX_DRAWN_PAIRS = 10**8


def _wild_counts(game: Game, reel_set: str) -> list:
    """Per reel, the multiplier wilds each stop of nonzero weight shows."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnlaw.py: expected spec is not None")
    out = []
    for strip in game.strips(reel_set):
        n, w = len(strip.symbols), strip.stop_weights().tolist()
        shown = [[strip.symbols[(s + k) % n] for k in range(game.rows)].count(spec.symbol) for s in range(n)]
        out.append([k for k, x in zip(shown, w, strict=True) if x])
    return out


def drawn_law_cost(game: Game, reel_set: str = "base") -> int:
    """(window, draw) pairs :func:`drawn_spin_law` lists on ``reel_set``:
    ``prod_r sum_s K**k_r(s)`` over the stops of nonzero weight."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnlaw.py: expected spec is not None")
    K = len(spec.table)
    return prod(sum(K**k for k in ks) for ks in _wild_counts(game, reel_set))


def shows_wild(game: Game, reel_set: str) -> bool:
    """Whether a window of ``reel_set`` shows the multiplier wild."""
    return any(any(ks) for ks in _wild_counts(game, reel_set))


def error_bound(game: Game, reel_set: str = "base") -> float:
    """Relative error bound of each probability of :func:`drawn_spin_law`:
    ``(2 R + 2 kmax + 4) u + 2 n u**2`` (``kmax`` the most wilds a window
    shows, ``n`` the pairs listed, ``u = 2**-53``; one ``u`` and the factor
    2 on ``n u**2`` cover the second-order terms)."""
    u = 2.0**-53
    kmax = sum(max(ks) for ks in _wild_counts(game, reel_set))
    return (2 * game.reels + 2 * kmax + 4) * u + 2 * drawn_law_cost(game, reel_set) * u * u


@nb.njit(cache=True)
def _neumaier(sums, comps, i, x):
    s = sums[i]
    t = s + x
    if abs(s) >= abs(x):
        comps[i] += (s - t) + x
    else:
        comps[i] += (x - t) + s
    sums[i] = t


@nb.njit(cache=True)
def _law(
    sym,
    n_stops,
    stop_p,
    cells,
    S,
    first,
    codes,
    offsets,
    coins,
    unit,
    sc_count,
    sc_units,
    wild,
    variants,
    draw_p,
):
    """(wins [units], probabilities, compensations) of every window x draw."""
    R, H = sym.shape[0], sym.shape[2]
    L, K = cells.shape[0], variants.shape[0]
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    sums = np.zeros(64)
    comps = np.zeros(64)
    wins = np.zeros(64, dtype=np.int64)
    stop = np.zeros(R, dtype=np.int64)
    window = np.empty(R * H, dtype=np.int64)
    at = np.empty(R * H, dtype=np.int64)
    digit = np.empty(R * H, dtype=np.int64)
    while True:
        p_stop = 1.0
        k = 0
        for r in range(R):
            p_stop *= stop_p[r, stop[r]]
            for h in range(H):
                x = sym[r, stop[r], h]
                window[r * H + h] = x
                if x == wild:
                    at[k] = r * H + h
                    k += 1
        scatter = 0
        for j in range(sc_count.shape[0]):
            c = 0
            for r in range(R):
                c += sc_count[j, r, stop[r]]
            scatter += sc_units[j, c]
        if p_stop > 0:
            digit[:k] = 0
            while True:
                p = p_stop
                for i in range(k):
                    window[at[i]] = variants[digit[i]]
                    p *= draw_p[digit[i]]
                total = 0
                for line in range(L):
                    v = line_outcome(window, line, cells, S, first, codes, offsets)
                    if v > 0:
                        total += coins[v - 1]
                win = total * unit + scatter
                if win in index:
                    i = index[win]
                else:
                    i = len(index)
                    if i == sums.shape[0]:
                        sums = np.concatenate((sums, np.zeros(i)))
                        comps = np.concatenate((comps, np.zeros(i)))
                        wins = np.concatenate((wins, np.zeros(i, dtype=np.int64)))
                    index[win] = i
                    wins[i] = win
                _neumaier(sums, comps, i, p)
                j = 0  # the next draw (mixed radix over the k wild cells)
                while j < k and digit[j] == K - 1:
                    digit[j] = 0
                    j += 1
                if j == k:
                    break
                digit[j] += 1
        r = R - 1  # the next stop vector
        while r >= 0 and stop[r] == n_stops[r] - 1:
            stop[r] = 0
            r -= 1
        if r < 0:
            break
        stop[r] += 1
    n = len(index)
    return wins[:n], sums[:n], comps[:n]


def drawn_spin_law(game: Game, level: int, reel_set: str = "base") -> WinDistribution:
    """Law of the spin win (lines and scatters) of ``reel_set`` with its
    drawn wild multipliers [float64 probabilities, each within
    :func:`error_bound`], listing every window and every draw (module
    notes); the caller checks :func:`drawn_law_cost` first."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnlaw.py: expected spec is not None")
    played = drawn_symbols(game)
    strips = played.strips(reel_set)
    R, H, S = played.reels, played.rows, len(played.symbols)
    n_max = max(len(s) for s in strips)
    sym = np.zeros((R, n_max, H), dtype=np.int64)
    stop_p = np.zeros((R, n_max))
    for r, strip in enumerate(strips):
        sym[r, : len(strip)] = windows(played, strip)
        w = strip.stop_weights()
        stop_p[r, : len(strip)] = [float(Fraction(int(x), int(w.sum()))) for x in w]
    cells, codes, offsets, _, _, coins = line_outcomes(played, level)
    bet = played.bet(level).total_bet
    scatters = scatter_symbols(played)
    n_cells = R * H
    pays = [[scatter_pay(played, name, c) * bet for c in range(n_cells + 1)] for name in scatters]
    unit = lcm(1, *(Fraction(p).denominator for row in pays for p in row))
    sc_units = np.array([[int(p * unit) for p in row] for row in pays], dtype=np.int64).reshape(
        -1, n_cells + 1
    )
    sc_count = np.zeros((len(scatters), R, n_max), dtype=np.int64)
    for j, name in enumerate(scatters):
        sc_count[j] = (sym == played.symbol_index[name]).sum(axis=2)
    variants = np.array(
        [played.symbol_index[variant_name(spec.symbol, m)] for m, _ in spec.table], dtype=np.int64
    )
    draw_p = np.array([float(Fraction(w, spec.total)) for _, w in spec.table])
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    first = max(1, min(3, R))
    wins, sums, comps = _law(
        sym,
        n_stops,
        stop_p,
        cells,
        S,
        first,
        codes,
        offsets,
        coins,
        unit,
        sc_count,
        sc_units,
        played.symbol_index[spec.symbol],
        variants,
        draw_p,
    )
    order = np.argsort(wins)
    return WinDistribution(wins[order], (sums + comps)[order], unit, bet)
