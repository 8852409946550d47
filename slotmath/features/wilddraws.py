"""Exact line figures of drawn wild multipliers from the law of the counted
wilds on each line (``options.wild_multipliers``; no rewrite of the reels).

Imported by the computations only (numba): the declaration and its checks
are :mod:`slotmath.features.wildmult`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import prod

import numba as nb
import numpy as np

from slotmath.engine.combinations import combination_row, line_profiles, tuple_weights
from slotmath.engine.lines import compile_pays, count_of, tuple_digits, wild_factor
from slotmath.errors import ensure
from slotmath.features.wildmult import WildMultipliers, load_wild_multipliers
from slotmath.model import Game

__all__ = [
    "DrawnLines",
    "count_law",
    "count_mean",
    "drawn_labels",
    "drawn_line_figures",
    "line_candidates",
    "tuple_labels",
]


# ===========================================================================
# the exact line figures from the law of the counted wilds (no rewrite)
# ===========================================================================
@nb.njit(cache=True)
def line_candidates(x, rule, drawn):
    """Every pay-table entry one line ``x`` (symbol indices) matches, with the
    drawn wild ``drawn`` left undrawn: ``(fixed[E], counted[E])``, ``fixed[e]``
    the entry's pay times the other wild kinds' factor [coins] (0: no match)
    and ``counted[e]`` the bit mask of the line positions whose drawn wilds
    it counts (those :func:`slotmath.engine.lines.line_pay` counts)."""
    natural, substitute, length, anywhere, exactly = rule[:5]
    pay, own_multiplied, wild_kind, mult_table, add_table = rule[5:]
    E, R = pay.shape[0], x.shape[0]
    fixed = np.zeros(E, dtype=np.int64)
    counted = np.zeros(E, dtype=np.int64)
    counts = np.zeros(mult_table.shape[0], dtype=np.int64)
    dk = wild_kind[drawn]
    for e in range(E):
        if pay[e] <= 0:
            continue
        if anywhere[e] >= 0:
            if count_of(x, R, anywhere[e]) == exactly[e]:
                fixed[e] = pay[e]
            continue
        n = length[e]
        if n > R:
            continue
        counts[:] = 0
        mask = 0
        ok = True
        for i in range(n):
            s = x[i]
            hit = False
            if natural[e, i, s]:
                hit = own_multiplied[e] and wild_kind[s] >= 0
            elif substitute[e, i, s]:
                hit = True
            else:
                ok = False
                break
            if hit:
                if wild_kind[s] == dk:
                    mask |= 1 << i
                else:
                    counts[wild_kind[s]] += 1
        if ok:
            fixed[e] = pay[e] * wild_factor(counts, mult_table, add_table)
            counted[e] = mask
    return fixed, counted


@nb.njit(cache=True)
def _bits(mask) -> int:
    c = 0
    while mask:
        c += mask & 1
        mask >>= 1
    return c


@nb.njit(cache=True)
def _subset(a, b) -> bool:
    """Bit mask ``a`` within ``b``."""
    return a & b == a


@nb.njit(parallel=True, cache=True)
def drawn_labels(S, R, rule, drawn, lo, hi):
    """Per symbol tuple (C order) the entry that pays it whatever the draws,
    its fixed pay [coins], its counted drawn wilds (their number and the
    bit mask of their line positions), or ``mixed``.

    ``lo[k]``, ``hi[k]``: least and largest multiplier ``k`` counted drawn
    wilds give (float64: only compared).  The entry ``e`` with the largest
    ``fixed x lo[k]`` (the first on a tie) pays every draw when every other
    matching entry ``f`` pays at most as much for every draw: ``f`` counts
    the same wilds or a subset of them at a pay not above ``e``'s, or its
    largest win is below ``e``'s least (a tie goes to the earlier entry, so
    an earlier ``f`` must stay strictly below).  Otherwise the tuple is
    ``mixed``: which entry pays depends on the draws.
    """
    block = S ** (R - 1)
    entry = np.full(S * block, -1, dtype=np.int64)
    fixed = np.zeros(S * block, dtype=np.int64)
    k_of = np.zeros(S * block, dtype=np.int64)
    mixed = np.zeros(S * block, dtype=np.bool_)
    mask = np.zeros(S * block, dtype=np.int64)
    for first in nb.prange(S):
        x = np.zeros(R, dtype=np.int64)
        x[0] = first
        for j in range(block):
            tuple_digits(j, S, x)
            t = first * block + j
            a, c = line_candidates(x, rule, drawn)
            best, best_lo = -1, 0.0
            for e in range(a.shape[0]):
                if a[e] > 0 and a[e] * lo[_bits(c[e])] > best_lo:
                    best, best_lo = e, a[e] * lo[_bits(c[e])]
            if best < 0:
                continue
            sure = True
            for f in range(a.shape[0]):
                if f == best or a[f] == 0:
                    continue
                if _subset(c[f], c[best]) and (a[f] < a[best] or (a[f] == a[best] and f > best)):
                    continue
                top = a[f] * hi[_bits(c[f])]
                if top < best_lo or (top == best_lo and f > best):
                    continue
                sure = False
                break
            if sure:
                entry[t], fixed[t], k_of[t], mask[t] = best, a[best], _bits(c[best]), c[best]
            else:
                mixed[t] = True
    return entry, fixed, k_of, mixed, mask


def count_law(spec: WildMultipliers, k: int) -> dict:
    """Law of the line multiplier ``k`` counted wilds give: ``{multiplier:
    probability}``, the ``k``-fold sum (``add``) or product (``multiply``)
    of independent draws of the table (x1 for ``k = 0``)."""
    law = {1: Fraction(1)}
    if k == 0:
        return law
    one = {m: Fraction(w, spec.total) for m, w in spec.table}
    law = dict(one)
    for _ in range(k - 1):
        nxt: dict = {}
        for a, p in law.items():
            for m, q in one.items():
                v = a + m if spec.combine == "add" else a * m
                nxt[v] = nxt.get(v, 0) + p * q
        law = nxt
    return law


def count_mean(spec: WildMultipliers, k: int) -> Fraction:
    """Mean line multiplier of ``k`` counted wilds: ``k mu`` (add; 1 for
    ``k = 0``) or ``mu**k`` (multiply), ``mu`` the table's mean."""
    if k == 0:
        return Fraction(1)
    return k * spec.mean if spec.combine == "add" else spec.mean**k


