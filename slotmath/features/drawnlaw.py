"""Spin-win law of a line reel set with drawn wild multipliers, without
writing the draws into the stops (``options.wild_multipliers`` whose rewrite
leaves the engine's counts: :func:`slotmath.features.wildmult.rewrite_refusal`),
keyed by the free games' trigger key (:func:`key_codes`: the trigger
symbol's count, per reel under a reel condition, its rows per reel for a
count on a payline; the base spin's key and the free spin's retrigger key),
or by several triggers at once (a wheel or a hold-and-spin beside the free games: the pay
rules' joint key codes).

Method: a window's draws matter only through its *draw profile*.  Every
stop vector of the declared strips is listed once (no draw): each payline's
symbol tuple is labelled (:func:`slotmath.features.wilddraws.drawn_labels`)
by the entry that pays it whatever the draws, its fixed pay ``F`` [coins]
and the window cells of the drawn wilds it counts, or as *mixed* (which
entry pays depends on the draws).  A line without counted drawn wilds adds
``F`` to the window's fixed win; the others form the profile.  With
``combine: add`` and no mixed line the draw part is affine in the cells'
independent draws, ``sum_c a_c m_c`` (``a_c`` the sum of ``F`` over the
lines counting cell ``c``), so the profile is the sorted list of the
``a_c``; otherwise it is the sorted list of (``F``, cells) of its lines
(the mixed ones by their tuple).  Stop combinations are counted exactly
(int64) per (profile, trigger count, fixed win); each distinct profile's
law is then computed once, exactly (integer weights over ``T**u``, ``T``
the table's total, ``u`` its cells: a convolution of the scaled tables when
affine, else every draw of its cells, each line paying its best entry).

Error: a probability is ``sum (count / cycle) x (weight / T**u)``: both
quotients correctly rounded, their product rounded once (``3 u`` relative,
``u = 2**-53``), summed per (win, count) by Neumaier's compensated
summation of positive terms (``2 u + 2 n u**2``, ``n`` the terms): every
probability is within :attr:`DrawnLaw.bound` = ``6 u + 2 n u**2``.

Cost: the window pass lists :func:`drawn_law_cost` stop vectors, the first
reel's stops split among the cores (threads), refused above
:data:`MAX_DRAWN_WINDOWS` (:data:`MAX_DRAWN_SECONDS` at the measured
:data:`WINDOWS_PER_SECOND`); the profiles' laws list, per distinct profile,
the convolution's terms (affine; in numba, integer weights while
``T**u <= 2**53``) or, with mixed lines, every draw of the mixed lines'
cells convolved with the other cells' affine law (``combine: add``; every
draw of its cells otherwise), estimated before they start and refused above
:data:`MAX_DRAW_TERMS`.  The affine laws are scattered into a dense array
indexed by (win, count) as they are computed, never stored (a dict when the
array would pass :data:`MAX_DENSE`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import gcd, lcm, prod

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slotmath.engine.distribution import WinDistribution
from slotmath.engine.joint import KeyedWins, decode_key, key_digits, key_radix
from slotmath.engine.joint import key_codes as joint_key_codes
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.reels import reel_digits, windows
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.errors import ensure
from slotmath.features.wilddraws import line_candidates, tuple_labels
from slotmath.features.wildmult import load_wild_multipliers
from slotmath.model import Game

__all__ = [
    "AWARD_MEAN_TOLERANCE",
    "MAX_DENSE",
    "MAX_DRAWN_SECONDS",
    "MAX_DRAWN_WINDOWS",
    "MAX_DRAW_TERMS",
    "TERMS_PER_SECOND",
    "WINDOWS_PER_SECOND",
    "DrawnLaw",
    "drawn_keyed_law",
    "drawn_law_cost",
    "drawn_spin_law",
    "free_spin_key",
    "key_codes",
    "key_fields",
    "neumaier_add",
    "shows_wild",
]

#: the window pass's measured rate [stop vectors / s, 20 lines, both cores
#: of the 2-core machine]
WINDOWS_PER_SECOND = 4e6
#: the profiles' laws' measured rate [draws or convolution terms / s]
TERMS_PER_SECOND = 5e7
#: most seconds the window pass, and the profiles' laws, may take at those rates
MAX_DRAWN_SECONDS = 180
#: most stop vectors :func:`drawn_keyed_law` lists
MAX_DRAWN_WINDOWS = int(MAX_DRAWN_SECONDS * WINDOWS_PER_SECOND)
#: most draws (or convolution terms) the distinct profiles' laws list
MAX_DRAW_TERMS = int(MAX_DRAWN_SECONDS * TERMS_PER_SECOND)
#: most (win, key) cells of the dense combine (else a dict) [float64 pairs]
MAX_DENSE = 2**25
_U = 2.0**-53
_GROUP = types.UniTuple(types.int64, 3)  # (profile, trigger count, fixed win)
_POINT = types.UniTuple(types.int64, 2)  # (win, trigger count)


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
    """Stop vectors :func:`drawn_keyed_law` lists on ``reel_set``:
    ``prod_r`` (stops of nonzero weight of reel ``r``)."""
    return prod(len(ks) for ks in _wild_counts(game, reel_set))


def shows_wild(game: Game, reel_set: str) -> bool:
    """Whether a window of ``reel_set`` shows the multiplier wild."""
    return any(any(ks) for ks in _wild_counts(game, reel_set))


@dataclass(frozen=True)
class DrawnLaw:
    """Joint law of (spin win, trigger count) of one reel set.

    Attributes
    ----------
    wins : ndarray of int64
        Spin win (lines and scatters) [1/``unit`` coins].
    keys : ndarray of int64
        The trigger key's code (:func:`key_codes`; 0 without a trigger):
        the trigger symbol's count, or with ``digits`` its per-reel digits.
    probabilities : ndarray of float64
        [probability], each within relative error ``bound``.
    unit : int
        Win units per coin.
    bound : float
        Relative error bound of each probability (module notes).
    profiles : int
        Distinct draw profiles.
    draws : int
        The profiles' laws' estimated draws (or convolution terms).
    digits : tuple
        Each reel's radix when a key code holds one digit per reel (a
        per-reel trigger, :func:`key_codes`: mixed radix, reel 1 lowest),
        else ``()``.
    triggers : tuple
        With several triggers (:func:`key_codes` of a tuple of them) the
        triggers, their codes' radices and the reel count, ``(triggers,
        radix, reels)`` (:func:`slotmath.engine.joint.decode_key`), else ``()``.
    """

    wins: np.ndarray
    keys: np.ndarray
    probabilities: np.ndarray
    unit: int
    bound: float
    profiles: int
    draws: int = 0
    digits: tuple = ()
    triggers: tuple = ()

    def key_items(self) -> list:
        """The trigger key of every entry of :attr:`keys`, in order, in the
        trigger's own key space (:class:`~slotmath.features.round.Trigger`):
        the count, or the tuple of per-reel digits, reel 1 first
        (:func:`slotmath.engine.joint.key_digits`); with several
        :attr:`triggers` the tuple of their keys, in their order."""
        if self.triggers:
            triggers, radix, reels = self.triggers
            return [decode_key(c, triggers, list(radix), reels) for c in self.keys.tolist()]
        if not self.digits:
            return self.keys.tolist()
        return [tuple(row) for row in key_digits(self.keys, list(self.digits)).tolist()]

    def marginal(self, total_bet: int) -> tuple:
        """``(law, bound)``: the law of the spin win, its keys summed
        (Neumaier), as a :class:`~slotmath.engine.distribution.WinDistribution`
        [float64] and the relative error bound of each probability (the
        merged terms' :attr:`bound`, plus Neumaier's over the keys)."""
        uniq, inverse = np.unique(self.wins, return_inverse=True)
        sums, comps = np.zeros(len(uniq)), np.zeros(len(uniq))
        for i, x in zip(inverse.ravel().tolist(), self.probabilities.tolist(), strict=True):
            neumaier_add(sums, comps, i, x)
        return WinDistribution(uniq, sums + comps, self.unit, total_bet), self.bound + 3 * _U

    def keyed(self, total_bet: int) -> KeyedWins:
        """The law as the round's joint law of (spin win, key)
        (:class:`~slotmath.engine.joint.KeyedWins`, one key item per
        trigger) with float64 probabilities for its counts over a cycle of 1
        (:func:`slotmath.features.round.round_distribution` reads it so)."""
        keys = self.key_items() if self.triggers else [(k,) for k in self.key_items()]
        return KeyedWins(self.wins, keys, self.probabilities.tolist(), self.unit, total_bet, 1)


@nb.njit(cache=True)
def neumaier_add(sums, comps, i, x):
    """Add ``x`` to ``sums[i]`` by Neumaier's compensated summation, the
    rounding error kept in ``comps[i]`` (the sum is ``sums[i] + comps[i]``)."""
    s = sums[i]
    t = s + x
    if abs(s) >= abs(x):
        comps[i] += (s - t) + x
    else:
        comps[i] += (x - t) + s
    sums[i] = t


@nb.njit(cache=True)
def _hash(buf, n):
    h = np.uint64(1469598103934665603)
    for i in range(n):
        for part in (buf[i] & 0xFFFFFFFF, (buf[i] >> 32) & 0xFFFFFFFF):
            h ^= np.uint64(part) + np.uint64(0x9E3779B97F4A7C15)
            h *= np.uint64(1099511628211)
            h ^= h >> np.uint64(29)
    return np.int64(h >> np.uint64(1))


@nb.njit(cache=True)
def _sort_pairs(buf, start, n):
    """Sort the ``n`` pairs ``buf[start + 2 i], buf[start + 2 i + 1]`` (insertion)."""
    for i in range(1, n):
        a, b = buf[start + 2 * i], buf[start + 2 * i + 1]
        j = i - 1
        while j >= 0 and (buf[start + 2 * j] > a or (buf[start + 2 * j] == a and buf[start + 2 * j + 1] > b)):
            buf[start + 2 * j + 2] = buf[start + 2 * j]
            buf[start + 2 * j + 3] = buf[start + 2 * j + 1]
            j -= 1
        buf[start + 2 * j + 2] = a
        buf[start + 2 * j + 3] = b


@nb.njit(cache=True, nogil=True)
def _profiles(
    sym,
    n_stops,
    stop_w,
    rows,
    S,
    entry,
    fixed,
    mask,
    mixed,
    line_cells,
    key_count,
    sc_count,
    sc_units,
    unit,
    add,
    lo,
    hi,
):
    """Window pass over the stop vectors whose first reel stops in
    ``[lo, hi)`` (every stop when there is one reel): exact stop-combination counts per (profile, trigger
    count, fixed win [units]); the profiles' contents (``[flag, n, items]``:
    flag 0 the sorted cell coefficients, 1 the sorted (F or -1 - line, cells
    or tuple) pairs) in ``data`` from ``starts``; ``clash`` when two
    profiles share a hash (then nothing is returned)."""
    R, H = sym.shape[0], sym.shape[2]
    L = rows.shape[0]
    n_cells = R * H
    prof_of = Dict.empty(key_type=types.int64, value_type=types.int64)
    groups = Dict.empty(key_type=_GROUP, value_type=types.int64)
    data = np.zeros(1024, dtype=np.int64)
    starts = np.zeros(64, dtype=np.int64)
    n_prof, used = 0, 0
    buf = np.zeros(2 + 2 * L + n_cells, dtype=np.int64)
    coef = np.zeros(n_cells, dtype=np.int64)
    items = np.zeros((L, 2), dtype=np.int64)
    stop = np.zeros(R, dtype=np.int64)
    J = sc_count.shape[0]
    t_head = np.zeros(L, dtype=np.int64)
    sc_head = np.zeros(J, dtype=np.int64)
    last = R - 1
    stop[0] = lo
    if last > 0 and lo >= hi:
        return data[:0], starts[:1], np.zeros((0, 4), dtype=np.int64), False
    while True:  # reels 1..R-1 (the odometer), then every stop of the last reel
        w_head, key_head = 1, 0
        for r in range(last):
            w_head *= stop_w[r, stop[r]]
            key_head += key_count[r, stop[r]]
        for j in range(J):
            sc_head[j] = 0
            for r in range(last):
                sc_head[j] += sc_count[j, r, stop[r]]
        for line in range(L):
            t = 0
            for r in range(last):
                t = t * S + sym[r, stop[r], rows[line, r]]
            t_head[line] = t * S
        for s_last in range(n_stops[last] if w_head > 0 else 0):
            w = w_head * stop_w[last, s_last]
            if w == 0:
                continue
            key = key_head + key_count[last, s_last]
            const = 0
            for j in range(J):
                const += sc_units[j, sc_head[j] + sc_count[j, last, s_last]]
            n_items, has_mixed = 0, False
            for line in range(L):
                t = t_head[line] + sym[last, s_last, rows[line, last]]
                if entry[t] >= 0:
                    if mask[t] == 0:
                        const += fixed[t] * unit
                    else:
                        items[n_items, 0] = fixed[t]
                        items[n_items, 1] = line_cells[line, mask[t]]
                        n_items += 1
                elif mixed[t]:
                    items[n_items, 0] = -1 - line
                    items[n_items, 1] = t
                    n_items += 1
                    has_mixed = True
            if add and not has_mixed:
                for i in range(n_items):
                    cm = items[i, 1]
                    for c in range(n_cells):
                        if cm >> c & 1:
                            coef[c] += items[i, 0]
                n = 0
                for c in range(n_cells):
                    if coef[c]:
                        buf[2 + n] = coef[c]
                        coef[c] = 0
                        n += 1
                buf[2 : 2 + n].sort()
                buf[0], buf[1] = 0, n
                size = 2 + n
            else:
                for i in range(n_items):
                    buf[2 + 2 * i] = items[i, 0]
                    buf[3 + 2 * i] = items[i, 1]
                _sort_pairs(buf, 2, n_items)
                buf[0], buf[1] = 1, n_items
                size = 2 + 2 * n_items
            h = _hash(buf, size)
            if h in prof_of:
                pid = prof_of[h]
                s0 = starts[pid]
                same = starts[pid + 1] - s0 == size
                if same:
                    for i in range(size):
                        if data[s0 + i] != buf[i]:
                            same = False
                            break
                if not same:
                    return data[:0], starts[:0], np.zeros((0, 4), dtype=np.int64), True
            else:
                pid = n_prof
                prof_of[h] = pid
                while used + size > data.shape[0]:
                    data = np.concatenate((data, np.zeros(data.shape[0], dtype=np.int64)))
                if pid + 2 > starts.shape[0]:
                    starts = np.concatenate((starts, np.zeros(starts.shape[0], dtype=np.int64)))
                data[used : used + size] = buf[:size]
                used += size
                n_prof += 1
                starts[n_prof] = used
            g = (pid, key, const)
            if g in groups:
                groups[g] += w
            else:
                groups[g] = w
        r = last - 1  # the next stop vector of reels 1..R-1, the first in [lo, hi)
        while r > 0 and stop[r] == n_stops[r] - 1:
            stop[r] = 0
            r -= 1
        if r < 0 or (r == 0 and stop[0] + 1 >= hi):
            break
        stop[r] += 1
    out = np.zeros((len(groups), 4), dtype=np.int64)
    i = 0
    for g, w in groups.items():
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = g[0], g[1], g[2], w
        i += 1
    return data[:used], starts[: n_prof + 1], out, False


@nb.njit(cache=True)
def _merge(va, wa, vb, wb):
    """Union of two laws sorted by value, equal values' weights added."""
    v = np.empty(va.shape[0] + vb.shape[0], dtype=np.int64)
    w = np.empty(v.shape[0], dtype=np.int64)
    i = j = n = 0
    while i < va.shape[0] or j < vb.shape[0]:
        if j == vb.shape[0] or (i < va.shape[0] and va[i] < vb[j]):
            x, q = va[i], wa[i]
            i += 1
        elif i == va.shape[0] or vb[j] < va[i]:
            x, q = vb[j], wb[j]
            j += 1
        else:
            x, q = va[i], wa[i] + wb[j]
            i += 1
            j += 1
        v[n], w[n] = x, q
        n += 1
    return v[:n], w[:n]


