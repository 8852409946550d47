"""Spin-win law of a ways reel set with drawn wild multipliers, without
writing the draws into the stops (``options.wild_multipliers`` on
``pays_by: ways`` whose rewrite leaves the engine's counts:
:func:`slotmath.features.wildmult.rewrite_refusal`), keyed by the free games'
trigger key (the trigger symbol's count, or per reel under a reel
condition: :func:`slotmath.features.drawnlaw.key_codes`; the base spin's
and the free spin's retrigger key), or by several triggers at once (a
wheel or a hold-and-spin beside the free games: the pay rules' joint key
codes); the round is built from it as on paylines
(:mod:`slotmath.features.drawnlaw`).

Rule (:mod:`slotmath.features.drawnways`): every drawn wild cell draws its
own multiplier ``m_c``; a way through drawn wilds is multiplied by the
product (``combine: multiply``) or the sum (``combine: add``; x1 without
one) of their draws, times the fixed multipliers of the other wilds on it.

Method: a window's draws matter only through the per-reel sums ``W_r``
(the drawn multipliers of reel ``r``'s drawn wild cells; ``W_r`` of ``k``
cells is the ``k``-fold convolution of the table).  For a paying symbol
``p`` with run ``n`` (its cells, drawn wilds included, on reels 1..n):

* ``multiply``: the multiplied ways are the ways of the run with each
  drawn wild cell counting its draw instead of 1, reel ``r`` counting
  ``c_r + W_r`` ways (``c_r`` the weighted other cells), the ``by_count``
  digits stepped as usual: a polynomial in ``W_1..W_n``;
* ``add``: the ways without a drawn wild count their fixed multiplier, the
  others the sum of their draws times it: with ``N``, ``Z`` and ``D`` per
  ``by_count`` digit (all ways, ways without a drawn wild, and the draws'
  sum over the ways with one), a reel of ``c`` other cells, ``d`` drawn
  wild cells and sum ``W`` steps ``N' = N (c + d)``, ``Z' = Z c``,
  ``D' = D (c + d) + N W`` (the ``by_count`` cells step the digit); the
  win is ``pay x sum_m factor[m] (Z[m] + D[m])``, affine in ``W_1..W_n``.

So the window's law is the law of a function of the independent ``W_r``
of the reels that show a drawn wild inside a paying run the drawn wild
substitutes in; that function is multilinear in those ``W_r`` (each reel
steps the ways linearly in its own ``W_r``), so its ``2**n`` integer
coefficients come once from its values on ``{0, 1}**n`` (Moebius) and
each draw value costs ``2**n`` products.  Each reel's stops are grouped
into classes (equal ways features, drawn wild cells, scatter and trigger
counts: the window's profile is the tuple of its reels' classes); the class
combinations are listed up to the reel where the last run ends, the reels
after it by their exact law of (scatter pay, trigger count) given the
scatters shown before (:func:`_suffix_laws`); each combination's fixed win
(the runs without a drawn wild) is computed once, and its law listed over
every value of those ``W_r`` (:func:`_law_pass`, numba).

Error: a probability is a sum of terms ``prod_r (class weight / reel
total) x P(suffix) x prod_r P(W_r = w)``, each factor correctly rounded
(the ``P(W_r = w)`` and the suffix's from exact Fractions), at most
``2 R + 1`` factors and ``2 R`` products (``(4 R + 1) u`` relative,
``u = 2**-53``), summed per (win, count) by Neumaier's compensated
summation of positive terms (``2 u + 2 n u**2``, ``n`` the terms): each
probability is within :attr:`~slotmath.features.drawnlaw.DrawnLaw.bound`
= ``(4 R + 3) u + 2 n u**2``.

Cost: :func:`drawn_ways_cost` terms (the class combinations up to the
reel where the last run ends, by the set of runs alive, times the values
of their ``W_r`` and the suffix's outcomes: an upper bound of the terms
listed), estimated before the pass and refused above
:data:`MAX_WAYS_TERMS` (:data:`~slotmath.features.drawnlaw.MAX_DRAWN_SECONDS`
at the measured :data:`WAYS_TERMS_PER_SECOND`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slotmath.engine.joint import group_stops
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.reels import pack_reels
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.engine.ways import compile_ways, stop_features
from slotmath.errors import ensure
from slotmath.features.drawnlaw import (
    MAX_DRAWN_SECONDS,
    DrawnLaw,
    drawn_free_table,
    free_spin_key,
    key_codes,
    key_fields,
    neumaier_add,
)
from slotmath.features.wildmult import load_wild_multipliers
from slotmath.model import Game

__all__ = [
    "MAX_WAYS_TERMS",
    "WAYS_TERMS_PER_SECOND",
    "drawn_free_spin_table",
    "drawn_ways_cost",
    "drawn_ways_law",
]

#: the law pass's measured rate [terms (class combination x draw value x suffix outcome) / s,
#: one core of the loaded 2-core machine: 2.3e8 terms in 93 s on a 5 x 3 243-ways game]
WAYS_TERMS_PER_SECOND = 2.5e6
#: most terms :func:`drawn_ways_law` lists
MAX_WAYS_TERMS = int(MAX_DRAWN_SECONDS * WAYS_TERMS_PER_SECOND)
#: most (start reel, prefix scatter counts) codes of the suffix laws
MAX_SCATTER_CODES = 2**20
#: largest win [win units] a term may reach (int64 with room)
_MAX_UNITS = 2**62
_U = 2.0**-53
_POINT = types.UniTuple(types.int64, 2)  # (win, trigger count)


@dataclass(frozen=True)
class _Classes:
    """Each reel's stop classes, padded to the largest reel's count ``J``."""

    n: np.ndarray  # (R,) classes per reel
    feat: np.ndarray  # (R, J, P x F) ways features, the drawn wild's cells not counted
    drawn: np.ndarray  # (R, J) drawn wild cells
    scat: np.ndarray  # (R, J, Q) each paid scatter symbol's cells
    key: np.ndarray  # (R, J) the trigger key's code (drawnlaw.key_codes)
    prob: np.ndarray  # (R, J) class weight / reel total [probability, correctly rounded]
    weight: list  # per reel, the classes' weights (exact ints)


def _classes(game: Game, level: int, reel_set: str, key, paid: bool = True) -> tuple:
    """(:class:`_Classes`, ways pays, substitutes (P,), key digits) of
    ``reel_set``, keyed by ``key`` (:func:`~slotmath.features.drawnlaw.key_codes`),
    the scatters counted when they pay (``paid``)."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnwayslaw.py: expected spec is not None")
    wp = compile_ways(game, level)
    drawn = game.symbol_index[spec.symbol]
    ensure(
        set(wp.weight[drawn].tolist()) <= {0, 1} and (wp.digit[drawn] < 0).all(),
        "drawnwayslaw.py: the drawn wild counts one way per cell",
    )
    subst = (wp.weight[drawn] > 0).astype(np.int64)
    win, weights, n_stops = pack_reels(game, reel_set)
    R, P, F = game.reels, len(wp.symbols), 1 + wp.step.shape[1]
    scatters = [game.symbol_index[s] for s in scatter_symbols(game)] if paid else []
    codes, digits = key_codes(game, reel_set, key)
    parts = []
    for k in range(R):
        cells = win[k, : n_stops[k]]
        d = (cells == drawn).sum(axis=1)
        feat = stop_features(wp, cells)
        feat[:, 0::F] -= d[:, None] * subst[None, :]  # the drawn wild's cells apart
        sc = np.zeros((len(cells), len(scatters)), dtype=np.int64)
        for q, s in enumerate(scatters):
            sc[:, q] = (cells == s).sum(axis=1)
        kc = codes[k]
        uniq, _, w = group_stops(
            np.column_stack([feat, d, sc, kc]).astype(np.int64), weights[k, : n_stops[k]]
        )
        parts.append((uniq, [int(x) for x in w.tolist()]))
    J = max(len(u) for u, _ in parts)
    Q = len(scatters)
    out = _Classes(
        np.array([len(u) for u, _ in parts], dtype=np.int64),
        np.zeros((R, J, P * F), dtype=np.int64),
        np.zeros((R, J), dtype=np.int64),
        np.zeros((R, J, Q), dtype=np.int64),
        np.zeros((R, J), dtype=np.int64),
        np.zeros((R, J), dtype=np.float64),
        [w for _, w in parts],
    )
    for k, (uniq, w) in enumerate(parts):
        j = len(uniq)
        out.feat[k, :j] = uniq[:, : P * F]
        out.drawn[k, :j] = uniq[:, P * F]
        out.scat[k, :j] = uniq[:, P * F + 1 : P * F + 1 + Q]
        out.key[k, :j] = uniq[:, P * F + 1 + Q]
        out.prob[k, :j] = [x / sum(w) for x in w]  # Python ints: correctly rounded
    return out, wp, subst, digits