@dataclass(frozen=True)
class DrawnLines:
    """Exact line figures of a game with drawn wild multipliers.

    Attributes
    ----------
    rtp : Fraction
        Line RTP [x total bet].
    per_line : list of Fraction
        RTP of each payline [x line bet].
    rows : list of dict
        Combination-table rows (:func:`slotmath.engine.combinations.combination_table`'s
        columns): one per (pay, fixed multiplier of the other wilds, counted
        drawn wilds ``k``), its ``multiplier`` the mean one; and one per set of
        pays a draw decides between (``3 x W or 5 x A``), its win the mean.
    """

    rtp: Fraction
    per_line: list
    rows: list


def _mixed_mean(spec: WildMultipliers, fixed: np.ndarray, counted: np.ndarray) -> Fraction:
    """Mean win [coins] of a line whose paying entry depends on the draws:
    every draw of the drawn wilds the matching entries count, each entry
    weighed with its own counted wilds' product or sum."""
    union = 0
    for c in counted.tolist():
        union |= c
    cells = [i for i in range(64) if union >> i & 1]
    one = [(m, Fraction(w, spec.total)) for m, w in spec.table]
    total = Fraction(0)
    for draw in product(one, repeat=len(cells)):
        value = dict(zip(cells, (m for m, _ in draw), strict=True))
        p = Fraction(1)
        for _, q in draw:
            p *= q
        best = 0
        for a, c in zip(fixed.tolist(), counted.tolist(), strict=True):
            if a <= 0:
                continue
            ms = [value[i] for i in cells if c >> i & 1]
            m = (sum(ms) if spec.combine == "add" else prod(ms)) if ms else 1
            best = max(best, a * m)
        total += p * best
    return total