@nb.njit(cache=True)
def _convolve(va, wa, vb, wb):
    """Law of the sum of two independent parts (sorted laws, integer weights)."""
    if va.shape[0] < vb.shape[0]:
        va, wa, vb, wb = vb, wb, va, wa
    if vb.shape[0] > 8:  # every pair, sorted, equal values added
        v = (va.reshape(-1, 1) + vb.reshape(1, -1)).ravel()
        w = (wa.reshape(-1, 1) * wb.reshape(1, -1)).ravel()
        order = np.argsort(v, kind="mergesort")
        v, w = v[order], w[order]
        n = 0
        for i in range(v.shape[0]):
            if n and v[n - 1] == v[i]:
                w[n - 1] += w[i]
            else:
                v[n], w[n] = v[i], w[i]
                n += 1
        return v[:n].copy(), w[:n].copy()
    v, w = va + vb[0], wa * wb[0]
    for k in range(1, vb.shape[0]):
        v, w = _merge(v, w, va + vb[k], wa * wb[k])
    return v, w


@nb.njit(cache=True)
def _affine(coefs, m, mw):
    """Law of ``sum_c a_c m_c`` (``m_c`` drawn from the table ``m``, integer
    weights ``mw``), sorted, with integer weights over ``sum(mw)**len(coefs)``."""
    v, w = np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64)
    for a in coefs:
        v, w = _convolve(v, w, a * m, mw)
    return v, w