def _suffix_laws(cls: _Classes, sc_units: np.ndarray) -> tuple:
    """``(suf_n, suf_w, suf_k, suf_p)``: for each reel ``k = 0..R`` and each
    scatter count vector ``c`` of reels ``0..k-1`` (code ``sum_q c_q x
    (cells + 1)**q``), the law of (scatter pay [units], trigger count) that
    reels ``k..R-1`` add to it: ``suf_w[k, code, i]``, ``suf_k[k, code, i]``,
    probabilities ``suf_p`` (exact integer weights over the reels' cycle,
    equal outcomes merged, correctly rounded)."""
    R, Q = cls.scat.shape[0], cls.scat.shape[2]
    cells = sc_units.shape[1] - 1
    codes = (cells + 1) ** Q
    if codes * (R + 1) > MAX_SCATTER_CODES:
        raise EngineTooLarge(
            f"the ways law with drawn wild multipliers: {Q} paid scatter symbols' counts take {codes:,} "
            f"values, above {MAX_SCATTER_CODES:,}"
        )
    laws = [{(0,) * (Q + 1): 1}]
    totals = [1]
    for k in range(R - 1, -1, -1):
        law: dict = {}
        for j, w in enumerate(cls.weight[k]):
            row = (*cls.scat[k, j].tolist(), int(cls.key[k, j]))
            for c, x in laws[0].items():
                at = tuple(a + b for a, b in zip(row, c, strict=True))
                law[at] = law.get(at, 0) + w * x
        laws.insert(0, law)
        totals.insert(0, totals[0] * sum(cls.weight[k]))
    merged: dict = {}
    for k, law in enumerate(laws):
        for code in range(codes):
            pc = [(code // (cells + 1) ** q) % (cells + 1) for q in range(Q)]
            out: dict = {}
            for c, x in law.items():
                if any(pc[q] + c[q] > cells for q in range(Q)):
                    break  # a prefix count no window reaches
                pay = sum(int(sc_units[q, pc[q] + c[q]]) for q in range(Q))
                out[(pay, c[Q])] = out.get((pay, c[Q]), 0) + x
            else:
                merged[(k, code)] = [
                    (pay, key, Fraction(x, totals[k]).__float__()) for (pay, key), x in out.items()
                ]
    S = max(len(v) for v in merged.values())
    suf_n = np.zeros((R + 1, codes), dtype=np.int64)
    suf_w = np.zeros((R + 1, codes, S), dtype=np.int64)
    suf_k = np.zeros((R + 1, codes, S), dtype=np.int64)
    suf_p = np.zeros((R + 1, codes, S), dtype=np.float64)
    for (k, code), items in merged.items():
        suf_n[k, code] = len(items)
        for i, (pay, key, x) in enumerate(sorted(items)):
            suf_w[k, code, i], suf_k[k, code, i], suf_p[k, code, i] = pay, key, x
    return suf_n, suf_w, suf_k, suf_p


def _sum_laws(table: dict, cells: int) -> tuple:
    """``(values, probabilities, counts)``: the law of the sum of ``k``
    independent draws of ``table`` ({multiplier: weight}) for ``k = 0..cells``,
    padded arrays (probabilities from exact Fractions, correctly rounded)."""
    total = sum(table.values())
    laws = [{0: Fraction(1)}]
    for _ in range(cells):
        nxt: dict = {}
        for s, p in laws[-1].items():
            for m, w in table.items():
                nxt[s + m] = nxt.get(s + m, 0) + p * Fraction(w, total)
        laws.append(nxt)
    V = max(len(law) for law in laws)
    values = np.zeros((cells + 1, V), dtype=np.int64)
    probs = np.zeros((cells + 1, V), dtype=np.float64)
    for k, law in enumerate(laws):
        for i, (s, p) in enumerate(sorted(law.items())):
            values[k, i], probs[k, i] = s, float(p)
    return values, probs, np.array([len(law) for law in laws], dtype=np.int64)


def _scatter_units(game: Game, level: int, paid: bool = True) -> tuple:
    """``(unit, sc_units)``: win units per coin (the scatter pays' common
    denominator) and each paid scatter symbol's pay by its count in the
    window [units] (none when the scatters do not pay, ``paid`` False)."""
    bet, cells = game.bet(level).total_bet, game.reels * game.rows
    scatters = scatter_symbols(game) if paid else []
    pays = [[scatter_pay(game, s, c) * bet for c in range(cells + 1)] for s in scatters]
    unit = lcm(1, *(Fraction(p).denominator for row in pays for p in row))
    sc_units = np.array([[int(p * unit) for p in row] for row in pays], dtype=np.int64)
    return unit, sc_units.reshape(len(scatters), cells + 1)


def _table(spec) -> dict:
    """{multiplier: weight} of the declared table."""
    out: dict = {}
    for m, w in spec.table:
        out[int(m)] = out.get(int(m), 0) + int(w)
    return out


def drawn_ways_cost(game: Game, reel_set: str = "base", key=None, scatters: bool = True) -> int:
    """Terms :func:`drawn_ways_law` lists on ``reel_set`` at most: over the
    class combinations up to the reel where the last run ends (the set of
    runs still alive carried reel by reel), the values of the drawn sums
    ``W_r`` of their reels (1 without a drawn wild) times the scatter
    counts (when ``scatters`` pay) and trigger keys (of ``key``,
    :func:`~slotmath.features.drawnlaw.key_codes`) of the reels after it."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnwayslaw.py: expected spec is not None")
    cls, wp, subst, _ = _classes(game, game.levels[0], reel_set, key, scatters)
    n_values = _sum_laws(_table(spec), game.rows)[2].tolist()
    suf_n = _suffix_laws(cls, _scatter_units(game, game.levels[0], scatters)[1])[0].max(axis=1).tolist()
    R, P = game.reels, len(wp.symbols)
    F = cls.feat.shape[2] // P if P else 1
    states, terms = {(1 << P) - 1: 1}, 0  # alive runs (bits) -> prefixes x draw values
    for k in range(R):
        nxt: dict = {}
        for j in range(int(cls.n[k])):
            d = int(cls.drawn[k, j])
            cells = cls.feat[k, j].reshape(P, F).sum(axis=1) + d * subst if P else np.zeros(0)
            present = sum(1 << p for p in range(P) if cells[p] > 0)
            mult = n_values[d]
            for alive, c in states.items():
                a = alive & present
                if a == 0 or k == R - 1:
                    terms += c * mult * suf_n[k + 1]
                else:
                    nxt[a] = nxt.get(a, 0) + c * mult
        states = nxt
    return terms


def drawn_ways_law(
    game: Game, level: int, reel_set: str = "base", key=None, scatters: bool = True
) -> DrawnLaw:
    """Joint law of the spin win (ways, and scatters unless ``scatters`` is
    False: free games with ``scatter_pays: false``) of ``reel_set`` with the
    drawn multipliers of every drawn wild cell of the window, and the
    trigger key ``key`` (:func:`~slotmath.features.drawnlaw.key_codes`: a
    Trigger, a symbol's count, or None: 0) [float64, each probability
    within :attr:`~slotmath.features.drawnlaw.DrawnLaw.bound`; module notes].
    Refused (:class:`~slotmath.engine.limits.EngineTooLarge`) above
    :data:`MAX_WAYS_TERMS` terms or a win beyond int64."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnwayslaw.py: expected spec is not None")
    cost = drawn_ways_cost(game, reel_set, key, scatters)
    if cost > MAX_WAYS_TERMS:
        raise EngineTooLarge(
            f"{game.name}: the ways law with drawn wild multipliers of reel set {reel_set!r} would list "
            f"{cost:.3g} terms, above {MAX_WAYS_TERMS:.2g} ({MAX_DRAWN_SECONDS} s at "
            f"{WAYS_TERMS_PER_SECOND:.2g} a second)"
        )
    cls, wp, subst, digits = _classes(game, level, reel_set, key, scatters)
    table = _table(spec)
    values, probs, n_values = _sum_laws(table, game.rows)
    R, cells = game.reels, game.reels * game.rows
    unit, sc_units = _scatter_units(game, level, scatters)
    # the largest win: every reel's cells all counting the largest weight, the largest digit factor
    fixed = int(wp.weight.max(initial=1))
    widest = max(max(table), fixed) if spec.combine == "multiply" else fixed
    top = (
        int(wp.pay.max(initial=0)) * unit * (game.rows * widest) ** R * int(wp.factor.max()) * len(wp.symbols)
    )
    top *= R * max(table) if spec.combine == "add" else 1
    top += int(sc_units.max(axis=1).sum()) if len(sc_units) else 0
    if top >= _MAX_UNITS:
        raise EngineTooLarge(
            f"{game.name}: the ways law with drawn wild multipliers: a win could reach {top:.3g} units, "
            "beyond the int64 pass"
        )
    wins, keys, sums, comps, n, terms, combos = _law_pass(
        cls.n, cls.feat, cls.drawn, cls.scat, cls.key, cls.prob, subst, wp.pay * unit,
        wp.step, wp.factor, values, probs, n_values, cells + 1, spec.combine == "add",
        *_suffix_laws(cls, sc_units),
    )  # fmt: skip
    ensure(terms <= cost, "drawnwayslaw.py: more terms than the estimate")
    order = np.lexsort((keys[:n], wins[:n]))
    bound = (4 * R + 3) * _U + 2 * terms * _U**2
    return DrawnLaw(
        wins[:n][order],
        keys[:n][order],
        (sums[:n] + comps[:n])[order],
        unit,
        bound,
        int(combos),
        int(terms),
        **key_fields(digits),
    )


def drawn_free_spin_table(game: Game, level: int, spec, held=None) -> tuple:
    """:func:`~slotmath.features.drawnlaw.drawn_free_table` of a free spin
    of ``spec`` on paylines or ways (``held``: the feature its window
    starts, or None): on ways from the exact ways RTP with the draws
    (:func:`slotmath.features.drawnways.drawn_ways_figures`) and
    :func:`drawn_ways_law` keyed by the free games' trigger key (and
    ``held``'s: :func:`~slotmath.features.drawnlaw.free_spin_key`), its
    scatters paid when ``spec.scatter_pays``."""
    from slotmath.engine.payrule import pay_rule

    if pay_rule(game).has_paylines:
        return drawn_free_table(game, level, spec, held=held)
    from slotmath.features.drawnways import drawn_ways_figures

    rtp = drawn_ways_figures(game, level, spec.reels).rtp
    law = drawn_ways_law(game, level, spec.reels, free_spin_key(spec, held), spec.scatter_pays)
    return drawn_free_table(game, level, spec, rtp, law, held)


@nb.njit(cache=True)
def _run_ways(f, d, w, n, subst, step, factor, add, a, b, c, a2, b2, c2):
    """Multiplied ways of a run of ``n`` reels of one symbol: ``f`` (R, 1 + B)
    its features per reel (the drawn wild's cells apart), ``d`` (R,) the
    drawn wild cells, ``w`` (R,) their draws' sums; ``subst`` whether the
    drawn wild substitutes.  ``a, b, c`` (and the ``2`` copies) scratch (M,)."""
    M, B = factor.shape[0], step.shape[1]
    a[:] = 0
    b[:] = 0
    c[:] = 0
    a[0] = 1  # multiply: the ways; add: N (every way's fixed multiplier)
    b[0] = 1  # add: Z (the ways without a drawn wild)
    for r in range(n):
        dd = d[r] * subst
        wr = w[r] * subst
        a2[:] = 0
        b2[:] = 0
        c2[:] = 0
        for m in range(M):
            if add:
                a2[m] += a[m] * (f[r, 0] + dd)
                b2[m] += b[m] * f[r, 0]
                c2[m] += c[m] * (f[r, 0] + dd) + a[m] * wr
            else:
                a2[m] += a[m] * (f[r, 0] + wr)
            for k in range(B):
                v = f[r, 1 + k]
                if v > 0:
                    s = step[m, k]
                    a2[s] += a[m] * v
                    b2[s] += b[m] * v
                    c2[s] += c[m] * v
        a[:] = a2
        b[:] = b2
        c[:] = c2
    t = 0
    for m in range(M):
        t += factor[m] * (b[m] + c[m] if add else a[m])
    return t


@nb.njit(cache=True, inline="always")
def _add_point(index, wins, keys, sums, comps, n, win, key, x):
    """Add ``x`` to the (win, key) entry (Neumaier); grows the arrays."""
    k = (win, key)
    if k in index:
        i = index[k]
    else:
        if n == wins.shape[0]:
            wins = np.concatenate((wins, np.zeros(n, dtype=np.int64)))
            keys = np.concatenate((keys, np.zeros(n, dtype=np.int64)))
            sums = np.concatenate((sums, np.zeros(n)))
            comps = np.concatenate((comps, np.zeros(n)))
        i = n
        index[k] = i
        wins[i], keys[i] = win, key
        n += 1
    neumaier_add(sums, comps, i, x)
    return wins, keys, sums, comps, n


@nb.njit(cache=True, inline="always")
def _add_suffix(index, wins, keys, sums, comps, n, win, key, x, m, suf_w, suf_k, suf_p):
    """Add a prefix's point (``win``, ``key``, probability ``x``) joined with
    each of the ``m`` points of its suffix law (``suf_w, suf_k, suf_p``)."""
    for t in range(m):
        wins, keys, sums, comps, n = _add_point(
            index, wins, keys, sums, comps, n, win + suf_w[t], key + suf_k[t], x * suf_p[t]
        )
    return wins, keys, sums, comps, n


@nb.njit(cache=True)
def _law_pass(
    n_cls, feat, drawn, scat, keyc, prob, subst, pay, step, factor, values, probs, n_values, radix, add,
    suf_n, suf_w, suf_k, suf_p,
):  # fmt: skip
    """Every class combination of the reels up to the reel where the last
    run ends (the reels after it by their law of scatter and trigger counts
    ``suf_n, suf_w, suf_k, suf_p``, :func:`_suffix_laws`, by the prefix's
    scatter counts in base ``radix``), and for each every value
    of the drawn sums ``W_r`` of the reels that show a drawn wild inside a
    paying run it substitutes in: ``(wins, keys, sums, comps, n, terms,
    combos)``, the law of (win [units], trigger count) by Neumaier sums."""
    R = n_cls.shape[0]
    P = pay.shape[0]
    F = feat.shape[2] // P if P > 0 else 1
    M = factor.shape[0]
    Q = scat.shape[2]
    index = Dict.empty(_POINT, types.int64)
    wins = np.zeros(1024, dtype=np.int64)
    keys = np.zeros(1024, dtype=np.int64)
    sums = np.zeros(1024)
    comps = np.zeros(1024)
    n = 0
    terms = 0
    combos = 0
    idx = np.zeros(R, dtype=np.int64)
    g = np.zeros(R, dtype=np.int64)
    w = np.zeros(R, dtype=np.int64)
    d = np.zeros(R, dtype=np.int64)
    rel = np.zeros(R, dtype=np.bool_)
    run = np.zeros(P, dtype=np.int64)
    touched = np.zeros(P, dtype=np.bool_)
    f = np.zeros((R, F), dtype=np.int64)
    scratch = np.zeros((6, M), dtype=np.int64)
    at = np.zeros(R, dtype=np.int64)
    coef = np.zeros(1 << R, dtype=np.int64)
    mono = np.zeros(1 << R, dtype=np.int64)
    while True:
        combos += 1
        for r in range(R):
            d[r] = drawn[r, idx[r]]
            w[r] = 0
            rel[r] = False
        fixed = 0
        any_t = False
        last = 0  # the reel where the last run ends (R - 1 when one reaches the last reel)
        for p in range(P):
            k = 0
            while k < R:
                cells = d[k] * subst[p]
                for j in range(F):
                    f[k, j] = feat[k, idx[k], p * F + j]
                    cells += f[k, j]
                if cells == 0:
                    break
                k += 1
            run[p] = k
            last = max(last, min(k, R - 1))
            touched[p] = False
            if pay[p, k] == 0:
                continue
            if subst[p]:
                for r in range(k):
                    if d[r] > 0:
                        touched[p] = True
                        rel[r] = True
            if touched[p]:
                any_t = True
            else:
                fixed += pay[p, k] * _run_ways(
                    f, d, w, k, subst[p], step, factor, add,
                    scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5],
                )  # fmt: skip
        # the reels after ``last`` only add scatters and trigger symbols: their law
        cp = 1.0
        key = 0
        code = 0
        for r in range(last + 1):
            cp *= prob[r, idx[r]]
            key += keyc[r, idx[r]]
        for q in range(Q - 1, -1, -1):
            cnt = 0
            for r in range(last + 1):
                cnt += scat[r, idx[r], q]
            code = code * radix + cnt
        s0 = last + 1
        if not any_t:
            wins, keys, sums, comps, n = _add_suffix(
                index, wins, keys, sums, comps, n, fixed, key, cp, suf_n[s0, code], suf_w[s0, code],
                suf_k[s0, code], suf_p[s0, code],
            )  # fmt: skip
            terms += suf_n[s0, code]
        else:
            # the touched runs' win is multilinear in the W_r of the reels in
            # rel: its coefficients from its values on {0, 1}**nr (Moebius)
            nr = 0
            for r in range(R):
                if rel[r]:
                    at[nr] = r
                    nr += 1
            for mask in range(1 << nr):
                for i in range(nr):
                    w[at[i]] = (mask >> i) & 1
                v = 0
                for p in range(P):
                    if touched[p]:
                        for r in range(run[p]):
                            for j in range(F):
                                f[r, j] = feat[r, idx[r], p * F + j]
                        v += pay[p, run[p]] * _run_ways(
                            f, d, w, run[p], subst[p], step, factor, add,
                            scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5],
                        )  # fmt: skip
                coef[mask] = v
            for i in range(nr):
                for mask in range(1 << nr):
                    if mask & (1 << i):
                        coef[mask] -= coef[mask ^ (1 << i)]
            for i in range(nr):
                g[i] = 0
            while True:
                x = cp
                mono[0] = 1
                win = fixed + coef[0]
                for i in range(nr):
                    x *= probs[d[at[i]], g[i]]
                    wi = values[d[at[i]], g[i]]
                    for mask in range(1 << i, 1 << (i + 1)):
                        mono[mask] = mono[mask ^ (1 << i)] * wi
                        win += coef[mask] * mono[mask]
                wins, keys, sums, comps, n = _add_suffix(
                    index, wins, keys, sums, comps, n, win, key, x, suf_n[s0, code], suf_w[s0, code],
                    suf_k[s0, code], suf_p[s0, code],
                )  # fmt: skip
                terms += suf_n[s0, code]
                i = nr - 1
                while i >= 0:
                    g[i] += 1
                    if g[i] < n_values[d[at[i]]]:
                        break
                    g[i] = 0
                    i -= 1
                if i < 0:
                    break
        for r in range(last + 1, R):
            idx[r] = n_cls[r] - 1  # listed by the suffix law
        r = R - 1
        while r >= 0:
            idx[r] += 1
            if idx[r] < n_cls[r]:
                break
            idx[r] = 0
            r -= 1
        if r < 0:
            break
    return wins, keys, sums, comps, n, terms, combos