def tuple_labels(game: Game, level: int) -> tuple:
    """``(compiled pays, drawn wild's index, drawn_labels(...))`` of
    ``game``'s line pays at ``level``: per symbol tuple its sure entry, fixed
    pay [coins], counted drawn wilds and their position mask, or mixed
    (:func:`drawn_labels`)."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "wilddraws.py: expected spec is not None")
    S, R = len(game.symbols), game.reels
    cp = compile_pays(game, level)
    drawn = game.symbol_index[spec.symbol]
    top, low = max(m for m, _ in spec.table), min(m for m, _ in spec.table)
    if spec.combine == "add":
        lo = np.array([1.0] + [float(k * low) for k in range(1, R + 1)])
        hi = np.array([1.0] + [float(k * top) for k in range(1, R + 1)])
    else:
        lo = np.array([float(low) ** k for k in range(R + 1)])
        hi = np.array([float(top) ** k for k in range(R + 1)])
    return cp, drawn, drawn_labels(S, R, cp.arrays, drawn, lo, hi)


def drawn_line_figures(game: Game, level: int, reel_set: str = "base") -> DrawnLines:
    """Exact line RTP, per-line RTP and combination rows of ``game`` with its
    drawn wild multipliers, from the law of the counted wilds on each line
    (no rewrite of the reels).

    A line's symbols are independent across reels (row marginals); given
    the symbols, the draws are independent of them.  For a symbol tuple
    paid by one entry ``e`` whatever the draws (:func:`drawn_labels`), its
    mean win is ``fixed_e x E[M_k]`` (:func:`count_mean`), so the line's
    mean is linear in the hit counts of the labels (entry, fixed pay, k);
    the tuples a draw decides are summed draw by draw (:func:`_mixed_mean`).
    Hit counts are integers over the game's own cycle.
    """
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "wilddraws.py: expected spec is not None")
    S, R = len(game.symbols), game.reels
    cp, drawn, (entry, fixed, k_of, mixed, _) = tuple_labels(game, level)
    sure = np.flatnonzero(entry >= 0)
    keys = np.stack([entry[sure], fixed[sure], k_of[sure]], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    means = [Fraction(int(a)) * count_mean(spec, int(k)) for _, a, k in uniq.tolist()]
    # the tuples a draw decides, grouped by their candidates
    odd = np.flatnonzero(mixed)
    groups: dict = {}
    group_of = np.zeros(len(odd), dtype=np.int64)
    for n, t in enumerate(odd.tolist()):
        x = np.array(np.unravel_index(t, (S,) * R), dtype=np.int64)
        a, c = line_candidates(x, cp.arrays, drawn)
        sig = (a.tobytes(), c.tobytes())
        if sig not in groups:
            groups[sig] = (len(groups), _mixed_mean(spec, a, c), a)
        group_of[n] = groups[sig][0]
    mixed_means = [g[1] for g in sorted(groups.values(), key=lambda g: g[0])]
    hits = np.zeros(len(uniq), dtype=object)
    mixed_hits = np.zeros(len(groups), dtype=object)
    cycle, bet = game.cycle(reel_set), game.bet(level)
    per_line, seen = [], {}
    for profile in line_profiles(game, reel_set):
        key = tuple(m.tobytes() for m in profile)
        if key not in seen:
            w = tuple_weights(profile)
            h = np.zeros(len(uniq), dtype=np.int64)
            np.add.at(h, inverse, w[sure])
            hm = np.zeros(len(groups), dtype=np.int64)
            np.add.at(hm, group_of, w[odd])
            h_, hm_ = [int(v) for v in h], [int(v) for v in hm]
            win = sum((c * m for c, m in zip(h_, means, strict=True)), Fraction(0))
            win += sum((c * m for c, m in zip(hm_, mixed_means, strict=True)), Fraction(0))
            seen[key] = (h_, hm_, win)
        h_, hm_, win = seen[key]
        hits += np.array(h_, dtype=object)
        mixed_hits += np.array(hm_, dtype=object)
        per_line.append(win)
    rows = []
    for (e, _, _), h, m in zip(uniq.tolist(), hits.tolist(), means, strict=True):
        if h:
            pay = int(cp.pay[e])
            rows.append(
                combination_row("line", game.line_pays[e].name, float(m / pay), m, h, cycle, bet.total_bet)
            )
    for (_, mean, a), h in zip(sorted(groups.values(), key=lambda g: g[0]), mixed_hits.tolist(), strict=True):
        if h:
            names = [game.line_pays[e].name for e in np.flatnonzero(a > 0).tolist()]
            top_pay = int(max(cp.pay[e] for e in np.flatnonzero(a > 0).tolist()))
            rows.append(
                combination_row(
                    "line", " or ".join(names), float(mean / top_pay), mean, h, cycle, bet.total_bet
                )
            )
    rtp = sum(per_line, Fraction(0)) / (cycle * bet.total_bet)
    return DrawnLines(rtp, [w / (cycle * bet.line_bet) for w in per_line], rows)