@nb.njit(cache=True, nogil=True)
def _affine_laws(data, starts, pids, m, mw, unit, total):
    """The affine profiles ``pids``' laws, one after another: ``(lengths,
    wins [units], probabilities)``, each weight over ``total**u`` (at most
    ``2**53``, so the quotient is correctly rounded)."""
    lengths = np.zeros(pids.shape[0], dtype=np.int64)
    wins = np.zeros(1024, dtype=np.int64)
    probs = np.zeros(1024)
    used = 0
    for i in range(pids.shape[0]):
        s0 = starts[pids[i]]
        n = data[s0 + 1]
        v, w = _affine(data[s0 + 2 : s0 + 2 + n], m, mw)
        while used + v.shape[0] > wins.shape[0]:
            wins = np.concatenate((wins, np.zeros(wins.shape[0], dtype=np.int64)))
            probs = np.concatenate((probs, np.zeros(probs.shape[0])))
        den = float(total**n)
        for k in range(v.shape[0]):
            wins[used + k] = v[k] * unit
            probs[used + k] = float(w[k]) / den
        used += v.shape[0]
        lengths[i] = v.shape[0]
    return lengths, wins[:used], probs[:used]


@nb.njit(cache=True)
def _mixed(coefs, alt_start, alt_f, alt_mask, m, mw):
    """Law of ``sum_c a_c m_c`` plus each mixed line's best alternative
    ``F x sum(m_c over its cells)`` (``F`` when it has none), over every draw
    of the ``len(coefs)`` cells (alternatives' masks over those cells)."""
    u, K = coefs.shape[0], m.shape[0]
    law = Dict.empty(key_type=types.int64, value_type=types.int64)
    digit = np.zeros(u, dtype=np.int64)
    while True:
        v, q = 0, 1
        for c in range(u):
            v += coefs[c] * m[digit[c]]
            q *= mw[digit[c]]
        for line in range(alt_start.shape[0] - 1):
            best = 0
            for a in range(alt_start[line], alt_start[line + 1]):
                x = 0
                for c in range(u):
                    if alt_mask[a] >> c & 1:
                        x += m[digit[c]]
                x = alt_f[a] * (x if alt_mask[a] else 1)
                best = max(best, x)
            v += best
        law[v] = law.get(v, 0) + q
        c = u - 1
        while c >= 0 and digit[c] == K - 1:
            digit[c] = 0
            c -= 1
        if c < 0:
            break
        digit[c] += 1
    v = np.empty(len(law), dtype=np.int64)
    i = 0
    for x in law.keys():
        v[i] = x
        i += 1
    v.sort()
    w = np.empty(v.shape[0], dtype=np.int64)
    for i in range(v.shape[0]):
        w[i] = law[v[i]]
    return v, w


@nb.njit(cache=True)
def _combine_affine(
    groups, group_p, order, first, data, starts, pids, m, mw, unit, total, low, n_keys, sums, comps
):
    """Each affine profile ``pids[i]``'s law (:func:`_affine`, weights over
    ``total**u`` <= ``2**53``) scattered, once computed, into the dense
    ``sums`` / ``comps`` at each of its groups (``order[first[pid]:first[pid
    + 1]]``) as :func:`_combine` would; the terms added."""
    terms = 0
    for i in range(pids.shape[0]):
        s0 = starts[i]
        n = data[s0 + 1]
        v, w = _affine(data[s0 + 2 : s0 + 2 + n], m, mw)
        den = float(total**n)
        p = np.empty(v.shape[0])
        for k in range(v.shape[0]):
            p[k] = float(w[k]) / den  # both exact: correctly rounded
        for gi in range(first[pids[i]], first[pids[i] + 1]):
            g = order[gi]
            at = (groups[g, 2] - low) * n_keys + groups[g, 1]
            for k in range(v.shape[0]):
                neumaier_add(sums, comps, at + v[k] * unit * n_keys, group_p[g] * p[k])
            terms += v.shape[0]
    return terms


@nb.njit(cache=True)
def _combine(groups, group_p, law_lo, law_hi, law_wins, law_p, low, n_keys, size, sums, comps):
    """``(wins, keys, sums, compensations, terms)``: every group's fixed win
    plus each point of its profile's law (``law_lo[pid]:law_hi[pid]``),
    Neumaier-summed per (win, key): in a dense array indexed by
    ``(win - low) x n_keys + key`` when ``size`` > 0 (``sums``, ``comps``
    holding it, added to), else by a dict (``sums``, ``comps`` zeros)."""
    index = Dict.empty(key_type=_POINT, value_type=types.int64)
    dense = size > 0
    wins = np.zeros(sums.shape[0] if not dense else 1, dtype=np.int64)
    keys = np.zeros(wins.shape[0], dtype=np.int64)
    terms = 0
    for g in range(groups.shape[0]):
        pid, key, const = groups[g, 0], groups[g, 1], groups[g, 2]
        for j in range(law_lo[pid], law_hi[pid]):
            win = const + law_wins[j]
            if dense:
                i = (win - low) * n_keys + key
            elif (win, key) in index:
                i = index[(win, key)]
            else:
                i = len(index)
                if i == sums.shape[0]:
                    sums = np.concatenate((sums, np.zeros(i)))
                    comps = np.concatenate((comps, np.zeros(i)))
                    wins = np.concatenate((wins, np.zeros(i, dtype=np.int64)))
                    keys = np.concatenate((keys, np.zeros(i, dtype=np.int64)))
                index[(win, key)] = i
                wins[i], keys[i] = win, key
            neumaier_add(sums, comps, i, group_p[g] * law_p[j])
            terms += 1
    if not dense:
        n = len(index)
        return wins[:n], keys[:n], sums[:n], comps[:n], terms
    at = np.nonzero(sums)[0]
    return at // n_keys + low, at % n_keys, sums[at], comps[at], terms


def _set_bits(mask: int) -> list:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


def _profile_law(profile: list, spec, line_alternatives) -> dict:
    """Exact law ``{draw part [coins]: integer weight}`` over ``T**u`` of one
    profile (``u`` its cells), and ``u``."""
    flag, n, items = profile[0], profile[1], profile[2:]
    table = spec.table
    if flag == 0:  # affine: the convolution of the cells' scaled tables
        law = {0: 1}
        for a in items[:n]:
            nxt: dict = {}
            for v, q in law.items():
                for m, w in table:
                    nxt[v + a * m] = nxt.get(v + a * m, 0) + q * w
            law = nxt
        return law, n
    lines = []  # per line its alternatives [(F, cells)]
    union = 0
    for i in range(n):
        a, b = items[2 * i], items[2 * i + 1]
        alts = [(a, _set_bits(b))] if a >= 0 else line_alternatives(-1 - a, b)
        for _, cells in alts:
            for c in cells:
                union |= 1 << c
        lines.append(alts)
    cells = _set_bits(union)
    join = sum if spec.combine == "add" else prod
    law = {}
    for draw in product(table, repeat=len(cells)):
        m = {c: x for c, (x, _) in zip(cells, draw, strict=True)}
        q = prod(w for _, w in draw)
        v = sum(max(F * (join(m[c] for c in cs) if cs else 1) for F, cs in alts) for alts in lines)
        law[v] = law.get(v, 0) + q
    return law, len(cells)


def _profile_cost(profile: list, K: int, top: int, line_cells: np.ndarray, add: bool) -> int:
    """Draws (or convolution terms) :func:`_profile_law` lists for ``profile``
    (a mixed line's cells bounded by its line's)."""
    flag, n, items = profile[0], profile[1], profile[2:]
    if flag == 0:
        cost, support, span = 0, 1, 0
        for a in items[:n]:
            span += a * top
            cost += support * K
            support = min(support * K, span + 1)
        return cost
    if not add:
        union = 0
        for i in range(n):
            a, b = items[2 * i], items[2 * i + 1]
            union |= b if a >= 0 else int(line_cells[-1 - a, -1])
        return K ** bin(union).count("1") * max(n, 1)
    # add: every draw of the mixed lines' cells (bounded by their lines'),
    # convolved with the other cells' affine law
    cells = 0
    for i in range(n):
        if items[2 * i] < 0:
            cells |= int(line_cells[-1 - items[2 * i], -1])
    coef: dict = {}
    for i in range(n):
        a, b = items[2 * i], items[2 * i + 1]
        for c in _set_bits(b) if a >= 0 else []:
            if not cells >> c & 1:
                coef[c] = coef.get(c, 0) + a
    rest = sorted(coef.values())
    draws, support = K ** bin(cells).count("1"), 1
    for _ in rest:
        support = min(support * K, sum(rest) * top + 1)
    return draws * (n + 1) + _profile_cost([0, len(rest), *rest], K, top, line_cells, add) + draws * support


def _check_codes(game: Game, codes: int, what: str, field: str) -> None:
    """Refuse a trigger key of ``codes`` codes beyond the int64 pass, in one
    line naming ``field``."""
    if codes >= 2**62:
        raise EngineTooLarge(
            f"the drawn multipliers' law: {what} {codes:.3g} codes, beyond the int64 pass",
            file=game.source or game.name,
            field=field,
        )


def key_codes(game: Game, reel_set: str, key) -> tuple:
    """``(codes, digits)``: per reel of ``reel_set`` the code each stop adds
    to the window's trigger key (a window's code is the sum over its
    reels), and :attr:`DrawnLaw.digits`.  ``key``: a
    :class:`~slotmath.features.round.Trigger` (the free games' own,
    :attr:`~slotmath.features.options.FreeGamesSpec.trigger`), a symbol name
    (its count anywhere) or None (every code 0).  A total count adds the
    reel's count; a per-reel key (a reel condition, or a count on a payline:
    each reel's rows) adds its reel's digit
    (:func:`slotmath.engine.reels.reel_digits`) times the product of the
    earlier reels' radices, each reel's radix its largest digit plus one
    (the codes stay few: the law's dense (win, key) array stays small), so
    the code reads back as the key the undrawn round uses
    (:meth:`DrawnLaw.key_items`).  A tuple of several triggers (a feature
    beside the free games) takes the pay rules' joint codes
    (:func:`slotmath.engine.joint.key_codes`), and :attr:`DrawnLaw.triggers`
    in place of the digits."""
    from slotmath.features.round import Trigger

    strips = game.strips(reel_set)
    if isinstance(key, tuple) and len(key) > 1:
        radix = key_radix(game, key)
        _check_codes(game, prod(radix), "the round's trigger keys take", "options")
        codes, _ = joint_key_codes(game, reel_set, key)
        return [np.asarray(c, dtype=np.int64) for c in codes], (tuple(key), tuple(radix), game.reels)
    if isinstance(key, tuple):
        key = key[0] if key else None
    if key is None:
        return [np.zeros(len(s), dtype=np.int64) for s in strips], ()
    trigger = key if isinstance(key, Trigger) else Trigger(key)
    digits = [reel_digits(game, s, trigger).astype(np.int64) for s in strips]
    if not trigger.per_reel:
        return digits, ()
    radices = tuple(int(d.max(initial=0)) + 1 for d in digits)
    _check_codes(game, prod(radices), "a per-reel trigger key takes", "options.free_games.trigger")
    return [d * prod(radices[:r]) for r, d in enumerate(digits)], radices


def key_fields(digits: tuple) -> dict:
    """The :class:`DrawnLaw` fields that decode its key codes, from the
    second item of :func:`key_codes`: ``digits`` (one trigger), or
    ``triggers`` (several: ``(triggers, radix, reels)``)."""
    if len(digits) == 3 and isinstance(digits[0], tuple) and not isinstance(digits[0], int):
        return {"triggers": digits}
    return {"digits": digits}


def drawn_keyed_law(
    game: Game, level: int, reel_set: str = "base", key=None, scatters: bool = True
) -> DrawnLaw:
    """Joint law of the spin win (lines, and scatters unless ``scatters`` is
    False: free games with ``scatter_pays: false``) of ``reel_set`` with
    its drawn wild multipliers and the trigger key ``key`` of the window
    (:func:`key_codes`: a Trigger, a tuple of them, a symbol's count or None) [float64, each
    probability within :attr:`DrawnLaw.bound`] (module notes); refused in one line
    (:class:`~slotmath.engine.limits.EngineTooLarge`) above its cost bounds."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnlaw.py: expected spec is not None")
    field = "options.wild_multipliers.table"
    windows_listed = drawn_law_cost(game, reel_set)
    if windows_listed > MAX_DRAWN_WINDOWS:
        raise EngineTooLarge(
            f"the drawn multipliers' law of reel set {reel_set!r} would list {windows_listed:.3g} windows, "
            f"above {MAX_DRAWN_WINDOWS:.2g} ({MAX_DRAWN_SECONDS} s at {WINDOWS_PER_SECOND:.2g} a second)",
            file=game.source or game.name,
            field=field,
        )
    cycle = game.cycle(reel_set)
    ensure(cycle < 2**62, "drawnlaw.py: the cycle exceeds int64 counts")
    strips = game.strips(reel_set)
    R, H, S = game.reels, game.rows, len(game.symbols)
    n_max = max(len(s) for s in strips)
    sym = np.zeros((R, n_max, H), dtype=np.int64)
    stop_w = np.zeros((R, n_max), dtype=np.int64)
    for r, strip in enumerate(strips):
        sym[r, : len(strip)] = windows(game, strip)
        stop_w[r, : len(strip)] = strip.stop_weights()
    cp, drawn, (entry, fixed, _, mixed, mask) = tuple_labels(game, level)
    rows = np.array(game.paylines, dtype=np.int64).reshape(-1, R)
    L = rows.shape[0]
    line_cells = np.zeros((L, 1 << R), dtype=np.int64)  # line, position mask -> cell mask
    for line in range(L):
        for m in range(1 << R):
            line_cells[line, m] = sum(1 << (i * H + int(rows[line, i])) for i in range(R) if m >> i & 1)
    bet = game.bet(level).total_bet
    scatters = scatter_symbols(game) if scatters else []
    n_cells = R * H
    pays = [[scatter_pay(game, name, c) * bet for c in range(n_cells + 1)] for name in scatters]
    unit = lcm(1, *(Fraction(p).denominator for row in pays for p in row))
    sc_units = np.array([[int(p * unit) for p in row] for row in pays], dtype=np.int64).reshape(
        -1, n_cells + 1
    )
    sc_count = np.zeros((len(scatters), R, n_max), dtype=np.int64)
    for j, name in enumerate(scatters):
        sc_count[j] = (sym == game.symbol_index[name]).sum(axis=2)
    key_count = np.zeros((R, n_max), dtype=np.int64)
    codes, digits = key_codes(game, reel_set, key)
    for r, c in enumerate(codes):
        key_count[r, : len(c)] = c
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    args = (sym, n_stops, stop_w, rows, S, entry, fixed, mask, mixed, line_cells,
            key_count, sc_count, sc_units, unit, spec.combine == "add")  # fmt: skip
    profiles, groups = _window_pass(args, int(n_stops[0]) if R > 1 else 1)
    K, top = len(spec.table), max(m for m, _ in spec.table)
    terms = sum(_profile_cost(p, K, top, line_cells, spec.combine == "add") for p in profiles)
    if terms > MAX_DRAW_TERMS:
        raise EngineTooLarge(
            f"the drawn multipliers' law of reel set {reel_set!r} would list {terms:.3g} draws over its "
            f"{len(profiles):,} draw profiles, above {MAX_DRAW_TERMS:.0e} ({MAX_DRAWN_SECONDS} s at "
            f"{TERMS_PER_SECOND:.0e} a second)",
            file=game.source or game.name,
            field=field,
        )

    def line_alternatives(line: int, t: int) -> list:  # a mixed line's entries: (F, cells)
        x = np.array(np.unravel_index(t, (S,) * R), dtype=np.int64)
        a, c = line_candidates(x, cp.arrays, drawn)
        return [
            (int(f), _set_bits(int(line_cells[line, m])))
            for f, m in zip(a.tolist(), c.tolist(), strict=True)
            if f > 0
        ]

    # the affine profiles' laws are scattered as they are computed (dense
    # combine); the others' (and all of them when the combine is not dense) listed first
    m, mw, total, fits = _table_ints(spec)
    inline = [i for i, p in enumerate(profiles) if p[0] == 0 and p[1] <= fits]
    others = [i for i, p in enumerate(profiles) if not (p[0] == 0 and p[1] <= fits)]
    law_lo, law_hi, law_wins, law_p = _profile_laws(profiles, others, spec, unit, line_alternatives)
    group_p = np.array([w / cycle for w in groups[:, 3].tolist()])
    n_keys = int(groups[:, 1].max(initial=0)) + 1
    span = np.zeros((len(profiles), 2), dtype=np.int64)  # each profile's least and greatest draw part
    for i in inline:
        a = sum(profiles[i][2:]) * unit
        span[i] = min(a * int(m.min()), a * int(m.max())), max(a * int(m.min()), a * int(m.max()))
    for i in others:
        span[i] = law_wins[law_lo[i] : law_hi[i]].min(), law_wins[law_lo[i] : law_hi[i]].max()
    low = int((groups[:, 2] + span[groups[:, 0], 0]).min(initial=0))
    size = (int((groups[:, 2] + span[groups[:, 0], 1]).max(initial=0)) - low + 1) * n_keys
    if size > MAX_DENSE:  # the dict combine: every law listed
        size = 0
        law_lo, law_hi, law_wins, law_p = _profile_laws(
            profiles, range(len(profiles)), spec, unit, line_alternatives
        )
    sums, comps = np.zeros(max(size, 64)), np.zeros(max(size, 64))
    n = 0
    if size:
        data, starts = _affine_pack(profiles, inline)
        order = np.argsort(groups[:, 0], kind="stable")
        first = np.searchsorted(groups[order, 0], np.arange(len(profiles) + 1))
        n = _combine_affine(
            groups, group_p, order, first, data, starts, np.array(inline, dtype=np.int64), m, mw, unit, total,
            low, n_keys, sums, comps,
        )  # fmt: skip
        groups, group_p = groups[np.isin(groups[:, 0], others)], group_p[np.isin(groups[:, 0], others)]
    wins, keys, sums, comps, n_rest = _combine(
        groups, group_p, law_lo, law_hi, law_wins, law_p, low, n_keys, size, sums, comps
    )
    n += n_rest
    order = np.lexsort((keys, wins))
    bound = 6 * _U + 2 * n * _U * _U
    return DrawnLaw(
        wins[order],
        keys[order],
        (sums + comps)[order],
        unit,
        bound,
        len(profiles),
        terms,
        **key_fields(digits),
    )


def _window_pass(args: tuple, first_stops: int) -> tuple:
    """``(profiles, groups)``: :func:`_profiles` over the first reel's stops
    split among the cores (threads; the pass releases the GIL), the parts'
    profiles merged by their contents and their groups' counts added."""
    from concurrent.futures import ThreadPoolExecutor

    parts = max(1, min(os.cpu_count() or 1, first_stops))
    cuts = [first_stops * i // parts for i in range(parts + 1)]
    with ThreadPoolExecutor(parts) as pool:
        results = list(pool.map(lambda i: _profiles(*args, cuts[i], cuts[i + 1]), range(parts)))
    ids: dict = {}
    profiles: list = []
    blocks = []
    for data, starts, groups, clash in results:
        ensure(not clash, "drawnlaw.py: two draw profiles share a hash")
        local = []
        for i in range(len(starts) - 1):
            p = tuple(data[starts[i] : starts[i + 1]].tolist())
            if p not in ids:
                ids[p] = len(profiles)
                profiles.append(list(p))
            local.append(ids[p])
        if len(groups):
            blocks.append(np.column_stack((np.array(local, dtype=np.int64)[groups[:, 0]], groups[:, 1:])))
    if not blocks:
        return profiles, np.zeros((0, 4), dtype=np.int64)
    every = np.concatenate(blocks)
    uniq, inverse = np.unique(every[:, :3], axis=0, return_inverse=True)
    counts = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(counts, inverse.ravel(), every[:, 3])  # exact (int64)
    return profiles, np.column_stack((uniq, counts))


def _table_ints(spec) -> tuple:
    """``(m, mw, total, fits)``: the table's multipliers and weights reduced
    by their gcd, their total and the most cells ``u`` with ``total**u <=
    2**53`` (integer weights over ``total**u`` then convert exactly, so a
    probability's quotient is correctly rounded)."""
    weights = [w for _, w in spec.table]
    total = sum(weights) // gcd(*weights)
    fits = 0
    while total > 1 and fits < 64 and total ** (fits + 1) <= 2**53:
        fits += 1
    m = np.array([x for x, _ in spec.table], dtype=np.int64)
    return m, np.array(weights, dtype=np.int64) // gcd(*weights), total, fits if total > 1 else 64


def _affine_pack(profiles: list, pids: list) -> tuple:
    """``(data, starts)``: the profiles ``pids`` one after another."""
    data = np.array([x for i in pids for x in profiles[i]], dtype=np.int64)
    return data, np.cumsum([0] + [len(profiles[i]) for i in pids], dtype=np.int64)


def _profile_laws(profiles: list, pids: list, spec, unit: int, line_alternatives) -> tuple:
    """``(lo, hi, wins, probabilities)``: the laws (module notes) of the
    profiles ``pids``, each at ``lo[pid]:hi[pid]`` of the arrays [1/``unit``
    coins, probability]: in numba when its integer weights fit
    (:func:`_table_ints`), else in Python integers."""
    m, mw, total, fits = _table_ints(spec)
    lo, hi = np.zeros(len(profiles), dtype=np.int64), np.zeros(len(profiles), dtype=np.int64)
    affine = [i for i in pids if profiles[i][0] == 0 and profiles[i][1] <= fits]
    data, starts = _affine_pack(profiles, affine)
    lengths, wins, probs = _affine_laws(
        data, starts, np.arange(len(affine), dtype=np.int64), m, mw, unit, total
    )
    ends = np.cumsum(lengths)
    lo[affine], hi[affine] = ends - lengths, ends
    more_w, more_p, used = [wins], [probs], len(wins)
    for i in pids:
        p = profiles[i]
        if p[0] == 0 and p[1] <= fits:
            continue
        law = _mixed_law(p, spec, line_alternatives, m, mw, fits) if spec.combine == "add" and p[0] else None
        if law is None:
            exact, u = _profile_law(p, spec, line_alternatives)
            v = np.array(sorted(exact), dtype=np.int64)
            q = [exact[x] / spec.total**u for x in v.tolist()]  # correctly rounded (int / int)
        else:
            v, w, u = law
            q = w.astype(np.float64) / float(total**u)  # both exact (<= 2**53): correctly rounded
        more_w.append(v * unit)
        more_p.append(np.asarray(q, dtype=np.float64))
        lo[i], hi[i] = used, used + len(v)
        used += len(v)
    return lo, hi, np.concatenate(more_w).astype(np.int64), np.concatenate(more_p).astype(np.float64)


def _mixed_law(profile: list, spec, line_alternatives, m: np.ndarray, mw: np.ndarray, fits: int):
    """``(values [coins], integer weights, u)`` of a profile with mixed lines
    (``combine: add``): every draw of the mixed lines' cells (:func:`_mixed`),
    convolved with the other cells' affine law; None when ``u`` cells exceed
    ``fits``."""
    n, items = profile[1], profile[2:]
    coef: dict = {}
    mixed_lines = []
    for i in range(n):
        a, b = items[2 * i], items[2 * i + 1]
        if a >= 0:
            for c in _set_bits(b):
                coef[c] = coef.get(c, 0) + a
        else:
            mixed_lines.append(line_alternatives(-1 - a, b))
    cells = sorted({c for alts in mixed_lines for _, cs in alts for c in cs})
    rest = sorted(coef[c] for c in coef if c not in cells and coef[c])
    if len(cells) + len(rest) > fits:
        return None
    at = {c: k for k, c in enumerate(cells)}
    alt_start = np.cumsum([0] + [len(alts) for alts in mixed_lines]).astype(np.int64)
    alt_f = np.array([f for alts in mixed_lines for f, _ in alts], dtype=np.int64)
    alt_mask = np.array(
        [sum(1 << at[c] for c in cs) for alts in mixed_lines for _, cs in alts], dtype=np.int64
    )
    v1, w1 = _mixed(
        np.array([coef.get(c, 0) for c in cells], dtype=np.int64), alt_start, alt_f, alt_mask, m, mw
    )
    v2, w2 = _affine(np.array(rest, dtype=np.int64), m, mw)
    v, w = _convolve(v1, w1, v2, w2)
    return v, w, len(cells) + len(rest)


def drawn_spin_law(game: Game, level: int, reel_set: str = "base") -> tuple:
    """``(law, bound)``: the law of the spin win of ``reel_set``
    (:func:`drawn_keyed_law`'s, its keys summed: :meth:`DrawnLaw.marginal`)
    as a :class:`~slotmath.engine.distribution.WinDistribution` [float64] and
    the relative error bound of each probability."""
    return drawn_keyed_law(game, level, reel_set).marginal(game.bet(level).total_bet)


#: relative tolerance [x mean] of the check of a drawn free spin's mean with
#: a feature's award in it against the exact one, beyond the law's stated
#: bound: the award laws' float rounding (a hold-and-spin's chain, FFT grids)
AWARD_MEAN_TOLERANCE = 1e-9


def drawn_free_table(
    game: Game, level: int, spec, drawn_rtp: Fraction | None = None, law=None, held=None
) -> tuple:
    """A free spin of ``spec`` (:class:`~slotmath.features.options.FreeGamesSpec`,
    played on its reel set ``spec.reels``) with its drawn multipliers:
    ``(d, table, unit)``, ``d`` the exact shift of its mean win the draws
    give [x total bet] (the channel's RTP of the free reel set with the
    draws, from the law of the counted wilds, ``drawn_rtp``, less the one
    without), ``table`` the float law of (win [1/``unit`` coins], extra
    games) from ``law`` (a :class:`DrawnLaw` keyed by the free games'
    trigger key, :attr:`~slotmath.features.options.FreeGamesSpec.trigger`,
    and ``held``'s when given, whose scatters pay only when
    ``spec.scatter_pays``), the win with the retrigger prize of the count
    that key awards by (:meth:`~slotmath.features.options.FreeGamesSpec.count_of`)
    and, with ``held`` (a :class:`~slotmath.features.round.Feature` a free
    game's window starts: a wheel or a hold-and-spin in the free games), its
    award law from its key [each probability within its bound], its mean
    checked against the exact one within that bound (and
    :data:`AWARD_MEAN_TOLERANCE` with ``held``).  ``drawn_rtp`` and ``law``
    default to the line ones (:func:`drawn_keyed_law`); on ways
    :func:`slotmath.features.drawnwayslaw.drawn_free_spin_table` gives them."""
    from dataclasses import replace

    from slotmath.engine.payrule import pay_rule
    from slotmath.features.freespin import award_group, awards_added
    from slotmath.features.round import trigger_key_probability

    undrawn = replace(game, options={k: v for k, v in game.options.items() if k != "wild_multipliers"})
    reels, bet = spec.reels, game.bet(level).total_bet
    if drawn_rtp is None or law is None:
        from slotmath.features.wilddraws import drawn_line_figures

        drawn_rtp = drawn_line_figures(game, level, reels).rtp
        law = drawn_keyed_law(game, level, reels, free_spin_key(spec, held), spec.scatter_pays)
    d = drawn_rtp - pay_rule(undrawn).channel_rtp(undrawn, level, reels)[0]
    keys = law.key_items()
    free_keys = keys if held is None else [k[0] for k in keys]
    prize = {k: spec.retrigger_prize(spec.count_of(k)) * bet for k in set(free_keys)}  # [coins]
    unit = lcm(law.unit, *(Fraction(p).denominator for p in prize.values()))
    wins = law.wins * (unit // law.unit) + np.array([int(prize[k] * unit) for k in free_keys], dtype=np.int64)
    extra = np.array([spec.retrigger_games(spec.count_of(k)) for k in free_keys], dtype=np.int64)
    # the exact mean with the draws: the undrawn spin's lines (and scatters when they pay), plus d,
    # plus the prizes, plus the held feature's mean award
    key_p = trigger_key_probability(undrawn, spec.trigger, reels)
    prizes = sum((q * spec.retrigger_prize(spec.count_of(k)) for k, q in key_p.items()), Fraction(0))
    exact = pay_rule(undrawn).channel_rtp(undrawn, level, reels)[0] + d + prizes
    if spec.scatter_pays:
        exact += _scatter_mean(undrawn, level, reels)
    tolerance = 4 * law.bound * float(exact) + 1e-15
    if held is None:
        width = int(extra.max(initial=0)) + 1
        table = np.zeros((int(wins.max()) + 1, width))
        np.add.at(table, (wins, extra), law.probabilities)
    else:
        groups: dict = {}  # award group -> (its index, a key of it)
        at = {k: award_group(held, k, groups) for k in {k[1] for k in keys}}  # held key -> group (-1: none)
        g = np.array([at[k[1]] for k in keys], dtype=np.int64)
        laws = [held.award(k) for _, k in groups.values()]
        table, unit = awards_added(wins, extra, g, law.probabilities, unit, laws)
        held_p = trigger_key_probability(undrawn, held.trigger, reels)
        exact += sum((q * held.mean(k) for k, q in held_p.items() if held.triggers(k)), Fraction(0))
        tolerance += AWARD_MEAN_TOLERANCE * float(exact)
    mean = float(np.dot(np.arange(table.shape[0], dtype=float), table.sum(axis=1))) / (unit * bet)
    ensure(
        abs(mean - float(exact)) <= tolerance,
        f"drawnlaw.py: the drawn free spin's mean {mean!r} is not its exact {float(exact)!r}",
    )
    return d, table, unit


def free_spin_key(spec, held=None):
    """The key of a drawn free spin's law (:func:`key_codes`): the free
    games' trigger, and ``held``'s (a feature a free game's window starts)
    beside it when given."""
    return spec.trigger if held is None else (spec.trigger, held.trigger)


def _scatter_mean(game: Game, level: int, reel_set: str) -> Fraction:
    """Mean scatter win of one spin of ``reel_set`` [x total bet, exact]."""
    from slotmath.engine.combinations import combination_table

    table = combination_table(game, level, reel_set, pay_rows=[])  # the scatter rows alone
    return sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
